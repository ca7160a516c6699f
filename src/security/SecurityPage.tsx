// /security, /security/mfa-edit, /security/edit-recovery, /security/edit-password: the two-step
// settings, a projection of the settings machine, the password's change (EditPassword.tsx), the
// devices and sessions (on the overview), and the way to the security history (its own screen).
// The sensitive screens only open after a recent second-factor check. A passkey shows its name (or
// who keeps it), whether it syncs, when it was added and last used, and is renamed in place.
import { cardEndings, passkeyNaming } from '../components/MethodOptions.tsx';
import { useSelector } from '@xstate/react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import { PASSKEY_NAME_MAX } from '../../contract/rules.ts';
import type { securityMachine, PendingChange, Renaming } from '../../machines/security.ts';
import { TextField } from '../components/Field.tsx';
import { useDateFormat } from '../components/useIntl.ts';
import { useRootActor } from '../shell/context.ts';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { TrailingBadge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { LinkLine } from '../components/LinkLine.tsx';
import { SectionCard } from '../components/SectionCard.tsx';
import { ConfirmQuestion } from '../components/ConfirmQuestion.tsx';
import { RecoveryKeys } from '../components/RecoveryKeys.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { DevicesSection } from './DevicesSection.tsx';
import { LinkedAccountsSection } from './LinkedAccountsSection.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { EXTERNAL_LINKS } from '../externalLinks.ts';
import { UserLayout } from '../components/UserLayout.tsx';
import { Loading } from '../components/Pending.tsx';
import { pathOf } from '../../machines/routes.ts';
import { EditPassword } from './EditPassword.tsx';
import { variant } from '../variant.ts';

type SettingsRef = ActorRefFrom<typeof securityMachine>;

const passkeys = () => import('../api/passkeys.ts');

/** Whether this browser has WebAuthn but cannot use the account's passkeys on this host: the
 * Luxembourg host without related origins (src/api/passkeys.ts passkeySupport). */
function usePasskeysBarredHere(): boolean {
  const [barred, setBarred] = useState(false);
  useEffect(() => {
    if (variant !== 'lu') return;
    let live = true;
    void passkeys().then(async ({ noWebAuthn, passkeySupport }) => {
      const can = await passkeySupport(variant);
      if (live) setBarred(!noWebAuthn() && !can.signIn);
    });
    return () => {
      live = false;
    };
  }, []);
  return barred;
}

const TITLES = {
  overview: 'security.title',
  methods: 'security.mfaEdit.title',
  recovery: 'security.recovery.title',
  password: 'security.password.title',
} as const;

export default function SecurityPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const settings = useFlowChild('security');
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
        <Loading className="mt-4" />
      )}
      {step === 'overview' && (
        <div className="mt-5 space-y-5">
          <LinkedAccountsSection />
          <DevicesSection devices={devices} />
          {/* How the company treats the data this area shows (spec §2 "Security"). */}
          <p className="text-sm">
            <a href={EXTERNAL_LINKS.privacy} className="text-brand underline">
              {t('security.privacy')}
            </a>
          </p>
        </div>
      )}
    </UserLayout>
  );
}

