// The security overview's linked Microsoft accounts (docs/architecture.md "Microsoft sign-in",
// Security): each with its company, email, when it was linked and last used, and "Unlink" after a
// yes. A projection of its own flow (machines/ssoLinks.ts), which this section runs. Unlinking is
// sensitive: without a recent second factor the server refuses, and the section offers the step-up
// (as the devices do). Where Microsoft sign-in is off, the section does not show.
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { SsoIdentity } from '../../contract/sso.ts';
import { ssoLinksMachine } from '../../machines/ssoLinks.ts';
import { pathOf } from '../../machines/routes.ts';
import { listSsoIdentities, unlinkSsoIdentity } from '../api/flowCalls.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';

const LINKS = ssoLinksMachine.provide({
  actors: {
    listIdentities: fromPromise(() => listSsoIdentities()),
    unlink: fromPromise(({ input }) => unlinkSsoIdentity(input)),
  },
});

type LinksRef = ReturnType<typeof useActorRef<typeof LINKS>>;

export function LinkedAccountsSection() {
  const { t } = useTranslation();
  const flow = useActorRef(LINKS);
  const off = useSelector(flow, (s) => s.matches('off'));
  if (off) return null;
  return (
    <Card aria-labelledby="linked-title" data-testid="linked-accounts">
      <h2 id="linked-title" className="text-lg font-semibold">
        {t('linked.title')}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t('linked.text')}</p>
      <Linked flow={flow} />
    </Card>
  );
}

function Linked({ flow }: { flow: LinksRef }) {
  const { t, i18n } = useTranslation();
  const { identities, error, notice, pending } = useSelector(flow, (s) => s.context);
  const state = useSelector(flow, (s) => s.value);
  const locale = i18n.language.replace('_', '-');
  const dates = useMemo(() => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }), [locale]);
  const date = (iso: string) => dates.format(new Date(iso));
  const busy = state !== 'ready';
  // When the question closes, focus goes to what happened.
  const notices = useRef<HTMLDivElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (pending !== null) asked.current = true;
    else if (asked.current) {
      asked.current = false;
      notices.current?.focus();
    }
  }, [pending]);
  if (state === 'loading' && identities.length === 0)
    return (
      <p role="status" className="mt-3 text-sm">
        {t('common.loading')}
      </p>
    );
  if (state === 'failed') {
    return (
      <div className="mt-3">
        <Alert tone="error">{t('linked.loadFailed')}</Alert>
        <Button className="mt-3" onClick={() => flow.send({ type: 'RETRY' })}>
          {t('linked.retry')}
        </Button>
      </div>
    );
  }
  const company = (identity: SsoIdentity) => identity.tenant.name ?? t('microsoft.unnamed');
  const asking = identities.find((identity) => identity.id === pending);
  return (
    <div className="mt-3 space-y-3">
      <div aria-live="polite" ref={notices} tabIndex={-1} className="outline-none">
        {notice && <Alert tone="success">{t('linked.unlinked')}</Alert>}
        {error && (
          <Alert tone="error">
            {t([`errors.${error}`, 'errors.internal_error'])}
            {error === 'step_up_required' && (
              <>
                {' '}
                <Link to={pathOf('security', 'methods')} className="underline">
                  {t('devices.error.stepUpLink')}
                </Link>
              </>
            )}
          </Alert>
        )}
      </div>
      {identities.length === 0 ? (
        <p className="text-sm">{t('linked.none')}</p>
      ) : (
        <ul className="space-y-3" data-testid="linked-list">
          {identities.map((identity) => (
            <li
              key={identity.id}
              className="rounded-lg border border-slate-200 bg-white p-4"
              data-testid="linked-identity"
            >
              <h3 className="font-semibold">{t('linked.provider', { company: company(identity) })}</h3>
              <dl className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
                {identity.email && (
                  <>
                    <dt className="text-slate-600">{t('linked.email')}</dt>
                    <dd className="font-medium">{identity.email}</dd>
                  </>
                )}
                <dt className="text-slate-600">{t('linked.linkedAt')}</dt>
                <dd className="font-medium">{date(identity.linked_at)}</dd>
                <dt className="text-slate-600">{t('linked.lastUsed')}</dt>
                <dd className="font-medium">
                  {identity.last_used_at ? date(identity.last_used_at) : t('linked.never')}
                </dd>
              </dl>
              <Button
                variant="danger"
                size="sm"
                className="mt-3"
                disabled={busy}
                aria-label={t('linked.unlinkFor', { company: company(identity) })}
                onClick={() => flow.send({ type: 'UNLINK', id: identity.id })}
              >
                {t('linked.unlink')}
              </Button>
            </li>
          ))}
        </ul>
      )}
      {asking && <Confirmation flow={flow} company={company(asking)} />}
    </div>
  );
}

/** The question before unlinking: focus comes to it, and No is one key away. */
function Confirmation({ flow, company }: { flow: LinksRef; company: string }) {
  const { t } = useTranslation();
  const busy = useSelector(flow, (s) => !s.matches('confirming'));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div
      role="alertdialog"
      aria-labelledby="unlink-title"
      aria-describedby="unlink-text"
      className="rounded-lg border-2 border-amber-500 bg-white p-4"
      onKeyDown={(event) => {
        if (event.key === 'Escape') flow.send({ type: 'CANCEL' });
      }}
    >
      <h3 id="unlink-title" ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {t('linked.confirm.title', { company })}
      </h3>
      <p id="unlink-text" className="mt-1 text-sm text-slate-800">
        {t('linked.confirm.text')}
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button variant="danger" loading={busy} onClick={() => flow.send({ type: 'CONFIRM' })}>
          {t('linked.confirm.yes')}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => flow.send({ type: 'CANCEL' })}>
          {t('linked.confirm.no')}
        </Button>
      </div>
    </div>
  );
}
