// Configuration from environment variables, validated once at start. A bad value stops the start
// with a message that names the variable and says what it should be.
import { RedisUrlError, redisTarget, type RedisTarget } from './redis.ts';
import {
  MFA_MAX_ATTEMPTS,
  RESEND_FIRST_WAIT_S,
  RESEND_NEXT_WAIT_S,
  variantOfHost,
  type Variant,
} from '../../contract/constants.ts';
import { isIP } from 'node:net';
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy } from '../../contract/password.ts';

export type Config = {
  env: 'development' | 'production' | 'test';
  port: number;
  /** On SIGTERM: how long /readyz answers 503 while the node still serves, before it stops
   * accepting (at least the balancer's check interval times its fall count). */
  shutdownDrainSeconds: number;
  host: string;
  /** Each variant's public origin (scheme://host[:port]): every link in a mail, SMS or notice, every
   * redirect the server builds and the OIDC issuer (`<origin>/oidc`) come from it. A request's Host
   * (or X-Forwarded-Host from a trusted proxy) only chooses between them (server/http/origin.ts). */
  publicOrigins: Record<Variant, string>;
  /** postgres://… selects PostgreSQL; otherwise SQLite at sqlitePath (':memory:' allowed). */
  databaseUrl: string | null;
  sqlitePath: string;
  /** One Redis, or the Sentinels that name its primary (./redis.ts). */
  redis: RedisTarget | null;
  maintenance: boolean;
  /** The authorisation server may call clients (back-channel logout) at loopback and private
   * addresses; off, as oidc-provider's SSRF protection wants, but for local set-ups and tests. */
  oidcPrivateOutbound: boolean;
  sessionTtlDays: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  /** Longest time to receive a whole request, headers and body: a slow sender holds a socket no longer. */
  requestTimeoutSeconds: number;
  /** GET /metrics (Prometheus): served or not, and the bearer token it then asks for (null: none). */
  metrics: { enabled: boolean; token: string | null };
  /** Which hops may set X-Forwarded-For: none (false), a hop count, or proxy addresses and CIDR ranges. */
  trustProxy: false | number | string[];
  /** Explicit cookie domain; null derives it from the host (host minus `account.`). */
  cookieDomain: string | null;
  analyticsUrl: string | null;
  /** A MaxMind-format city database (.mmdb) naming the city of an address; null: countries only. */
  geoipCityDb: string | null;
  seedDemo: boolean;
  /** Directory of the built SPA; null serves no SPA (API only). */
  spaDir: string | null;
  login: {
    maxFailsPerUserIp: number;
    maxFailsPerAccount: number;
    maxFailsPerIp: number;
    windowSeconds: number;
    blockSeconds: number;
  };
  /** Concurrent Argon2id computations; defaults to the number of cores. */
  hashConcurrency: number;
  mfa: {
    /** Life of a one-time code. */
    codeTtlSeconds: number;
    /** How recent an MFA check must be for sensitive changes (step-up). */
    stepUpSeconds: number;
    trustedDeviceDays: number;
    maxAttempts: number;
    resendFirstWaitSeconds: number;
    resendNextWaitSeconds: number;
    /** Wrong second-factor answers for an account within an hour: from one address before that
     * address is blocked, and from anywhere before every check needs a harder ALTCHA (never a block). */
    maxFailsPerAccount: number;
    /** How long that address's block lasts. */
    failBlockSeconds: number;
    /** Codes one client address may have sent to one destination per hour (lower than the next). */
    sendsPerRequester: number;
    /** Codes sent per hour to one destination (email or phone), and for one account. */
    sendsPerDestination: number;
    sendsPerAccount: number;
  };
  /** ALTCHA proof of work on the forms a robot would abuse; off only by explicit configuration. */
  captcha: {
    enabled: boolean;
    /** PBKDF2 rounds per attempt, and the largest attempt count a challenge may need. */
    cost: number;
    maxCounter: number;
    ttlSeconds: number;
    /** Failed sign-ins for one account from one address after which signing in needs a solution too (0: never). */
    loginAfterFailures: number;
  };
  /** Life of an onboarding flow, from the card or invitation to the new account. */
  onboardingTtlSeconds: number;
  /** Bounds of a new password (the browser's checklist gets them from GET /config). */
  passwordPolicy: PasswordPolicy;
  /** How many previous passwords may not come back. */
  passwordHistory: number;
  /** Key for code hashes and secrets at rest (32+ characters); required in production. */
  secretKey: string;
  /** Microsoft sign-in (server/sso/); null when MICROSOFT_CLIENT_ID is not set: the feature is off. */
  microsoft: MicrosoftConfig | null;
  delivery: {
    /** Mail servers (smtp://… or smtps://…) in the order they are tried; none: (outside production)
     * the dev outbox. Each is named by its host[:port], prefixed `smtp:`. */
    smtp: DeliveryProvider[];
    mailFrom: string;
    /** HTTP providers for SMS, voice calls and WhatsApp, in the order they are tried; none: (outside
     * production) the dev outbox. */
    sms: (DeliveryProvider & { key: string | null; receiptSecret: string | null })[];
    /** Longest wait for one provider's answer before the next is tried. */
    timeoutMs: number;
    /** Consecutive failures that open a provider's circuit, and how long it then stays skipped. */
    breakerFailures: number;
    breakerCooldownSeconds: number;
    /** How long a worker holds a message it sends before another may take it (a worker that died
     * holding one is known by this alone): longer than a send can take. */
    outboxLeaseSeconds: number;
    /** How long a code's step on a phone channel waits for its provider's receipt before the code
     * goes the next way (server/delivery/fallback.ts); only for providers that send receipts. */
    stepSeconds: { whatsapp: number; sms: number; call: number };
  };
};

