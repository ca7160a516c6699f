import { describe, expect, it } from 'vitest';
import { authCookieOptions, cookieDomainFor, authCookieName } from '../sessions/cookie.ts';
import { ConfigError, loadConfig } from './index.ts';

/** A production configuration's public origins. */
const ORIGINS = { PUBLIC_ORIGIN_BE: 'https://account.tessera.be', PUBLIC_ORIGIN_LU: 'https://account.tessera.lu' };

describe('configuration', () => {
  it('has working defaults: SQLite under ./data, port 3000', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      port: 3000,
      databaseUrl: null,
      sqlitePath: './data/tessera.sqlite',
      maintenance: false,
    });
    expect(config.login.maxFailsPerAccount).toBeLessThanOrEqual(100);
  });
  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be a whole number from 0 to 65535/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a URL starting with postgres:/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL must be a URL/],
    [{ MAINTENANCE: 'maybe' }, /MAINTENANCE must be true or false/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV must be one of development, production, test/],
    [{ LOGIN_MAX_FAILS_PER_ACCOUNT: '500' }, /LOGIN_MAX_FAILS_PER_ACCOUNT must be a whole number from 1 to 100/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL must be a URL starting with redis:/],
    [{ MFA_CODE_TTL_SECONDS: '10' }, /MFA_CODE_TTL_SECONDS must be a whole number from 60 to 3600/],
    [{ MFA_STEP_UP_SECONDS: 'ten minutes' }, /MFA_STEP_UP_SECONDS must be a whole number/],
    [{ MFA_MAX_FAILS_PER_ACCOUNT: '101' }, /MFA_MAX_FAILS_PER_ACCOUNT must be a whole number from 1 to 100/],
    [{ MFA_SENDS_PER_DESTINATION: '0' }, /MFA_SENDS_PER_DESTINATION must be a whole number from 1/],
    [{ SMTP_URL: 'http://mail' }, /SMTP_URL must be a URL starting with smtp: or smtps:/],
    [{ SMS_PROVIDER_URL: 'ftp://x' }, /SMS_PROVIDER_URL must be a URL starting with https: or http:/],
    [{ SECRET_KEY: 'short' }, /SECRET_KEY must be 32 or more characters/],
    [{ NODE_ENV: 'production' }, /SECRET_KEY must be set in production/],
    [{ PASSWORD_MIN_LENGTH: '6' }, /PASSWORD_MIN_LENGTH must be a whole number from 8 to 128/],
    [{ PASSWORD_MIN_SPECIAL: 'two' }, /PASSWORD_MIN_SPECIAL must be a whole number/],
    [{ PASSWORD_HISTORY: '30' }, /PASSWORD_HISTORY must be a whole number from 1 to 24/],
    [{ REQUEST_TIMEOUT_SECONDS: '0' }, /REQUEST_TIMEOUT_SECONDS must be a whole number from 1 to 300/],
    [{ METRICS: 'sometimes' }, /METRICS must be true or false/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN must be 16 or more characters/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
  it('runs one Argon2id computation more than the cores, unless HASH_CONCURRENCY says otherwise', () => {
    expect(loadConfig({}, 2).hashConcurrency).toBe(3);
    expect(loadConfig({}, 8).hashConcurrency).toBe(9);
    expect(loadConfig({ HASH_CONCURRENCY: '2' }, 8).hashConcurrency).toBe(2);
  });

  it("has the second factor's defaults: 900 s codes, 10 minutes of step-up, 30 days of trust, 5 tries", () => {
    expect(loadConfig({}).mfa).toEqual({
      codeTtlSeconds: 900,
      stepUpSeconds: 600,
      trustedDeviceDays: 30,
      maxAttempts: 5,
      resendFirstWaitSeconds: 30,
      resendNextWaitSeconds: 15,
      maxFailsPerAccount: 10,
      failBlockSeconds: 3600,
      sendsPerRequester: 5,
      sendsPerDestination: 10,
      sendsPerAccount: 20,
    });
  });
  it("takes the password policy's bounds from the environment, with defaults 10, 1, 1, 1 and a history of 5", () => {
    expect(loadConfig({}).passwordPolicy).toEqual({
      minLength: 10,
      minLetters: 1,
      minDigits: 1,
      minSpecial: 1,
      maxLength: 128,
    });
    expect(loadConfig({}).passwordHistory).toBe(5);
    expect(
      loadConfig({
        PASSWORD_MIN_LENGTH: '14',
        PASSWORD_MIN_LETTERS: '2',
        PASSWORD_MIN_DIGITS: '0',
        PASSWORD_MIN_SPECIAL: '3',
      }).passwordPolicy,
    ).toEqual({ minLength: 14, minLetters: 2, minDigits: 0, minSpecial: 3, maxLength: 128 });
  });
  it('trusts X-Forwarded-For only from a hop count or the proxies named in TRUST_PROXY', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toEqual(['10.0.0.0/8']);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 192.168.1.10,fd00::/8,::1,loopback' }).trustProxy).toEqual([
      '127.0.0.1',
      '192.168.1.10',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
  });
  it.each(['true', 'TRUE', 'yes', 'on'])(
    'refuses TRUST_PROXY=%s, which would trust any client, naming the new forms',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY=.* would trust any address .* a hop count \(1\), or proxy addresses and CIDR ranges/,
      );
    },
  );
  it.each(['11', '10.0.0.0/33', '10.0.0', 'proxy.example', '10.0.0.1,', '::1/129', '10.0.0.0/8/8'])(
    'refuses TRUST_PROXY=%s',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY must be false, a hop count/);
    },
  );
  it('bounds a request to 15 s by default', () => expect(loadConfig({}).requestTimeoutSeconds).toBe(15));
  it('serves metrics outside production, and in production only when asked for', () => {
    const production = { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32), ...ORIGINS };
    expect(loadConfig({}).metrics).toEqual({ enabled: true, token: null });
    expect(loadConfig(production).metrics).toEqual({ enabled: false, token: null });
    expect(loadConfig({ ...production, METRICS: 'true' }).metrics).toEqual({ enabled: true, token: null });
    expect(loadConfig({ ...production, METRICS_TOKEN: 't'.repeat(16) }).metrics).toEqual({
      enabled: true,
      token: 't'.repeat(16),
    });
  });
  it('turns the SPA off with SPA_DIR=none', () => expect(loadConfig({ SPA_DIR: 'none' }).spaDir).toBeNull());
});

