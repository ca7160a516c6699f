// The page oidc-provider shows when it cannot send an error back to the client (an unknown client,
// a redirect_uri not registered exactly, a broken request before the client is known). It never
// redirects: a request we could not validate must not lead the browser anywhere.
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';

/** The spec's invalid-partner message (§8; docs/spec.md gives no text, so this is ours, in English
 * until the next slice translates it with the partner screens). */
export const INVALID_PARTNER_MESSAGE = 'Invalid partner configuration. Please contact the application that sent you here.';

const PARTNER_ERRORS = new Set(['invalid_client', 'invalid_redirect_uri', 'unauthorized_client']);

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function oidcErrorPage(out: ErrorOut): string {
  const message = PARTNER_ERRORS.has(out.error) ? INVALID_PARTNER_MESSAGE
    : out.error === 'temporarily_unavailable' ? 'The service is temporarily unavailable, try again later.'
      : 'The sign-in request is invalid.';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">`
    + `<title>Tessera</title></head><body><main><h1>${escapeHtml(message)}</h1>`
    + `<p><code>${escapeHtml(out.error)}</code></p><p><a href="/">Tessera</a></p></main></body></html>`;
}

export function renderOidcError(ctx: KoaContextWithOIDC, out: ErrorOut, _error: unknown): void {
  ctx.type = 'html';
  ctx.body = oidcErrorPage(out);
}
