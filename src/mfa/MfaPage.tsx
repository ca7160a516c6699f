// /mfa/methods and /mfa: a projection of the MFA code machine (choose a method, then enter the code
// in the shared code entry; a passkey is used from the choice itself, the browser asking for it).
import { useSelector } from '@xstate/react';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import { CODED, type ChallengeRequest, type MfaVerified, type mfaMachine } from '../../machines/mfa.ts';
import { Button } from '../components/Button.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { Alert } from '../components/Alert.tsx';
import { useRootActor } from '../shell/context.ts';
import { CodeEntryForm, type CodeEntryRef } from '../components/CodeEntry.tsx';
import { useCeilingCaptcha } from '../components/captcha/useCeilingCaptcha.tsx';
import { pathOf } from '../../machines/routes.ts';
import { minutesSeconds, useNow } from '../components/useNow.ts';
import { answerFormOf, cardEndings, MethodOptions } from '../components/MethodOptions.tsx';
import { HiddenUsername } from '../components/NewPassword.tsx';

type MfaRef = ActorRefFrom<typeof mfaMachine>;

/** The ways a code reaches a phone. */
const PHONE_CHANNELS = ['sms', 'call', 'whatsapp'] as const;

export function MfaPage() {
  // A sign-in's second factor, or a step-up before a sensitive screen.
  const mfa = useFlowChild('mfa', 'stepUp');
  return <FlowCard flow={mfa}>{(flow) => <MfaSteps mfa={flow} />}</FlowCard>;
}

function MfaSteps({ mfa }: { mfa: MfaRef }) {
  // A new code on its way keeps the code screen (as one sent another way does); a first one keeps the
  // choice of method, as a passkey does.
  const choosing = useSelector(
    mfa,
    (s) => s.matches('choosing') || (s.matches('requesting') && s.context.challenge === null) || s.matches('passkey'),
  );
  const password = useSelector(mfa, (s) => s.matches('password'));
  if (password) return <PasswordStep mfa={mfa} />;
  return choosing ? <MethodChoice mfa={mfa} /> : <CodeStep mfa={mfa} />;
}

/** A step-up of an account without a second factor: its password, typed again (past the account's
 * ceiling of wrong passwords, with the puzzle the server asked for). */
function PasswordStep({ mfa }: { mfa: MfaRef }) {
  const { t } = useTranslation();
  const error = useSelector(mfa, (s) => s.context.error);
  const captchaLevel = useSelector(mfa, (s) => s.context.captchaLevel);
  const checking = useSelector(mfa, (s) => s.matches({ password: 'checking' }));
  const username = useSelector(useRootActor(), (s) => s.context.user?.email[0]?.value ?? '');
  const puzzle = useCeilingCaptcha(captchaLevel);
  // The password stays in the form; the machine gets it only with the request.
  const [typed, setTyped] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mfa.send({ type: 'CONFIRM_PASSWORD', password: typed, ...puzzle.answer() });
  };
  return (
    <>
      <h1 className="text-2xl font-bold">{t('mfa.password.title')}</h1>
      <p className="mt-1 text-sm text-slate-700">{t('mfa.password.text')}</p>
      <form onSubmit={submit} className="mt-5 space-y-4" noValidate>
        <HiddenUsername value={username} />
        <TextField
          label={t('mfa.password.label')}
          type="password"
          autoComplete="current-password"
          value={typed}
          onChange={setTyped}
          // Only a password is asked here: a wrong one is said as such, not as a wrong username.
          {...(error?.code === 'invalid_credentials'
            ? { problem: t('errors.invalid_credentials', { context: 'password' }) }
            : { error })}
          first
        />
        {puzzle.widget}
        <Button type="submit" full loading={checking}>
          {t('mfa.password.submit')}
        </Button>
      </form>
      <p className="mt-5 text-sm">
        <BackLink mfa={mfa} />
      </p>
    </>
  );
}