describe('public origins', () => {
  const production = { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32) };
  it("are the demo hosts on the server's port outside production", () => {
    expect(loadConfig({}).publicOrigins).toEqual({
      be: 'http://account.localhost:3000',
      lu: 'http://account.lu.localhost:3000',
    });
    expect(loadConfig({ NODE_ENV: 'test', PORT: '3100' }).publicOrigins).toEqual({
      be: 'http://account.localhost:3100',
      lu: 'http://account.lu.localhost:3100',
    });
    expect(loadConfig({ PORT: '80' }).publicOrigins).toEqual({
      be: 'http://account.localhost',
      lu: 'http://account.lu.localhost',
    });
  });
  it('take PUBLIC_ORIGIN_BE and PUBLIC_ORIGIN_LU as written, a trailing slash or capitals aside', () => {
    expect(
      loadConfig({
        ...production,
        PUBLIC_ORIGIN_BE: 'https://Account.Tessera.be/',
        PUBLIC_ORIGIN_LU: 'https://account.tessera.lu:8443',
      }).publicOrigins,
    ).toEqual({ be: 'https://account.tessera.be', lu: 'https://account.tessera.lu:8443' });
    expect(loadConfig({ PUBLIC_ORIGIN_BE: 'http://127.0.0.1:4000' }).publicOrigins.be).toBe('http://127.0.0.1:4000');
  });
  it.each([
    [{ ...production, PUBLIC_ORIGIN_LU: 'https://account.tessera.lu' }, /PUBLIC_ORIGIN_BE must be set in production/],
    [{ ...production, PUBLIC_ORIGIN_BE: 'https://account.tessera.be' }, /PUBLIC_ORIGIN_LU must be set in production/],
    [
      { ...production, ...ORIGINS, PUBLIC_ORIGIN_BE: 'http://account.tessera.be' },
      /PUBLIC_ORIGIN_BE must start with https:\/\//,
    ],
    [{ PUBLIC_ORIGIN_BE: 'account.tessera.be' }, /PUBLIC_ORIGIN_BE must be an origin: scheme:\/\/host/],
    [{ PUBLIC_ORIGIN_BE: 'ftp://account.tessera.be' }, /PUBLIC_ORIGIN_BE must start with https:\/\/ or http:\/\//],
    [
      { PUBLIC_ORIGIN_BE: 'https://account.tessera.be/app' },
      /PUBLIC_ORIGIN_BE must be an origin.*did you mean https:\/\/account.tessera.be\?/,
    ],
    [
      { PUBLIC_ORIGIN_BE: 'https://account.tessera.be:443' },
      /PUBLIC_ORIGIN_BE must be an origin.*:port only where it is not the default.*did you mean https:\/\/account.tessera.be\?/,
    ],
    [{ PUBLIC_ORIGIN_BE: 'https://account.tessera.be?x=1' }, /PUBLIC_ORIGIN_BE must be an origin/],
    [{ PUBLIC_ORIGIN_BE: 'https://user:pw@account.tessera.be' }, /PUBLIC_ORIGIN_BE must be an origin/],
    [{ PUBLIC_ORIGIN_LU: 'https://account.tessera.be' }, /PUBLIC_ORIGIN_LU must be a host of the Luxembourg variant/],
    [{ PUBLIC_ORIGIN_BE: 'https://account.tessera.lu' }, /PUBLIC_ORIGIN_BE must be a host of the Belgian variant/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('auth cookie', () => {
  it('is prefixed __Secure- in production only', () => {
    expect(authCookieName({ env: 'production' })).toBe('__Secure-tessera_token');
    expect(authCookieName({ env: 'development' })).toBe('tessera_token');
  });
  it('is scoped to the host minus account.', () => {
    expect(cookieDomainFor('account.tessera.be', null)).toBe('tessera.be');
    expect(cookieDomainFor('account.lu.tessera.example:443', null)).toBe('lu.tessera.example');
    expect(cookieDomainFor('account.localhost:3000', null)).toBeUndefined();
    expect(cookieDomainFor('127.0.0.1:3000', null)).toBeUndefined();
    expect(cookieDomainFor('other.tessera.be', null)).toBeUndefined();
    expect(cookieDomainFor('account.tessera.be', 'example.org')).toBe('example.org');
  });
  it('takes its domain from the configured origin the host selects, never from the host itself', () => {
    const production = loadConfig({ NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(32), ...ORIGINS });
    expect(authCookieOptions(production, 'account.tessera.be').domain).toBe('tessera.be');
    expect(authCookieOptions(production, 'account.tessera.lu:443').domain).toBe('tessera.lu');
    // Outside production an unknown host falls back to the Belgian origin (account.localhost: no domain).
    expect(authCookieOptions(loadConfig({}), 'account.evil.example').domain).toBeUndefined();
  });
  describe('Microsoft sign-in', () => {
    const T1 = '11111111-1111-4111-8111-111111111111';
    const T2 = '22222222-2222-4222-8222-222222222222';
    const on = { MICROSOFT_CLIENT_ID: 'client', MICROSOFT_CLIENT_SECRET: 'secret' };
    it('is off without a client id', () => {
      expect(loadConfig({}).microsoft).toBeNull();
    });
    it('reads tenant ids with optional company names, and the authority', () => {
      const config = loadConfig({ ...on, MICROSOFT_TENANTS: ` ${T1.toUpperCase()}=Acme Corp , ${T2}` });
      expect(config.microsoft).toEqual({
        clientId: 'client',
        clientSecret: 'secret',
        authority: 'https://login.microsoftonline.com',
        tenants: [
          { id: T1, name: 'Acme Corp' },
          { id: T2, name: null },
        ],
      });
      expect(
        loadConfig({ ...on, MICROSOFT_TENANTS: T1, MICROSOFT_AUTHORITY: 'http://127.0.0.1:4000/' }).microsoft!
          .authority,
      ).toBe('http://127.0.0.1:4000');
    });
    it.each([
      [{ MICROSOFT_CLIENT_ID: 'client', MICROSOFT_TENANTS: T1 }, /MICROSOFT_CLIENT_SECRET must be set/],
      [{ ...on }, /MICROSOFT_TENANTS must list/],
      [{ ...on, MICROSOFT_TENANTS: 'contoso.onmicrosoft.com' }, /MICROSOFT_TENANTS must be tenant ids/],
      [{ ...on, MICROSOFT_TENANTS: `${T1},${T1}` }, /lists .* twice/],
      [{ MICROSOFT_TENANTS: T1 }, /MICROSOFT_TENANTS is set but MICROSOFT_CLIENT_ID is not/],
      [
        {
          ...on,
          MICROSOFT_TENANTS: T1,
          NODE_ENV: 'production',
          SECRET_KEY: 'x'.repeat(32),
          MICROSOFT_AUTHORITY: 'http://idp.example',
        },
        /MICROSOFT_AUTHORITY must be a URL starting with https:/,
      ],
    ])('refuses %o', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });
  });
});

describe('delivery providers', () => {
  it('tries no provider by default, one named default from SMS_PROVIDER_URL, one from SMTP_URL', () => {
    expect(loadConfig({}).delivery).toMatchObject({
      smtp: [],
      sms: [],
      timeoutMs: 10_000,
      breakerFailures: 5,
      breakerCooldownSeconds: 30,
      stepSeconds: { whatsapp: 20, sms: 30, call: 60 },
    });
    const single = loadConfig({
      SMTP_URL: 'smtp://user:pw@mail.example:2525',
      SMS_PROVIDER_URL: 'https://sms.example/send',
      SMS_PROVIDER_KEY: 'k1',
    }).delivery;
    expect(single.smtp).toEqual([{ name: 'smtp:mail.example:2525', url: 'smtp://user:pw@mail.example:2525' }]);
    expect(single.sms).toEqual([{ name: 'default', url: 'https://sms.example/send', key: 'k1', receiptSecret: null }]);
  });
  it('takes lists in the order given, each SMS provider with its own key or the common one, and its receipt secret', () => {
    const delivery = loadConfig({
      SMTP_URLS: 'smtps://one.example, smtp://two.example:587',
      SMS_PROVIDERS: 'acme=https://acme.example/sms,backup=http://backup.example',
      SMS_PROVIDER_KEY: 'common',
      SMS_PROVIDER_KEY_BACKUP: 'own',
      DELIVERY_RECEIPT_SECRET_ACME: 'a-secret-for-acme-receipts-32-chars',
      DELIVERY_TIMEOUT_MS: '2500',
      DELIVERY_BREAKER_FAILURES: '3',
      DELIVERY_BREAKER_COOLDOWN_SECONDS: '60',
      DELIVERY_STEP_SECONDS_WHATSAPP: '5',
      DELIVERY_STEP_SECONDS_CALL: '90',
    }).delivery;
    expect(delivery.smtp.map((server) => server.name)).toEqual(['smtp:one.example', 'smtp:two.example:587']);
    expect(delivery.sms).toEqual([
      {
        name: 'acme',
        url: 'https://acme.example/sms',
        key: 'common',
        receiptSecret: 'a-secret-for-acme-receipts-32-chars',
      },
      { name: 'backup', url: 'http://backup.example', key: 'own', receiptSecret: null },
    ]);
    expect(delivery).toMatchObject({
      timeoutMs: 2500,
      breakerFailures: 3,
      breakerCooldownSeconds: 60,
      stepSeconds: { whatsapp: 5, sms: 30, call: 90 },
    });
  });
  it.each([
    [{ SMTP_URLS: 'smtp://a', SMTP_URL: 'smtp://b' }, /set SMTP_URLS or SMTP_URL, not both/],
    [{ SMTP_URLS: 'smtp://a,,smtp://b' }, /SMTP_URLS has an empty entry/],
    [{ SMTP_URLS: 'smtp://a,https://b' }, /SMTP_URLS must be a URL starting with smtp: or smtps: \(got https:/],
    [{ SMTP_URLS: 'smtp://a,smtp://a' }, /SMTP_URLS lists smtp:a twice/],
    [{ SMS_PROVIDERS: 'a=http://a', SMS_PROVIDER_URL: 'http://b' }, /set SMS_PROVIDERS or SMS_PROVIDER_URL, not both/],
    [{ SMS_PROVIDERS: 'http://a' }, /SMS_PROVIDERS must be name=url pairs separated by commas/],
    [{ SMS_PROVIDERS: 'Big Name=http://a' }, /SMS_PROVIDERS names must be 1 to 32 lowercase letters/],
    [{ SMS_PROVIDERS: 'a=' }, /SMS_PROVIDERS must give a a URL/],
    [{ SMS_PROVIDERS: 'a=ftp://x' }, /SMS_PROVIDERS must be a URL starting with https: or http:/],
    [{ SMS_PROVIDERS: 'a=http://x,a=http://y' }, /SMS_PROVIDERS lists a twice/],
    [
      { SMS_PROVIDERS: 'a=http://x', DELIVERY_RECEIPT_SECRET_A: 'short' },
      /DELIVERY_RECEIPT_SECRET_A must be at least 32 characters/,
    ],
    [{ DELIVERY_STEP_SECONDS_SMS: '0' }, /DELIVERY_STEP_SECONDS_SMS must be a whole number from 1 to 600/],
    [{ DELIVERY_TIMEOUT_MS: '0' }, /DELIVERY_TIMEOUT_MS must be a whole number from 1 to 120000/],
    [{ DELIVERY_BREAKER_FAILURES: 'five' }, /DELIVERY_BREAKER_FAILURES must be a whole number/],
    [{ DELIVERY_BREAKER_COOLDOWN_SECONDS: '0' }, /DELIVERY_BREAKER_COOLDOWN_SECONDS must be a whole number from 1/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
