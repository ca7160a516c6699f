// The router's routes, generated from the route table (machines/routes.ts): each screen id maps to
// its component, and every path of the table renders its screen. Which one may show is the root
// machine's decision; a path that is not in the table shows a status while the machine sends the
// user where the spec says.
import { lazy, Suspense, type ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import { Route, Routes, useSearchParams } from 'react-router';
import { LoginPage } from '../login/LoginPage.tsx';
import { Pending } from '../components/Pending.tsx';
import { ROUTES, type Route as TableRoute, type ScreenId } from '../../machines/routes.ts';
import { useRootActor } from '../shell/context.ts';

const DashboardPage = lazy(() => import('../dashboard/DashboardPage.tsx'));
// Loaded when shown: the API is the one resting, the server still serves the app's files.
const MaintenancePage = lazy(() => import('../maintenance/MaintenancePage.tsx'));
const TotpRecoveryPage = lazy(() => import('../mfa/TotpRecoveryPage.tsx'));
const SetupMfaPage = lazy(() => import('../setupMfa/SetupMfaPage.tsx'));
const SecurityPage = lazy(() => import('../security/SecurityPage.tsx'));
const AccessPage = lazy(() => import('../access/AccessPage.tsx'));
const HistoryPage = lazy(() => import('../security/HistoryPage.tsx'));
const AuthenticatorPage = lazy(() => import('../security/AuthenticatorPage.tsx'));
const WeakPasswordPage = lazy(() => import('../recovery/WeakPasswordPage.tsx'));
const ForgotPasswordPage = lazy(() => import('../recovery/ForgotPasswordPage.tsx'));
const ForgotUsernamePage = lazy(() => import('../recovery/ForgotUsernamePage.tsx'));
const OnboardingPage = lazy(() => import('../onboarding/OnboardingPage.tsx'));
const ConsentPage = lazy(() => import('../consent/ConsentPage.tsx'));
const PartnerPage = lazy(() => import('../partner/PartnerPage.tsx'));
const AppLogoutPage = lazy(() => import('../appLogout/AppLogoutPage.tsx'));
const ChooserPage = lazy(() => import('../dashboard/ChooserPage.tsx'));
const ProfilePage = lazy(() => import('../profile/ProfilePage.tsx'));
const UndoChangePage = lazy(() => import('../undoChange/UndoChangePage.tsx'));
const NotMePage = lazy(() => import('../notMe/NotMePage.tsx'));
const FuzzionPage = lazy(() => import('../fuzzion/FuzzionPage.tsx'));
const NotificationsPage = lazy(() => import('../notifications/NotificationsPage.tsx'));
const MicrosoftContinuePage = lazy(() => import('../login/MicrosoftContinuePage.tsx'));
const MfaPage = lazy(() => import('../mfa/MfaPage.tsx').then((m) => ({ default: m.MfaPage })));

const later = (node: ReactNode) => <Suspense fallback={<Pending />}>{node}</Suspense>;

/** Each screen of the table, as an element. */
const SCREEN_ELEMENTS: Record<ScreenId, ReactNode> = {
  login: <LoginPage />,
  microsoftLogin: later(<MicrosoftContinuePage />),
  maintenance: later(<MaintenancePage />),
  dashboard: later(<DashboardPage />),
  mfa: later(<MfaPage />),
  totpRecovery: later(<TotpRecoveryPage />),
  setupMfa: later(<SetupMfaPage />),
  security: later(<SecurityPage />),
  securityHistory: later(<HistoryPage />),
  authenticator: later(<AuthenticatorPage />),
  access: later(<AccessPage />),
  weakPassword: later(<WeakPasswordPage />),
  forgotUsername: later(<ForgotUsernamePage />),
  forgotPassword: later(<ForgotPasswordPage />),
  onboarding: later(<OnboardingPage />),
  consent: later(<ConsentPage />),
  partner: later(<PartnerPage />),
  appLogout: later(<AppLogoutPage />),
  chooser: later(<ChooserPage />),
  profile: later(<ProfilePage />),
  undoChange: later(<UndoChangePage />),
  notMe: later(<NotMePage />),
  fuzzion: later(<FuzzionPage />),
  notifications: later(<NotificationsPage />),
};

/** A path that more than one entry shares: the one its query chooses (for a session only, as the
 * root reads it), else the plain one. */
function ByQuery({ entries }: { entries: readonly TableRoute[] }) {
  const [query] = useSearchParams();
  const signedIn = useSelector(useRootActor(), (s) => s.matches('signedIn'));
  const chosen = signedIn
    ? entries.find((route) => route.query && query.get(route.query[0]) === route.query[1])
    : undefined;
  return SCREEN_ELEMENTS[(chosen ?? entries.find((route) => !route.query)!).screen];
}

/** The table's entries by path, in table order. */
const BY_PATH = new Map<string, TableRoute[]>();
for (const route of ROUTES as readonly TableRoute[])
  BY_PATH.set(route.path, [...(BY_PATH.get(route.path) ?? []), route]);

/** Every path of the table, matched exactly as the machine reads it (case and all; a trailing
 * slash aside), and a status for any other. */
export function Screens() {
  return (
    <Routes>
      {[...BY_PATH].map(([path, entries]) => (
        <Route
          key={path}
          path={path}
          caseSensitive
          element={entries.length > 1 ? <ByQuery entries={entries} /> : SCREEN_ELEMENTS[entries[0]!.screen]}
        />
      ))}
      <Route path="*" element={<Pending />} />
    </Routes>
  );
}
