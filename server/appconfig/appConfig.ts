// What the browser needs before it renders, for a host: GET /api/config answers it, and the page
// carries it (server/spa/page.ts) so the first screen need not ask.
import { VARIANT_LOCALES, variantOfHost } from '../../contract/constants.ts';
import type { AppConfig } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { registeredRedirectTargets } from './queries.ts';

export async function appConfigFor(ctx: Pick<AppContext, 'db' | 'config'>, host: string): Promise<AppConfig> {
  const variant = variantOfHost(host);
  const locales = VARIANT_LOCALES[variant];
  return {
    variant,
    locales: Object.values(locales.locales),
    defaultLocale: locales.default,
    redirectTargets: await registeredRedirectTargets(ctx.db),
    analyticsUrl: ctx.config.analyticsUrl,
    passwordPolicy: ctx.config.passwordPolicy,
    captcha: ctx.config.captcha.enabled,
    microsoft: ctx.config.microsoft
      ? { tenants: ctx.config.microsoft.tenants.map(({ id, name }) => ({ id, name })) }
      : null,
  };
}
