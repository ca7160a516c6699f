// New recovery keys, shown once wherever they are made (the authenticator's set-up, the recovery
// screen after a sign-in, Security): the keys, ways to keep them (copy, download, print) and the
// person's word that they did.
import { useTranslation } from 'react-i18next';
import { Button } from './Button.tsx';
import { SectionCard } from './SectionCard.tsx';

export function RecoveryKeys({
  keys,
  onSaved,
  className = 'mt-5',
}: {
  keys: string[];
  onSaved: () => void;
  className?: string;
}) {
  const { t } = useTranslation();
  const text = keys.join('\n');
  return (
    <SectionCard
      titleId="keys-title"
      title={t('mfa.recovery.newKeys')}
      intro={t('authenticator.keysOnce')}
      className={className}
    >
      <ul className="mt-4 grid grid-cols-2 gap-2 font-mono" data-testid="recovery-keys">
        {keys.map((key) => (
          <li key={key}>{key}</li>
        ))}
      </ul>
      <div className="mt-4 flex flex-wrap gap-3 text-sm">
        <Button variant="secondary" size="sm" onClick={() => void navigator.clipboard?.writeText(text)}>
          {t('authenticator.copy')}
        </Button>
        <a
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          download="tessera-recovery-keys.txt"
          className="btn btn-secondary btn-sm"
        >
          {t('authenticator.download')}
        </a>
        <Button variant="secondary" size="sm" onClick={() => window.print()}>
          {t('authenticator.print')}
        </Button>
      </div>
      <Button className="mt-5" onClick={onSaved}>
        {t('mfa.recovery.continue')}
      </Button>
    </SectionCard>
  );
}
