// /setup-mfa and its steps: a projection of the enrolment machine.
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { forcedMfaMachine } from '../../machines/forcedMfa.ts';
import { TextField } from '../components/Field.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';

type EnrolRef = ActorRefFrom<typeof forcedMfaMachine>;

export default function SetupMfaPage() {
  const enrol = useFlowChild('forcedMfa');
  return <FlowCard flow={enrol}>{(flow) => <Enrolment enrol={flow} />}</FlowCard>;
}

const primary = 'w-full rounded bg-brand px-4 py-2 font-semibold text-white hover:bg-brand-dark disabled:opacity-70';
const secondary = 'w-full rounded border border-slate-400 px-4 py-2';

function Enrolment({ enrol }: { enrol: EnrolRef }) {
  const { t } = useTranslation();
  const state = useSelector(enrol, (s) => s);
  const { forced, customer, kind, target, code, error, challenge } = state.context;

  if (state.matches('intro')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setup.intro.title')}</h1>
        <ul className="mt-4 list-disc space-y-1 pl-5 text-sm text-slate-800">
          <li>{t('setup.intro.reason1')}</li>
          <li>{t('setup.intro.reason2')}</li>
        </ul>
        {customer && (
          <div className="mt-4 rounded border border-amber-400 bg-amber-50 p-3 text-sm text-amber-900">
            <p>{t('setup.intro.customerWarning')}</p>
            <p className="mt-1">{t('setup.intro.customerAdvice')}</p>
          </div>
        )}
        <div className="mt-6 space-y-3">
          <button type="button" className={primary} onClick={() => enrol.send({ type: 'ACTIVATE' })}>{t('setup.intro.activate')}</button>
          {customer && !forced && <button type="button" className={secondary} onClick={() => enrol.send({ type: 'SKIP' })}>{t('setup.intro.skip')}</button>}
        </div>
      </>
    );
  }
  if (state.matches('selection')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setup.selection.title')}</h1>
        <div className="mt-5 space-y-3">
          <button type="button" className={secondary} onClick={() => enrol.send({ type: 'CHOOSE', kind: 'sms' })}>{t('setup.selection.phone')}</button>
          <button type="button" className={secondary} onClick={() => enrol.send({ type: 'CHOOSE', kind: 'email' })}>{t('setup.selection.email')}</button>
        </div>
      </>
    );
  }
  if (state.matches('destination') || state.matches('requesting')) {
    const email = kind === 'email';
    return (
      <>
        <h1 className="text-2xl font-bold">{t(email ? 'setup.destination.emailTitle' : 'setup.destination.phoneTitle')}</h1>
        <form className="mt-5 space-y-4" noValidate onSubmit={(event) => { event.preventDefault(); enrol.send({ type: 'SUBMIT' }); }}>
          <TextField
            label={t(email ? 'login.field.email' : 'login.field.phone')}
            type={email ? 'email' : 'tel'}
            autoComplete={email ? 'email' : 'tel'}
            value={target}
            error={error}
            onChange={(value) => enrol.send({ type: 'CHANGE', value })}
          />
          <button type="submit" className={primary} disabled={state.matches('requesting')}>{t('setup.destination.send')}</button>
          <button type="button" className={secondary} onClick={() => enrol.send({ type: 'BACK' })}>{t('setup.back')}</button>
        </form>
      </>
    );
  }
  if (state.matches('confirmation') || state.matches('verifying')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('setup.confirmation.title')}</h1>
        <p className="mt-1 text-sm text-slate-700">{t('setup.confirmation.text', { target: challenge?.target ?? '' })}</p>
        <form className="mt-5 space-y-4" noValidate onSubmit={(event) => { event.preventDefault(); enrol.send({ type: 'SUBMIT' }); }}>
          <TextField
            label={t('mfa.code.label')}
            inputMode="numeric"
            autoComplete="one-time-code"
            code
            value={code}
            error={error}
            onChange={(value) => enrol.send({ type: 'CHANGE', value })}
          />
          <button type="submit" className={primary} disabled={state.matches('verifying')}>{t('mfa.code.confirm')}</button>
          <button type="button" className={secondary} onClick={() => enrol.send({ type: 'BACK' })}>{t('setup.back')}</button>
        </form>
      </>
    );
  }
  return (
    <>
      <h1 className="text-2xl font-bold">{t('setup.success.title')}</h1>
      <p className="mt-2 text-sm text-slate-700">{t('setup.success.text')}</p>
      <button type="button" className={`${primary} mt-6`} onClick={() => enrol.send({ type: 'CONTINUE' })}>{t('setup.success.continue')}</button>
    </>
  );
}
