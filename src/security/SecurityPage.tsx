// /security, /security/mfa-edit, /security/edit-recovery, /security/edit-password: the two-step
// settings, a projection of the settings machine, the password's change (EditPassword.tsx), the
// devices and sessions (on the overview), and the way to the security history (its own screen).
// The sensitive screens only open after a recent second-factor check.
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { mfaSettingsMachine, PendingChange } from '../../machines/mfaSettings.ts';
import { useRootActor } from '../shell/context.ts';
import { Alert } from '../components/Alert.tsx';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { RecoveryKeys } from '../components/RecoveryKeys.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { DevicesSection } from './DevicesSection.tsx';
import { LinkedAccountsSection } from './LinkedAccountsSection.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { pathOf } from '../../machines/routes.ts';
import { EditPassword } from './EditPassword.tsx';

type SettingsRef = ActorRefFrom<typeof mfaSettingsMachine>;

const TITLES = {
  overview: 'security.title',
  methods: 'security.mfaEdit.title',
  recovery: 'security.recovery.title',
  password: 'security.password.title',
} as const;

export default function SecurityPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const settings = useFlowChild('mfaSettings');
  const devices = useFlowChild('devices');
  // The root's state says which screen of the area shows (its tags), never the URL.
  const step = useSelector(
    root,
    (s) =>
      (['overview', 'methods', 'recovery', 'password'] as const).find((name) => s.hasTag(`security.${name}`)) ?? null,
  );
  return (
    <UserLayout>
      <Breadcrumbs
        trail={[
          { label: t('security.title'), to: pathOf('security', 'overview') },
          ...(step && step !== 'overview' ? [{ label: t(TITLES[step]), to: pathOf('security', step) }] : []),
        ]}
      />
      <h1 className="mt-3 text-2xl font-bold">{t(TITLES[step ?? 'overview'])}</h1>
      {step === 'password' ? (
        <EditPassword />
      ) : settings ? (
        <Settings settings={settings} step={step} />
      ) : (
        <p role="status" className="mt-4">
          {t('common.loading')}
        </p>
      )}
      {step === 'overview' && (
        <div className="mt-5 space-y-5">
          <LinkedAccountsSection />
          <DevicesSection devices={devices} />
        </div>
      )}
    </UserLayout>
  );
}

