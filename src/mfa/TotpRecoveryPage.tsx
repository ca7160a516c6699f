// /mfa/totp-recovery: after a recovery key, how many remain; skip, reset the authenticator, or
// generate new keys (the authenticator's success page shows them once).
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { totpRecoveryMachine } from '../../machines/totpRecovery.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
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
  const { keysLeft, error } = useSelector(recovery, (s) => s.context);
  // Each way on that calls the server waits, busy, and none can be pressed meanwhile.
  const regenerating = useSelector(recovery, (s) => s.matches('regenerating'));
  const resetting = useSelector(recovery, (s) => s.matches('resetting'));
  const waiting = regenerating || resetting;
  if (keysLeft === null)
    return (
      <p className="mt-4" role="status">
        {t('common.loading')}
      </p>
    );
  return (
    <Card className="mt-6">
      {/* Why the person is here, and what each way on is for. */}
      <p className="mb-3" data-testid="recovery-why">
        {t('mfa.recovery.why')}
      </p>
      <p data-testid="keys-left">{t('mfa.recovery.left', { count: keysLeft })}</p>
      {keysLeft === 0 && (
        <Alert tone="warning" role="alert" className="mt-3">
          {t('mfa.recovery.none')}
        </Alert>
      )}
      {error && (
        <Alert tone="error" className="mt-3">
          {t([`errors.${error}`, 'errors.internal_error'])}
        </Alert>
      )}
      <div className="mt-5 flex flex-wrap gap-3">
        <Button loading={regenerating} disabled={resetting} onClick={() => recovery.send({ type: 'REGENERATE' })}>
          {t('mfa.recovery.regenerate')}
        </Button>
        <Button
          variant="secondary"
          loading={resetting}
          disabled={regenerating}
          onClick={() => recovery.send({ type: 'RESET' })}
        >
          {t('mfa.recovery.reset')}
        </Button>
        {keysLeft > 0 && (
          <Button variant="secondary" disabled={waiting} onClick={() => recovery.send({ type: 'SKIP' })}>
            {t('mfa.recovery.skip')}
          </Button>
        )}
      </div>
    </Card>
  );
}
