import { useTranslation } from 'react-i18next';

/** What shows while the machine decides or a screen loads. */
export function Pending() {
  const { t } = useTranslation();
  return (
    <main id="main" aria-busy="true" className="flex min-h-screen items-center justify-center">
      <h1 className="sr-only">{t('brand')}</h1>
      <p role="status" className="text-slate-700">
        {t('common.loading')}
      </p>
    </main>
  );
}
