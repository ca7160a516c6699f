// /setup-mfa and its steps: a projection of the setupMfa machine (machines/setupMfa.ts). The
// passkey is offered only where the machine would take it (the browser can make one that works on this host).
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import { choosesKind, type setupMfaMachine } from '../../machines/setupMfa.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { PASSKEY_NAME_MAX } from '../../contract/rules.ts';
import { CodeEntryForm } from '../components/CodeEntry.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';

type SetupMfaRef = ActorRefFrom<typeof setupMfaMachine>;

/** What the selection offers: a phone by each of its channels, an email, the authenticator app, a passkey. */
const CHOICES = ['sms', 'call', 'whatsapp', 'email', 'totp', 'passkey'] as const;

export default function SetupMfaPage() {
  const setupMfa = useFlowChild('setupMfa');
  return <FlowCard flow={setupMfa}>{(flow) => <SetupMfaSteps setupMfa={flow} />}</FlowCard>;
}

function SetupMfaSteps({ setupMfa }: { setupMfa: SetupMfaRef }) {
  const { t } = useTranslation();
  const state = useSelector(setupMfa, (s) => s);
  const { forced, customer, voluntary, kind, target, error, challenge, name, passkey } = state.context;
  const entry = state.children.codeEntry;

  if (state.matches('intro')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setupMfa.intro.title')}</h1>
        <ul className="mt-4 list-disc space-y-1 pl-5 text-sm text-slate-800">
          <li>{t('setupMfa.intro.reason1')}</li>
          <li>{t('setupMfa.intro.reason2')}</li>
        </ul>
        {/* What comes next: the choice of a phone, an email or the app, or the email when an SMS method exists. */}
        <p className="mt-4 text-sm font-medium text-slate-800">
          {t('setupMfa.intro.next', { context: choosesKind(state.context) ? 'choose' : 'email' })}
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
          {CHOICES.filter((kind) => state.can({ type: 'CHOOSE', kind })).map((kind) => (
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
            first
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
  if (state.matches('passkey')) {
    const working = !state.matches({ passkey: 'ready' });
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setupMfa.passkey.title')}</h1>
        <p className="mt-2 text-sm text-slate-700">{t('setupMfa.passkey.text')}</p>
        <div className="mt-4">
          {/* Its failures speak of making a passkey. */}
          <ErrorMessage error={error} context="create" />
        </div>
        <p role="status" className="mt-3 text-sm empty:hidden">
          {working && t('setupMfa.passkey.waiting')}
        </p>
        <div className="mt-6 space-y-3">
          <Button full loading={working} onClick={() => setupMfa.send({ type: 'CREATE' })}>
            {t('setupMfa.passkey.create')}
          </Button>
          {/* Back stops the browser's question too. */}
          <Button variant="secondary" full onClick={() => setupMfa.send({ type: 'BACK' })}>
            {t('setupMfa.back')}
          </Button>
        </div>
      </>
    );
  }
  if (state.matches('naming') || state.matches('renaming')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setupMfa.passkeyName.title')}</h1>
        <p className="mt-2 text-sm text-slate-700">{t('setupMfa.passkeyName.text')}</p>
        <form
          className="mt-5 space-y-4"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            setupMfa.send({ type: 'SUBMIT' });
          }}
        >
          <TextField
            label={t('setupMfa.passkeyName.label')}
            autoComplete="off"
            value={name}
            maxLength={PASSKEY_NAME_MAX}
            first
            error={error}
            onChange={(value) => setupMfa.send({ type: 'CHANGE', value })}
          />
          <Button type="submit" full loading={state.matches('renaming')}>
            {t('setupMfa.passkeyName.save')}
          </Button>
          <Button
            variant="secondary"
            full
            disabled={state.matches('renaming')}
            onClick={() => setupMfa.send({ type: 'SKIP' })}
          >
            {t('setupMfa.passkeyName.skip')}
          </Button>
        </form>
      </>
    );
  }
  // The destination is another account's: the merge's offer opens (/duplicated).
  if (state.matches('merging')) return <p role="status">{t('common.loading')}</p>;
  return (
    <>
      <h1 className="text-2xl font-bold">{t('setupMfa.success.title')}</h1>
      <p className="mt-2 text-sm text-slate-700">
        {t('setupMfa.success.text', { context: passkey ? 'passkey' : undefined })}
      </p>
      <Button full className="mt-6" onClick={() => setupMfa.send({ type: 'CONTINUE' })}>
        {t('setupMfa.success.continue')}
      </Button>
    </>
  );
}
