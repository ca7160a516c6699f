// Tessera's mark: four tiles of a mosaic (a tessera is one such tile), one of them lit, beside the
// name. Drawn in the variant's brand colour (src/styles.css), so each host looks like itself.
import { useTranslation } from 'react-i18next';

/** `compact`: on the narrowest phones the name gives its room to the bar's links (the mark stays). */
export function Logo({ className = '', compact = false }: { className?: string; compact?: boolean }) {
  const { t } = useTranslation();
  return (
    <span className={`inline-flex items-center gap-2 text-xl font-bold text-brand ${className}`}>
      <svg aria-hidden="true" width="28" height="28" viewBox="0 0 28 28" className="shrink-0">
        <rect x="1" y="1" width="12" height="12" rx="2" fill="currentColor" />
        <rect x="15" y="1" width="12" height="12" rx="2" fill="currentColor" opacity="0.45" />
        <rect x="1" y="15" width="12" height="12" rx="2" fill="currentColor" opacity="0.45" />
        <rect x="15" y="15" width="12" height="12" rx="2" fill="currentColor" />
      </svg>
      <span className={compact ? 'hidden min-[400px]:inline' : undefined}>{t('brand')}</span>
    </span>
  );
}
