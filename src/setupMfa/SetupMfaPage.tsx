// /setup-mfa and its steps: a projection of the setupMfa machine (machines/setupMfa.ts).
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { setupMfaMachine } from '../../machines/setupMfa.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { TextField } from '../components/Field.tsx';
import { CodeEntryForm } from '../components/CodeEntry.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';

type SetupMfaRef = ActorRefFrom<typeof setupMfaMachine>;

/** What the selection offers: a phone by each of its channels, an email, the authenticator app. */
const CHOICES = ['sms', 'call', 'whatsapp', 'email', 'totp'] as const;

export default function SetupMfaPage() {
  const setupMfa = useFlowChild('setupMfa');
  return <FlowCard flow={setupMfa}>{(flow) => <SetupMfaSteps setupMfa={flow} />}</FlowCard>;
}

function SetupMfaSteps({ setupMfa }: { setupMfa: SetupMfaRef }) {
  const { t } = useTranslation();
  const state = useSelector(setupMfa, (s) => s);
  const { forced, customer, voluntary, hasSms, kind, target, error, challenge } = state.context;
  const entry = state.children.codeEntry;

  if (state.matches('intro')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setupMfa.intro.title')}</h1>
        <ul className="mt-4 list-disc space-y-1 pl-5 text-sm text-slate-800">
          <li>{t('setupMfa.intro.reason1')}</li>
          <li>{t('setupMfa.intro.reason2')}</li>
        </ul>
        {/* What comes next, as the spec orders it: a phone, or the email when an SMS method exists; customers choose. */}
        <p className="mt-4 text-sm font-medium text-slate-800">
          {t('setupMfa.intro.next', { context: customer && !forced ? 'choose' : hasSms ? 'email' : 'phone' })}
        </p>
        {customer && (
          <Alert tone="warning" role={null} className="mt-4">
            <p>{t('setupMfa.intro.customerWarning')}</p>
            <p className="mt-1">{t('setupMfa.intro.customerAdvice')}</p>
          </Alert>
        )}
        <div className="mt-6 space-y-3">
          <Button full onClick={() => setupMfa.send({ type: 'ACTIVATE' })}>
            {t('setupMfa.intro.activate')}
          </Button>
          {customer && !forced && (
            <Button variant="secondary" full onClick={() => setupMfa.send({ type: 'SKIP' })}>
              {t('setupMfa.intro.skip')}
            </Button>
          )}
        </div>
      </>
    );
  }
  if (state.matches('selection')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setupMfa.selection.title')}</h1>
        <div className="mt-5 space-y-3">
          {CHOICES.map((kind) => (
            <Button key={kind} variant="secondary" full onClick={() => setupMfa.send({ type: 'CHOOSE', kind })}>
              {t(`setupMfa.selection.${kind}`)}
            </Button>
          ))}
        </div>
        <div className="mt-6 space-y-3">
          {!voluntary && customer && !forced && (
            <Button variant="secondary" full onClick={() => setupMfa.send({ type: 'SKIP' })}>
              {t('setupMfa.intro.skip')}
            </Button>
          )}
          <Button variant="secondary" full onClick={() => setupMfa.send({ type: 'BACK' })}>
            {t('setupMfa.back')}
          </Button>
        </div>
      </>
    );
  }
  if (state.matches('destination') || state.matches('requesting')) {
    const email = kind === 'email';
    return (
      <>
        <h1 className="text-2xl font-bold">
          {t(email ? 'setupMfa.destination.emailTitle' : 'setupMfa.destination.phoneTitle')}
        </h1>
        <form
          className="mt-5 space-y-4"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            setupMfa.send({ type: 'SUBMIT' });
          }}
        >
          <TextField
            label={t(email ? 'login.field.email' : 'login.field.phone')}
            type={email ? 'email' : 'tel'}
            autoComplete={email ? 'email' : 'tel'}
            value={target}
            error={error}
            onChange={(value) => setupMfa.send({ type: 'CHANGE', value })}
          />
          <Button type="submit" full loading={state.matches('requesting')}>
            {t('setupMfa.destination.send')}
          </Button>
          <Button variant="secondary" full onClick={() => setupMfa.send({ type: 'BACK' })}>
            {t('setupMfa.back')}
          </Button>
        </form>
      </>
    );
  }
  if (state.matches('confirmation') || (state.matches('requesting') && challenge)) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setupMfa.confirmation.title')}</h1>
        <p className="mt-1 text-sm text-slate-700">
          {t('setupMfa.confirmation.text', { target: challenge?.sent.target ?? '' })}
        </p>
        {entry ? (
          <CodeEntryForm entry={entry}>
            <Button variant="secondary" full onClick={() => setupMfa.send({ type: 'BACK' })}>
              {t('setupMfa.back')}
            </Button>
          </CodeEntryForm>
        ) : (
          <p role="status" className="mt-5 text-sm">
            {t('mfa.sending')}
          </p>
        )}
      </>
    );
  }
  // The destination is another account's: the merge's offer opens (/duplicated).
  if (state.matches('merging')) return <p role="status">{t('common.loading')}</p>;
  return (
    <>
      <h1 className="text-2xl font-bold">{t('setupMfa.success.title')}</h1>
      <p className="mt-2 text-sm text-slate-700">{t('setupMfa.success.text')}</p>
      <Button full className="mt-6" onClick={() => setupMfa.send({ type: 'CONTINUE' })}>
        {t('setupMfa.success.continue')}
      </Button>
    </>
  );
}
