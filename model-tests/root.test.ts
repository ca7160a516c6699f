import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { AppConfig, Device, MfaMethodSummary, UserProfile } from '../contract/schemas.ts';
import { devicesMachine } from '../machines/devices.ts';
import { fuzzionMachine, type FuzzionMemory, type FuzzionResult } from '../machines/fuzzion.ts';
import { finished as finishedAnswer, offer as offerOf } from './fuzzion.model.ts';
import { loginMachine } from '../machines/login.ts';
import { rootMachine as declared } from '../machines/root.ts';
import { FLOW_MACHINES } from '../machines/flows.ts';
import { decisionAfterCode } from '../machines/afterCode.ts';
import { report, startOf, walkAll } from './coverage.ts';
import { at, config, forcedUser, REGISTERED, rootModel, user } from './root.model.ts';
import { done, refuses } from './events.ts';
import { forgotPasswordPathOf, loginModeOf } from '../machines/session.ts';

/** The root with its flows' pure machines (the app loads each in its own chunk). */
const rootMachine = declared.provide({ actors: FLOW_MACHINES });

describe('root machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkAll(rootModel);
    console.info(report('root', result));
    expect(result.missing).toEqual([]);
    const walked = (name: string) => result.runs[rootModel.starts.indexOf(startOf(rootModel, name))]!;
    const [withStoredUser, passwordWalk] = [walked('a stored account'), walked('the password and the notifications')];
    // The security area's screens are states the view reads by tag; the walk reaches each of them.
    const tags = new Set(
      [withStoredUser, passwordWalk].flatMap((w) =>
        Object.values(w.adjacency).flatMap(({ state }) => [...(state as { tags: Set<string> }).tags]),
      ),
    );
    expect([...tags].filter((tag) => tag.startsWith('security.')).sort()).toEqual([
      'security.history',
      'security.methods',
      'security.overview',
      'security.password',
      'security.recovery',
    ]);
  }, 600_000); // tens of thousands of states: allow a slow, busy machine
});

type Effect = 'navigate' | 'leave' | 'view' | 'account' | 'target' | 'session' | 'clear';
type Options = {
  storedAccount?: UserProfile | null;
  location: { path: string; search: string };
  /** What else the app starts the root with: what the tab kept, a ticket, the partner signing in. */
  input?: Record<string, unknown>;
  fetchUser?: () => Promise<UserProfile>;
  loadConfig?: () => Promise<AppConfig>;
  logout?: () => Promise<void>;
  submitLogin?: () => Promise<unknown>;
  exchangeTicket?: (ticket: { ticket: string; clientId: string }) => Promise<unknown>;
  mfaStatus?: () => Promise<{ sudo: boolean; methods: MfaMethodSummary[] }>;
  devices?: typeof devicesMachine;
  fuzzion?: typeof fuzzionMachine;
  /** The effects recorded (all unless named); the others do nothing, as the machine's own. */
  records?: Effect[];
};

/** Runs the real root machine with scripted actors and records what it asks the app to do. */
function start(options: Options) {
  const effects: string[] = [];
  const record = (effect: Effect, text: string) => {
    if (!options.records || options.records.includes(effect)) effects.push(text);
  };
  const actor = createActor(
    rootMachine.provide({
      actors: {
        loadConfig: fromPromise(options.loadConfig ?? (async () => config)),
        fetchUser: fromPromise(options.fetchUser ?? (async () => user)),
        logout: fromPromise(options.logout ?? (async () => {})),
        ...(options.mfaStatus ? { mfaStatus: fromPromise(options.mfaStatus) } : {}),
        ...(options.exchangeTicket
          ? {
              exchangeTicket: fromPromise(({ input }: { input: { ticket: string; clientId: string } }) =>
                options.exchangeTicket!(input),
              ),
            }
          : {}),
        ...(options.devices ? { devices: options.devices } : {}),
        ...(options.fuzzion ? { fuzzion: options.fuzzion } : {}),
        login: loginMachine.provide({
          actors: { submitLogin: fromPromise(options.submitLogin ?? (async () => ({ access_token: 't' }))) },
        }),
      },
      actions: {
        navigate: (_, params) => record('navigate', `navigate ${params.to}`),
        leaveTo: (_, params) => record('leave', `leave ${params.url}`),
        trackPageView: (_, params) => record('view', `view ${params.path}`),
        persistAccount: (_, params) => record('account', `account ${params.user ? 'kept' : 'forgotten'}`),
        persistTarget: (_, params) => record('target', `target ${params.target}`),
        storeSession: (_, params) => record('session', `session ${params.key} ${params.value}`),
        clearSession: () => record('clear', 'clear session'),
      },
    }),
    {
      input: {
        storedAccount: options.storedAccount ?? null,
        storedTarget: null,
        location: options.location,
        ...options.input,
      },
    },
  ).start();
  return { actor, effects };
}
type Run = ReturnType<typeof start>;

/** A person the tab and the server both know as signed in, on `path`. */
const signedInAt = (path: string, search = '', more: Partial<Options> = {}) =>
  start({ storedAccount: user, location: at(path, search), ...more });
/** A visitor whose session the server refuses, on `path`. */
const anonymousAt = (path: string, search = '', more: Partial<Options> = {}) =>
  start({ location: at(path, search), fetchUser: refuses(401), ...more });
