// REDIS_URL: one Redis (`redis://…`, `rediss://…`), or Sentinels that name the primary
// (`redis+sentinel://[:password@]host1:26379,host2:26379/<primary name>[?db=N]`). The Sentinel form
// is read here, since a URL parser takes one host only: it becomes ioredis' `sentinels` and `name`,
// and ioredis asks the Sentinels for the primary, and asks again when it fails over.
import { Redis, type RedisOptions } from 'ioredis';

export class RedisUrlError extends Error {}

export type RedisTarget =
  { url: string } | { sentinels: { host: string; port: number }[]; name: string; options: RedisOptions };

const SENTINEL = /^redis\+sentinel:\/\/(?:(?:[^:@/]*):([^@/]*)@)?([^/?#]+)\/([^/?#]+)(?:\?([^#]*))?$/;
const DEFAULT_SENTINEL_PORT = 26379;

function sentinelHost(entry: string): { host: string; port: number } {
  // An IPv6 address in brackets, or a name or IPv4 address; the port is optional.
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry.trim());
  const port = match?.[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[2]);
  if (!match || port < 1 || port > 65535)
    throw new RedisUrlError(`names a Sentinel that is no host[:port] ("${entry}")`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

export function redisTarget(raw: string): RedisTarget {
  if (!raw.startsWith('redis+sentinel:')) {
    let protocol: string;
    try {
      protocol = new URL(raw).protocol;
    } catch {
      throw new RedisUrlError('must be a URL starting with redis:, rediss: or redis+sentinel:');
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:')
      throw new RedisUrlError(`must be a URL starting with redis:, rediss: or redis+sentinel: (got ${protocol}//…)`);
    return { url: raw };
  }
  const match = SENTINEL.exec(raw);
  if (!match) throw new RedisUrlError('as Sentinels must read redis+sentinel://host1:26379,host2:26379/<primary name>');
  const [, password, hosts, name, query] = match;
  const sentinels = hosts!.split(',').map(sentinelHost);
  const options: RedisOptions = {};
  if (password) options.password = decodeURIComponent(password);
  const db = new URLSearchParams(query ?? '').get('db');
  if (db !== null) {
    if (!/^\d{1,2}$/.test(db)) throw new RedisUrlError(`must give db as a number (got "${db}")`);
    options.db = Number(db);
  }
  return { sentinels, name: decodeURIComponent(name!), options };
}

/** A client of the target: the Redis of a URL, or the primary the Sentinels name (ioredis asks
 * them again after a failover). */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  return 'url' in target
    ? new Redis(target.url, options)
    : new Redis({ ...options, ...target.options, sentinels: target.sentinels, name: target.name });
}
