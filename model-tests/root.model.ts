// The root's model: what its test walks and the testers' paths follow.
import { createMachine } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import type { AppConfig, UserProfile } from '../contract/schemas.ts';
import { rootMachine } from '../machines/root.ts';
import { FLOW_MACHINES } from '../machines/flows.ts';
import type { Model } from './coverage.ts';
import { done } from './events.ts';

/** For the walk, each flow is an empty machine: the walk sends the flows' answers itself, and
 * starting every flow's real machine on each of tens of thousands of steps would cost minutes. */
const walkedRoot = rootMachine.provide({
  actors: Object.fromEntries(
    Object.keys(FLOW_MACHINES).map((name) => [name, createMachine({ id: name })]),
  ) as unknown as typeof FLOW_MACHINES,
});

export const REGISTERED = 'https://client.tessera.example/auth/callback';
export const config: AppConfig = {
  variant: 'be',
  locales: ['en', 'fr', 'nl'],
  defaultLocale: 'nl',
  redirectTargets: [REGISTERED],
  analyticsUrl: null,
  passwordPolicy: DEFAULT_PASSWORD_POLICY,
  captcha: true,
};
export const user = {
  id: 'u1',
  firstname: 'Emma',
  mfa_forced: false,
  mfa_customer: false,
  mfa_enrolled: false,
} as UserProfile;
export const forcedUser = { ...user, mfa_forced: true } as UserProfile;
export const offeredUser = { ...user, mfa_customer: true } as UserProfile;
export const at = (path: string, search = '') => ({ path, search });

export const PATHS = [
  at('/'),
  at('/login/email'),
  at('/login/phone'),
  at('/user/dashboard'),
  at('/mfa'),
  at('/mfa/methods'),
  at('/mfa/totp-recovery'),
  at('/mfa/totp-recovery', '?mfaId=3'),
  at('/setup-mfa'),
  at('/setup-mfa/email'),
  at('/security'),
  at('/user/access'),
  at('/security/mfa-edit'),
  at('/security/edit-recovery'),
  at('/setup-mfa/totp'),
  at('/weak-password'),
  at('/forgot-password/email'),
  at('/reset-password'),
  at('/forgot-username'),
  at('/onboarding'),
  at('/onboarding/create'),
  at('/user/dashboard', `?redirect_uri=${encodeURIComponent(REGISTERED)}`),
  at('/logout'),
  at('/maintenance'),
  at('/nowhere'),
  at('/approve', '?uid=abc'),
  at('/login/email', '?redirect=%2Foidc%2Finteraction%2Fabc'),
  at('/mfa/methods', '?single=true&redirect=%2Foidc%2Finteraction%2Fabc'),
];

const PARTNER_PATHS = [
  at('/partner', '?client_id=deals-partner'),
  at('/partner/link-success', `?redirect_uri=${encodeURIComponent(REGISTERED)}`),
  at('/partner/no-account'),
  at('/user/dashboard'),
  at('/login/email'),
  at('/mfa/methods'),
  at('/logout'),
];
const APP_LOGOUT_PATHS = [
  at('/logout/confirm', `?ref=${'r'.repeat(43)}`),
  at('/logout/done'),
  at('/user/dashboard'),
  at('/login/email'),
  at('/logout'),
];
const PASSWORD_PATHS = [
  at('/security/edit-password'),
  at('/security'),
  at('/security/history'),
  at('/notifications'),
  at('/user/dashboard'),
  at('/mfa/methods'),
  at('/logout'),
];
const PROFILE_PATHS = [
  at('/profile'),
  at('/profile/edit-info'),
  at('/profile/edit-credentials'),
  at('/user/dashboard'),
  at('/mfa/methods'),
  at('/logout'),
];

const MERGE_PATHS = [
  at('/duplicated'),
  at('/duplicated', '?target=other%40example.be&method=11'),
  at('/fuzzion-success'),
  at('/mfa/methods', '?isFuzzion=true&methods=%5B13%5D'),
  at('/user/dashboard'),
  at('/logout'),
];
/** An account whose session holds an open merge offer (spec §6 "duplicated-logged"), and one whose
 * offer expired. */
