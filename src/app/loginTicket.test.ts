// A sign-in by URL hash: taken once, stripped at once, and a partner's own token kept nowhere.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { takeLoginTicket } from './loginTicket.ts';

/** A tab at `url`, recording what it stores and where its address is replaced. */
function tabAt(url: string) {
  const at = new URL(url);
  const stored = new Map<string, string>();
  const replaced: string[] = [];
  const storage = {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => void stored.set(key, value),
    removeItem: (key: string) => void stored.delete(key),
  };
  vi.stubGlobal('window', {
    location: { hash: at.hash, pathname: at.pathname, search: at.search },
    history: { state: null, replaceState: (_: unknown, __: string, to: string) => void replaced.push(to) },
  });
  vi.stubGlobal('sessionStorage', storage);
  vi.stubGlobal('localStorage', storage);
  return { stored, replaced };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a sign-in by URL hash', () => {
  it('takes the ticket, strips the hash at once, and keeps no partner token (docs/decisions/partner-token.md)', () => {
    const tab = tabAt(
      'https://account.localhost/user/dashboard?x=1#ticket=t-123&client_id=17&scope=partner&partner_token=secret',
    );
    expect(takeLoginTicket()).toEqual({ ticket: 't-123', clientId: '17' });
    expect(tab.replaced).toEqual(['/user/dashboard?x=1']);
    expect([...tab.stored.keys()]).toEqual([]);
  });

  it('leaves an address without a ticket alone', () => {
    const tab = tabAt('https://account.localhost/login/email#section');
    expect(takeLoginTicket()).toBeNull();
    expect(tab.replaced).toEqual([]);
  });
});
