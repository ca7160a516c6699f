// The screens this app has (spec §2). Which one may show is the root machine's decision; a path
// that is not here renders nothing while the machine sends the user where the spec says.
import { lazy, Suspense, type ReactNode } from 'react';
import { LoginPage } from '../login/LoginPage.tsx';
import { MaintenancePage } from '../maintenance/MaintenancePage.tsx';
import { Pending } from '../components/Pending.tsx';
import { ONBOARDING_PATHS } from '../../machines/onboarding.ts';

const DashboardPage = lazy(() => import('../dashboard/DashboardPage.tsx'));
const TotpRecoveryPage = lazy(() => import('../mfa/TotpRecoveryPage.tsx'));
const SetupMfaPage = lazy(() => import('../mfa/SetupMfaPage.tsx'));
const SecurityPage = lazy(() => import('../security/SecurityPage.tsx'));
const AuthenticatorPage = lazy(() => import('../security/AuthenticatorPage.tsx'));
const WeakPasswordPage = lazy(() => import('../recovery/WeakPasswordPage.tsx'));
const ForgotPasswordPage = lazy(() => import('../recovery/ForgotPasswordPage.tsx'));
const ForgotUsernamePage = lazy(() => import('../recovery/ForgotUsernamePage.tsx'));
const OnboardingPage = lazy(() => import('../onboarding/OnboardingPage.tsx'));
const SecondFactorPage = lazy(() => import('../mfa/SecondFactorPage.tsx').then((m) => ({ default: m.SecondFactorPage })));

const later = (node: ReactNode) => <Suspense fallback={<Pending />}>{node}</Suspense>;

export const routes: Array<{ path: string; element: ReactNode }> = [
  { path: '/login/email', element: <LoginPage /> },
  { path: '/login/phone', element: <LoginPage /> },
  { path: '/user/dashboard', element: later(<DashboardPage />) },
  { path: '/mfa/methods', element: later(<SecondFactorPage />) },
  { path: '/mfa', element: later(<SecondFactorPage />) },
  { path: '/mfa/totp-recovery', element: later(<TotpRecoveryPage />) },
  ...['/setup-mfa', '/setup-mfa/selection', '/setup-mfa/phone', '/setup-mfa/email', '/setup-mfa/confirmation', '/setup-mfa/success']
    .map((path) => ({ path, element: later(<SetupMfaPage />) })),
  ...['/security', '/security/mfa-edit', '/security/edit-recovery'].map((path) => ({ path, element: later(<SecurityPage />) })),
  { path: '/setup-mfa/totp', element: later(<AuthenticatorPage />) },
  { path: '/setup-totp/success', element: later(<AuthenticatorPage />) },
  { path: '/weak-password', element: later(<WeakPasswordPage />) },
  { path: '/forgot-username', element: later(<ForgotUsernamePage />) },
  { path: '/forgot-username-response', element: later(<ForgotUsernamePage />) },
  ...['/forgot-password/email', '/forgot-password/phone', '/forgot-password-sent', '/reset-password', '/reset-password-confirmed']
    .map((path) => ({ path, element: later(<ForgotPasswordPage />) })),
  ...Object.values(ONBOARDING_PATHS).map((path) => ({ path, element: later(<OnboardingPage />) })),
  { path: '/maintenance', element: <MaintenancePage /> },
  { path: '*', element: <Pending /> },
];
