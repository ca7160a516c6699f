// The partner pages (spec §2 `/partner…`): a projection of the partner machine (machines/partner.ts).
// Which page shows is the machine's state; the view only renders it and sends the person's choices.
import { useSelector } from '@xstate/react';
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import { BECOME_CUSTOMER_URL } from '../../contract/constants.ts';
import type { PartnerClient } from '../../contract/schemas.ts';
import { platformOf, type partnerMachine } from '../../machines/partner.ts';
import { HOME_PATH, LOGIN_PATH, pathOf } from '../../machines/routes.ts';
import { useRootActor } from '../shell/context.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { AskedScopes, ClientLinks } from '../components/ClientRequest.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { OptionLink } from '../components/OptionLink.tsx';
import { Loading } from '../components/Pending.tsx';

type PartnerRef = ActorRefFrom<typeof partnerMachine>;

export default function PartnerPage() {
  const partner = useFlowChild('partner');
  return <FlowCard flow={partner}>{(flow) => <Partner partner={flow} />}</FlowCard>;
}

const PAGES = ['landing', 'requestAccess', 'noAccount', 'linkExisting', 'linkSuccess', 'leaving'] as const;
const STATES = [
  'checking',
  'loading',
  'unknown',
  'unavailable',
  'ready',
  'reading',
  'granted',
  'noAdministrator',
  'asking',
  'sending',
  'failed',
  'sent',
] as const;
const LINK_STATES = [
  'checking',
  'reading',
  'identified',
  'invalid',
  'noTicket',
  'recalling',
  'linking',
  'failed',
  'shown',
  'nothingLinked',
] as const;

/** The host a destination elsewhere is named by. */
const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** The partner's query on, for the links between its pages. */
const withClient = (path: string, clientId: string | null) =>
  clientId ? `${path}?${new URLSearchParams({ client_id: clientId })}` : path;

function Heading({ children, focus }: { children: ReactNode; focus?: unknown }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // A page's outcome is announced by moving to its heading.
  useEffect(() => {
    if (focus !== undefined) ref.current?.focus();
  }, [focus]);
  return (
    <h1 ref={ref} tabIndex={-1} className="text-2xl font-bold">
      {children}
    </h1>
  );
}

/** A page's heading after the partner's logo, when it has one. */
function LogoHeading({ client, children }: { client: PartnerClient | null; children: ReactNode }) {
  return (
    <div className="flex items-center gap-3">
      {client?.logo_uri && <img src={client.logo_uri} alt="" className="h-12 w-12 shrink-0 rounded object-contain" />}
      <Heading>{children}</Heading>
    </div>
  );
}

function HomeLink() {
  const { t } = useTranslation();
  return (
    <p className="mt-5">
      <Link to={HOME_PATH} className="text-brand underline">
        {t('partner.home')}
      </Link>
    </p>
  );
}

