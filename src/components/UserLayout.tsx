import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { Footer } from './Footer.tsx';
import { TopBar } from './TopBar.tsx';
import { pathOf } from '../../machines/routes.ts';

/** Sidebar entries (spec §2). */
const ENTRIES = [
  { key: 'dashboard', to: pathOf('dashboard', 'home') },
  { key: 'profile', to: pathOf('profile', 'overview') },
  { key: 'security', to: pathOf('security', 'overview') },
  { key: 'access', to: pathOf('access', 'list') },
  { key: 'notifications', to: pathOf('notifications', 'settings') },
] as const;

/** The user area: a sidebar on wide screens that becomes tabs on small ones. The tabs wrap onto a
 * second row rather than scroll: every one stays in view, in every language. */
export function UserLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="flex min-h-screen flex-col">
      <TopBar />
      <div className="mx-auto flex w-full max-w-6xl flex-1 flex-col gap-6 px-4 py-6 md:flex-row">
        <nav aria-label={t('sidebar.label')} className="md:w-56 md:shrink-0">
          <ul
            className="flex flex-wrap gap-1 border-b border-slate-200 pb-1 md:flex-col md:flex-nowrap md:border-b-0 md:pb-0"
            data-testid="user-nav"
          >
            {ENTRIES.map((entry) => (
              <li key={entry.key} className="shrink-0">
                <NavLink
                  to={entry.to}
                  className={({ isActive }) =>
                    `block rounded px-3 py-2 text-sm font-medium ${isActive ? 'bg-brand text-white' : 'text-slate-800 hover:bg-slate-100'}`
                  }
                >
                  {t(`sidebar.${entry.key}`)}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" className="min-w-0 flex-1">
          {children}
        </main>
      </div>
      <Footer />
    </div>
  );
}
