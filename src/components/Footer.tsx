import { useTranslation } from 'react-i18next';

const LINKS = [
  { key: 'blog', href: 'https://www.tessera.example/blog' },
  { key: 'help', href: 'https://help.tessera.example/' },
  { key: 'site', href: 'https://www.tessera.example/' },
  { key: 'privacy', href: 'https://www.tessera.example/privacy' },
] as const;

export function Footer() {
  const { t } = useTranslation();
  return (
    <footer className="mt-12 border-t border-slate-200 bg-white">
      <nav aria-label={t('footer.label')} className="mx-auto flex max-w-6xl flex-wrap gap-x-6 gap-y-2 px-4 py-6 text-sm">
        {LINKS.map((link) => (
          <a key={link.key} href={link.href} className="text-slate-700 underline hover:text-brand">{t(`footer.${link.key}`)}</a>
        ))}
      </nav>
    </footer>
  );
}
