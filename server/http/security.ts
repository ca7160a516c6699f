// Security headers on every answer. The CSP allows only our own origin (and the hashes of a page's
// inline stylesheet and of the script that asks for its entry after the paint); frames are refused.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/index.ts';

/** The content security policy: our own origin only. `styles` adds the hashes of inline style
 * elements a page carries (server/spa/page.ts inlines the stylesheet into the page). */
export function contentSecurityPolicy(
  config: Pick<Config, 'analyticsUrl'>,
  extra: { styles?: string[]; scripts?: string[]; formAction?: string } = {},
): string {
  const connect = ["'self'", config.analyticsUrl ? new URL(config.analyticsUrl).origin : null]
    .filter(Boolean)
    .join(' ');
  return [
    "default-src 'self'",
    ["script-src 'self'", ...(extra.scripts ?? [])].join(' '),
    ["style-src 'self'", ...(extra.styles ?? [])].join(' '),
    // Partner applications' logos are served by us too (docs/decisions/client-logos.md).
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'self'",
    `form-action ${extra.formAction ?? "'self'"}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Where a form that answers the authorisation server may end: it posts to us, and the answer
 * redirects on to a client's registered address (a redirect URI, a post-logout redirect URI), which
 * a browser checks against `form-action` too. */
export function providerFormAction(config: Pick<Config, 'env'>): string {
  return `'self' https:${config.env === 'production' ? '' : ' http:'}`;
}

/** The headers every answer carries besides its content security policy. */
export function securityHeaders(config: Pick<Config, 'env'>): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
    ...(config.env === 'production' ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}

/** The policy of the authorisation server's own pages (its error page, its logout confirmation, a
 * form_post answer): they may post a form to a client's redirect URI and submit it by an inline
 * script (oidc-provider escapes what it writes into them); nothing loads from elsewhere and no one
 * frames them. */
export function providerPagePolicy(config: Pick<Config, 'env'>): string {
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    `form-action ${providerFormAction(config)}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function installSecurityHeaders(app: FastifyInstance, config: Config) {
  const csp = contentSecurityPolicy(config);
  const headers = Object.entries(securityHeaders(config));
  // Callback style: every answer passes here, and an async hook costs a promise each time.
  app.addHook('onSend', (request, reply, payload, done) => {
    // A page that carries its own inline style says so in a policy of its own.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', csp);
    for (const [name, value] of headers) reply.header(name, value);
    // An API answer is not kept, unless its route says how (a partner's logo).
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
