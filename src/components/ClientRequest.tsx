// What a partner application asks of the account, as the consent and the partner's landing page
// show it: the scopes it asks, and its privacy policy and terms.
import { useTranslation } from 'react-i18next';
import type { PartnerClient } from '../../contract/schemas.ts';

/** The scopes asked, under their heading. Signing in is what every application asks: the heading
 * says it (its `signInOnly` context when nothing else is asked), the list leaves it out. */
export function AskedScopes({
  scopes,
  title,
  testId,
}: {
  scopes: readonly string[];
  title: (context: 'signInOnly' | undefined) => string;
  testId: string;
}) {
  const { t } = useTranslation();
  const asked = scopes.filter((scope) => scope !== 'openid');
  return (
    <>
      <h2 className="mt-5 font-semibold">{title(asked.length ? undefined : 'signInOnly')}</h2>
      {asked.length > 0 && (
        <ul className="mt-2 list-disc space-y-1 pl-5" data-testid={testId}>
          {asked.map((scope) => (
            <li key={scope}>{t(`scopes.${scope}`)}</li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The application's privacy policy and terms, those it gives, each in a tab of its own. */
export function ClientLinks({ client, className }: { client: PartnerClient | null; className: string }) {
  const { t } = useTranslation();
  if (!client?.policy_uri && !client?.tos_uri) return null;
  const app = client.name;
  return (
    <p className={`${className} flex flex-wrap gap-4 text-sm`}>
      {client.policy_uri && (
        <a href={client.policy_uri} className="text-brand underline" rel="noopener noreferrer" target="_blank">
          {t('consent.policy', { app })}
        </a>
      )}
      {client.tos_uri && (
        <a href={client.tos_uri} className="text-brand underline" rel="noopener noreferrer" target="_blank">
          {t('consent.terms', { app })}
        </a>
      )}
    </p>
  );
}
