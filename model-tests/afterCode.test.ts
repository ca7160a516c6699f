// Where a right second-factor code leads (spec §4 "MFA": six rules, in order). Each rule is tried
// with every later rule's condition also true, so a test fails if the order changes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterCode, afterRecovery, type AfterCodeFacts } from '../machines/afterCode.ts';
import { HOME_PATH } from '../machines/routes.ts';

/** Every condition true: the first rule wins. */
const all: AfterCodeFacts = {
  method: 'totpRecovery',
  mfaId: 7,
  search: '?redirect=%2Fsecurity%2Fmfa-edit&action=delete&targetMfaId=4&weakPassword=true&single=true',
  partnerRedirect: 'https://deals.example/back',
  signIn: true,
  target: '/security',
};

describe('after a right code', () => {
  it('1. a recovery key shows the recovery screen, carrying the method id, redirect, action and target method', () => {
    const next = afterCode(all);
    expect(next.kind).toBe('totpRecovery');
    const url = new URL((next as { to: string }).to, 'https://x');
    expect(url.pathname).toBe('/mfa/totp-recovery');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      mfaId: '7',
      redirect: '/security/mfa-edit',
      action: 'delete',
      targetMfaId: '4',
    });
  });

  it('2. else a partner waiting for the sign-in', () => {
    expect(afterCode({ ...all, method: 'email' })).toEqual({ kind: 'partner', url: 'https://deals.example/back' });
  });

  it('3. else a weak password, with verified=true', () => {
    expect(afterCode({ ...all, method: 'sms', partnerRedirect: null })).toEqual({
      kind: 'weakPassword',
      to: '/weak-password?verified=true',
    });
  });

  it('4. else a sign-in goes to its stored target, or home', () => {
    const facts = {
      ...all,
      method: 'totp' as const,
      partnerRedirect: null,
      search: '?redirect=%2Fsecurity%2Fmfa-edit',
    };
    expect(afterCode(facts)).toEqual({ kind: 'target', to: '/security' });
    expect(afterCode({ ...facts, target: null })).toEqual({ kind: 'target', to: HOME_PATH });
    // A target that is not a screen of ours is never followed.
    expect(afterCode({ ...facts, target: 'https://evil.example/' })).toEqual({ kind: 'target', to: HOME_PATH });
  });

  it('5. else the redirect, keeping action and targetMfaId', () => {
    const facts = {
      ...all,
      method: 'email' as const,
      partnerRedirect: null,
      signIn: false,
      search: '?single=true&redirect=%2Fsecurity%2Fmfa-edit&action=delete&targetMfaId=4',
    };
    expect(afterCode(facts)).toEqual({ kind: 'redirect', to: '/security/mfa-edit?action=delete&targetMfaId=4' });
  });

  it('6. else back two steps; a redirect off our screens counts as none', () => {
    const facts = { ...all, method: 'email' as const, partnerRedirect: null, signIn: false, search: '' };
    expect(afterCode(facts)).toEqual({ kind: 'back', steps: 2 });
    for (const redirect of ['https://evil.example/', '//evil.example/x', '/nowhere', 'javascript:alert(1)']) {
      expect(afterCode({ ...facts, search: `?redirect=${encodeURIComponent(redirect)}` })).toEqual({
        kind: 'back',
        steps: 2,
      });
    }
  });

  it('never leads anywhere but our screens, a registered partner, or Back, whatever the query', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.boolean(), (redirect, action, signIn) => {
        const next = afterCode({
          method: 'email',
          mfaId: 1,
          search: `?${new URLSearchParams({ redirect, action })}`,
          partnerRedirect: null,
          signIn,
          target: null,
        });
        if ('to' in next) expect(next.to.startsWith('/') && !next.to.startsWith('//')).toBe(true);
        else expect(next.kind).toBe('back');
      }),
    );
  });
});

describe('skipping the recovery screen', () => {
  it('goes to the redirect it carries (with action and target method), else the target URL, else home', () => {
    expect(afterRecovery('?mfaId=7&redirect=%2Fsecurity%2Fedit-recovery&action=regenerate', '/security')).toBe(
      '/security/edit-recovery?action=regenerate',
    );
    expect(afterRecovery('?mfaId=7', '/security')).toBe('/security');
    expect(afterRecovery('?mfaId=7&redirect=https%3A%2F%2Fevil.example', null)).toBe(HOME_PATH);
  });
});
