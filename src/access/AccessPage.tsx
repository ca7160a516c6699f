// /user/access: the applications that hold access to the account, each with what it may do, when it
// was given access and last used it, and a way to revoke it after a yes. A projection of the
// access-grants machine (machines/access.ts).
import { useSelector } from '@xstate/react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { AccessGrant } from '../../contract/schemas.ts';
import type { accessMachine } from '../../machines/access.ts';
import { pathOf } from '../../machines/routes.ts';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { LoadFailed } from '../components/LoadFailed.tsx';
import { ConfirmQuestion } from '../components/ConfirmQuestion.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { useDateFormat } from '../components/useIntl.ts';
import { Loading } from '../components/Pending.tsx';

type GrantsRef = ActorRefFrom<typeof accessMachine>;

const DAY_MS = 24 * 60 * 60 * 1000;

export default function AccessPage() {
  const { t } = useTranslation();
  const grants = useFlowChild('access');
  return (
    <UserLayout>
      <Breadcrumbs trail={[{ label: t('sidebar.access'), to: pathOf('access', 'list') }]} />
      <h1 className="mt-3 text-2xl font-bold">{t('access.title')}</h1>
      <p className="mt-2 text-sm text-slate-700">{t('access.intro')}</p>
      {grants ? <Grants grants={grants} /> : <Loading className="mt-4" />}
    </UserLayout>
  );
}

function Grants({ grants }: { grants: GrantsRef }) {
  const { t } = useTranslation();
  const { grants: list, error, notice, pending } = useSelector(grants, (s) => s.context);
  const state = useSelector(grants, (s) => s.value);
  const confirming = useSelector(grants, (s) => s.matches('confirming'));
  const date = useDateFormat('long');
  const pendingGrant = list.find((g) => g.client_id === pending);
  // When the question closes, focus goes back where the person was: to the application's Revoke
  // button when it is still listed (No, or a refusal), else to the notice saying it was revoked.
  const notices = useRef<HTMLDivElement>(null);
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (pending !== null) {
      asked.current = pending;
      return;
    }
    const closed = asked.current;
    if (closed === null) return;
    asked.current = null;
    const button = document.getElementById(revokeButtonId(closed));
    (button ?? notices.current)?.focus();
  }, [pending]);
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite" ref={notices} tabIndex={-1} className="outline-none">
        <SaveNotice>{notice && t(`access.notice.${notice}`)}</SaveNotice>
        {error && state !== 'failed' && <Alert tone="error">{t('access.error.revoke')}</Alert>}
      </div>
      {state === 'failed' && (
        <Card>
          <LoadFailed
            message={t('access.error.load')}
            retry={t('access.error.retry')}
            onRetry={() => grants.send({ type: 'RETRY' })}
            retryClassName="mt-4"
          />
        </Card>
      )}
      {/* The reload after a revocation keeps the screen as it is, the notice saying what happened. */}
      {state === 'loading' && list.length === 0 && !notice && <Loading />}
      {state !== 'failed' && state !== 'loading' && list.length === 0 && (
        <p data-testid="access-empty">{t('access.empty')}</p>
      )}
      {list.length > 0 && state !== 'failed' && (
        <ul className="space-y-4" data-testid="access-grants">
          {list.map((grant) => (
            <li key={grant.client_id}>
              <GrantCard
                grant={grant}
                busy={state !== 'ready'}
                date={date}
                onRevoke={() => grants.send({ type: 'REVOKE', clientId: grant.client_id })}
              />
            </li>
          ))}
        </ul>
      )}
      {pendingGrant && (
        <ConfirmQuestion
          id="confirm"
          title={t('access.confirm.title', { name: pendingGrant.name })}
          text={t('access.confirm.text', { name: pendingGrant.name })}
          yes={t('access.confirm.yes')}
          no={t('access.confirm.no')}
          busy={!confirming}
          onConfirm={() => grants.send({ type: 'CONFIRM' })}
          onCancel={() => grants.send({ type: 'CANCEL' })}
        />
      )}
    </div>
  );
}

const revokeButtonId = (clientId: string) => `revoke-${clientId.replace(/[^\w-]/g, '_')}`;

function GrantCard({
  grant,
  busy,
  date,
  onRevoke,
}: {
  grant: AccessGrant;
  busy: boolean;
  date: (iso: string) => string;
  onRevoke: () => void;
}) {
  const { t } = useTranslation();
  const headingId = `grant-${grant.client_id.replace(/[^\w-]/g, '_')}`;
  return (
    <Card aria-labelledby={headingId}>
      <div className="flex flex-wrap items-start gap-4">
        <Logo grant={grant} />
        <div className="min-w-0 flex-1">
          <h2 id={headingId} className="text-lg font-semibold">
            {grant.name}
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            {t('access.granted', { date: date(grant.granted_at) })}
            <span aria-hidden="true"> · </span>
            <br className="sm:hidden" />
            {grant.last_used_at
              ? t('access.lastUsed', { date: date(grant.last_used_at) })
              : // A grant of today has not had the time to be used: "not yet", not "not recently".
                t('access.notUsed', {
                  context: Date.now() - Date.parse(grant.granted_at) < DAY_MS ? 'new' : undefined,
                })}
          </p>
        </div>
      </div>
      <p className="mt-3 text-sm font-medium">{t('access.scopes')}</p>
      <ul className="mt-1 list-disc space-y-1 pl-5 text-sm">
        {/* A grant of openid alone lets the application know who signs in, nothing more. */}
        {(grant.scopes.length > 0 ? grant.scopes : ['openid']).map((scope) => (
          <li key={scope}>{t(`scopes.${scope}`, { defaultValue: scope })}</li>
        ))}
      </ul>
      <Button
        id={revokeButtonId(grant.client_id)}
        className="mt-4"
        variant="danger"
        size="sm"
        disabled={busy}
        aria-label={t('access.revokeFor', { name: grant.name })}
        onClick={onRevoke}
      >
        {t('access.revoke')}
      </Button>
    </Card>
  );
}

/** The application's logo, when it has one that loads; its name is the alternative text. */
function Logo({ grant }: { grant: AccessGrant }) {
  const [broken, setBroken] = useState(false);
  if (!grant.logo_uri || broken) return null;
  return (
    <img
      src={grant.logo_uri}
      alt={grant.name}
      width={48}
      height={48}
      className="h-12 w-12 rounded object-contain"
      onError={() => setBroken(true)}
    />
  );
}
