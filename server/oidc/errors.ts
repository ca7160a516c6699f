// The page oidc-provider shows when it cannot send an error back to the client (an unknown client,
// a redirect_uri not registered exactly, a broken request before the client is known). It never
// redirects: a request we could not validate must not lead the browser anywhere. It speaks the
// visitor's language (the app's strings, `oidcError.*` in locales/).
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import { LOCALES, VARIANT_LOCALES, variantLocaleOf, type Locale, type Variant } from '../../contract/constants.ts';
import { textsIn } from '../delivery/i18n.ts';

type Texts = { invalidPartner: string; unavailable: string; invalid: string; invalidLogout: string; home: string };

const TEXTS = Object.fromEntries(
  LOCALES.map((locale) => {
    const t = textsIn(locale);
    const texts: Texts = {
      invalidPartner: t('oidcError.invalidPartner'),
      unavailable: t('oidcError.unavailable'),
      invalid: t('oidcError.invalid'),
      invalidLogout: t('oidcError.invalidLogout'),
      home: t('oidcError.home'),
    };
    return [locale, texts];
  }),
) as Record<Locale, Texts>;

/** The spec's invalid-partner message (§8 names it without its text), in English. */
export const INVALID_PARTNER_MESSAGE = TEXTS.en.invalidPartner;

const PARTNER_ERRORS = new Set(['invalid_client', 'invalid_redirect_uri', 'unauthorized_client']);

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The locale of the page: the visitor's language, if the variant (of the configured origin the
 * request came to) offers it. */
export function errorLocale(variant: Variant, acceptLanguage: string | undefined): Locale {
  return variantLocaleOf(acceptLanguage, variant) ?? VARIANT_LOCALES[variant].fallback;
}

/** What the refused request was: a sign-in (an authorization request, and by default) or a sign-out
 * (the end-session endpoint). */
export type RequestKind = 'sign-in' | 'sign-out';

export function oidcErrorPage(out: ErrorOut, locale: Locale = 'en', kind: RequestKind = 'sign-in'): string {
  const texts = TEXTS[locale];
  const message = PARTNER_ERRORS.has(out.error)
    ? texts.invalidPartner
    : out.error === 'temporarily_unavailable'
      ? texts.unavailable
      : kind === 'sign-out'
        ? texts.invalidLogout
        : texts.invalid;
  return (
    `<!doctype html><html lang="${locale.replace('_', '-')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>Tessera</title></head><body><main><h1>${escapeHtml(message)}</h1>` +
    `<p><code>${escapeHtml(out.error)}</code></p><p><a href="/">${escapeHtml(texts.home)}</a></p></main></body></html>`
  );
}

export function renderOidcError(variant: Variant, ctx: KoaContextWithOIDC, out: ErrorOut): void {
  ctx.type = 'html';
  const kind = ctx.oidc?.route?.startsWith('end_session') ? 'sign-out' : 'sign-in';
  ctx.body = oidcErrorPage(out, errorLocale(variant, ctx.get('accept-language') || undefined), kind);
}