function MethodChoice({ mfa }: { mfa: MfaRef }) {
  const { t } = useTranslation();
  const trustId = useId();
  const { methods, error, selected, channel, passkey, loginPayload, remember } = useSelector(mfa, (s) => s.context);
  const sending = useSelector(mfa, (s) => s.matches('requesting'));
  const usingPasskey = useSelector(mfa, (s) => s.matches('passkey'));
  const checkingPasskey = useSelector(mfa, (s) => s.matches({ passkey: 'checking' }));
  const busy =
    sending && selected
      ? { id: selected.id, channel }
      : usingPasskey && passkey
        ? { id: passkey.id, channel: null }
        : null;
  return (
    <>
      <h1 className="text-2xl font-bold">{t('mfa.choose.title')}</h1>
      {/* "Receive a code" only where every way is a code sent; an app, a key or a card is no such thing. */}
      <p className="mt-1 text-sm text-slate-700">
        {t('mfa.choose.text', { context: methods.every((m) => CODED.has(m.method)) ? undefined : 'any' })}
      </p>
      {/* Before the options: a passkey goes at once, so a sign-in's trust is chosen first (a code's
          screen starts with the same choice). */}
      {loginPayload !== null && methods.some((m) => m.method === 'passkey') && (
        <div className="mt-5 flex items-center gap-2">
          <input
            id={trustId}
            type="checkbox"
            checked={remember}
            onChange={() => mfa.send({ type: 'TOGGLE_REMEMBER' })}
            className="h-4 w-4"
          />
          <label htmlFor={trustId} className="text-sm">
            {t('mfa.code.trust')}
          </label>
        </div>
      )}
      {methods.length === 0 ? (
        // Only passkeys, which this browser cannot use: said, rather than an empty choice.
        <Alert tone="warning" className="mt-5">
          {t('mfa.choose.noneHere')}
        </Alert>
      ) : (
        <MethodOptions
          methods={methods}
          busy={busy}
          onSelect={(id, channel) => mfa.send({ type: 'SELECT', id, ...(channel ? { channel } : {}) })}
        />
      )}
      <div className="mt-4">
        {error?.code === 'resend_too_soon' && error.retryAt ? (
          <ResendWait until={error.retryAt} />
        ) : (
          // A passkey's failure speaks of its request, not of a code.
          <ErrorMessage error={error} context={passkey ? 'passkey' : undefined} />
        )}
      </div>
      {sending && (
        <p role="status" className="mt-3 text-sm">
          {t('mfa.sending')}
        </p>
      )}
      {usingPasskey && (
        <p role="status" className="mt-3 text-sm">
          {t(checkingPasskey ? 'mfa.passkey.checking' : 'mfa.passkey.waiting')}
        </p>
      )}
      <p className="mt-5 text-sm">
        <BackLink mfa={mfa} />
      </p>
    </>
  );
}

function CodeStep({ mfa }: { mfa: MfaRef }) {
  const { t } = useTranslation();
  const { selected, challenge, methods, loginPayload, channel } = useSelector(mfa, (s) => s.context);
  const entry = useSelector(mfa, (s) => s.children.codeEntry);
  if (!selected || !challenge) return null;
  const kind = selected.method === 'sms' && channel ? channel : selected.method;
  const target = challenge.sent?.target ?? '';
  return (
    <>
      {entry ? (
        <CodeHeading entry={entry} kind={kind} values={{ target, ...cardEndings(selected) }} />
      ) : (
        <>
          <h1 className="text-2xl font-bold">{t(`mfa.code.title.${kind}`)}</h1>
          <p className="mt-1 text-sm text-slate-700">
            {t(`mfa.code.instruction.${kind}`, { target, ...cardEndings(selected) })}
          </p>
        </>
      )}
      {entry ? (
        <CodeEntryForm entry={entry} offerTrust={loginPayload !== null} {...answerFormOf(selected.method)}>
          {methods.length > 1 && (
            <button type="button" onClick={() => mfa.send({ type: 'CHANGE_METHOD' })} className="text-brand underline">
              {t('mfa.code.changeMethod')}
            </button>
          )}
          <BackLink mfa={mfa} />
          {selected.method === 'sms' && <OtherWays mfa={mfa} entry={entry} phone={selected} channel={kind} />}
        </CodeEntryForm>
      ) : (
        <p role="status" className="mt-5 text-sm">
          {t('mfa.sending')}
        </p>
      )}
    </>
  );
}

