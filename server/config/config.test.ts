import { describe, expect, it } from 'vitest';
import { cookieDomainFor, authCookieName } from '../sessions/cookie.ts';
import { ConfigError, loadConfig } from './index.ts';

describe('configuration', () => {
  it('has working defaults: SQLite under ./data, port 3000', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ env: 'development', port: 3000, databaseUrl: null, sqlitePath: './data/tessera.sqlite', maintenance: false });
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
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
  it('turns the SPA off with SPA_DIR=none', () => expect(loadConfig({ SPA_DIR: 'none' }).spaDir).toBeNull());
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
});