/** `profile`, kept by the tab and as the server answers it, on `path`. */
const startAs = (profile: UserProfile, path: string) =>
  start({ storedAccount: profile, fetchUser: async () => profile, location: at(path) });
/** The session the server knows once `signedIn()` says so, and refuses before. */
const sessionOnce =
  (signedIn: () => boolean, profile: UserProfile = user) =>
  async () => {
    if (!signedIn()) throw apiFailure(401, {});
    return profile;
  };
/** Fills the running login form and sends it; `beforeSubmit` runs just before it goes. */
function sendLoginForm(actor: Run['actor'], username = 'emma@example.be', beforeSubmit = () => {}) {
  const login = actor.getSnapshot().children.login as { send(e: unknown): void };
  login.send({ type: 'CHANGE', field: 'username', value: username });
  login.send({ type: 'CHANGE', field: 'password', value: 'pw' });
  beforeSubmit();
  login.send({ type: 'SUBMIT' });
}
/** The step-up's check passed, by `method`. */
const steppedUp = (method: string, mfaId: number) =>
  done('stepUp', { method, mfaId, accessToken: null, recoveryKeysLeft: null }) as never;
/** The session's status when it passed no recent check: email is its method, unless others are given. */
const notRecent =
  (methods: MfaMethodSummary[] = [{ id: 1, method: 'email', target: 'e***@example.be', primary: true }]) =>
  async () => ({ sudo: false, methods });
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('root machine: behaviour', () => {
  it('sends an anonymous visitor of a private screen to login, remembering the target', async () => {
    const { actor, effects } = anonymousAt('/user/dashboard', '?x=1');
    await settle();
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(effects).toContain('target /user/dashboard?x=1');
    expect(effects).toContain('navigate /login/email');
  });

  it("leads a forgotten password from each way of signing in to that way's form, with what was typed there", async () => {
    for (const [mode, typed] of [
      ['email', 'emma@example.be'],
      ['phone', '+32 470 12 34 56'],
    ] as const) {
      const { actor } = anonymousAt(`/login/${mode}`);
      await settle();
      actor.send({ type: 'USERNAME', value: typed });
      const path = forgotPasswordPathOf(loginModeOf(`/login/${mode}`));
      expect(path).toBe(`/forgot-password/${mode}`);
      actor.send({ type: 'ROUTE', location: at(path) });
      await settle();
      const forgot = actor.getSnapshot().children.forgotPassword!.getSnapshot().context;
      expect({ mode: forgot.mode, username: forgot.username }).toEqual({ mode, username: typed });
    }
  });

  it("starts an application's sign-in filled in with its login hint, on the tab the hint belongs to", async () => {
    for (const [path, hint] of [
      ['/login/email', 'emma@example.be'],
      ['/login/phone', '+32470123456'],
    ] as const) {
      const { actor } = anonymousAt(path, '?redirect=%2Foidc%2Finteraction%2Fuid-1', { input: { loginHint: hint } });
      await settle();
      const login = actor.getSnapshot().children.login!.getSnapshot().context as { mode: string; username: string };
      expect(login).toMatchObject({ mode: path.slice('/login/'.length), username: hint });
    }
  });

  it('sends a signed-in user away from the login screen, home', async () => {
    const { actor, effects } = signedInAt('/login/phone');
    await settle();
    expect(actor.getSnapshot().matches('signedIn')).toBe(true);
    expect(effects).toContain('navigate /');
  });

  it('follows a dashboard redirect_uri only when it is registered', async () => {
    const good = signedInAt('/user/dashboard', `?redirect_uri=${encodeURIComponent(REGISTERED)}`);
    const evil = signedInAt('/user/dashboard', '?redirect_uri=https%3A%2F%2Fevil.example%2F');
    await settle();
    expect(good.effects).toContain(`leave ${REGISTERED}`);
    expect(evil.effects.some((e) => e.startsWith('leave'))).toBe(false);
  });

  it('shows maintenance when the API answers 503', async () => {
    const { actor, effects } = start({
      location: at('/login/email'),
      loadConfig: refuses(503, { code: 'maintenance' }),
    });
    await settle();
    expect(actor.getSnapshot().matches('maintenance')).toBe(true);
    expect(effects).toContain('navigate /maintenance');
  });

  it('leaves maintenance by itself once the API answers again, starting afresh from home', async () => {
    let down = true;
    const { actor, effects } = anonymousAt('/login/email', '', {
      loadConfig: async () => {
        if (down) throw apiFailure(503, { code: 'maintenance' });
        return config;
      },
    });
    await settle();
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().matches({ maintenance: 'waiting' })).toBe(true);
    down = false;
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    // Home, where the guard sends an anonymous visitor on to sign-in.
    expect(effects.filter((e) => e.startsWith('navigate')).slice(-2)).toEqual([
      'navigate /user/dashboard',
      'navigate /login/email',
    ]);
  });

  it('opens the screens of a flow reached outside it where the spec says', async () => {
    // The recovery-key screen without a sign-in by recovery key has no method: it signs out.
    const recovery = signedInAt('/user/dashboard');
    await settle();
    recovery.actor.send({ type: 'ROUTE', location: at('/mfa/totp-recovery') });
    await settle();
    expect(recovery.actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(recovery.effects.at(-1)).toBe('navigate /login/email');
    // With the method it carries (a reload on it), the screen opens again.
    const reloaded = signedInAt('/mfa/totp-recovery', '?mfaId=3');
    await settle();
    expect(reloaded.actor.getSnapshot().matches({ signedIn: 'recovering' })).toBe(true);
    expect(reloaded.actor.getSnapshot().children.totpRecovery).toBeDefined();
    // The set-up: its intro sends an account with a second factor home; one without starts it.
    const enrolled = signedInAt('/setup-mfa', '', {
      fetchUser: async () => ({ ...user, mfa_enrolled: true }),
    });
    await settle();
    expect(enrolled.effects).toContain('navigate /user/dashboard');
    expect(enrolled.actor.getSnapshot().children.setupMfa).toBeUndefined();
    // Its own steps add a method from Security, for any account.
    const adding = signedInAt('/setup-mfa/phone', '', {
      fetchUser: async () => ({ ...user, mfa_enrolled: true }),
    });
    await settle();
    expect(adding.actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(true);
    expect(adding.actor.getSnapshot().children.setupMfa).toBeDefined();
    const without = signedInAt('/user/dashboard');
    await settle();
    without.actor.send({ type: 'ROUTE', location: at('/setup-mfa') });
    await settle();
    expect(without.actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(true);
    expect(without.actor.getSnapshot().children.setupMfa).toBeDefined();
  });

  it('resumes a sign-in waiting for its new password after a reload, from what the tab kept', async () => {
    const { actor, effects } = anonymousAt('/weak-password', '', {
      input: { storedRenewal: 'weak-ticket' },
      records: ['navigate', 'session'],
    });
    await settle();
    expect(actor.getSnapshot().matches({ anonymous: 'renewingPassword' })).toBe(true);
    expect(actor.getSnapshot().children.weakPassword!.getSnapshot().context.payload).toBe('weak-ticket');
    expect(effects).toEqual([]);
    // Leaving it forgets it: a later reload signs in afresh.
    actor.send({ type: 'ROUTE', location: at('/login/email') });
    expect(effects).toContain('session loginPayload null');
    expect(actor.getSnapshot().context.weakPayload).toBeNull();
  });

  it('resumes a sign-in waiting for its second factor after a reload, from what the tab kept', async () => {
    const methods = [{ id: 1, method: 'card' as const }];
    const { actor, effects } = anonymousAt('/mfa/methods', '', {
      input: { storedSignIn: { payload: 'login', methods } },
      records: ['navigate'],
    });
    await settle();
    expect(actor.getSnapshot().matches({ anonymous: 'mfa' })).toBe(true);
    expect(effects).toEqual([]);
    expect(actor.getSnapshot().children.mfa!.getSnapshot().context).toMatchObject({
      methods,
      loginPayload: 'login',
    });
  });

  it('logs out on /logout and forgets the session', async () => {
    const { actor, effects } = signedInAt('/user/dashboard');
    await settle();
    actor.send({ type: 'ROUTE', location: at('/logout') });
    await settle();
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(actor.getSnapshot().context.user).toBeNull();
    expect(effects).toContain('clear session');
    expect(effects.at(-1)).toBe('navigate /login/email');
  });

  it('goes back to the request of an application after a sign-out asked from it ("Not you?"), and nowhere else', async () => {
    const { actor, effects } = signedInAt('/approve', '?uid=abc-123');
    await settle();
    actor.send({ type: 'ROUTE', location: at('/logout', '?redirect=%2Foidc%2Finteraction%2Fabc-123') });
    await settle();
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(effects).toContain('clear session');
    expect(effects).toContain('navigate /oidc/interaction/abc-123');
    for (const redirect of ['/user/profile', 'https://evil.example/oidc/interaction/abc', '/oidc/interaction/a/b']) {
      const other = signedInAt('/user/dashboard');
      await settle();
      other.actor.send({ type: 'ROUTE', location: at('/logout', `?${new URLSearchParams({ redirect })}`) });
      await settle();
      expect(other.effects.filter((effect) => effect.startsWith('navigate /oidc'))).toEqual([]);
      expect(other.effects.at(-1)).toBe('navigate /login/email');
    }
  });

  it('stays signed in and says so when the logout call fails', async () => {
    const { actor } = signedInAt('/user/dashboard', '', {
      logout: refuses(500),
    });
    await settle();
    actor.send({ type: 'ROUTE', location: at('/logout') });
    await settle();
    expect(actor.getSnapshot().matches('signedIn')).toBe(true);
    expect(actor.getSnapshot().context.notice).toBe('logout_failed');
  });

  it('a session ended elsewhere leads from any signed-in screen to sign-in with a notice, back there after', async () => {
    const { actor, effects } = signedInAt('/security/mfa-edit');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'security' })).toBe(true);
    effects.length = 0;
    actor.send({ type: 'SESSION_ENDED' });
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({
      user: null,
      notice: 'session_ended',
      target: '/security/mfa-edit',
    });
    expect(effects).toEqual([
      'account forgotten',
      'clear session',
      'target /security/mfa-edit',
      'navigate /login/email',
    ]);
    // Anonymous, the signal means nothing more.
    actor.send({ type: 'DISMISS_NOTICE' });
    actor.send({ type: 'SESSION_ENDED' });
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(actor.getSnapshot().context.notice).toBeNull();
  });

  it('runs the notifications settings while /notifications shows, and stops them when the person leaves', async () => {
    const { actor } = signedInAt('/notifications');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'notifications' })).toBe(true);
    expect(actor.getSnapshot().children.notifications).toBeDefined();
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    expect(actor.getSnapshot().matches({ signedIn: 'idle' })).toBe(true);
    expect(actor.getSnapshot().children.notifications).toBeUndefined();
    actor.send({ type: 'ROUTE', location: at('/notifications') });
    expect(actor.getSnapshot().matches({ signedIn: 'notifications' })).toBe(true);
    actor.send({ type: 'ROUTE', location: at('/logout') });
    expect(actor.getSnapshot().matches({ signedIn: 'loggingOut' })).toBe(true);
  });

  it('runs the merge on its two screens, each starting it again on what the tab kept; the outcome shows only after one', async () => {
    const kept: { result: FuzzionResult | null } = { result: null };
    const shown: string[] = [];
    const { actor } = signedInAt('/fuzzion-success', '', {
      fuzzion: fuzzionMachine.provide({
        actors: {
          recall: fromPromise(async (): Promise<FuzzionMemory> => ({ payload: 'offer', result: kept.result })),
          readOffer: fromPromise(async () => offerOf({ enough: true, methods: [] })),
          finish: fromPromise(async () => finishedAnswer),
        },
        actions: {
          finished: (_, { result }) => {
            kept.result = result;
          },
          show: (_, { screen }) => {
            shown.push(screen);
          },
        },
      }),
    });
    await settle();
    // No outcome yet: the offer's screen instead of the outcome's.
    expect(actor.getSnapshot().matches({ signedIn: 'merging' })).toBe(true);
    expect(shown).toEqual(['offer']);
    actor.send({ type: 'ROUTE', location: at('/duplicated') });
    await settle();
    const merge = () => actor.getSnapshot().children.fuzzion!;
    expect(merge().getSnapshot().matches('offered')).toBe(true);
    merge().send({ type: 'ACCEPT' });
    await settle();
    expect(merge().getSnapshot().matches('succeeded')).toBe(true);
    expect(shown.at(-1)).toBe('success');
    // Back on the offer's screen after it: the kept outcome shows again, on its own screen.
    actor.send({ type: 'ROUTE', location: at('/duplicated') });
    await settle();
    expect(merge().getSnapshot().matches('succeeded')).toBe(true);
    expect(shown).toEqual(['offer', 'success', 'success']);
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    expect(actor.getSnapshot().matches({ signedIn: 'idle' })).toBe(true);
    expect(actor.getSnapshot().children.fuzzion).toBeUndefined();
  });

  it('keeps a session with an open merge offer on the merge (spec §6 duplicated-logged) until it closes, expires or the person signs out', async () => {
    const told = { cancel: 0 };
    const merge = fuzzionMachine.provide({
      actors: {
        recall: fromPromise(async (): Promise<FuzzionMemory> => ({ payload: 'offer', result: null })),
        readOffer: fromPromise(async () => offerOf()),
        cancel: fromPromise(async () => {
          told.cancel += 1;
        }),
      },
      actions: { show: () => {}, leave: () => {} },
    });
    // Reloaded on the dashboard while the server holds the session's offer: the offer shows.
    const open = { ...user, fuzzion_until: '2099-01-01T00:00:00Z' } as UserProfile;
    const { actor, effects } = start({
      storedAccount: open,
      fetchUser: async () => open,
      location: at('/user/dashboard'),
      fuzzion: merge,
      records: ['navigate'],
    });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { merging: 'duplicated' } })).toBe(true);
    expect(actor.getSnapshot().hasTag('duplicatedLogged')).toBe(true);
    expect(effects).toContain('navigate /duplicated');
    // Every other path: the offer again; its own screens (the further proofs' too) stay.
    for (const path of ['/profile', '/security', '/user/access', '/nowhere']) {
      actor.send({ type: 'ROUTE', location: at(path) });
      await settle();
      expect(actor.getSnapshot().context.location.path).toBe('/duplicated');
      expect(effects.at(-1)).toBe('navigate /duplicated');
    }
    actor.send({ type: 'ROUTE', location: at('/mfa/methods', '?isFuzzion=true&methods=%5B13%5D') });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { merging: 'duplicated' } })).toBe(true);
    expect(actor.getSnapshot().context.location.search).toBe('?isFuzzion=true&methods=%5B13%5D');
    // "Use another address": the offer closes, and the session is free again.
    actor.getSnapshot().children.fuzzion!.send({ type: 'CANCEL' });
    await settle();
    expect(told.cancel).toBe(1);
    expect(actor.getSnapshot().matches({ signedIn: { merging: 'settled' } })).toBe(true);
    expect(actor.getSnapshot().context.user?.fuzzion_until).toBeUndefined();
    actor.send({ type: 'ROUTE', location: at('/profile') });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'profile' })).toBe(true);

    // An offer that expired keeps nobody; the sign-out always signs out.
    const expired = { ...user, fuzzion_until: '2000-01-01T00:00:00Z' } as UserProfile;
    const late = start({ storedAccount: expired, fetchUser: async () => expired, location: at('/profile') });
    await settle();
    expect(late.actor.getSnapshot().matches({ signedIn: 'profile' })).toBe(true);
    const leaving = start({
      storedAccount: open,
      fetchUser: async () => open,
      location: at('/duplicated'),
      fuzzion: merge,
    });
    await settle();
    leaving.actor.send({ type: 'ROUTE', location: at('/logout') });
    expect(leaving.actor.getSnapshot().matches({ signedIn: 'loggingOut' })).toBe(true);
  });

  it('runs the access list while /user/access shows, and stops it when the person leaves', async () => {
    const { actor } = signedInAt('/user/access');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'access' })).toBe(true);
    expect(actor.getSnapshot().children.access).toBeDefined();
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    expect(actor.getSnapshot().matches({ signedIn: 'idle' })).toBe(true);
    expect(actor.getSnapshot().children.access).toBeUndefined();
    actor.send({ type: 'ROUTE', location: at('/user/access') });
    expect(actor.getSnapshot().matches({ signedIn: 'access' })).toBe(true);
    actor.send({ type: 'ROUTE', location: at('/security') });
    expect(actor.getSnapshot().matches({ signedIn: 'security' })).toBe(true);
    expect(actor.getSnapshot().children.access).toBeUndefined();
  });

  it('shows the security history by its tag and runs its flow only while it shows', async () => {
    const { actor } = signedInAt('/security/history');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { security: { open: 'history' } } })).toBe(true);
    expect(actor.getSnapshot().hasTag('security.history')).toBe(true);
    expect(actor.getSnapshot().children.securityHistory).toBeDefined();
    actor.send({ type: 'ROUTE', location: at('/security') });
    await settle();
    expect(actor.getSnapshot().hasTag('security.overview')).toBe(true);
    expect(actor.getSnapshot().hasTag('security.history')).toBe(false);
    expect(actor.getSnapshot().children.securityHistory).toBeUndefined();
    actor.send({ type: 'ROUTE', location: at('/security/history') });
    await settle();
    expect(actor.getSnapshot().hasTag('security.history')).toBe(true);
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    expect(actor.getSnapshot().matches({ signedIn: 'idle' })).toBe(true);
    expect(actor.getSnapshot().children.securityHistory).toBeUndefined();
  });

  it('runs the devices list on the security overview only; signing out everywhere there ends signed out on sign-in', async () => {
    const calls: string[] = [];
    const devices = devicesMachine.provide({
      actors: {
        listDevices: fromPromise(async (): Promise<Device[]> => []),
        runAction: fromPromise(async ({ input }) => {
          calls.push(input.action);
        }),
      },
    });
    const { actor, effects } = signedInAt('/security', '', { devices });
    await settle();
    expect(actor.getSnapshot().hasTag('security.overview')).toBe(true);
    expect(actor.getSnapshot().children.devices).toBeDefined();
    actor.send({ type: 'ROUTE', location: at('/security/edit-recovery') });
    await settle();
    expect(actor.getSnapshot().children.devices).toBeUndefined();
    actor.send({ type: 'ROUTE', location: at('/security') });
    await settle();
    effects.length = 0;
    actor.getSnapshot().children.devices!.send({ type: 'LOG_OUT_EVERYWHERE' });
    actor.getSnapshot().children.devices!.send({ type: 'CONFIRM' });
    await settle();
    expect(calls).toEqual(['everywhere']);
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    // No screen is remembered to come back to after the next sign-in; the sign-in says what happened.
    expect(actor.getSnapshot().context).toMatchObject({ user: null, notice: 'signed_out_everywhere', target: null });
    expect(effects).toEqual(['account forgotten', 'clear session', 'navigate /login/email', 'view /login/email']);
  });

  it('a session that ends during a step-up leaves no second factor to resume', async () => {
    const { actor } = signedInAt('/security/mfa-edit', '', {
      mfaStatus: notRecent([]),
    });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { security: 'steppingUp' } })).toBe(true);
    actor.send({ type: 'SESSION_ENDED' });
    expect(actor.getSnapshot().context.mfa).toBeNull();
    actor.send({ type: 'ROUTE', location: at('/mfa/methods') });
    expect(actor.getSnapshot().matches({ anonymous: 'signingIn' })).toBe(true);
  });

  it('signing out of a session that already ended says nothing of it', async () => {
    const { actor, effects } = signedInAt('/user/dashboard', '', {
      // The app's client signals the 401 before the call fails.
      logout: async () => {
        actor.send({ type: 'SESSION_ENDED' });
        throw apiFailure(401, {});
      },
    });
    await settle();
    actor.send({ type: 'ROUTE', location: at('/logout') });
    await settle();
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(actor.getSnapshot().context.notice).toBeNull();
    expect(effects.at(-1)).toBe('navigate /login/email');
  });

  it('a stored account the server no longer knows at start is a session ended; no account, no notice', async () => {
    const gone = refuses(401);
    const stored = start({ storedAccount: user, location: at('/user/dashboard'), fetchUser: gone });
    const fresh = start({ location: at('/user/dashboard'), fetchUser: gone });
    await settle();
    expect(stored.actor.getSnapshot().context).toMatchObject({ user: null, notice: 'session_ended' });
    expect(stored.effects).toContain('account forgotten');
    expect(fresh.actor.getSnapshot().context.notice).toBeNull();
  });

  it('mirrors a mandatory set-up into the session key mfa_forced while it runs, and forgets it after', async () => {
    const { actor, effects } = startAs(forcedUser, '/setup-mfa');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(true);
    expect(effects).toContain('session mfa_forced true');
    expect(effects).not.toContain('session mfa_forced null');
    // Leaving the set-up while it is mandatory signs out: the mirror goes with it.
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    await settle();
    expect(effects).toContain('session mfa_forced null');
  });

  it('lets a forced account without a second factor open the merge and the code screens, then sets up (spec §4)', async () => {
    // Opened on the merge's offer, or reloaded there: not diverted.
    for (const path of ['/duplicated', '/fuzzion-success']) {
      const { actor, effects } = startAs(forcedUser, path);
      await settle();
      expect(actor.getSnapshot().matches({ signedIn: 'merging' })).toBe(true);
      expect(effects).not.toContain('navigate /setup-mfa');
    }
    // Nor on the code screen where the open merge's further proofs are given.
    const merging = { ...forcedUser, fuzzion_until: '2099-01-01T00:00:00Z' } as UserProfile;
    const proofs = start({
      storedAccount: merging,
      fetchUser: async () => merging,
      location: at('/mfa/methods', '?isFuzzion=true&methods=%5B13%5D'),
      records: ['navigate'],
    });
    await settle();
    expect(proofs.actor.getSnapshot().matches({ signedIn: { merging: 'duplicated' } })).toBe(true);
    expect(proofs.actor.getSnapshot().context.location.search).toBe('?isFuzzion=true&methods=%5B13%5D');
    expect(proofs.effects).toEqual([]);
    // Any other screen is the set-up's, as before.
    const elsewhere = startAs(forcedUser, '/user/profile');
    await settle();
    expect(elsewhere.actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(true);
    // From the set-up, the merge's screen is open (not a sign-out); leaving the merge, the set-up again.
    elsewhere.actor.send({ type: 'ROUTE', location: at('/duplicated') });
    await settle();
    expect(elsewhere.actor.getSnapshot().matches({ signedIn: 'merging' })).toBe(true);
    expect(elsewhere.effects).not.toContain('account forgotten');
    elsewhere.effects.length = 0;
    elsewhere.actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    await settle();
    expect(elsewhere.actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(true);
    expect(elsewhere.effects).toContain('navigate /setup-mfa');
  });

  it("does not mirror a customer's optional set-up as mandatory", async () => {
    const customer = { ...user, mfa_customer: true } as UserProfile;
    const { actor, effects } = startAs(customer, '/setup-mfa');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(true);
    expect(effects).toContain('session mfa_forced null');
    expect(effects).not.toContain('session mfa_forced true');
  });

  it('goes to the saved target after signing in, and the guard judges that target', async () => {
    let signedIn = false;
    const { actor, effects } = start({
      location: at('/user/dashboard', '?tab=1'),
      fetchUser: sessionOnce(() => signedIn),
    });
    await settle();
    actor.send({ type: 'ROUTE', location: at('/login/email') });
    signedIn = true;
    sendLoginForm(actor, 'emma@example.be', () => {
      effects.length = 0;
    });
    await settle();
    expect(actor.getSnapshot().matches('signedIn')).toBe(true);
    expect(effects).toContain('navigate /user/dashboard?tab=1');
    expect(effects).not.toContain('navigate /');
    expect(actor.getSnapshot().context.target).toBeNull();
  });

  it('knows a sign-in made with a password until the person signs out (the dashboard offers a passkey then)', async () => {
    let signedIn = false;
    const { actor } = start({ location: at('/login/email'), fetchUser: sessionOnce(() => signedIn) });
    await settle();
    expect(actor.getSnapshot().context.passwordSignIn).toBe(false);
    signedIn = true;
    sendLoginForm(actor);
    await settle();
    expect(actor.getSnapshot().matches('signedIn')).toBe(true);
    expect(actor.getSnapshot().context.passwordSignIn).toBe(true);
    actor.send({ type: 'ROUTE', location: at('/logout') });
    await settle();
    expect(actor.getSnapshot().context.passwordSignIn).toBe(false);
  });

  it('returns to the authorisation server after a sign-in it asked for, and to nothing else it names', async () => {
    let signedIn = false;
    const { actor, effects } = start({
      location: at('/login/email', '?redirect=%2Foidc%2Finteraction%2Fabc_1-Z'),
      fetchUser: sessionOnce(() => signedIn),
    });
    await settle();
    // Kept for the tab, so that a second factor's screen reloaded on the way still returns there.
    expect(effects).toContain('target /oidc/interaction/abc_1-Z');
    signedIn = true;
    sendLoginForm(actor);
    await settle();
    expect(effects).toContain('navigate /oidc/interaction/abc_1-Z');

    for (const redirect of [
      'https://evil.example/',
      '//evil.example/oidc/interaction/x',
      '/oidc/interaction/x/../../admin',
      '/oidc/auth/x',
    ]) {
      const other = anonymousAt('/login/email', `?redirect=${encodeURIComponent(redirect)}`);
      await settle();
      expect(other.actor.getSnapshot().context.target).toBeNull();
    }
  });

  it('opens the consent screen with the request it names, and leaves it for another screen', async () => {
    const { actor } = signedInAt('/approve', '?uid=abc');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'consenting' })).toBe(true);
    expect(
      (actor.getSnapshot().children.consent as { getSnapshot(): { context: { uid: string } } }).getSnapshot().context
        .uid,
    ).toBe('abc');
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    expect(actor.getSnapshot().matches({ signedIn: 'idle' })).toBe(true);
  });

  it('proves it is the person again when an application asks, then returns to its request', async () => {
    const { actor, effects } = signedInAt('/mfa/methods', '?single=true&redirect=%2Foidc%2Finteraction%2Fabc', {
      mfaStatus: async () => ({
        sudo: true,
        methods: [{ id: 1, method: 'email', target: 'e***@example.be', primary: true }],
      }),
    });
    await settle();
    // However recent the last check, the application asked for a new one.
    expect(actor.getSnapshot().matches({ signedIn: { reauthenticating: 'asking' } })).toBe(true);
    expect(actor.getSnapshot().hasTag('stepUpFor.application')).toBe(true);
    expect(effects.filter((e) => e.startsWith('navigate'))).toEqual([]);
    effects.length = 0;
    actor.send(steppedUp('email', 1));
    expect(effects).toContain('navigate /oidc/interaction/abc');
  });

  it("opens a partner landing for a visitor and for a signed-in person, with the page's query", async () => {
    const visitor = anonymousAt('/partner', '?client_id=deals-partner');
    const member = signedInAt('/partner', '?client_id=deals-partner');
    await settle();
    expect(visitor.actor.getSnapshot().matches({ anonymous: 'partnering' })).toBe(true);
    expect(member.actor.getSnapshot().matches({ signedIn: { partnering: 'open' } })).toBe(true);
    for (const { actor } of [visitor, member]) {
      const partner = actor.getSnapshot().children.partner as {
        getSnapshot(): { context: { clientId: string; step: string } };
      };
      expect(partner.getSnapshot().context).toMatchObject({ clientId: 'deals-partner', step: 'landing' });
    }
    // A visitor's way to the access request goes through sign-in, which remembers it.
    visitor.actor.send({ type: 'ROUTE', location: at('/partner/request-access', '?client_id=deals-partner') });
    expect(visitor.actor.getSnapshot().matches({ anonymous: 'signingIn' })).toBe(true);
    expect(visitor.effects).toContain('target /partner/request-access?client_id=deals-partner');
    expect(visitor.effects.at(-1)).toBe('navigate /login/email');
  });

  it("asks a recent second factor before the linked account's success, and comes back to it with its query", async () => {
    const search = `?redirect_uri=${encodeURIComponent(REGISTERED)}`;
    const { actor, effects } = signedInAt('/partner/link-success', search, {
      mfaStatus: notRecent(),
    });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { partnering: 'steppingUp' } })).toBe(true);
    const back = `/partner/link-success${search}`;
    expect(effects).toContain(`navigate /mfa/methods?${new URLSearchParams({ single: 'true', redirect: back })}`);
    expect(actor.getSnapshot().children.partner).toBeUndefined();
    effects.length = 0;
    actor.send(steppedUp('email', 1));
    expect(effects).toContain(`navigate ${back}`);
    expect(actor.getSnapshot().matches({ signedIn: { partnering: 'open' } })).toBe(true);

    const recent = signedInAt('/partner/link-success', search, {
      mfaStatus: async () => ({ sudo: true, methods: [] }),
    });
    await settle();
    expect(recent.actor.getSnapshot().matches({ signedIn: { partnering: 'open' } })).toBe(true);
    const partner = recent.actor.getSnapshot().children.partner as {
      getSnapshot(): { context: { destination: string } };
    };
    expect(partner.getSnapshot().context.destination).toBe(REGISTERED);
  });

  it('opens the profile; its sensitive screen waits for a recent second factor; its flow reports the changed profile', async () => {
    const fullUser = {
      ...user,
      lastname: 'Peeters',
      birthdate: null,
      gender: null,
      language: 'nl',
      email: [],
      phone: [],
      banking: null,
    } as UserProfile;
    const { actor, effects } = start({
      storedAccount: fullUser,
      location: at('/profile/edit-credentials'),
      mfaStatus: notRecent(),
    });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { profile: 'steppingUp' } })).toBe(true);
    expect(actor.getSnapshot().hasTag('stepUpFor.profile')).toBe(true);
    expect(effects).toContain(
      `navigate /mfa/methods?${new URLSearchParams({ single: 'true', redirect: '/profile/edit-credentials' })}`,
    );
    expect(actor.getSnapshot().children.profile).toBeUndefined();
    actor.send(steppedUp('email', 1));
    expect(actor.getSnapshot().matches({ signedIn: { profile: 'open' } })).toBe(true);
    const flow = () =>
      actor.getSnapshot().children.profile as unknown as {
        getSnapshot(): { value: unknown };
        send(event: unknown): void;
      };
    expect(flow().getSnapshot().value).toEqual({ credentials: 'ready' });
    // The overview is the running flow's: no new check, the same flow.
    const running = flow();
    actor.send({ type: 'ROUTE', location: at('/profile') });
    expect(flow()).toBe(running);
    expect(flow().getSnapshot().value).toEqual({ overview: 'idle' });
    // What the flow reports is the app's profile from then on.
    actor.send({ type: 'USER_UPDATED', user: { ...fullUser, firstname: 'Emmy' } });
    expect(actor.getSnapshot().context.user?.firstname).toBe('Emmy');
    expect(effects.at(-1)).toBe('account kept');
    // Leaving the area ends the flow.
    actor.send({ type: 'ROUTE', location: at('/user/dashboard') });
    expect(actor.getSnapshot().matches({ signedIn: 'idle' })).toBe(true);
    expect(actor.getSnapshot().children.profile).toBeUndefined();
  });

  it("asks a recent second factor before the password's change; a change that ended this session signs out to sign-in with a notice", async () => {
    const { actor, effects } = signedInAt('/security/edit-password', '', {
      mfaStatus: notRecent([]),
    });
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: { security: 'steppingUp' } })).toBe(true);
    // Whose step-up it is, for the code screen's way back: none of the tagged areas.
    expect(actor.getSnapshot().hasTag('stepUpFor.profile') || actor.getSnapshot().hasTag('stepUpFor.application')).toBe(
      false,
    );
    expect(effects).toContain(
      `navigate /mfa/methods?${new URLSearchParams({ single: 'true', redirect: '/security/edit-password' })}`,
    );
    expect(actor.getSnapshot().children.editPassword).toBeUndefined();
    actor.send(steppedUp('password', 0));
    expect(effects).toContain('navigate /security/edit-password');
    expect(actor.getSnapshot().hasTag('security.password')).toBe(true);
    expect(actor.getSnapshot().children.editPassword).toBeDefined();
    effects.length = 0;
    actor.send({ type: 'xstate.done.actor.editPassword', output: { sessionEnded: true } } as never);
    expect(actor.getSnapshot().matches('anonymous')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({
      notice: 'password_renewed',
      user: null,
      target: null,
      location: at('/login/email'),
    });
    expect(effects).toEqual(expect.arrayContaining(['account forgotten', 'clear session', 'navigate /login/email']));
    expect(effects.some((e) => e.startsWith('target '))).toBe(false);
  });

  it('offers the website access chooser after a sign-in without a target, to a person with several platforms only', async () => {
    const signInAs = async (profile: UserProfile, location = at('/login/email')) => {
      let signedIn = false;
      const run = start({ location, fetchUser: sessionOnce(() => signedIn, profile) });
      await settle();
      if (location.path !== '/login/email') run.actor.send({ type: 'ROUTE', location: at('/login/email') });
      signedIn = true;
      sendLoginForm(run.actor, 'emma@example.be', () => {
        run.effects.length = 0;
      });
      await settle();
      return run.effects.filter((e) => e.startsWith('navigate'));
    };
    const several = { ...user, user_id: 'U-1', customer_user_id: 'C-1', fridom_user_id: null } as UserProfile;
    const one = { ...user, user_id: 'U-1', customer_user_id: null, fridom_user_id: null } as UserProfile;
    expect(await signInAs(several)).toContain('navigate /user/choose-platform');
    expect(await signInAs(one)).toContain('navigate /user/dashboard');
    expect(await signInAs(one)).not.toContain('navigate /user/choose-platform');
    // A sign-in that has somewhere to go goes there.
    expect(await signInAs(several, at('/security'))).toContain('navigate /security');
    expect(await signInAs(several, at('/security'))).not.toContain('navigate /user/choose-platform');
  });

  it('spends a sign-in ticket from the URL hash before asking for the session; a refused one says so at sign-in', async () => {
    const spent: unknown[] = [];
    const loginTicket = { ticket: 'abc', clientId: '17' };
    const { actor: accepted } = start({
      location: at('/'),
      input: { loginTicket },
      exchangeTicket: async (ticket) => {
        spent.push(ticket);
        return { access_token: 't' };
      },
      records: [],
    });
    await settle();
    expect(spent).toEqual([{ ticket: 'abc', clientId: '17' }]);
    expect(accepted.getSnapshot().matches('signedIn')).toBe(true);

    const { actor: refused } = anonymousAt('/login/email', '', {
      input: { loginTicket },
      exchangeTicket: refuses(400, { code: 'invalid_login_ticket' }),
      records: [],
    });
    await settle();
    expect(refused.getSnapshot().matches('anonymous')).toBe(true);
    expect(refused.getSnapshot().context.notice).toBe('ticket_invalid');
  });

  it("a partner's sign-in is not diverted to a forced set-up, and its code leads back to the partner's request", async () => {
    const forced = { ...user, mfa_forced: true } as UserProfile;
    let signedIn = false;
    const { actor, effects } = start({
      location: at('/login/email', '?redirect=%2Foidc%2Finteraction%2Fabc'),
      input: { signingInTo: { client_id: 'deals-partner', first_party: false } },
      fetchUser: sessionOnce(() => signedIn, forced),
      submitLogin: async () => {
        signedIn = true;
        return { access_token: 't' };
      },
      records: ['navigate', 'leave'],
    });
    await settle();
    sendLoginForm(actor, 'fiona@example.be');
    await settle();
    expect(actor.getSnapshot().matches({ signedIn: 'enrolling' })).toBe(false);
    expect(effects).toContain('navigate /oidc/interaction/abc');

    // With a second factor: the spec's rule 2 after a code, the partner's redirect.
    expect(
      decisionAfterCode(
        { ...actor.getSnapshot().context, target: '/oidc/interaction/abc', partnerLogin: true, location: at('/mfa') },
        { method: 'email', mfaId: 1 },
        'signIn',
      ),
    ).toEqual({ kind: 'partner', url: '/oidc/interaction/abc' });
    // A weak password is renewed first: that sign-in has no session to return with yet.
    expect(
      decisionAfterCode(
        {
          ...actor.getSnapshot().context,
          target: '/oidc/interaction/abc',
          partnerLogin: true,
          location: at('/mfa', '?weakPassword=true'),
        },
        { method: 'email', mfaId: 1 },
        'signIn',
      ),
    ).toEqual({ kind: 'weakPassword', to: '/weak-password?verified=true' });
  });
});