export type MicrosoftConfig = {
  clientId: string;
  clientSecret: string;
  /** The tenants whose people may sign in, in the order configured, with the company name the
   * sign-in's beta notice shows (null: none given). */
  tenants: { id: string; name: string | null }[];
  /** Where the tenants' issuers live: `{authority}/{tenant id}/v2.0`. */
  authority: string;
};

export type DeliveryProvider = { name: string; url: string };

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === '' ? null : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = optional(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')} (got ${parsed.protocol}//…)`);
  }
  return raw;
}

function redisSetting(env: Env): RedisTarget | null {
  const raw = optional(env, 'REDIS_URL');
  if (raw === null) return null;
  try {
    return redisTarget(raw);
  } catch (error) {
    if (error instanceof RedisUrlError) throw new ConfigError(`REDIS_URL ${error.message}`);
    throw error;
  }
}

/** A list setting and its one-item predecessor: either, not both. */
function listOrSingle(env: Env, list: string, single: string): string[] {
  const many = optional(env, list);
  const one = optional(env, single);
  if (many !== null && one !== null) throw new ConfigError(`set ${list} or ${single}, not both`);
  if (one !== null) return [one];
  if (many === null) return [];
  const entries = many.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) throw new ConfigError(`${list} has an empty entry (got "${many}")`);
  return entries;
}

function oneName(names: string[], setting: string, name: string): void {
  if (names.includes(name)) throw new ConfigError(`${setting} lists ${name} twice`);
  names.push(name);
}

/** SMTP_URLS: mail servers separated by commas, tried in that order; SMTP_URL: one. */
function smtpServers(env: Env): DeliveryProvider[] {
  const setting = optional(env, 'SMTP_URLS') !== null ? 'SMTP_URLS' : 'SMTP_URL';
  const names: string[] = [];
  return listOrSingle(env, 'SMTP_URLS', 'SMTP_URL').map((raw) => {
    // The URL itself is checked as a one-item setting would be (its credentials never in a message).
    const checked = url({ [setting]: raw }, setting, ['smtp:', 'smtps:'])!;
    const name = `smtp:${new URL(checked).host}`;
    oneName(names, setting, name);
    return { name, url: checked };
  });
}

const PROVIDER_NAME = /^[a-z0-9_]{1,32}$/;

