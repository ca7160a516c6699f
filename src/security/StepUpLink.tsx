// After a refusal for want of a recent second factor: the way to give one, following the failure's
// words in its alert.
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { pathOf } from '../../machines/routes.ts';

export function StepUpLink() {
  const { t } = useTranslation();
  return (
    <>
      {' '}
      <Link to={pathOf('security', 'methods')} className="underline">
        {t('devices.error.stepUpLink')}
      </Link>
    </>
  );
}
