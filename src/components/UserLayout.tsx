import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, useLocation } from 'react-router';
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

/** The width of the fading edge that says the tabs scroll (w-10). */
const FADE_PX = 40;

/** The user area: a sidebar on wide screens that becomes a row of tabs on small ones. */
export function UserLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const tabs = useRef<HTMLUListElement>(null);
  const { pathname } = useLocation();
  // On a phone the current tab may lie past the edge: bring it into view, clear of the fade.
  useEffect(() => {
    const list = tabs.current;
    const current = list?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!list || !current || list.scrollWidth <= list.clientWidth) return;
    const end = current.offsetLeft + current.offsetWidth + FADE_PX;
    if (end > list.scrollLeft + list.clientWidth) list.scrollLeft = end - list.clientWidth;
  }, [pathname]);
  return (
    <div className="flex min-h-screen flex-col">
      <TopBar />
      <div className="mx-auto flex w-full max-w-6xl flex-1 flex-col gap-6 px-4 py-6 md:flex-row">
        <nav aria-label={t('sidebar.label')} className="md:w-56 md:shrink-0">
          <div className="relative">
            <ul
              ref={tabs}
              className="flex gap-1 overflow-x-auto border-b border-slate-200 pr-8 md:flex-col md:border-b-0 md:pr-0"
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
            {/* On a phone the tabs scroll sideways: the fading edge says there is more. */}
            <span
              aria-hidden="true"
              className="pointer-events-none absolute inset-y-0 right-0 w-10 bg-gradient-to-l from-slate-50 md:hidden"
              data-testid="tabs-more"
            />
          </div>
        </nav>
        <main id="main" className="min-w-0 flex-1">
          {children}
        </main>
      </div>
      <Footer />
    </div>
  );
}
