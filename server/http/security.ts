// Security headers on every answer. The CSP allows only our own origin (and the hash of a page's
// inline stylesheet); frames are refused.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/index.ts';

/** The content security policy: our own origin only (and https images, for partners' logos). `styles` adds the hashes of inline style
 * elements a page carries (server/spa/page.ts inlines the stylesheet into the page). */
export function contentSecurityPolicy(config: Pick<Config, 'analyticsUrl'>, extra: { styles?: string[] } = {}): string {
  const connect = ["'self'", config.analyticsUrl ? new URL(config.analyticsUrl).origin : null].filter(Boolean).join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    ["style-src 'self'", ...(extra.styles ?? [])].join(' '),
    // Partner applications' logos are registered https addresses (the consent and access screens
    // show them): an image runs nothing, and the referrer policy keeps our paths to ourselves.
    "img-src 'self' data: https:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function installSecurityHeaders(app: FastifyInstance, config: Config) {
  const csp = contentSecurityPolicy(config);
  // Callback style: every answer passes here, and an async hook costs a promise each time.
  app.addHook('onSend', (request, reply, payload, done) => {
    // A page that carries its own inline style says so in a policy of its own.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'strict-origin-when-cross-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
    if (config.env === 'production') reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
