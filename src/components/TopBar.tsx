import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import { Logo } from './Logo.tsx';
import { Link } from 'react-router';
import { useRootActor } from '../shell/context.ts';
import { LanguageSwitch } from './LanguageSwitch.tsx';
import { LINKS, pathOf } from '../../machines/routes.ts';

/** The top bar: brand, the public navbar (Login, Register), the step of a sign-in under way (its code,
 * its new password) with the way back, or the signed-in user; and the language switch. */
export function TopBar() {
  const { t } = useTranslation();
  const root = useRootActor();
  const user = useSelector(root, (s) => (s.matches('signedIn') ? s.context.user : null));
  // A sign-in waits for its second factor or a new password: "Log in / Register" would contradict it.
  const step = useSelector(root, (s) =>
    s.matches('signedIn') ? null : s.context.mfa ? 'code' : s.context.weakPayload ? 'password' : null,
  );
  // An onboarding that just made the account has signed it in: "Log in / Register" would contradict
  // its last screen, whose Continue goes on as after a sign-in.
  const onboarding = useSelector(root, (s) => s.children.onboarding);
  const accountReady = useSelector(onboarding, (s) => s?.value === 'confirmation');
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-2 px-4 py-2 sm:gap-3 sm:py-3">
        <Link to={LINKS.home} aria-label={t('brand')} className="rounded">
          <Logo compact />
        </Link>
        <nav aria-label={t('topbar.navigation')} className="flex items-center gap-3 sm:gap-4">
          {user ? (
            <>
              <span className="hidden text-sm sm:inline">{t('topbar.signedInAs', { name: user.firstname })}</span>
              <Link to={LINKS.logout} className="text-sm font-medium text-brand underline">
                {t('topbar.logout')}
              </Link>
            </>
          ) : accountReady ? null : step ? (
            <>
              <span className="hidden text-sm sm:inline">{t('topbar.signingIn', { context: step })}</span>
              <Link
                to={pathOf('login', 'email')}
                className="whitespace-nowrap text-sm font-medium text-brand underline"
              >
                {t('mfa.back')}
              </Link>
            </>
          ) : (
            <>
              <Link
                to={pathOf('login', 'email')}
                className="whitespace-nowrap text-sm font-medium text-brand underline"
              >
                {t('topbar.login')}
              </Link>
              <Link
                to={pathOf('onboarding', 'onboarding')}
                className="whitespace-nowrap rounded bg-brand px-3 py-1.5 text-sm font-medium text-white"
              >
                {t('topbar.register')}
              </Link>
            </>
          )}
          <LanguageSwitch />
        </nav>
      </div>
    </header>
  );
}
