// The security overview's linked Microsoft accounts (docs/architecture.md "Microsoft sign-in",
// Security): each with its company, email, when it was linked and last used, and "Unlink" after a
// yes. A projection of its own flow (machines/ssoLinks.ts), which this section runs. Unlinking is
// sensitive: without a recent second factor the server refuses, and the section offers the step-up
// (as the devices do). Where Microsoft sign-in is off, the section does not show.
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { SsoIdentity } from '../../contract/sso.ts';
import { ssoLinksMachine } from '../../machines/ssoLinks.ts';
import { listSsoIdentities, unlinkSsoIdentity } from '../api/flowCalls.ts';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { SectionCard } from '../components/SectionCard.tsx';
import { useDateFormat } from '../components/useIntl.ts';
import { StepUpLink } from './StepUpLink.tsx';
import { LoadFailed } from '../components/LoadFailed.tsx';
import { ConfirmQuestion } from '../components/ConfirmQuestion.tsx';
import { Loading } from '../components/Pending.tsx';

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
    <SectionCard
      titleId="linked-title"
      title={t('linked.title')}
      intro={t('linked.text')}
      data-testid="linked-accounts"
    >
      <Linked flow={flow} />
    </SectionCard>
  );
}

function Linked({ flow }: { flow: LinksRef }) {
  const { t } = useTranslation();
  const { identities, error, notice, pending } = useSelector(flow, (s) => s.context);
  const state = useSelector(flow, (s) => s.value);
  const date = useDateFormat('medium');
  const busy = state !== 'ready';
  const confirming = useSelector(flow, (s) => s.matches('confirming'));
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
  if (state === 'loading' && identities.length === 0) return <Loading className="mt-3 text-sm" />;
  if (state === 'failed') {
    return (
      <div className="mt-3">
        <LoadFailed
          message={t('linked.loadFailed')}
          retry={t('linked.retry')}
          onRetry={() => flow.send({ type: 'RETRY' })}
        />
      </div>
    );
  }
  const company = (identity: SsoIdentity) => identity.tenant.name ?? t('microsoft.unnamed');
  const asking = identities.find((identity) => identity.id === pending);
  return (
    <div className="mt-3 space-y-3">
      <div aria-live="polite" ref={notices} tabIndex={-1} className="outline-none">
        <SaveNotice>{notice && t('linked.unlinked')}</SaveNotice>
        {error && (
          <Alert tone="error">
            {t([`errors.${error}`, 'errors.internal_error'])}
            {error === 'step_up_required' && <StepUpLink />}
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
      {asking && (
        <ConfirmQuestion
          id="unlink"
          level={3}
          title={t('linked.confirm.title', { company: company(asking) })}
          text={t('linked.confirm.text')}
          yes={t('linked.confirm.yes')}
          no={t('linked.confirm.no')}
          busy={!confirming}
          onConfirm={() => flow.send({ type: 'CONFIRM' })}
          onCancel={() => flow.send({ type: 'CANCEL' })}
        />
      )}
    </div>
  );
}