/** SMS_PROVIDERS: `name=url` pairs separated by commas, tried in that order; SMS_PROVIDER_URL: one,
 * named `default`. Each provider's bearer key is SMS_PROVIDER_KEY_<NAME>, else SMS_PROVIDER_KEY; its
 * receipts' secret DELIVERY_RECEIPT_SECRET_<NAME>. */
function smsProviders(env: Env): Config['delivery']['sms'] {
  const single = optional(env, 'SMS_PROVIDERS') === null;
  const setting = single ? 'SMS_PROVIDER_URL' : 'SMS_PROVIDERS';
  const names: string[] = [];
  return listOrSingle(env, 'SMS_PROVIDERS', 'SMS_PROVIDER_URL').map((entry) => {
    const at = entry.indexOf('=');
    if (!single && at < 1)
      throw new ConfigError(`SMS_PROVIDERS must be name=url pairs separated by commas (got an entry without a name)`);
    const name = single ? 'default' : entry.slice(0, at).trim();
    if (!PROVIDER_NAME.test(name))
      throw new ConfigError(
        `SMS_PROVIDERS names must be 1 to 32 lowercase letters, digits or underscores (got "${name}")`,
      );
    oneName(names, setting, name);
    const raw = single ? entry : entry.slice(at + 1).trim();
    if (raw === '') throw new ConfigError(`SMS_PROVIDERS must give ${name} a URL (got "${name}=")`);
    const checked = url({ [setting]: raw }, setting, ['https:', 'http:'])!;
    const key = optional(env, `SMS_PROVIDER_KEY_${name.toUpperCase()}`) ?? optional(env, 'SMS_PROVIDER_KEY');
    // With one, the provider reports what became of each message (server/delivery/receipts.ts).
    const receiptSetting = `DELIVERY_RECEIPT_SECRET_${name.toUpperCase()}`;
    const receiptSecret = optional(env, receiptSetting);
    if (receiptSecret !== null && receiptSecret.length < 32)
      throw new ConfigError(`${receiptSetting} must be at least 32 characters`);
    return { name, url: checked, key, receiptSecret };
  });
}

/** Argon2id computations at a time: HASH_CONCURRENCY, else one more than the cores, so that no core
 * waits while the main thread hands a finished computation's turn to the next (with one per core,
 * sign-ins reached 0.82-0.88 of the raw Argon2id rate on two cores; with one more, 0.91-0.92). */
export function hashConcurrencyOf(env: Env, cores: number): number {
  return integer(env, 'HASH_CONCURRENCY', cores + 1, 1, 256);
}