function Partner({ partner }: { partner: PartnerRef }) {
  const { t } = useTranslation();
  const root = useRootActor();
  const signedIn = useSelector(root, (s) => s.matches('signedIn'));
  const { client, clientId, scopes, error, destination, linkTo, identity } = useSelector(partner, (s) => s.context);
  const page = useSelector(partner, (s) => PAGES.find((name) => s.matches(name)) ?? 'landing');
  const state = useSelector(partner, (s) => STATES.find((name) => s.matches({ [page]: name } as never)) ?? null);
  const linkState = useSelector(
    partner,
    (s) => LINK_STATES.find((name) => s.matches({ [page]: name } as never)) ?? null,
  );
  const app = client?.name ?? '';

  if (page === 'leaving') return <p role="status">{t('partner.leaving')}</p>;
  if (page === 'linkExisting' || page === 'linkSuccess') {
    if (linkState === 'checking' || linkState === 'reading' || linkState === 'recalling' || linkState === 'linking')
      return <Loading />;
  } else if (state === 'checking' || state === 'loading' || state === 'reading') return <Loading />;
  if (state === 'unknown') {
    return (
      <>
        <Heading focus="unknown">{t('partner.unknown.title')}</Heading>
        <p className="mt-3">{t('partner.unknown.text')}</p>
        <HomeLink />
      </>
    );
  }
  if (state === 'unavailable') {
    return (
      <>
        <Heading>{t('partner.unavailable')}</Heading>
        <Alert tone="error" className="mt-3">
          {t([`errors.${error}`, 'errors.internal_error'])}
        </Alert>
        <Button className="mt-5" onClick={() => partner.send({ type: 'RETRY' })}>
          {t('partner.retry')}
        </Button>
      </>
    );
  }

  if (page === 'landing') {
    return (
      <>
        <LogoHeading client={client}>{t('partner.landing.title', { app })}</LogoHeading>
        <p className="mt-3">{t('partner.landing.text', { app })}</p>
        <AskedScopes
          scopes={scopes}
          title={(context) => t('partner.landing.asks', { app, context })}
          testId="partner-scopes"
        />
        <ClientLinks client={client} className="mt-4" />
        <div className="mt-6 flex flex-wrap gap-3">
          <Button onClick={() => partner.send({ type: 'CONTINUE' })}>{t('partner.landing.continue')}</Button>
          <Button variant="secondary" onClick={() => partner.send({ type: 'CANCEL' })}>
            {t('partner.landing.cancel')}
          </Button>
        </div>
        <p className="mt-6 text-sm">
          {signedIn ? (
            <Link to={withClient(pathOf('partner', 'requestAccess'), clientId)} className="text-brand underline">
              {t('partner.landing.noAccess', { app })}
            </Link>
          ) : (
            <Link to={withClient(pathOf('partner', 'noAccount'), clientId)} className="text-brand underline">
              {t('partner.landing.noAccount')}
            </Link>
          )}
        </p>
      </>
    );
  }

  if (page === 'requestAccess') {
    // Access given already, or no administrator registered to ask: no request to send.
    if (state === 'granted' || state === 'noAdministrator') {
      return (
        <>
          <LogoHeading client={client}>
            {t(state === 'granted' ? 'partner.request.grantedTitle' : 'partner.request.noAdministratorTitle', { app })}
          </LogoHeading>
          <p className="mt-3" role="status">
            {t(state === 'granted' ? 'partner.request.granted' : 'partner.request.noAdministrator', { app })}
          </p>
          <HomeLink />
        </>
      );
    }
    if (state === 'sent') {
      return (
        <>
          <Heading focus="sent">{t('partner.request.sentTitle')}</Heading>
          <p className="mt-3" role="status">
            {t('partner.request.sent', { app })}
          </p>
          <HomeLink />
        </>
      );
    }
    return (
      <>
        <LogoHeading client={client}>{t('partner.request.title', { app })}</LogoHeading>
        <p className="mt-3">{t('partner.request.text', { app })}</p>
        <p className="mt-2 text-sm text-slate-700">{t('partner.request.shared')}</p>
        <div aria-live="polite">
          {state === 'failed' && (
            <Alert tone="error" className="mt-4">
              {t([`errors.${error}`, 'errors.internal_error'])}
            </Alert>
          )}
        </div>
        <div className="mt-6 flex flex-wrap gap-3">
          {/* Without an administrator to ask, trying again cannot help: only the way home is offered. */}
          {state === 'failed' ? (
            error !== 'access_request_unavailable' && (
              <Button onClick={() => partner.send({ type: 'RETRY' })}>{t('partner.retry')}</Button>
            )
          ) : (
            <Button loading={state === 'sending'} onClick={() => partner.send({ type: 'SEND' })}>
              {t('partner.request.send')}
            </Button>
          )}
          <Link to={HOME_PATH} className="btn btn-secondary">
            {t('partner.home')}
          </Link>
        </div>
      </>
    );
  }

  if (page === 'noAccount') {
    const options = [
      { key: 'card', to: pathOf('onboarding', 'card'), external: false },
      { key: 'customer', to: BECOME_CUSTOMER_URL, external: true },
      { key: 'link', to: withClient(pathOf('partner', 'linkExisting'), clientId), external: false },
    ] as const;
    return (
      <>
        <Heading>{t('partner.noAccount.title')}</Heading>
        <p className="mt-3">{t('partner.noAccount.text')}</p>
        <ul className="mt-5 space-y-3">
          {options.map((option) => {
            return (
              <li key={option.key} data-testid={`option-${option.key}`}>
                <OptionLink
                  to={option.to}
                  external={option.external}
                  title={t(`partner.noAccount.${option.key}.title`)}
                  text={t(`partner.noAccount.${option.key}.text`)}
                />
              </li>
            );
          })}
        </ul>
      </>
    );
  }

  if (page === 'linkExisting') {
    if (linkState === 'identified' && identity) {
      const company = identity.tenant.name ?? t('microsoft.unnamed');
      return (
        <>
          <Heading>{t('partner.link.title')}</Heading>
          <p className="mt-3">{t('partner.link.signedInAs', { company })}</p>
          <dl
            className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 rounded-lg border border-slate-200 p-4 text-sm"
            data-testid="microsoft-identity"
          >
            {identity.name && (
              <>
                <dt className="text-slate-600">{t('partner.link.name')}</dt>
                <dd className="font-medium">{identity.name}</dd>
              </>
            )}
            {identity.email && (
              <>
                <dt className="text-slate-600">{t('partner.link.email')}</dt>
                <dd className="font-medium">{identity.email}</dd>
              </>
            )}
            <dt className="text-slate-600">{t('partner.link.company')}</dt>
            <dd className="font-medium">{company}</dd>
          </dl>
          <h2 className="mt-6 font-semibold">{t('partner.link.choose')}</h2>
          <ul className="mt-3 space-y-3">
            <li>
              <OptionLink
                to={linkTo}
                title={t('partner.link.signIn')}
                text={t('partner.link.text')}
                testId="link-existing-account"
              />
            </li>
            <li>
              <OptionLink
                to={pathOf('onboarding', 'onboarding')}
                title={t('partner.noAccount.card.title')}
                text={t('partner.noAccount.card.text')}
              />
            </li>
          </ul>
        </>
      );
    }
    return (
      <>
        <Heading focus={linkState}>{t('partner.link.title')}</Heading>
        {linkState === 'invalid' ? (
          <Alert tone="error" className="mt-3">
            {t([`errors.${error}`, 'errors.sso_ticket_invalid'])}
          </Alert>
        ) : (
          <p className="mt-3">{t('partner.link.microsoft')}</p>
        )}
        <div className="mt-6 flex flex-wrap gap-3">
          <Link to={LOGIN_PATH} className="btn btn-primary">
            {t('partner.link.withMicrosoft')}
          </Link>
          <Link to={withClient(pathOf('partner', 'noAccount'), clientId)} className="btn btn-secondary">
            {t('partner.link.back')}
          </Link>
        </div>
      </>
    );
  }

  if (page === 'linkSuccess' && linkState === 'failed') {
    return (
      <>
        <Heading focus="failed">{t('partner.link.failed')}</Heading>
        <Alert tone="error" className="mt-3">
          {t([`errors.${error}`, 'errors.internal_error'])}
        </Alert>
        <HomeLink />
      </>
    );
  }

  // linkSuccess: linked, or nothing was waiting to be linked; either way it goes on to a named place.
  const platform = platformOf(destination, window.location.host);
  const linked = linkState !== 'nothingLinked';
  return (
    <>
      <Heading focus={linkState}>{t(linked ? 'partner.success.title' : 'partner.success.nothingTitle')}</Heading>
      {!linked && <p className="mt-3">{t('partner.success.nothing')}</p>}
      <p className="mt-3" role="status">
        {t('partner.success.goingOn', {
          context: platform === 'default' ? undefined : platform,
          place: platform === 'default' ? hostOf(destination) : undefined,
        })}
      </p>
      <Button className="mt-6" onClick={() => partner.send({ type: 'GO' })}>
        {t('partner.success.now')}
      </Button>
    </>
  );
}
