// The screens, derived from the route table (machines/routes.ts): each screen id maps to its
// component, and every path of the table renders its screen. Which one may show is the root
// machine's decision; a path that is not in the table renders nothing while the machine sends the
// user where the spec says.
import { lazy, Suspense, type ReactNode } from 'react';
import { LoginPage } from '../login/LoginPage.tsx';
import { Pending } from '../components/Pending.tsx';
import { ROUTES, normalise, type ScreenId } from '../../machines/routes.ts';

const DashboardPage = lazy(() => import('../dashboard/DashboardPage.tsx'));
// Loaded when shown: the API is the one resting, the server still serves the app's files.
const MaintenancePage = lazy(() => import('../maintenance/MaintenancePage.tsx'));
const TotpRecoveryPage = lazy(() => import('../mfa/TotpRecoveryPage.tsx'));
const SetupMfaPage = lazy(() => import('../mfa/SetupMfaPage.tsx'));
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
const ChooserPage = lazy(() => import('../dashboard/ChooserPage.tsx'));
const ProfilePage = lazy(() => import('../profile/ProfilePage.tsx'));
const UndoChangePage = lazy(() => import('../undoChange/UndoChangePage.tsx'));
const NotMePage = lazy(() => import('../notMe/NotMePage.tsx'));
const FuzzionPage = lazy(() => import('../fuzzion/FuzzionPage.tsx'));
const NotificationsPage = lazy(() => import('../notifications/NotificationsPage.tsx'));
const MicrosoftContinuePage = lazy(() => import('../login/MicrosoftContinuePage.tsx'));
const SecondFactorPage = lazy(() =>
  import('../mfa/SecondFactorPage.tsx').then((m) => ({ default: m.SecondFactorPage })),
);

const later = (node: ReactNode) => <Suspense fallback={<Pending />}>{node}</Suspense>;

/** Each screen of the table, as an element. */
const SCREEN_ELEMENTS: Record<ScreenId, ReactNode> = {
  login: <LoginPage />,
  microsoftLogin: later(<MicrosoftContinuePage />),
  maintenance: later(<MaintenancePage />),
  dashboard: later(<DashboardPage />),
  secondFactor: later(<SecondFactorPage />),
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
  chooser: later(<ChooserPage />),
  profile: later(<ProfilePage />),
  undoChange: later(<UndoChangePage />),
  notMe: later(<NotMePage />),
  fuzzion: later(<FuzzionPage />),
  notifications: later(<NotificationsPage />),
};

const BY_PATH = new Map<string, ReactNode>(ROUTES.map((route) => [route.path, SCREEN_ELEMENTS[route.screen]]));

/** The screen of a path (a trailing slash aside); any other path shows a status while the root
 * machine sends the person where the spec says. */
export function screenAt(pathname: string): ReactNode {
  return BY_PATH.get(normalise(pathname)) ?? <Pending />;
}