export const mergingUser = { ...user, fuzzion_until: '2099-01-01T00:00:00Z' } as UserProfile;
const MERGE_EVENTS: Event[] = [
  { type: 'MERGE_OPENED', until: '2099-01-01T00:00:00Z' },
  { type: 'MERGE_OPENED', until: '2000-01-01T00:00:00Z' },
  { type: 'MERGE_CLOSED' },
];

const fail = (id: string, status: number) => ({ type: `xstate.error.actor.${id}`, error: apiFailure(status, {}) });

/** The walk tells states apart by value, location and the context fields a guard reads (the
 * notice shown and the number of recovery keys left decide nothing, so they do not multiply the walk). */
const serializeState = ({ value, context }: { value: unknown; context: unknown }) => {
  const c = context as {
    user: UserProfile | null;
    target: unknown;
    location: { path: string; search: string };
    config: unknown;
    mfa: unknown;
    recoveryKeysLeft: unknown;
    setupMfaSkipped: boolean;
    afterCode: { kind: string } | null;
  };
  return JSON.stringify([
    value,
    c.user ? [c.user.mfa_forced, c.user.mfa_customer, c.user.mfa_enrolled, c.user.fuzzion_until ?? null] : null,
    !!c.target,
    !!c.config,
    c.location.path,
    c.location.search,
    !!c.mfa,
    c.recoveryKeysLeft !== null,
    c.setupMfaSkipped,
    c.afterCode?.kind ?? null,
  ]);
};

type Event = { type: string; [key: string]: unknown };

const EVENTS: Event[] = [
  ...PATHS.map((location) => ({ type: 'ROUTE', location })),
  { type: 'DISMISS_NOTICE' },
  { type: 'SESSION_ENDED' },
  { type: 'RETRY' },
  { type: 'USERNAME', value: 'emma@example.be' },
  { type: 'xstate.after.MAINTENANCE_RETRY.root.maintenance.waiting' },
  done('checkAgain', config),
  fail('checkAgain', 503),
  done('loadConfig', config),
  fail('loadConfig', 503),
  fail('loadConfig', 0),
  done('restoreUser', user),
  fail('restoreUser', 503),
  fail('restoreUser', 401),
  fail('restoreUser', 0),
  done('login', { kind: 'success', by: 'password' }),
  done('login', { kind: 'mfa', payload: 'p', methods: [] }),
  done('login', { kind: 'weakPassword', payload: 'w' }),
  done('login', { kind: 'maintenance' }),
  done('loadUser', user),
  fail('loadUser', 503),
  fail('loadUser', 0),
  done('logout'),
  fail('logout', 401),
  fail('logout', 500),
  done('mfa', { method: 'email', mfaId: 1, accessToken: 't', recoveryKeysLeft: null }),
  done('mfa', { method: 'totpRecovery', mfaId: 3, accessToken: 't', recoveryKeysLeft: 4 }),
  done('totpRecovery', { outcome: 'done' }),
  done('totpRecovery', { outcome: 'reset' }),
  done('totpRecovery', { outcome: 'regenerated', keys: ['AAAAABBBBB'] }),
  done('restoreUser', forcedUser),
  done('loadUser', forcedUser),
  done('loadUser', offeredUser),
  done('setupMfa', { outcome: 'enrolled', voluntary: false }),
  done('setupMfa', { outcome: 'skipped', voluntary: false }),
  done('setupMfa', { outcome: 'enrolled', voluntary: true }),
  done('setupMfa', { outcome: 'authenticator', voluntary: true }),
  done('mfaStatus', { sudo: false, methods: [] }),
  done('mfaStatus', { sudo: true, methods: [] }),
  fail('mfaStatus', 500),
  done('stepUp', { method: 'email', mfaId: 1, accessToken: null, recoveryKeysLeft: null }),
  done('stepUp', { method: 'totpRecovery', mfaId: 3, accessToken: null, recoveryKeysLeft: 2 }),
  done('authenticator', { regenerated: false }),
  done('authenticator', { regenerated: true }),
  done('weakPassword'),
  done('forgotPassword'),
  // The new account signed in: its session, or (had it a second factor already) the code it needs.
  done('onboarding', {
    username: 'nora@example.be',
    signIn: { kind: 'session', token: { access_token: 't', token_type: 'Bearer', expires_in: 60 } },
  }),
  done('onboarding', {
    username: 'nora@example.be',
    signIn: { kind: 'second_factor', mfa: { payload: 'p', methods: [{ method: 'email', id: 1 }] } },
  }),
  done('devices', { signedOut: true }),
  done('editPassword', { sessionEnded: true }),
  done('exchangeTicket', { access_token: 't' }),
  fail('exchangeTicket', 400),
  fail('exchangeTicket', 503),
];
/** The events at a snapshot: an actor's answer can only come while that actor runs. */
const relevant = (snapshot: unknown) =>
  EVENTS.filter((e) => {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(e.type)?.[1];
    return !actor || actor in ((snapshot as { children: Record<string, unknown> }).children ?? {});
  });
