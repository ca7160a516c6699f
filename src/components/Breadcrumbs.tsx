// The trail above a signed-in screen: every step is a link back, the last one is the screen itself.
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { pathOf } from '../../machines/routes.ts';

export type Crumb = { label: string; to: string };

/** The trail from the dashboard to this screen; `trail` names the steps after the dashboard. */
export function Breadcrumbs({ trail }: { trail: Crumb[] }) {
  const { t } = useTranslation();
  const steps: Crumb[] = [{ label: t('sidebar.dashboard'), to: pathOf('dashboard', 'home') }, ...trail];
  return (
    <nav aria-label={t('common.breadcrumbs')} className="text-sm">
      <ol className="flex flex-wrap gap-2">
        {steps.map((step, index) => {
          const last = index === steps.length - 1;
          return (
            <li key={step.to + step.label}>
              {last ? (
                <span aria-current="page">{step.label}</span>
              ) : (
                <Fragment>
                  <Link to={step.to} className="text-brand underline">
                    {step.label}
                  </Link>
                  <span aria-hidden="true"> /</span>
                </Fragment>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