/** The code step's title and instruction, by the way the code went: the one chosen, or the one it
 * fell back to when that did not reach the person (the entry's notice says why). */
function CodeHeading({
  entry,
  kind,
  values,
}: {
  entry: CodeEntryRef<MfaVerified, ChallengeRequest>;
  kind: string;
  values: Record<string, unknown>;
}) {
  const { t } = useTranslation();
  const delivery = useSelector(entry, (s) => s.context.delivery);
  const way = delivery?.fell_back_from ? delivery.channel : kind;
  return (
    <>
      <h1 className="text-2xl font-bold">{t(`mfa.code.title.${way}`)}</h1>
      <p className="mt-1 text-sm text-slate-700">{t(`mfa.code.instruction.${way}`, values)}</p>
    </>
  );
}

/** A phone's code sent by another of its ways: a new send, offered once a new code may be asked for. */
function OtherWays({
  mfa,
  entry,
  phone,
  channel,
}: {
  mfa: MfaRef;
  entry: CodeEntryRef<MfaVerified, ChallengeRequest>;
  phone: MfaMethodSummary;
  channel: string;
}) {
  const { t } = useTranslation();
  const ready = useSelector(entry, (s) => s.matches({ entering: { resend: 'ready' } }));
  const resendAt = useSelector(entry, (s) => s.context.sent?.resendAt ?? null);
  const now = useNow(!ready);
  return (
    <details className="w-full">
      <summary className="cursor-pointer text-brand underline">{t('mfa.code.otherWay')}</summary>
      {!ready && resendAt !== null && (
        <p className="mt-3 text-slate-700">{t('mfa.choose.wait', { time: minutesSeconds(resendAt - now) })}</p>
      )}
      <ul className="mt-3 space-y-2">
        {PHONE_CHANNELS.filter((c) => c !== channel).map((c) => (
          <li key={c}>
            <Button
              variant="secondary"
              full
              disabled={!ready}
              onClick={() => mfa.send({ type: 'SELECT', id: phone.id, channel: c })}
            >
              {t(`mfa.choose.${c}`, { target: phone.target ?? '' })}
            </Button>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Back to sign-in, or, for a step-up, back to the area that asked for it (the security overview, the
 * profile); for the one an application's request asked for, home (the request is left unanswered). */
function BackLink({ mfa }: { mfa: MfaRef }) {
  const { t } = useTranslation();
  const signingIn = useSelector(mfa, (s) => s.context.loginPayload !== null);
  // The root's state says whose step-up this is, by tag.
  const forApplication = useSelector(useRootActor(), (s) => s.hasTag('stepUpFor.application'));
  const forProfile = useSelector(useRootActor(), (s) => s.hasTag('stepUpFor.profile'));
  if (signingIn)
    return (
      <Link to={pathOf('login', 'email')} className="text-brand underline">
        {t('mfa.back')}
      </Link>
    );
  if (forApplication)
    return (
      <Link to={pathOf('dashboard', 'home')} className="text-brand underline">
        {t('consent.home')}
      </Link>
    );
  if (forProfile)
    return (
      <Link to={pathOf('profile', 'overview')} className="text-brand underline">
        {t('profile.backToProfile')}
      </Link>
    );
  return (
    <Link to={pathOf('security', 'overview')} className="text-brand underline">
      {t('security.back')}
    </Link>
  );
}

/** A code was sent for this method moments ago: how long until a new one can go (then, that it can). */
function ResendWait({ until }: { until: number }) {
  const { t } = useTranslation();
  const now = useNow(true);
  const left = until - now;
  return (
    <p role="status" className="text-sm text-slate-800">
      {left > 0 ? t('mfa.choose.wait', { time: minutesSeconds(left) }) : t('mfa.choose.waitOver')}
    </p>
  );
}
