// /mfa/totp-recovery: after a recovery key, how many remain; skip, or generate new keys (shown once).
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { totpRecoveryMachine } from '../../machines/totpRecovery.ts';
import { useFlowChild } from '../components/FlowCard.tsx';
import { UserLayout } from '../components/UserLayout.tsx';

type RecoveryRef = ActorRefFrom<typeof totpRecoveryMachine>;

export default function TotpRecoveryPage() {
  const { t } = useTranslation();
  const recovery = useFlowChild('totpRecovery');
  return (
    <UserLayout>
      <h1 className="text-2xl font-bold">{t('mfa.recovery.title')}</h1>
      {recovery ? <Recovery recovery={recovery} /> : <p className="mt-4">{t('common.loading')}</p>}
    </UserLayout>
  );
}

function Recovery({ recovery }: { recovery: RecoveryRef }) {
  const { t } = useTranslation();
  const { keysLeft, keys, error } = useSelector(recovery, (s) => s.context);
  const showing = useSelector(recovery, (s) => s.matches('showingKeys'));
  if (showing && keys) {
    return (
      <section aria-labelledby="keys-title" className="mt-6 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="keys-title" className="text-lg font-semibold">{t('mfa.recovery.newKeys')}</h2>
        <p className="mt-1 text-sm text-slate-700">{t('mfa.recovery.keepThem')}</p>
        <ul className="mt-4 grid grid-cols-2 gap-2 font-mono" data-testid="recovery-keys">
          {keys.map((key) => <li key={key}>{key}</li>)}
        </ul>
        <button type="button" onClick={() => recovery.send({ type: 'CONTINUE' })} className="mt-5 rounded bg-brand px-4 py-2 font-semibold text-white">
          {t('mfa.recovery.continue')}
        </button>
      </section>
    );
  }
  return (
    <section className="mt-6 rounded-lg border border-slate-200 bg-white p-5">
      <p data-testid="keys-left">{t('mfa.recovery.left', { count: keysLeft })}</p>
      {keysLeft === 0 && <p role="alert" className="mt-3 rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-900">{t('mfa.recovery.none')}</p>}
      {error && <p role="alert" className="mt-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">{t(`errors.${error}`)}</p>}
      <div className="mt-5 flex flex-wrap gap-3">
        <button type="button" onClick={() => recovery.send({ type: 'REGENERATE' })} className="rounded bg-brand px-4 py-2 font-semibold text-white">{t('mfa.recovery.regenerate')}</button>
        <button type="button" onClick={() => recovery.send({ type: 'RESET' })} className="rounded border border-slate-400 px-4 py-2">{t('mfa.recovery.reset')}</button>
        {keysLeft > 0 && <button type="button" onClick={() => recovery.send({ type: 'SKIP' })} className="rounded border border-slate-400 px-4 py-2">{t('mfa.recovery.skip')}</button>}
      </div>
    </section>
  );
}