function Settings({ settings, step }: { settings: SettingsRef; step: string | null }) {
  const { t } = useTranslation();
  const { methods, keys, error, notice, pending, switching, renaming } = useSelector(settings, (s) => s.context);
  const busy = useSelector(settings, (s) => !s.matches('ready'));
  const confirming = useSelector(settings, (s) => s.matches('confirming'));
  const hasAuthenticator = methods.some((m) => m.method === 'totp');
  const passkeysBarred = usePasskeysBarredHere();
  // A name saved: focus goes to the notice saying so (the form it was typed in is gone).
  const notices = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (notice === 'renamed') notices.current?.focus();
  }, [notice]);
  // The recovery keys go with the authenticator: they are not a method of their own here.
  const factors = methods.filter((m) => m.method !== 'totpRecovery');
  // How many recovery keys are still unused, as the recovery screen after a sign-in says it.
  const keysLeft = methods.find((m) => m.method === 'totpRecovery')?.recovery_keys_left;
  const label = (m: (typeof methods)[number]) =>
    m.method === 'passkey'
      ? t('security.method.passkey', passkeyNaming(m))
      : t(`security.method.${m.method}`, { target: m.target ?? '', ...cardEndings(m) });
  /** What a change that cannot be undone asks, and what follows from it. */
  const question = (change: PendingChange) => {
    if (change.action === 'regenerate')
      return {
        title: t('security.confirm.regenerate.title'),
        text: t('security.confirm.regenerate.text'),
        yes: t('security.confirm.regenerate.yes'),
      };
    const method = methods.find((m) => m.id === change.id);
    // A passkey also lives on in the device or password manager that keeps it: said so.
    const context =
      method?.method === 'passkey'
        ? method.primary
          ? 'passkeyPrimary'
          : 'passkey'
        : method?.primary
          ? 'primary'
          : undefined;
    return {
      title: t('security.confirm.delete.title', { method: method ? label(method) : '' }),
      text: t('security.confirm.delete.text', { context }),
      yes: t('security.confirm.delete.yes'),
    };
  };
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite" ref={notices} tabIndex={-1} className="outline-none">
        <SaveNotice>{notice && t(`security.notice.${notice}`)}</SaveNotice>
        {error && (
          <Alert tone="error">{t(`security.error.${error}`, { defaultValue: t('security.error.generic') })}</Alert>
        )}
      </div>
      {step === 'overview' && (
        <SectionCard titleId="password-section" title={t('security.password.section')}>
          <LinkLine to={pathOf('security', 'password')}>{t('security.password.link')}</LinkLine>
        </SectionCard>
      )}
      {step === 'overview' && (
        <SectionCard titleId="two-step" title={t('security.twoStep')}>
          {factors.length === 0 ? (
            <>
              <Alert tone="warning" role={null} className="mt-3">
                {t('security.off')}
              </Alert>
              <LinkLine to={pathOf('security', 'methods')}>{t('security.turnOn')}</LinkLine>
            </>
          ) : (
            <>
              <ul className="mt-3 space-y-1 text-sm" data-testid="mfa-methods">
                {factors.map((m) => (
                  <li key={m.id}>
                    {label(m)}
                    {m.primary && <TrailingBadge>{t('security.primary')}</TrailingBadge>}
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
        </SectionCard>
      )}
      {step === 'overview' && (
        <SectionCard titleId="security-history" title={t('history.title')} intro={t('history.teaser')}>
          <LinkLine to={pathOf('security', 'history')}>{t('history.open')}</LinkLine>
        </SectionCard>
      )}
      {step === 'methods' && factors.length === 0 && <p className="text-sm">{t('security.none')}</p>}
      {step === 'methods' && (
        <ul className="space-y-3" data-testid="mfa-edit">
          {factors.map((m) => (
            <li
              key={m.id}
              className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white p-4"
            >
              {m.method === 'passkey' ? (
                <PasskeyFacts passkey={m} label={label(m)} />
              ) : (
                <span>
                  {label(m)}
                  {m.primary && <TrailingBadge>{t('security.primary')}</TrailingBadge>}
                </span>
              )}
              <span className="flex flex-wrap gap-2">
                {!m.primary && (
                  <Button
                    variant="secondary"
                    size="sm"
                    disabled={busy}
                    loading={switching === m.id}
                    onClick={() => settings.send({ type: 'SWITCH', id: m.id })}
                    // The method is written just beside: heard with it, not repeated on the button.
                    aria-label={t('security.makePrimary', { method: label(m) })}
                  >
                    {t('security.makePrimary', { context: 'short' })}
                  </Button>
                )}
                {m.method === 'passkey' && (
                  <Button
                    variant="secondary"
                    size="sm"
                    id={`rename-${m.id}`}
                    disabled={busy}
                    onClick={() => settings.send({ type: 'RENAME', id: m.id })}
                    aria-label={t('security.passkey.rename', { method: label(m) })}
                  >
                    {t('security.passkey.rename', { context: 'short' })}
                  </Button>
                )}
                <Button
                  variant="danger"
                  size="sm"
                  disabled={busy}
                  onClick={() => settings.send({ type: 'DELETE', id: m.id })}
                  aria-label={t('security.delete', { method: label(m) })}
                >
                  {t('security.delete', { context: 'short' })}
                </Button>
              </span>
              {renaming?.id === m.id && <RenameForm settings={settings} renaming={renaming} />}
            </li>
          ))}
        </ul>
      )}
      {step === 'methods' && passkeysBarred && (
        <Alert tone="info" role={null}>
          {t('security.passkey.barred')}
        </Alert>
      )}
      {step === 'methods' && (
        <SectionCard titleId="add-method" title={t('security.add.title')} intro={t('security.add.text')}>
          <LinkLine to={pathOf('setupMfa', 'selection')}>{t('security.add.link')}</LinkLine>
        </SectionCard>
      )}
      {step === 'recovery' &&
        (keys ? (
          <RecoveryKeys keys={keys} className="" onSaved={() => settings.send({ type: 'SAVED' })} />
        ) : (
          <Card>
            {keysLeft !== undefined && (
              <p className="mb-2 font-medium" data-testid="keys-left">
                {t('mfa.recovery.left', { count: keysLeft })}
              </p>
            )}
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
        <ConfirmQuestion
          id="confirm"
          {...question(pending)}
          no={t('security.confirm.no')}
          danger={pending.action === 'delete'}
          busy={!confirming}
          onConfirm={() => settings.send({ type: 'CONFIRM' })}
          onCancel={() => settings.send({ type: 'CANCEL' })}
        />
      )}
    </div>
  );
}

/** A passkey as its owner knows it: its name (or who keeps it) in its `label`, whether it syncs, when
 * it was added and last used. */
function PasskeyFacts({ passkey, label }: { passkey: MfaMethodSummary; label: string }) {
  const { t } = useTranslation();
  const date = useDateFormat('long');
  return (
    <div>
      <p>
        {label}
        {passkey.primary && <TrailingBadge>{t('security.primary')}</TrailingBadge>}
      </p>
      <ul className="mt-1 space-y-0.5 text-sm text-slate-700">
        {passkey.synced !== undefined && (
          <li>{t(passkey.synced ? 'security.passkey.synced' : 'security.passkey.deviceOnly')}</li>
        )}
        {passkey.created_at && <li>{t('security.passkey.added', { date: date(passkey.created_at) })}</li>}
        <li>
          {passkey.last_used_at
            ? t('security.passkey.lastUsed', { date: date(passkey.last_used_at) })
            : t('security.passkey.neverUsed')}
        </li>
      </ul>
    </div>
  );
}

/** A passkey's new name, in place: its field takes focus, Escape or Cancel closes it unchanged and
 * focus goes back to its Rename button. */
function RenameForm({ settings, renaming }: { settings: SettingsRef; renaming: Renaming }) {
  const { t } = useTranslation();
  const saving = useSelector(settings, (s) => s.matches({ renaming: 'saving' }));
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    form.current?.querySelector('input')?.focus();
    const back = `rename-${renaming.id}`;
    return () => document.getElementById(back)?.focus();
  }, [renaming.id]);
  return (
    <form
      ref={form}
      className="w-full space-y-3 border-t border-slate-200 pt-3"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        settings.send({ type: 'SAVE_NAME' });
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') settings.send({ type: 'CANCEL' });
      }}
    >
      <TextField
        label={t('security.passkey.nameLabel')}
        autoComplete="off"
        value={renaming.name}
        maxLength={PASSKEY_NAME_MAX}
        error={renaming.error ?? undefined}
        onChange={(value) => settings.send({ type: 'NAME', value })}
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" loading={saving}>
          {t('security.passkey.save')}
        </Button>
        <Button variant="secondary" size="sm" disabled={saving} onClick={() => settings.send({ type: 'CANCEL' })}>
          {t('security.passkey.cancel')}
        </Button>
      </div>
    </form>
  );
}
