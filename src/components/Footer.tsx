import { useTranslation } from 'react-i18next';
import { EXTERNAL_LINKS } from '../externalLinks.ts';

export function Footer() {
  const { t } = useTranslation();
  return (
    <footer className="mt-12 border-t border-slate-200 bg-white">
      <nav
        aria-label={t('footer.label')}
        className="mx-auto flex max-w-6xl flex-wrap gap-x-6 gap-y-2 px-4 py-6 text-sm"
      >
        {(Object.keys(EXTERNAL_LINKS) as Array<keyof typeof EXTERNAL_LINKS>).map((key) => (
          <a key={key} href={EXTERNAL_LINKS[key]} className="text-slate-700 underline hover:text-brand">
            {t(`footer.${key}`)}
          </a>
        ))}
      </nav>
    </footer>
  );
}
