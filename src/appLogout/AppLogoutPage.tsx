// /logout/confirm and /logout/done: an application's sign-out (RP-initiated logout). A projection of
// the appLogout machine: the application that signs the person out (its name and logo), and the
// standard's question, whether to sign out of Tessera too; then our success. A request that is gone
// says so, with the way home.
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { appLogoutMachine } from '../../machines/appLogout.ts';
import { LINKS } from '../../machines/routes.ts';
import { LoadFailed } from '../components/LoadFailed.tsx';
import { Button } from '../components/Button.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { Loading } from '../components/Pending.tsx';

type AppLogoutRef = ActorRefFrom<typeof appLogoutMachine>;

export default function AppLogoutPage() {
  const flow = useFlowChild('appLogout');
  return <FlowCard flow={flow}>{(logout) => <AppLogout logout={logout} />}</FlowCard>;
}

function AppLogout({ logout }: { logout: AppLogoutRef }) {
  const { t } = useTranslation();
  const { client, error, stayed } = useSelector(logout, (s) => s.context);
  const state = useSelector(
    logout,
    (s) =>
      (['asking', 'signingOut', 'staying', 'gone', 'failed', 'done'] as const).find((name) => s.matches(name)) ??
      'loading',
  );
  const heading = useRef<HTMLHeadingElement>(null);
  // Each outcome is announced by moving to its heading.
  useEffect(() => {
    heading.current?.focus();
  }, [state === 'gone', state === 'done']);
  const home = (
    <p className="mt-5">
      <Link to={LINKS.home} className="text-brand underline">
        {t('appLogout.home')}
      </Link>
    </p>
  );

  if (state === 'loading') return <Loading />;
  if (state === 'signingOut' || state === 'staying') return <p role="status">{t('appLogout.leaving')}</p>;
  if (state === 'gone') {
    return (
      <>
        <h1 ref={heading} tabIndex={-1} className="text-2xl font-bold">
          {t('appLogout.gone.title')}
        </h1>
        <p className="mt-3">{t('appLogout.gone.text')}</p>
        {home}
      </>
    );
  }
  if (state === 'done') {
    return (
      <>
        <h1 ref={heading} tabIndex={-1} className="text-2xl font-bold">
          {t('appLogout.done.title')}
        </h1>
        <p className="mt-3">{t('appLogout.done.text', { context: stayed ? 'stayed' : undefined })}</p>
        {home}
      </>
    );
  }
  if (state === 'failed') {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('appLogout.failed')}</h1>
        <LoadFailed
          className="mt-3"
          message={t([`errors.${error}`, 'errors.internal_error'])}
          retry={t('appLogout.retry')}
          retryClassName="mt-5"
          onRetry={() => logout.send({ type: 'RETRY' })}
        />
      </>
    );
  }
  const named = { app: client?.name ?? '', context: client ? undefined : 'unnamed' };
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
        <h1 className="min-w-0 text-2xl font-bold [overflow-wrap:anywhere]">{t('appLogout.title', named)}</h1>
      </div>
      <p className="mt-3">{t('appLogout.text', named)}</p>
      {/* Full width, one above the other, on a phone. */}
      <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        <Button onClick={() => logout.send({ type: 'SIGN_OUT' })}>{t('appLogout.yes')}</Button>
        <Button variant="secondary" onClick={() => logout.send({ type: 'STAY' })}>
          {t('appLogout.no')}
        </Button>
      </div>
    </>
  );
}
