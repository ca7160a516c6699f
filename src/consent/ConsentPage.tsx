// /approve: a partner application asks for access to the account (spec §2). A projection of the
// consent machine: the account that answers (with "Not you?", which signs out and back in to the same
// request), what the application asks for and holds already, accept or refuse; a refusal shows the
// spec's warning, what it means, the way back to the application and the way home.
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { consentMachine } from '../../machines/consent.ts';
import { HOME_PATH, logoutFor } from '../../machines/routes.ts';
import { INTERACTION_PATH } from '../../contract/constants.ts';
import { formatPhone } from '../../contract/rules.ts';
import { Link } from 'react-router';
import { useRootActor } from '../shell/context.ts';
import { Alert } from '../components/Alert.tsx';
import { LoadFailed } from '../components/LoadFailed.tsx';
import { Button } from '../components/Button.tsx';
import { AskedScopes, ClientLinks } from '../components/ClientRequest.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { Loading } from '../components/Pending.tsx';

type ConsentRef = ActorRefFrom<typeof consentMachine>;

export default function ConsentPage() {
  const consent = useFlowChild('consent');
  return <FlowCard flow={consent}>{(flow) => <Consent consent={flow} />}</FlowCard>;
}

function Consent({ consent }: { consent: ConsentRef }) {
  const { t } = useTranslation();
  const { client, scopes, granted, error, uid } = useSelector(consent, (s) => s.context);
  const state = useSelector(
    consent,
    (s) =>
      (['asking', 'accepting', 'refusing', 'refused', 'gone', 'failed', 'leaving'] as const).find((name) =>
        s.matches(name),
      ) ?? 'loading',
  );
  const app = client?.name ?? '';
  const heading = useRef<HTMLHeadingElement>(null);
  // Each outcome is announced by moving to its heading.
  useEffect(() => {
    heading.current?.focus();
  }, [state === 'refused', state === 'gone']);

  if (state === 'loading') return <Loading />;
  if (state === 'leaving') return <p role="status">{t('consent.leaving', { app })}</p>;
  if (state === 'gone') {
    return (
      <>
        <h1 ref={heading} tabIndex={-1} className="text-2xl font-bold">
          {t('consent.gone.title')}
        </h1>
        <p className="mt-3">{t('errors.authorization_expired')}</p>
        <p className="mt-5">
          <Link to={HOME_PATH} className="text-brand underline">
            {t('consent.home')}
          </Link>
        </p>
      </>
    );
  }
  if (state === 'failed') {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('consent.failed')}</h1>
        <LoadFailed
          className="mt-3"
          message={t([`errors.${error}`, 'errors.internal_error'])}
          retry={t('consent.retry')}
          retryClassName="mt-5"
          onRetry={() => consent.send({ type: 'RETRY' })}
        />
      </>
    );
  }
  if (state === 'refused') {
    return (
      <>
        <h1 ref={heading} tabIndex={-1} className="text-2xl font-bold">
          {t('consent.refusedTitle')}
        </h1>
        <Alert tone="warning" className="mt-3">
          {t('consent.refused')}
        </Alert>
        <p className="mt-2 text-sm text-slate-700">{t('consent.refusedMeaning', { app })}</p>
        <div className="mt-5 flex flex-col items-stretch gap-4 sm:flex-row sm:flex-wrap sm:items-center">
          <Button onClick={() => consent.send({ type: 'RETURN' })}>{t('consent.returnTo', { app })}</Button>
          <Link to={HOME_PATH} className="text-brand underline">
            {t('consent.home')}
          </Link>
        </div>
      </>
    );
  }
  const busy = state === 'accepting' || state === 'refusing';
  // Signing in is what every request asks: not listed as held either.
  const held = granted.filter((scope) => scope !== 'openid');
  return (
    <>
      <div className="flex items-center gap-3">
        {/* Decorative: the application's name is in the heading beside it. */}
        {client?.logo_uri && (
          <img
            src={client.logo_uri}
            alt=""
            width={48}
            height={48}
            className="h-12 w-12 shrink-0 rounded object-contain"
            data-testid="client-logo"
          />
        )}
        <h1 className="min-w-0 text-2xl font-bold [overflow-wrap:anywhere]">{t('consent.title', { app })}</h1>
      </div>
      {uid && <ConsentingAccount uid={uid} />}
      <div aria-live="polite">
        {error && (
          <Alert tone="error" className="mt-3">
            {t([`errors.${error}`, 'errors.internal_error'])}
          </Alert>
        )}
      </div>
      <AskedScopes scopes={scopes} title={(context) => t('consent.asks', { app, context })} testId="asked-scopes" />
      {held.length > 0 && (
        <>
          <h2 className="mt-4 font-semibold">{t('consent.holds', { app })}</h2>
          <ul className="mt-2 list-disc space-y-1 pl-5 text-slate-700">
            {held.map((scope) => (
              <li key={scope}>{t(`scopes.${scope}`)}</li>
            ))}
          </ul>
        </>
      )}
      <p className="mt-4 text-sm text-slate-700">{t('consent.withdraw')}</p>
      <ClientLinks client={client} className="mt-2" />
      {/* Full width, one above the other, on a phone. */}
      <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        <Button loading={state === 'accepting'} disabled={busy} onClick={() => consent.send({ type: 'ACCEPT' })}>
          {t('consent.accept')}
        </Button>
        <Button
          variant="secondary"
          loading={state === 'refusing'}
          disabled={busy}
          onClick={() => consent.send({ type: 'REFUSE' })}
        >
          {t('consent.refuse')}
        </Button>
      </div>
    </>
  );
}

/** The account that answers, as its profile names it, with the way to answer as someone else: a
 * sign-out that goes back to this request, whose sign-in then asks for an account. */
function ConsentingAccount({ uid }: { uid: string }) {
  const { t } = useTranslation();
  const user = useSelector(useRootActor(), (s) => s.context.user);
  if (!user) return null;
  const name = `${user.firstname} ${user.lastname}`.trim();
  const contact = user.email[0]?.value ?? (user.phone[0] ? formatPhone(user.phone[0].value) : null);
  return (
    <div className="mt-4 rounded border border-slate-200 bg-slate-50 p-3 text-sm" data-testid="consenting-account">
      <p>{t('consent.signedInAs', { name })}</p>
      {contact && <p className="text-slate-700 [overflow-wrap:anywhere]">{contact}</p>}
      <Link to={logoutFor(`${INTERACTION_PATH}/${uid}`)} className="mt-1 inline-block text-brand underline">
        {t('consent.notYou')}
      </Link>
    </div>
  );
}