export function loadConfig(env: Env = process.env, cores = 2): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  return {
    env: nodeEnv,
    port: integer(env, 'PORT', 3000, 0, 65535),
    shutdownDrainSeconds: integer(env, 'SHUTDOWN_DRAIN_SECONDS', 5, 0, 300),
    host: text(env, 'HOST', 'localhost'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    sqlitePath: text(env, 'SQLITE_PATH', './data/tessera.sqlite'),
    redis: redisSetting(env),
    maintenance: flag(env, 'MAINTENANCE', false),
    oidcPrivateOutbound: flag(env, 'OIDC_PRIVATE_OUTBOUND', false),
    sessionTtlDays: integer(env, 'SESSION_TTL_DAYS', 30, 1, 365),
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      nodeEnv === 'test' ? 'silent' : 'info',
    ),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 16 * 1024, 1024, 10 * 1024 * 1024),
    requestTimeoutSeconds: integer(env, 'REQUEST_TIMEOUT_SECONDS', 15, 1, 300),
    metrics: metrics(env, nodeEnv),
    trustProxy: trustProxy(env),
    cookieDomain: optional(env, 'COOKIE_DOMAIN'),
    analyticsUrl: url(env, 'ANALYTICS_URL', ['https:', 'http:']),
    geoipCityDb: optional(env, 'GEOIP_CITY_DB'),
    seedDemo: flag(env, 'SEED_DEMO', nodeEnv !== 'production'),
    spaDir: text(env, 'SPA_DIR', 'dist') === 'none' ? null : text(env, 'SPA_DIR', 'dist'),
    login: {
      maxFailsPerUserIp: integer(env, 'LOGIN_MAX_FAILS_PER_USER_IP', 5, 1, 1000),
      maxFailsPerAccount: integer(env, 'LOGIN_MAX_FAILS_PER_ACCOUNT', 100, 1, 100),
      maxFailsPerIp: integer(env, 'LOGIN_MAX_FAILS_PER_IP', 100, 1, 100000),
      windowSeconds: integer(env, 'LOGIN_WINDOW_SECONDS', 900, 1, 86400),
      blockSeconds: integer(env, 'LOGIN_BLOCK_SECONDS', 900, 1, 86400),
    },
    hashConcurrency: hashConcurrencyOf(env, cores),
    mfa: {
      codeTtlSeconds: integer(env, 'MFA_CODE_TTL_SECONDS', 900, 60, 3600),
      stepUpSeconds: integer(env, 'MFA_STEP_UP_SECONDS', 600, 30, 86400),
      trustedDeviceDays: integer(env, 'TRUSTED_DEVICE_DAYS', 30, 1, 365),
      maxAttempts: MFA_MAX_ATTEMPTS,
      resendFirstWaitSeconds: RESEND_FIRST_WAIT_S,
      resendNextWaitSeconds: RESEND_NEXT_WAIT_S,
      maxFailsPerAccount: integer(env, 'MFA_MAX_FAILS_PER_ACCOUNT', 10, 1, 100),
      failBlockSeconds: integer(env, 'MFA_BLOCK_SECONDS', 3600, 1, 86400),
      sendsPerRequester: integer(env, 'MFA_SENDS_PER_REQUESTER', 5, 1, 1000),
      sendsPerDestination: integer(env, 'MFA_SENDS_PER_DESTINATION', 10, 1, 1000),
      sendsPerAccount: integer(env, 'MFA_SENDS_PER_ACCOUNT', 20, 1, 1000),
    },
    captcha: {
      enabled: flag(env, 'CAPTCHA', true),
      cost: integer(env, 'CAPTCHA_COST', 100, 1, 100_000),
      maxCounter: integer(env, 'CAPTCHA_MAX_COUNTER', 5000, 10, 10_000_000),
      ttlSeconds: integer(env, 'CAPTCHA_TTL_SECONDS', 600, 30, 3600),
      loginAfterFailures: integer(env, 'CAPTCHA_LOGIN_AFTER_FAILURES', 2, 0, 1000),
    },
    onboardingTtlSeconds: integer(env, 'ONBOARDING_TTL_SECONDS', 3600, 300, 86_400),
    passwordPolicy: passwordPolicy(env),
    passwordHistory: integer(env, 'PASSWORD_HISTORY', 5, 1, 24),
    secretKey: secretKey(env, nodeEnv),
    microsoft: microsoft(env, nodeEnv),
    delivery: {
      smtp: smtpServers(env),
      mailFrom: text(env, 'MAIL_FROM', 'Tessera <no-reply@tessera.example>'),
      sms: smsProviders(env),
      timeoutMs: integer(env, 'DELIVERY_TIMEOUT_MS', 10_000, 1, 120_000),
      breakerFailures: integer(env, 'DELIVERY_BREAKER_FAILURES', 5, 1, 1000),
      breakerCooldownSeconds: integer(env, 'DELIVERY_BREAKER_COOLDOWN_SECONDS', 30, 1, 86_400),
      outboxLeaseSeconds: integer(env, 'OUTBOX_LEASE_SECONDS', 60, 1, 3600),
      stepSeconds: {
        whatsapp: integer(env, 'DELIVERY_STEP_SECONDS_WHATSAPP', 20, 1, 600),
        sms: integer(env, 'DELIVERY_STEP_SECONDS_SMS', 30, 1, 600),
        call: integer(env, 'DELIVERY_STEP_SECONDS_CALL', 60, 1, 600),
      },
    },
    publicOrigins: publicOrigins(env, nodeEnv, integer(env, 'PORT', 3000, 0, 65535)),
  };
}

