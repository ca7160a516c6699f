// Plain unit tests of the route guard rules (spec §4 "Route guard", §2 "Anything else redirects to
// home"), the dashboard redirect_uri allow-list and the partner-login rule (spec §4 Login, §9).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIRST_PARTY_CLIENT_IDS, isFirstPartyClient } from '../contract/constants.ts';
import {
  HOME_PATH,
  LOGIN_PATH,
  REDIRECTS,
  SCREENS,
  allowedRedirect,
  guard,
  inFlow,
  isSensitive,
  pathOf,
  safeTarget,
  stepOf,
} from '../machines/routes.ts';

const at = (path: string, search = '') => ({ path, search });
const byAccess = (access: string) => Object.keys(SCREENS).filter((path) => SCREENS[path] === access);

describe('route guard', () => {
  it('sends an anonymous visitor of every private screen to login, keeping the whole target', () => {
    expect(byAccess('private')).toContain(HOME_PATH);
    for (const path of byAccess('private')) {
      expect(guard(at(path, '?a=1'), 'anonymous')).toEqual({ kind: 'login', target: `${path}?a=1` });
      expect(guard(at(path), 'signedIn')).toEqual({ kind: 'stay' });
    }
  });

  it('sends a signed-in user on every public screen home', () => {
    expect(byAccess('public')).toEqual(expect.arrayContaining(['/login/email', '/login/phone']));
    for (const path of byAccess('public')) {
      expect(guard(at(path), 'signedIn')).toEqual({ kind: 'redirect', to: '/' });
      expect(guard(at(path), 'anonymous')).toEqual({ kind: 'stay' });
    }
  });

  it('shows the second-factor screens only while a sign-in waits for them', () => {
    for (const path of byAccess('signingIn')) {
      expect(guard(at(path), 'signingIn')).toEqual({ kind: 'stay' });
      expect(guard(at(path), 'anonymous')).toEqual({ kind: 'redirect', to: '/' });
      expect(guard(at(path), 'signedIn')).toEqual({ kind: 'redirect', to: '/' });
    }
  });

  it("reads the spec's query strings where they choose a screen: mfa-methods with isFuzzion=true is the merge's, for a session only", () => {
    const proofs = at('/mfa/methods', '?isFuzzion=true&methods=%5B13%5D');
    expect(pathOf('fuzzion', 'proofs')).toBe('/mfa/methods?isFuzzion=true');
    expect([inFlow(proofs, 'fuzzion'), stepOf(proofs, 'fuzzion')]).toEqual([true, 'proofs']);
    expect(guard(proofs, 'signedIn')).toEqual({ kind: 'stay' });
    // Without a session the query chooses nothing: the path's own screen, for a sign-in waiting only.
    expect(guard(proofs, 'anonymous')).toEqual({ kind: 'redirect', to: '/' });
    expect(guard(proofs, 'signingIn')).toEqual({ kind: 'stay' });
    // Any other value, or the path alone, is the code's chooser as before: only a sign-in waiting sees it.
    for (const search of ['?isFuzzion=false', '?isFuzzion=TRUE', '?isLogin=true', '']) {
      const plain = at('/mfa/methods', search);
      expect(inFlow(plain, 'mfa')).toBe(true);
      expect(guard(plain, 'signingIn')).toEqual({ kind: 'stay' });
      expect(guard(plain, 'signedIn')).toEqual({ kind: 'redirect', to: '/' });
    }
    // /duplicated's target and method select nothing here: the flow reads them against the server's offer.
    expect(guard(at('/duplicated', '?target=x%40example.be&method=11'), 'signedIn')).toEqual({ kind: 'stay' });
  });

  it('redirects / home and /login to the email login, whoever asks', () => {
    expect(REDIRECTS['/']).toBe(HOME_PATH);
    expect(REDIRECTS['/login']).toBe(LOGIN_PATH);
    for (const session of ['anonymous', 'signedIn'] as const) {
      expect(guard(at('/'), session)).toEqual({ kind: 'redirect', to: HOME_PATH });
      expect(guard(at('/login'), session)).toEqual({ kind: 'redirect', to: LOGIN_PATH });
      expect(guard(at('/login/'), session)).toEqual({ kind: 'redirect', to: LOGIN_PATH });
    }
  });

  it('sends /totp/redirect (an authenticator set up elsewhere) home, whoever asks (spec §2)', () => {
    for (const session of ['anonymous', 'signedIn'] as const)
      expect(guard(at('/totp/redirect'), session)).toEqual({ kind: 'redirect', to: '/' });
  });

  it('logs a signed-in user out on /logout; an anonymous one just goes to login', () => {
    expect(guard(at('/logout'), 'signedIn')).toEqual({ kind: 'logout' });
    expect(guard(at('/logout'), 'anonymous')).toEqual({ kind: 'redirect', to: LOGIN_PATH });
  });

  it('shows the access list to a signed-in user only; an anonymous one signs in first and comes back', () => {
    expect(guard(at('/user/access'), 'signedIn')).toEqual({ kind: 'stay' });
    expect(guard(at('/user/access'), 'anonymous')).toEqual({ kind: 'login', target: '/user/access' });
  });

  it('shows maintenance to anyone', () => {
    for (const session of ['anonymous', 'signedIn', 'signingIn'] as const)
      expect(guard(at('/maintenance'), session)).toEqual({ kind: 'stay' });
  });

  it('sends any unknown path home, including screens not built yet', () => {
    for (const path of [
      '/nowhere',
      '/profile/nowhere',
      '/user/access/x',
      '/onboarding/nowhere',
      '/partner/nowhere',
      '/user/dashboard/x',
    ]) {
      expect(guard(at(path), 'anonymous')).toEqual({ kind: 'redirect', to: '/' });
      expect(guard(at(path), 'signedIn')).toEqual({ kind: 'redirect', to: '/' });
    }
  });

  it('shows the partner landing to everyone, asks a session for the access request and the success, and keeps the choices for visitors', () => {
    expect(guard(at('/partner', '?client_id=deals-partner'), 'anonymous')).toEqual({ kind: 'stay' });
    expect(guard(at('/partner', '?client_id=deals-partner'), 'signedIn')).toEqual({ kind: 'stay' });
    expect(guard(at('/partner/request-access', '?client_id=x'), 'anonymous')).toEqual({
      kind: 'login',
      target: '/partner/request-access?client_id=x',
    });
    expect(guard(at('/partner/link-success'), 'anonymous')).toEqual({ kind: 'login', target: '/partner/link-success' });
    expect(guard(at('/partner/no-account'), 'signedIn')).toEqual({ kind: 'redirect', to: '/' });
    expect(guard(at('/partner/link-existing'), 'anonymous')).toEqual({ kind: 'stay' });
    expect(isSensitive('/partner/link-success')).toBe(true);
    expect(guard(at('/user/choose-platform'), 'anonymous')).toEqual({ kind: 'login', target: '/user/choose-platform' });
  });

  it('never leaves an anonymous visitor on a private screen nor a signed-in user on a public one', () => {
    const paths = [...Object.keys(SCREENS), ...Object.keys(REDIRECTS), '/logout'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...paths),
          fc.string({ maxLength: 24 }).map((s) => `/${s}`),
        ),
        fc.constantFrom('anonymous' as const, 'signedIn' as const),
        (path, session) => {
          const decision = guard(at(path), session);
          if (decision.kind !== 'stay') return true;
          const access = SCREENS[path.length > 1 ? path.replace(/\/+$/, '') : path];
          return access === 'any' || (session === 'anonymous' ? access === 'public' : access === 'private');
        },
      ),
    );
  });
});

