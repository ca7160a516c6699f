// /approve: a partner application asks for access to the account (spec §2). A projection of the
// consent machine: what the application asks for and holds already, accept or refuse; a refusal
// shows the spec's warning with the way back to the application and the way home.
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { consentMachine } from '../../machines/consent.ts';
import { HOME_PATH } from '../../machines/routes.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
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
  const { client, scopes, granted, error } = useSelector(consent, (s) => s.context);
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
        <Alert tone="error" className="mt-3">
          {t([`errors.${error}`, 'errors.internal_error'])}
        </Alert>
        <Button className="mt-5" onClick={() => consent.send({ type: 'RETRY' })}>
          {t('consent.retry')}
        </Button>
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
        <div className="mt-5 flex flex-wrap items-center gap-4">
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
        {client?.logo_uri && <img src={client.logo_uri} alt="" className="h-12 w-12 rounded object-contain" />}
        <h1 className="text-2xl font-bold">{t('consent.title', { app })}</h1>
      </div>
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
      <div className="mt-6 flex flex-wrap gap-3">
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