function Settings({ settings, step }: { settings: SettingsRef; step: string | null }) {
  const { t } = useTranslation();
  const { methods, keys, error, notice, pending } = useSelector(settings, (s) => s.context);
  const busy = useSelector(settings, (s) => !s.matches('ready'));
  const hasAuthenticator = methods.some((m) => m.method === 'totp');
  // The recovery keys go with the authenticator: they are not a method of their own here.
  const factors = methods.filter((m) => m.method !== 'totpRecovery');
  const label = (m: (typeof methods)[number]) => t(`security.method.${m.method}`, { target: m.target ?? '' });
  /** What a change that cannot be undone asks, and what follows from it. */
  const question = (change: PendingChange) => {
    if (change.action === 'regenerate')
      return {
        title: t('security.confirm.regenerate.title'),
        text: t('security.confirm.regenerate.text'),
        yes: t('security.confirm.regenerate.yes'),
      };
    const method = methods.find((m) => m.id === change.id);
    return {
      title: t('security.confirm.delete.title', { method: method ? label(method) : '' }),
      text: t('security.confirm.delete.text', { context: method?.primary ? 'primary' : undefined }),
      yes: t('security.confirm.delete.yes'),
    };
  };
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        {notice && <Alert tone="success">{t(`security.notice.${notice}`)}</Alert>}
        {error && (
          <Alert tone="error">{t(`security.error.${error}`, { defaultValue: t('security.error.generic') })}</Alert>
        )}
      </div>
      {step === 'overview' && (
        <Card aria-labelledby="password-section">
          <h2 id="password-section" className="text-lg font-semibold">
            {t('security.password.section')}
          </h2>
          <p className="mt-4 text-sm">
            <Link to={pathOf('security', 'password')} className="text-brand underline">
              {t('security.password.link')}
            </Link>
          </p>
        </Card>
      )}
      {step === 'overview' && (
        <Card aria-labelledby="two-step">
          <h2 id="two-step" className="text-lg font-semibold">
            {t('security.twoStep')}
          </h2>
          {factors.length === 0 ? (
            <>
              <Alert tone="warning" role={null} className="mt-3">
                {t('security.off')}
              </Alert>
              <p className="mt-4 text-sm">
                <Link to={pathOf('security', 'methods')} className="text-brand underline">
                  {t('security.turnOn')}
                </Link>
              </p>
            </>
          ) : (
            <>
              <ul className="mt-3 space-y-1 text-sm" data-testid="mfa-methods">
                {factors.map((m) => (
                  <li key={m.id}>
                    {label(m)}
                    {m.primary && (
                      <>
                        {' '}
                        <span className="sr-only">— </span>
                        <Badge>{t('security.primary')}</Badge>
                      </>
                    )}
                  </li>
                ))}
              </ul>
              <div className="mt-4 flex flex-wrap gap-4 text-sm">
                <Link to={pathOf('security', 'methods')} className="text-brand underline">
                  {t('security.manage')}
                </Link>
                {hasAuthenticator ? (
                  <Link to={pathOf('security', 'recovery')} className="text-brand underline">
                    {t('security.recovery.title')}
                  </Link>
                ) : (
                  <Link to={pathOf('authenticator', 'scan')} className="text-brand underline">
                    {t('authenticator.add')}
                  </Link>
                )}
              </div>
            </>
          )}
        </Card>
      )}
      {step === 'overview' && (
        <Card aria-labelledby="security-history">
          <h2 id="security-history" className="text-lg font-semibold">
            {t('history.title')}
          </h2>
          <p className="mt-1 text-sm text-slate-700">{t('history.teaser')}</p>
          <p className="mt-4 text-sm">
            <Link to={pathOf('security', 'history')} className="text-brand underline">
              {t('history.open')}
            </Link>
          </p>
        </Card>
      )}
      {step === 'methods' && factors.length === 0 && <p className="text-sm">{t('security.none')}</p>}
      {step === 'methods' && (
        <ul className="space-y-3" data-testid="mfa-edit">
          {factors.map((m) => (
            <li
              key={m.id}
              className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white p-4"
            >
              <span>
                {label(m)}
                {m.primary && (
                  <>
                    {' '}
                    <span className="sr-only">— </span>
                    <Badge>{t('security.primary')}</Badge>
                  </>
                )}
              </span>
              <span className="flex gap-2">
                {!m.primary && (
                  <Button
                    variant="secondary"
                    size="sm"
                    disabled={busy}
                    onClick={() => settings.send({ type: 'SWITCH', id: m.id })}
                  >
                    {t('security.makePrimary', { method: label(m) })}
                  </Button>
                )}
                <Button
                  variant="danger"
                  size="sm"
                  disabled={busy}
                  onClick={() => settings.send({ type: 'DELETE', id: m.id })}
                >
                  {t('security.delete', { method: label(m) })}
                </Button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {step === 'methods' && (
        <Card aria-labelledby="add-method">
          <h2 id="add-method" className="text-lg font-semibold">
            {t('security.add.title')}
          </h2>
          <p className="mt-1 text-sm text-slate-700">{t('security.add.text')}</p>
          <p className="mt-4 text-sm">
            <Link to={pathOf('setupMfa', 'selection')} className="text-brand underline">
              {t('security.add.link')}
            </Link>
          </p>
        </Card>
      )}
      {step === 'recovery' &&
        (keys ? (
          <RecoveryKeys keys={keys} className="" onSaved={() => settings.send({ type: 'SAVED' })} />
        ) : (
          <Card>
            <p className="text-sm">{t('security.recovery.text')}</p>
            <Button
              className="mt-4"
              loading={busy && !pending}
              disabled={pending !== null}
              onClick={() => settings.send({ type: 'REGENERATE' })}
            >
              {t('mfa.recovery.regenerate')}
            </Button>
          </Card>
        ))}
      {pending && (
        <Confirmation settings={settings} question={question(pending)} danger={pending.action === 'delete'} />
      )}
    </div>
  );
}

/** The question before a change that cannot be undone: focus comes to it, and No is one key away. */
function Confirmation({
  settings,
  question,
  danger,
}: {
  settings: SettingsRef;
  question: { title: string; text: string; yes: string };
  danger: boolean;
}) {
  const { t } = useTranslation();
  const busy = useSelector(settings, (s) => !s.matches('confirming'));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div
      role="alertdialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      className="rounded-lg border-2 border-amber-500 bg-white p-4"
      onKeyDown={(event) => {
        if (event.key === 'Escape') settings.send({ type: 'CANCEL' });
      }}
    >
      <h2 id="confirm-title" ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {question.title}
      </h2>
      <p id="confirm-text" className="mt-1 text-sm text-slate-800">
        {question.text}
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button
          variant={danger ? 'danger' : 'primary'}
          loading={busy}
          onClick={() => settings.send({ type: 'CONFIRM' })}
        >
          {question.yes}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => settings.send({ type: 'CANCEL' })}>
          {t('security.confirm.no')}
        </Button>
      </div>
    </div>
  );
}