describe('a step-up an application asked for', () => {
  it("lets a signed-in person stay on the code screen only with the way back to a request; a step-up's leads back to its screen", () => {
    expect(guard(at('/mfa/methods', '?single=true&redirect=%2Foidc%2Finteraction%2Fabc'), 'signedIn')).toEqual({
      kind: 'stay',
    });
    // A step-up's code screen reached by a reload: the screen it was for, which asks for the code anew.
    expect(guard(at('/mfa', '?single=true&redirect=%2Fsecurity%2Fmfa-edit'), 'signedIn')).toEqual({
      kind: 'redirect',
      to: '/security/mfa-edit',
    });
    // Nowhere else: not another site, not a public screen.
    expect(guard(at('/mfa', '?single=true&redirect=%2F%2Fevil.example'), 'signedIn')).toEqual({
      kind: 'redirect',
      to: '/',
    });
    expect(guard(at('/mfa', '?single=true&redirect=%2Flogin%2Femail'), 'signedIn')).toEqual({
      kind: 'redirect',
      to: '/',
    });
    expect(guard(at('/mfa'), 'signedIn')).toEqual({ kind: 'redirect', to: '/' });
    expect(guard(at('/mfa/methods', '?single=true&redirect=%2Foidc%2Finteraction%2Fabc'), 'anonymous')).toEqual({
      kind: 'redirect',
      to: '/',
    });
  });
});

