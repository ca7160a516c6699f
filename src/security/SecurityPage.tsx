// /security, /security/mfa-edit, /security/edit-recovery: the two-step settings, a projection of
// the settings machine. The sensitive screens only open after a recent second-factor check.
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import { Link } from '../app/links.tsx';
import type { ActorRefFrom } from 'xstate';
import type { mfaSettingsMachine } from '../../machines/mfaSettings.ts';
import { useRootActor } from '../app/context.ts';
import { useFlowChild } from '../components/FlowCard.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { pathOf } from '../../machines/routes.ts';

type SettingsRef = ActorRefFrom<typeof mfaSettingsMachine>;

export default function SecurityPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const settings = useFlowChild('mfaSettings');
  // The root's state says which screen of the area shows (its tags), never the URL.
  const step = useSelector(root, (s) => (['overview', 'methods', 'recovery'] as const).find((name) => s.hasTag(`security.${name}`)) ?? null);
  return (
    <UserLayout>
      <nav aria-label={t('security.breadcrumbs')} className="text-sm">
        <ol className="flex gap-2">
          <li><Link to={pathOf('dashboard', 'home')} className="text-brand underline">{t('sidebar.dashboard')}</Link> /</li>
          <li><Link to={pathOf('security', 'overview')} className="text-brand underline">{t('security.title')}</Link></li>
        </ol>
      </nav>
      <h1 className="mt-3 text-2xl font-bold">{t(step === 'methods' ? 'security.mfaEdit.title' : step === 'recovery' ? 'security.recovery.title' : 'security.title')}</h1>
      {settings ? <Settings settings={settings} step={step} /> : <p role="status" className="mt-4">{t('common.loading')}</p>}
    </UserLayout>
  );
}

function Settings({ settings, step }: { settings: SettingsRef; step: string | null }) {
  const { t } = useTranslation();
  const { methods, keys, error, notice } = useSelector(settings, (s) => s.context);
  const busy = useSelector(settings, (s) => !s.matches('ready'));
  const hasAuthenticator = methods.some((m) => m.method === 'totp');
  const label = (m: (typeof methods)[number]) => t(`security.method.${m.method}`, { target: m.target ?? '' });
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        {notice && <p role="status" className="rounded border border-green-300 bg-green-50 p-3 text-sm text-green-900">{t(`security.notice.${notice}`)}</p>}
        {error && <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">{t(`security.error.${error}`, { defaultValue: t('security.error.generic') })}</p>}
      </div>
      {step === 'overview' && (
        <section aria-labelledby="two-step" className="rounded-lg border border-slate-200 bg-white p-5">
          <h2 id="two-step" className="text-lg font-semibold">{t('security.twoStep')}</h2>
          <ul className="mt-3 space-y-1 text-sm" data-testid="mfa-methods">
            {methods.filter((m) => m.method !== 'totpRecovery').map((m) => (
              <li key={m.id}>{label(m)}{m.primary ? ` — ${t('security.primary')}` : ''}</li>
            ))}
          </ul>
          <div className="mt-4 flex flex-wrap gap-4 text-sm">
            <Link to={pathOf('security', 'methods')} className="text-brand underline">{t('security.manage')}</Link>
            {hasAuthenticator
              ? <Link to={pathOf('security', 'recovery')} className="text-brand underline">{t('security.recovery.title')}</Link>
              : <Link to={pathOf('authenticator', 'scan')} className="text-brand underline">{t('authenticator.add')}</Link>}
          </div>
        </section>
      )}
      {step === 'methods' && (
        <ul className="space-y-3" data-testid="mfa-edit">
          {methods.filter((m) => m.method !== 'totpRecovery').map((m) => (
            <li key={m.id} className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white p-4">
              <span>{label(m)}{m.primary ? ` — ${t('security.primary')}` : ''}</span>
              <span className="flex gap-2">
                {!m.primary && (
                  <button type="button" disabled={busy} onClick={() => settings.send({ type: 'SWITCH', id: m.id })} className="rounded border border-slate-400 px-3 py-1.5 text-sm">
                    {t('security.makePrimary', { method: label(m) })}
                  </button>
                )}
                <button type="button" disabled={busy} onClick={() => settings.send({ type: 'DELETE', id: m.id })} className="rounded border border-red-400 px-3 py-1.5 text-sm text-red-800">
                  {t('security.delete', { method: label(m) })}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {step === 'recovery' && (
        <section className="rounded-lg border border-slate-200 bg-white p-5">
          <p className="text-sm">{t('security.recovery.text')}</p>
          <button type="button" disabled={busy} onClick={() => settings.send({ type: 'REGENERATE' })} className="mt-4 rounded bg-brand px-4 py-2 font-semibold text-white">
            {t('mfa.recovery.regenerate')}
          </button>
          {keys && (
            <ul className="mt-4 grid grid-cols-2 gap-2 font-mono" data-testid="recovery-keys">
              {keys.map((key) => <li key={key}>{key}</li>)}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
