// The website access chooser (spec §2 "Screen behaviours"): after a sign-in with no target, a person
// with several platforms picks where to go; "Go to my account" skips to the dashboard. The options
// are the dashboard's tiles (tiles.ts), named as the chooser names them: the client area, the
// administration (the Fridom platform), the employee area (in Luxembourg, the Luxembourg employee
// area) and the deals platform.
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import { HOME_PATH } from '../../machines/routes.ts';
import { useRootActor } from '../shell/context.ts';
import { Link } from 'react-router';
import { Card } from '../components/Card.tsx';
import { PublicLayout } from '../components/PublicLayout.tsx';
import { variant } from '../variant.ts';
import { tilesFor, type Tile } from './tiles.ts';

const OPTION: Record<Tile['key'], string> = {
  client: 'clientArea',
  fridom: 'administration',
  my: 'employeeArea',
  deals: 'deals',
};

export default function ChooserPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const user = useSelector(root, (s) => s.context.user);
  if (!user) return null;
  const lu = variant === 'lu';
  const options = tilesFor(user, window.location.host, window.location.protocol, lu);
  return (
    <PublicLayout>
      <Card className="mx-auto max-w-lg">
        <h1 className="text-2xl font-bold">{t('chooser.title', { name: user.firstname })}</h1>
        <p className="mt-2">{t('chooser.text')}</p>
        <ul className="mt-5 space-y-3">
          {options.map((option) => {
            const key = option.key === 'my' && lu ? 'employeeAreaLu' : OPTION[option.key];
            return (
              <li key={option.key} data-testid={`choose-${option.key}`}>
                <a
                  href={option.href}
                  className="block rounded-lg border border-slate-300 p-4 hover:border-brand hover:bg-brand-light"
                >
                  <span className="block font-semibold text-brand-dark">{t(`chooser.option.${key}.title`)}</span>
                  <span className="mt-1 block text-sm text-slate-700">{t(`chooser.option.${key}.text`)}</span>
                </a>
              </li>
            );
          })}
        </ul>
        <p className="mt-6">
          <Link to={HOME_PATH} className="btn btn-secondary">
            {t('chooser.skip')}
          </Link>
        </p>
      </Card>
    </PublicLayout>
  );
}
