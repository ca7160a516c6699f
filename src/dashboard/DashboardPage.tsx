// The dashboard (spec §1): greeting by first name and the services card with one tile per platform.
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import { useRootActor } from '../app/context.ts';
import { Link } from '../app/links.tsx';
import { pathOf } from '../../machines/routes.ts';
import { Alert } from '../components/Alert.tsx';
import { Card } from '../components/Card.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { variant } from '../variant.ts';
import { tilesFor } from './tiles.ts';

export default function DashboardPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const user = useSelector(root, (s) => s.context.user);
  const notice = useSelector(root, (s) => s.context.notice);
  if (!user) return null;
  const tiles = tilesFor(user, window.location.host, window.location.protocol, variant === 'lu');
  return (
    <UserLayout>
      <h1 className="text-2xl font-bold">{t('dashboard.greeting', { name: user.firstname })}</h1>
      {notice === 'logout_failed' && (
        <Alert tone="error" className="mt-4">{t('errors.logout_failed')}</Alert>
      )}
      {!user.mfa_enrolled && (
        <Alert tone="warning" role={null} className="mt-4">
          <p className="font-semibold">{t('dashboard.nudge.title')}</p>
          <p className="mt-1">{t('dashboard.nudge.text')}</p>
          <Link to={pathOf('security', 'methods')} className="mt-2 inline-block font-medium text-brand-dark underline">{t('dashboard.nudge.action')}</Link>
        </Alert>
      )}
      <Card aria-labelledby="services-title" className="mt-6">
        <h2 id="services-title" className="text-lg font-semibold">{t('dashboard.services')}</h2>
        <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {tiles.map((tile) => (
            <li key={tile.key} data-testid={`tile-${tile.key}`}>
              <a href={tile.href} className="block h-full rounded-lg border border-slate-300 p-4 hover:border-brand hover:bg-brand-light">
                <span className="block font-semibold text-brand-dark">{t(`dashboard.tile.${tile.key}.title`)}</span>
                <span className="mt-1 block text-sm text-slate-700">{t(`dashboard.tile.${tile.key}.text`)}</span>
              </a>
            </li>
          ))}
        </ul>
      </Card>
    </UserLayout>
  );
}
