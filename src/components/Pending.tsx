import { useTranslation } from 'react-i18next';

/** What shows while the machine decides or a screen loads. */
export function Pending() {
  const { t } = useTranslation();
  return (
    <main id="main" aria-busy="true" className="flex min-h-screen items-center justify-center">
      <h1 className="sr-only">{t('brand')}</h1>
      <Loading className="text-slate-700" />
    </main>
  );
}

/** The words saying that a screen, or a part of it, loads: announced. */
export function Loading({ className }: { className?: string }) {
  const { t } = useTranslation();
  return (
    <p role="status" className={className}>
      {t('common.loading')}
    </p>
  );
}
