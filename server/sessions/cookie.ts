// The auth cookie: HttpOnly, SameSite=Lax, living as long as the session (SESSION_TTL_DAYS); `__Secure-` prefixed and Secure in production;
// its domain is the host minus `account.` so sibling platforms (client., my.) share the sign-in: the
// host of the configured origin the request's Host selects, never the Host itself (server/http/origin.ts).
import { AUTH_COOKIE_BASENAME } from '../../contract/constants.ts';
import type { Config } from '../config/index.ts';
import { publicOriginOf } from '../http/origin.ts';

export function authCookieName(config: Pick<Config, 'env'>): string {
  return config.env === 'production' ? `__Secure-${AUTH_COOKIE_BASENAME}` : AUTH_COOKIE_BASENAME;
}

/** Host minus `account.`; none for IP addresses and `*.localhost`, which browsers refuse as a domain. */
export function cookieDomainFor(host: string | undefined, configured: string | null): string | undefined {
  if (configured) return configured;
  const name = (host ?? '').split(':')[0]!.toLowerCase();
  if (!name.startsWith('account.')) return undefined;
  const parent = name.slice('account.'.length);
  if (!parent.includes('.') || parent.endsWith('localhost') || /^[\d.]+$/.test(parent)) return undefined;
  return parent;
}

export function authCookieOptions(
  config: Pick<Config, 'env' | 'cookieDomain' | 'sessionTtlDays' | 'publicOrigins'>,
  host: string | undefined,
) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.env === 'production',
    // The cookie goes when the session does, not on a fixed date of its own.
    maxAge: config.sessionTtlDays * 24 * 60 * 60,
    domain: cookieDomainFor(publicOriginOf(config, { host: host ?? '' }).host, config.cookieDomain),
  };
}
