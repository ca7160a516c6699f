// /notifications: what Tessera may send the account. The marketing preferences given at onboarding
// (email, SMS, partners), changed and saved here; and the security alerts, which the account always
// receives, listed with why. A projection of the notifications machine (machines/notifications.ts).
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { MarketingPreferences } from '../../contract/schemas.ts';
import type { notificationsMachine } from '../../machines/notifications.ts';
import { pathOf } from '../../machines/routes.ts';
import { Alert, SaveNotice } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { SectionCard } from '../components/SectionCard.tsx';
import { LoadFailed } from '../components/LoadFailed.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { Breadcrumbs } from '../components/Breadcrumbs.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { Loading } from '../components/Pending.tsx';
import { Form } from '../components/Form.tsx';

type NotificationsRef = ActorRefFrom<typeof notificationsMachine>;

/** The preferences, with the words onboarding asked them in. */
const PREFERENCES: Array<{ key: keyof MarketingPreferences; label: string }> = [
  { key: 'email', label: 'onboarding.terms.byEmail' },
  { key: 'sms', label: 'onboarding.terms.bySms' },
  { key: 'partners', label: 'onboarding.terms.partners' },
];

export default function NotificationsPage() {
  const { t } = useTranslation();
  const settings = useFlowChild('notifications');
  return (
    <UserLayout>
      <Breadcrumbs trail={[{ label: t('sidebar.notifications'), to: pathOf('notifications', 'settings') }]} />
      <h1 className="mt-3 text-2xl font-bold">{t('notifications.title')}</h1>
      {settings ? <Settings settings={settings} /> : <Loading className="mt-4" />}
    </UserLayout>
  );
}

function Settings({ settings }: { settings: NotificationsRef }) {
  const { t } = useTranslation();
  const { saved, marketing, error, notice } = useSelector(settings, (s) => s.context);
  const state = useSelector(settings, (s) => s.value);
  if (state === 'loading') return <Loading className="mt-4" />;
  if (state === 'failed') {
    return (
      <div className="mt-5 space-y-4">
        <LoadFailed
          message={t([`errors.${error}`, 'errors.internal_error'])}
          retry={t('notifications.retry')}
          onRetry={() => settings.send({ type: 'RETRY' })}
          retryClassName=""
        />
      </div>
    );
  }
  return (
    <div className="mt-5 space-y-5">
      <div aria-live="polite">
        <SaveNotice>{notice && t('notifications.saved')}</SaveNotice>
        {error && <Alert tone="error">{t([`errors.${error}`, 'errors.internal_error'])}</Alert>}
      </div>
      <Card aria-labelledby="marketing">
        <Form onSubmit={() => settings.send({ type: 'SAVE' })}>
          <fieldset>
            <legend id="marketing" className="text-lg font-semibold">
              {t('notifications.marketing.title')}
            </legend>
            <p className="mt-1 text-sm text-slate-700">{t('notifications.marketing.text')}</p>
            <div className="mt-3 space-y-1">
              {PREFERENCES.map(({ key, label }) => (
                <label key={key} className="flex min-h-11 items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="h-5 w-5"
                    checked={marketing[key]}
                    onChange={(event) => settings.send({ type: 'TOGGLE', key, value: event.target.checked })}
                  />
                  {t(label)}
                </label>
              ))}
            </div>
          </fieldset>
          <Button type="submit" className="mt-4" loading={state === 'saving'}>
            {t('notifications.save')}
          </Button>
        </Form>
      </Card>
      <SectionCard titleId="alerts" title={t('notifications.alerts.title')} intro={t('notifications.alerts.text')}>
        <ul className="mt-3 list-disc space-y-1 pl-5 text-sm" data-testid="security-alerts">
          {(saved?.security_alerts ?? []).map((alert) => (
            <li key={alert}>{t(`notifications.alerts.${alert}`)}</li>
          ))}
        </ul>
      </SectionCard>
    </div>
  );
}
