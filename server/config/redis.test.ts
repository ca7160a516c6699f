// REDIS_URL names one Redis or the Sentinels of a primary; a Sentinel URL is read by our own parser
// (a URL has one host), into what ioredis takes.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './index.ts';

const redisOf = (url: string) => loadConfig({ REDIS_URL: url }).redis;

describe('REDIS_URL', () => {
  it('takes one Redis as its URL', () => {
    expect(redisOf('redis://127.0.0.1:6379/2')).toEqual({ url: 'redis://127.0.0.1:6379/2' });
    expect(redisOf('rediss://cache.example:6380')).toEqual({ url: 'rediss://cache.example:6380' });
    expect(loadConfig({}).redis).toBeNull();
  });

  it("reads Sentinels, their ports (26379 when left out), the primary's name, password and database", () => {
    expect(redisOf('redis+sentinel://s1.example:26380,s2.example,10.0.0.3:26381/tessera-primary')).toEqual({
      sentinels: [
        { host: 's1.example', port: 26380 },
        { host: 's2.example', port: 26379 },
        { host: '10.0.0.3', port: 26381 },
      ],
      name: 'tessera-primary',
      options: {},
    });
    expect(redisOf('redis+sentinel://:s%40cret@[::1]:26379,127.0.0.1/main?db=3')).toEqual({
      sentinels: [
        { host: '::1', port: 26379 },
        { host: '127.0.0.1', port: 26379 },
      ],
      name: 'main',
      options: { password: 's@cret', db: 3 },
    });
  });

  it.each([
    ['http://x', /REDIS_URL must be a URL starting with redis:, rediss: or redis\+sentinel: \(got http:/],
    ['redis+sentinel://s1:26379', /REDIS_URL as Sentinels must read redis\+sentinel:\/\/host1:26379/],
    ['redis+sentinel://s1:26379,/main', /REDIS_URL names a Sentinel that is no host\[:port\] \(""\)/],
    ['redis+sentinel://s1:99999/main', /no host\[:port\] \("s1:99999"\)/],
    ['redis+sentinel://s1 s2/main', /no host\[:port\]/],
    ['redis+sentinel://s1/main?db=x', /REDIS_URL must give db as a number/],
  ])('refuses %s, naming the setting', (url, message) => {
    expect(() => redisOf(url)).toThrow(ConfigError);
    expect(() => redisOf(url)).toThrow(message);
  });
});
