// Sign-in by email or phone (spec §2 login): a projection of the login machine.
import { useSelector } from '@xstate/react';
import { lazy, Suspense, useCallback, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { loginMachine } from '../../machines/login.ts';
import { useRootActor } from '../shell/context.ts';
import { Alert } from '../components/Alert.tsx';
import { Brochure } from '../components/Brochure.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { useFocusOnFailure } from '../components/Field.tsx';
import { PublicLayout } from '../components/PublicLayout.tsx';
import { variant } from '../variant.ts';
import { signingInTo } from '../shell/boot.ts';
import { CAPTCHA_FAILURES } from '../../machines/captchaAnswer.ts';
import type { CaptchaHandle } from '../components/captcha/Captcha.tsx';
import { pathOf } from '../../machines/routes.ts';
import { forgotPasswordPathOf } from '../../machines/session.ts';
import { microsoftLinkOf } from '../../machines/microsoft.ts';

// Needed only after repeated failures: loaded then, not with the first screen.
const Captcha = lazy(() => import('../components/captcha/Captcha.tsx').then((m) => ({ default: m.Captcha })));
// Only where the server has Microsoft sign-in configured.
const MicrosoftSignIn = lazy(() => import('./MicrosoftSignIn.tsx'));

type LoginRef = ActorRefFrom<typeof loginMachine>;

export function LoginPage() {
  const root = useRootActor();
  const login = useSelector(root, (s) => s.children.login);
  const notice = useSelector(root, (s) => s.context.notice);
  return (
    <PublicLayout>
      <div className="grid gap-8 md:grid-cols-[minmax(0,28rem)_1fr]">
        {login ? (
          <LoginForm
            login={login}
            notice={
              notice === 'password_renewed' ||
              notice === 'session_ended' ||
              notice === 'ticket_invalid' ||
              notice === 'signed_out_everywhere'
                ? notice
                : null
            }
          />
        ) : (
          <p role="status">…</p>
        )}
        <aside className="space-y-6">
          <ActivateCardBanner />
          <Brochure />
        </aside>
      </div>
    </PublicLayout>
  );
}

/** What the page says on arrival: a password just changed, an account just created, or a session ended elsewhere. */
function LoginForm({
  login,
  notice,
}: {
  login: LoginRef;
  notice: 'password_renewed' | 'session_ended' | 'ticket_invalid' | 'signed_out_everywhere' | null;
}) {
  const { t } = useTranslation();
  const { mode, username, password, error, captchaNeeded, captchaLevel, resubmitWhenSolved, passkeyButton } =
    useSelector(login, (s) => s.context);
  const captcha = useRef<CaptchaHandle>(null);
  const submitting = useSelector(login, (s) => s.matches('submitting'));
  const usingPasskey = useSelector(login, (s) => s.matches('askingPasskey') || s.matches('signingInWithPasskey'));
  const root = useRootActor();
  const microsoft = useSelector(root, (s) => !!s.context.config?.microsoft);
  // A sign-in on the way to linking a Microsoft account says so, and does not offer Microsoft again.
  const link = useSelector(
    root,
    (s) => microsoftLinkOf(s.context.target, s.context.config?.microsoft?.tenants ?? []),
    (a, b) => a?.company === b?.company,
  );

  // Refused for want of a robot check: the form goes again by itself once the widget has one.
  const resubmit = useCallback(() => {
    if (login.getSnapshot().context.resubmitWhenSolved && captcha.current)
      login.send({ type: 'SUBMIT', automatic: true, captcha: captcha.current.take() });
  }, [login]);
  const [revealed, setRevealed] = useState(false);
  const ids = { username: useId(), password: useId(), error: useId(), hint: useId() };
  // A refused sign-in brings focus back to what to type again: the address where it is malformed,
  // else the password (emptied). Always: the refusal answers the form's own submission, and the
  // page's first focus may have gone to the address meanwhile (a sign-in sent before the app was there).
  useFocusOnFailure(error, error?.code === 'invalid_email' ? ids.username : ids.password, { always: true });

  return (
    <Card aria-labelledby="login-title">
      <h1 id="login-title" className="text-2xl font-bold">
        {t(`login.title.${variant}`)}
      </h1>
      {signingInTo && (
        <p className="mt-2 flex items-center gap-2 text-slate-700" data-testid="signing-in-to">
          {signingInTo.logo_uri && <img src={signingInTo.logo_uri} alt="" className="h-6 w-6 rounded object-contain" />}
          {t('login.signingInTo', { app: signingInTo.name })}
        </p>
      )}
      <p className="mt-1 text-sm text-slate-700">{t('login.subtitle')}</p>
      {link && (
        <Alert tone="info" className="mt-4">
          {t('login.linkingMicrosoft', { context: link.company ? 'company' : undefined, company: link.company })}
        </Alert>
      )}

      <nav aria-label={t('login.methods')} className="mt-5 grid grid-cols-2 gap-1 rounded bg-slate-100 p-1">
        {(['email', 'phone'] as const).map((m) => (
          <Link
            key={m}
            to={pathOf('login', m)}
            aria-current={mode === m ? 'page' : undefined}
            className={`rounded px-3 py-2 text-center text-sm font-medium ${mode === m ? 'bg-white text-brand shadow' : 'text-slate-700'}`}
          >
            {t(`login.by.${m}`)}
          </Link>
        ))}
      </nav>

      {notice && (
        <Alert tone={notice === 'session_ended' || notice === 'ticket_invalid' ? 'info' : 'success'} className="mt-4">
          {t(
            notice === 'password_renewed'
              ? 'login.passwordRenewed'
              : notice === 'ticket_invalid'
                ? 'errors.invalid_login_ticket'
                : notice === 'signed_out_everywhere'
                  ? 'login.signedOutEverywhere'
                  : 'login.sessionEnded',
          )}
        </Alert>
      )}

      <form
        className="mt-5 space-y-4"
        // Sent by the script; a form sent before the script has taken over (a screen drawn ahead of
        // it) must not put the password in an address, as a GET would.
        method="post"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          // While the widget's code still loads, its answer is not there yet.
          login.send(
            captchaNeeded
              ? { type: 'SUBMIT', captcha: captcha.current?.take() ?? { error: CAPTCHA_FAILURES.notLoaded } }
              : { type: 'SUBMIT' },
          );
        }}
      >
        <div>
          <label htmlFor={ids.username} className="block text-sm font-medium">
            {t(`login.field.${mode}`)}
          </label>
          <input
            id={ids.username}
            name="username"
            data-autofocus
            type={mode === 'email' ? 'email' : 'tel'}
            inputMode={mode === 'email' ? 'email' : 'tel'}
            // "webauthn": the field's suggestions offer this site's passkeys too.
            autoComplete="username webauthn"
            required
            value={username}
            aria-invalid={error ? true : undefined}
            aria-describedby={[mode === 'phone' ? ids.hint : '', error ? ids.error : ''].join(' ').trim() || undefined}
            onChange={(event) => login.send({ type: 'CHANGE', field: 'username', value: event.target.value })}
            className="input mt-1"
          />
          {/* A number from abroad needs its country code; one of the variant's own country does not. */}
          {mode === 'phone' && (
            <p id={ids.hint} className="mt-1 text-sm text-slate-700">
              {t('login.phoneHint', { context: variant })}
            </p>
          )}
        </div>
        <div>
          <label htmlFor={ids.password} className="block text-sm font-medium">
            {t('login.field.password')}
          </label>
          <div className="mt-1 flex gap-2">
            <input
              id={ids.password}
              name="password"
              type={revealed ? 'text' : 'password'}
              autoComplete="current-password"
              required
              value={password}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? ids.error : undefined}
              onChange={(event) => login.send({ type: 'CHANGE', field: 'password', value: event.target.value })}
              className="input"
            />
            <Button
              variant="secondary"
              size="sm"
              aria-pressed={revealed}
              onClick={() => setRevealed(!revealed)}
              className="shrink-0"
            >
              {revealed ? t('login.hidePassword') : t('login.showPassword')}
            </Button>
          </div>
        </div>

        {captchaNeeded && (
          <Suspense fallback={null}>
            <Captcha ref={captcha} level={captchaLevel} onReady={resubmitWhenSolved ? resubmit : undefined} />
          </Suspense>
        )}
        {resubmitWhenSolved && (
          <p role="status" className="text-sm text-slate-700">
            {t('login.resubmitting')}
          </p>
        )}

        <div aria-live="assertive">
          {error && (
            <Alert tone="error" id={ids.error}>
              {error.code === 'too_many_attempts' && error.retryAfter ? (
                // How long, and the way out that does not wait.
                <>
                  {t('login.lockedOut', { count: Math.ceil(error.retryAfter / 60) })}{' '}
                  <Link to={forgotPasswordPathOf(mode)} className="font-medium underline">
                    {t('login.resetInstead')}
                  </Link>
                </>
              ) : (
                t([`errors.${error.code}`, 'errors.internal_error'])
              )}
              {error.lastAttempt && (
                <p className="mt-1">
                  {t('login.lastAttempt')}{' '}
                  <Link to={forgotPasswordPathOf(mode)} className="font-medium underline">
                    {t('login.resetInstead')}
                  </Link>
                </p>
              )}
            </Alert>
          )}
        </div>

        <Button type="submit" full loading={submitting} disabled={usingPasskey}>
          {submitting ? t('login.submitting') : t('login.submit')}
        </Button>
      </form>

      {passkeyButton && (
        <Button
          variant="secondary"
          full
          className="mt-3"
          loading={usingPasskey}
          disabled={submitting}
          onClick={() => login.send({ type: 'PASSKEY' })}
        >
          {usingPasskey ? t('login.passkey.waiting') : t('login.passkey.button')}
        </Button>
      )}

      {microsoft && !link && (
        <Suspense fallback={null}>
          <MicrosoftSignIn />
        </Suspense>
      )}

      <ul className="mt-4 flex flex-wrap justify-between gap-2 text-sm">
        <li>
          <Link to={forgotPasswordPathOf(mode)} className="text-brand underline">
            {t('login.forgotPassword')}
          </Link>
        </li>
        <li>
          <Link to={pathOf('forgotUsername', 'ask')} className="text-brand underline">
            {t('login.forgotUsername')}
          </Link>
        </li>
      </ul>
    </Card>
  );
}

function ActivateCardBanner() {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="activate-title" className="rounded-lg bg-brand-light p-5">
      <h2 id="activate-title" className="text-lg font-semibold text-brand-dark">
        {t('login.activate.title')}
      </h2>
      <p className="mt-1 text-sm text-slate-800">{t('login.activate.text')}</p>
      <Link to={pathOf('onboarding', 'onboarding')} className="btn btn-primary btn-sm mt-3">
        {t('login.activate.cta')}
      </Link>
    </section>
  );
}
