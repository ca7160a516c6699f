// /forgot-password/email|phone, /forgot-password-sent, /reset-password, /reset-password-confirmed:
// a projection of the forgotten-password machine.
import { useSelector } from '@xstate/react';
import { useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { CodeRequest, forgotPasswordMachine } from '../../machines/forgotPassword.ts';
import { Button } from '../components/Button.tsx';
import { ChannelChoice } from '../components/ChannelChoice.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { NewPassword } from '../components/NewPassword.tsx';
import { CodeEntryForm, type CodeEntryRef } from '../components/CodeEntry.tsx';
import { Captcha, type CaptchaHandle } from '../components/captcha/Captcha.tsx';
import { LinkLine } from '../components/LinkLine.tsx';
import { Form } from '../components/Form.tsx';
import { NO_CAPTCHA_ELEMENT } from '../../machines/captchaAnswer.ts';
import { pathOf } from '../../machines/routes.ts';

type ForgotRef = ActorRefFrom<typeof forgotPasswordMachine>;

export default function ForgotPasswordPage() {
  const forgot = useFlowChild('forgotPassword');
  return <FlowCard flow={forgot}>{(flow) => <Forgot forgot={flow} />}</FlowCard>;
}

/** Shown once a new code can be asked for; mounted from the start, so its puzzle is solved by then. */
function ResendCaptcha({
  entry,
  children,
}: {
  entry: CodeEntryRef<{ payload: string }, CodeRequest>;
  children: ReactNode;
}) {
  const wanted = useSelector(
    entry,
    (s) => s.matches({ entering: { resend: 'ready' } }) || s.matches({ entering: { resend: 'sending' } }),
  );
  return (
    <div className="mt-3" hidden={!wanted}>
      {children}
    </div>
  );
}

function Forgot({ forgot }: { forgot: ForgotRef }) {
  const { t } = useTranslation();
  const state = useSelector(forgot, (s) => s);
  const { mode, username, channel, sent, error } = state.context;
  const { newPassword, codeEntry: entry } = state.children;
  const captcha = useRef<CaptchaHandle>(null);
  const answer = () => captcha.current?.take() ?? NO_CAPTCHA_ELEMENT;

  if (state.matches('resetting') && newPassword)
    return <NewPassword weak={newPassword} title="forgotPassword.reset.title" text="forgotPassword.reset.text" />;
  if (state.matches('confirmed')) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('forgotPassword.confirmed.title')}</h1>
        <p className="mt-1 text-sm text-slate-700">{t('forgotPassword.confirmed.text')}</p>
        <Button full className="mt-5" onClick={() => forgot.send({ type: 'CONTINUE' })}>
          {t('forgotPassword.confirmed.signIn')}
        </Button>
      </>
    );
  }
  if (state.matches('sent') && sent) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('forgotPassword.sent.title')}</h1>
        <p className="mt-1 text-sm text-slate-700">
          {t(`forgotPassword.sent.text.${sent.technology === 'EMAIL' ? 'email' : sent.technology}`, {
            // What the person typed a moment ago, as typed: the server's answer masks it only
            // because it is the same for anyone who asks.
            recipient: username.trim() || sent.recipient.join(', '),
          })}
        </p>
        {entry ? (
          <>
            <CodeEntryForm entry={entry} onResend={() => entry.send({ type: 'RESEND', captcha: answer() })} />
            {/* A new code asks for the CAPTCHA again, as the first request did: it shows (and solves
                itself) once a new code can be asked for, not while the person types the code. */}
            <ResendCaptcha entry={entry}>
              <Captcha ref={captcha} />
            </ResendCaptcha>
          </>
        ) : (
          <p role="status" className="mt-5 text-sm">
            {t('mfa.sending')}
          </p>
        )}
      </>
    );
  }
  return (
    <>
      <h1 className="text-2xl font-bold">{t('forgotPassword.title')}</h1>
      <p className="mt-1 text-sm text-slate-700">{t('forgotPassword.text')}</p>
      <nav aria-label={t('forgotPassword.methods')} className="mt-5 grid grid-cols-2 gap-1 rounded bg-slate-100 p-1">
        {(['email', 'phone'] as const).map((m) => (
          <Link
            key={m}
            to={pathOf('forgotPassword', m)}
            aria-current={mode === m ? 'page' : undefined}
            className={`rounded px-3 py-2 text-center text-sm font-medium ${mode === m ? 'bg-white text-brand shadow' : 'text-slate-700'}`}
          >
            {t(`login.by.${m}`)}
          </Link>
        ))}
      </nav>
      <Form className="mt-5 space-y-4" onSubmit={() => forgot.send({ type: 'SUBMIT', captcha: answer() })}>
        <TextField
          label={t(mode === 'email' ? 'login.field.email' : 'login.field.phone')}
          type={mode === 'email' ? 'email' : 'tel'}
          autoComplete="username"
          value={username}
          first
          onChange={(value) => forgot.send({ type: 'CHANGE', field: 'username', value })}
        />
        {mode === 'phone' && (
          <ChannelChoice channel={channel} onChange={(c) => forgot.send({ type: 'SET_CHANNEL', channel: c })} />
        )}
        <Captcha ref={captcha} />
        <ErrorMessage error={error} />
        <Button type="submit" full loading={state.matches('requesting')}>
          {t('forgotPassword.send')}
        </Button>
      </Form>
      <LinkLine to={pathOf('login', 'email')}>{t('mfa.back')}</LinkLine>
    </>
  );
}