const TRUST_PROXY_FORMS =
  'false, a hop count (1), or proxy addresses and CIDR ranges separated by commas (10.0.0.0/8,192.168.1.10)';
// proxy-addr's names for well-known ranges, which Fastify accepts beside addresses.
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** Trusting every hop would let a client choose its own address by writing X-Forwarded-For, and
 * so escape every per-address limit: only a hop count or the proxies' own addresses are trusted. */
function trustProxy(env: Env): false | number | string[] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || ['false', 'no', 'off', '0'].includes(raw.toLowerCase())) return false;
  if (['true', 'yes', 'on'].includes(raw.toLowerCase())) {
    throw new ConfigError(
      `TRUST_PROXY=${raw} would trust any address a client writes in X-Forwarded-For; set ${TRUST_PROXY_FORMS}`,
    );
  }
  if (/^\d+$/.test(raw)) {
    if (Number(raw) > 10)
      throw new ConfigError(`TRUST_PROXY must be ${TRUST_PROXY_FORMS}; a hop count goes from 1 to 10 (got "${raw}")`);
    return Number(raw);
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isProxyAddress(entry)) throw new ConfigError(`TRUST_PROXY must be ${TRUST_PROXY_FORMS} (got "${entry}")`);
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function passwordPolicy(env: Env): PasswordPolicy {
  const d = DEFAULT_PASSWORD_POLICY;
  const policy = {
    minLength: integer(env, 'PASSWORD_MIN_LENGTH', d.minLength, 8, d.maxLength),
    minLetters: integer(env, 'PASSWORD_MIN_LETTERS', d.minLetters, 0, 32),
    minDigits: integer(env, 'PASSWORD_MIN_DIGITS', d.minDigits, 0, 32),
    minSpecial: integer(env, 'PASSWORD_MIN_SPECIAL', d.minSpecial, 0, 32),
    maxLength: d.maxLength,
  };
  if (policy.minLetters + policy.minDigits + policy.minSpecial > policy.maxLength) {
    throw new ConfigError(
      'PASSWORD_MIN_LETTERS + PASSWORD_MIN_DIGITS + PASSWORD_MIN_SPECIAL must not exceed the longest password (128)',
    );
  }
  return policy;
}

/** Metrics are open on a laptop; in production only when asked for, by METRICS=true or a token. */
function metrics(env: Env, nodeEnv: string): Config['metrics'] {
  const token = optional(env, 'METRICS_TOKEN');
  if (token !== null && token.length < 16) throw new ConfigError('METRICS_TOKEN must be 16 or more characters');
  return { enabled: flag(env, 'METRICS', nodeEnv !== 'production' || token !== null), token };
}

/** A tenant id is a GUID (Entra ID's directory id). */
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** MICROSOFT_CLIENT_ID turns the Microsoft sign-in on; then its secret and at least one tenant are
 * needed. MICROSOFT_TENANTS: tenant ids separated by commas, each optionally `=Company name`. */
function microsoft(env: Env, nodeEnv: string): MicrosoftConfig | null {
  const clientId = optional(env, 'MICROSOFT_CLIENT_ID');
  if (clientId === null) {
    for (const name of ['MICROSOFT_CLIENT_SECRET', 'MICROSOFT_TENANTS']) {
      if (optional(env, name) !== null)
        throw new ConfigError(
          `${name} is set but MICROSOFT_CLIENT_ID is not: set both, or neither to turn the Microsoft sign-in off`,
        );
    }
    return null;
  }
  const clientSecret = optional(env, 'MICROSOFT_CLIENT_SECRET');
  if (clientSecret === null) throw new ConfigError('MICROSOFT_CLIENT_SECRET must be set when MICROSOFT_CLIENT_ID is');
  const raw = optional(env, 'MICROSOFT_TENANTS');
  if (raw === null)
    throw new ConfigError('MICROSOFT_TENANTS must list the allowed tenant ids when MICROSOFT_CLIENT_ID is set');
  const tenants: MicrosoftConfig['tenants'] = [];
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const at = entry.indexOf('=');
    const id = (at < 0 ? entry : entry.slice(0, at)).trim().toLowerCase();
    const name = at < 0 ? null : entry.slice(at + 1).trim() || null;
    if (!TENANT_ID.test(id)) {
      throw new ConfigError(
        `MICROSOFT_TENANTS must be tenant ids (GUIDs), each optionally followed by =Company name, separated by commas (got "${entry}")`,
      );
    }
    if (tenants.some((tenant) => tenant.id === id)) throw new ConfigError(`MICROSOFT_TENANTS lists ${id} twice`);
    tenants.push({ id, name });
  }
  if (tenants.length === 0) throw new ConfigError('MICROSOFT_TENANTS must list at least one tenant id');
  const authority =
    url(env, 'MICROSOFT_AUTHORITY', nodeEnv === 'production' ? ['https:'] : ['https:', 'http:']) ??
    'https://login.microsoftonline.com';
  return { clientId, clientSecret, tenants, authority: authority.replace(/\/+$/, '') };
}

