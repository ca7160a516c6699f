import { useTranslation } from 'react-i18next';
import { Card } from './Card.tsx';

/** The brochure download block of the public pages, with the card's tax facts (spec §1). */
export function Brochure() {
  const { t } = useTranslation();
  return (
    <Card aria-labelledby="brochure-title">
      <h2 id="brochure-title" className="text-lg font-semibold">
        {t('brochure.title')}
      </h2>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
        <li>{t('brochure.deductible')}</li>
        <li>{t('brochure.exempt')}</li>
      </ul>
      <a
        href="https://www.tessera.example/brochure.pdf"
        className="mt-3 inline-block text-sm font-medium text-brand underline"
      >
        {t('brochure.download')}
      </a>
    </Card>
  );
}