/** The events of a walk kept among a few screens: their locations, `more`, and every event but a route. */
const among =
  (paths: Array<{ path: string; search: string }>, more: Event[] = []) =>
  (snapshot: unknown) => [
    ...paths.map((location) => ({ type: 'ROUTE', location })),
    ...more,
    ...relevant(snapshot).filter((e) => e.type !== 'ROUTE'),
  ];

export const rootModel: Model = {
  machine: walkedRoot,
  starts: [
    { name: 'a stored account', input: { storedAccount: user, storedTarget: null, location: at('/user/dashboard') } },
    {
      name: 'no account',
      input: { storedAccount: null, storedTarget: '/user/dashboard', location: at('/login/email') },
    },
    {
      // A reload while a sign-in waits for its second factor, or for its new password; the page also
      // brought a sign-in ticket in its hash.
      name: 'a kept sign-in',
      input: {
        storedAccount: null,
        storedTarget: null,
        storedSignIn: { payload: 'p', methods: [] },
        storedRenewal: 'w',
        location: at('/mfa/methods'),
        loginTicket: { ticket: 't'.repeat(43), clientId: '17' },
      },
    },
    // The partner pages, walked apart among a few screens (with every path above, the walk would
    // multiply past what a test can wait for): the landing, the sensitive success, and the ways out.
    {
      name: 'the partner pages, signed in',
      input: { storedAccount: user, storedTarget: null, location: at('/partner/link-success') },
      events: among(PARTNER_PATHS),
    },
    {
      name: 'the partner pages, signed out',
      input: { storedAccount: null, storedTarget: null, location: at('/partner', '?client_id=deals-partner') },
      events: among(PARTNER_PATHS),
    },
    // An application's sign-out, walked apart in the same way: its confirmation and success, to
    // anyone, and the ways out.
    {
      name: "an application's sign-out, signed in",
      input: { storedAccount: user, storedTarget: null, location: at('/logout/confirm', `?ref=${'r'.repeat(43)}`) },
      events: among(APP_LOGOUT_PATHS),
    },
    {
      name: "an application's sign-out, signed out",
      input: { storedAccount: null, storedTarget: null, location: at('/logout/done') },
      events: among(APP_LOGOUT_PATHS),
    },
    // The password's change and the notifications, walked apart in the same way: their screens (the
    // password's is sensitive), the area and its history (the `choosing` branch to it), and the ways out.
    {
      name: 'the password and the notifications',
      input: { storedAccount: user, storedTarget: null, location: at('/security/edit-password') },
      events: among(PASSWORD_PATHS),
    },
    // The profile, walked apart in the same way: its screens (one sensitive), and the ways out.
    {
      name: 'the profile',
      input: { storedAccount: user, storedTarget: null, location: at('/profile/edit-credentials') },
      events: among(PROFILE_PATHS, [{ type: 'USER_UPDATED', user: { ...user, firstname: 'Emmy' } }]),
    },
    // The merge of a duplicated account, walked apart in the same way: its screens (the offer, with
    // its query; the further proofs; the outcome), what the flow tells of the offer, and the ways out.
    {
      name: 'the merge',
      input: { storedAccount: user, storedTarget: null, location: at('/duplicated') },
      events: among(MERGE_PATHS, MERGE_EVENTS),
    },
    // A session in the middle of a merge, found on a reload elsewhere: the offer shows, whatever the path.
    {
      name: 'an open merge, reloaded elsewhere',
      input: { storedAccount: mergingUser, storedTarget: null, location: at('/user/dashboard') },
      events: among(MERGE_PATHS, [...MERGE_EVENTS, done('restoreUser', mergingUser)]),
    },
  ],
  events: relevant,
  serializeState,
};