describe('saved target after sign-in', () => {
  it('honours our own private screens with their query', () => {
    expect(safeTarget('/user/dashboard?redirect_uri=x')).toBe('/user/dashboard?redirect_uri=x');
    expect(safeTarget('/security')).toBe('/security');
  });
  it('honours the way back to an authorisation request, by its uid alone', () => {
    expect(safeTarget('/oidc/interaction/Ab_1-z')).toBe('/oidc/interaction/Ab_1-z');
  });
  it.each([
    null,
    '',
    'https://evil.example/',
    '//evil.example/user/dashboard',
    '/login/email',
    '/nowhere',
    'user/dashboard',
    '/oidc/interaction/',
    '/oidc/interaction/a/b',
    '/oidc/interaction/a?x=1',
    '/oidc/auth/a',
    '/oidc/interaction/../token',
    `/oidc/interaction/${'a'.repeat(65)}`,
  ])('refuses %j', (target) => expect(safeTarget(target)).toBeNull());
});

describe('dashboard redirect_uri', () => {
  const registered = ['https://client.tessera.example/auth/callback', 'https://partner.example/cb?x=1'];
  const query = (value: string) => `?${new URLSearchParams({ redirect_uri: value })}`;

  it('follows an exactly registered target', () => {
    for (const target of registered) expect(allowedRedirect(query(target), registered)).toBe(target);
  });

  it.each([
    'https://evil.example/',
    'https://client.tessera.example/auth/callback/',
    'https://client.tessera.example/auth/callback?next=https://evil.example',
    'HTTPS://client.tessera.example/auth/callback',
    'https://client.tessera.example.evil.example/auth/callback',
    '//client.tessera.example/auth/callback',
    'javascript:alert(1)',
    '',
  ])('ignores %j', (value) => expect(allowedRedirect(query(value), registered)).toBeNull());

  it('ignores a missing parameter and an empty allow-list', () => {
    expect(allowedRedirect('', registered)).toBeNull();
    expect(allowedRedirect('?other=1', registered)).toBeNull();
    expect(allowedRedirect(query(registered[0]!), [])).toBeNull();
  });

  it('never answers anything but a registered target', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom(...registered)), (value) => {
        const answer = allowedRedirect(query(value), registered);
        return answer === null || registered.includes(answer);
      }),
    );
  });
});

describe('first-party clients: the one rule the server decides with and tells the browser', () => {
  it('holds for the first-party clients 2, 17, 51 and 66, flagged or not', () => {
    expect([...FIRST_PARTY_CLIENT_IDS]).toEqual(['2', '17', '51', '66']);
    for (const id of FIRST_PARTY_CLIENT_IDS) {
      expect(isFirstPartyClient(id, false)).toBe(true);
      expect(isFirstPartyClient(id, true)).toBe(true);
    }
  });

  it('holds for any other client only when its row flags it: unflagged, it is a partner', () => {
    for (const id of ['partner-app', '3', '', '170', ' 2']) {
      expect(isFirstPartyClient(id, false)).toBe(false);
      expect(isFirstPartyClient(id, true)).toBe(true);
    }
  });
});
