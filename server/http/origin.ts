// The public origin a request is served under (docs/decisions/public-origins.md). Each
// variant's origin is configuration (PUBLIC_ORIGIN_BE, PUBLIC_ORIGIN_LU): links in mails, SMS and
// notices, the redirects the server builds and the OIDC issuer come from it. The request's Host (or
// X-Forwarded-Host from a trusted proxy, as Fastify's `request.host` resolves it under TRUST_PROXY)
// only selects which configured origin serves it, by host name; it is never copied into anything
// the server sends. In production a host that names no configured origin gets 421 before any route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Variant } from '../../contract/constants.ts';
import type { Config } from '../config/index.ts';
import { sendError } from './errors.ts';

export type PublicOrigin = {
  variant: Variant;
  /** scheme://host[:port], as configured. */
  origin: string;
  /** host[:port] of the origin (what a Host header names). */
  host: string;
};

type Origins = Config['publicOrigins'];
const parsed = new WeakMap<Origins, { byName: Map<string, PublicOrigin>; be: PublicOrigin }>();

function originsOf(origins: Origins) {
  let known = parsed.get(origins);
  if (!known) {
    const entries = (Object.entries(origins) as [Variant, string][]).map(([variant, origin]) => {
      const url = new URL(origin);
      return [url.hostname, { variant, origin, host: url.host }] as const;
    });
    known = { byName: new Map(entries), be: entries.find(([, entry]) => entry.variant === 'be')![1] };
    parsed.set(origins, known);
  }
  return known;
}

/** The host name of a Host header's value: lower case, without its port (an IPv6 address keeps its brackets). */
export function hostnameOf(host: string | undefined): string {
  const value = (host ?? '').trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  return value.split(':', 1)[0]!;
}

/** The configured origin whose host name a Host header's value names, if any (the port is not compared:
 * it is never copied either, and a proxy may or may not pass it on). */
export function configuredOriginOf(
  config: Pick<Config, 'publicOrigins'>,
  host: string | undefined,
): PublicOrigin | null {
  return originsOf(config.publicOrigins).byName.get(hostnameOf(host)) ?? null;
}

/** The origin serving a request. In production an unconfigured host never gets here (421, below);
 * in development and test it falls back to the Belgian origin (tests speak to 127.0.0.1). */
export function publicOriginOf(
  config: Pick<Config, 'publicOrigins'>,
  request: Pick<FastifyRequest, 'host'>,
): PublicOrigin {
  return configuredOriginOf(config, request.host) ?? originsOf(config.publicOrigins).be;
}

/** Answered whatever the host: a load balancer's probes and the metrics scraper name the instance by its address. */
const ANY_HOST = new Set(['/healthz', '/readyz', '/metrics']);

/** Production only: a request for a host that is no configured origin's gets 421 Misdirected Request
 * before any route (API, OIDC, the app's pages), but for the probes and the metrics. */
export function refuseUnconfiguredHosts(app: FastifyInstance, config: Pick<Config, 'env' | 'publicOrigins'>) {
  if (config.env !== 'production') return;
  // Callback style, as the API's own hook: it runs on every request.
  app.addHook('onRequest', (request, reply, done) => {
    if (configuredOriginOf(config, request.host) || ANY_HOST.has(request.url.split('?', 1)[0]!)) {
      done();
      return;
    }
    sendError(reply, 'misdirected_request');
  });
}