const VARIANT_NAMES: Record<Variant, string> = { be: 'Belgian', lu: 'Luxembourg' };
/** Outside production, the demo hosts on the port the server listens on (npm start, the e2e). */
const DEMO_HOSTS: Record<Variant, string> = { be: 'account.localhost', lu: 'account.lu.localhost' };

/** PUBLIC_ORIGIN_BE and PUBLIC_ORIGIN_LU: required in production (https), the demo hosts elsewhere.
 * Each is an origin exactly as a browser writes it, and its host name must name its variant as the
 * app tells variants apart (contract/constants.ts variantOfHost): a Luxembourg host has a `lu` label. */
function publicOrigins(env: Env, nodeEnv: string, port: number): Record<Variant, string> {
  const origins = {} as Record<Variant, string>;
  for (const variant of ['be', 'lu'] as const) {
    const name = `PUBLIC_ORIGIN_${variant.toUpperCase()}`;
    const raw = optional(env, name);
    if (raw === null) {
      if (nodeEnv === 'production') {
        throw new ConfigError(
          `${name} must be set in production: the ${VARIANT_NAMES[variant]} variant's public origin, https://host[:port] (links in mails, redirects and the OIDC issuer come from it)`,
        );
      }
      origins[variant] = new URL(`http://${DEMO_HOSTS[variant]}:${port}`).origin;
      continue;
    }
    origins[variant] = publicOrigin(name, raw, nodeEnv === 'production' ? ['https:'] : ['https:', 'http:']);
    const host = new URL(origins[variant]).hostname;
    if (variantOfHost(host) !== variant) {
      throw new ConfigError(
        `${name} must be a host of the ${VARIANT_NAMES[variant]} variant: a host name with a "lu" label (account.lu.example, account.tessera.lu) is the Luxembourg one, any other the Belgian one (got ${host})`,
      );
    }
  }
  return origins;
}

const ORIGIN_FORM =
  'an origin: scheme://host, with :port only where it is not the default, and no path, query or credentials';

function publicOrigin(name: string, raw: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be ${ORIGIN_FORM} (got "${raw}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${raw}")`);
  }
  // What a browser would send as its Origin: anything more (a path, a default port, a user) is refused
  // rather than dropped, so the links say exactly what the variable says.
  if (parsed.username || parsed.password || raw.replace(/\/$/, '').toLowerCase() !== parsed.origin) {
    throw new ConfigError(
      `${name} must be ${ORIGIN_FORM} (got "${raw}"${parsed.origin !== 'null' ? `; did you mean ${parsed.origin}?` : ''})`,
    );
  }
  return parsed.origin;
}

/** A development key is fine on a laptop; production must bring its own. */
function secretKey(env: Env, nodeEnv: string): string {
  const value = optional(env, 'SECRET_KEY');
  if (value === null) {
    if (nodeEnv === 'production') throw new ConfigError('SECRET_KEY must be set in production (32 or more characters)');
    return 'development-only-secret-key-not-for-production-use';
  }
  if (value.length < 32) throw new ConfigError('SECRET_KEY must be 32 or more characters');
  return value;
}
