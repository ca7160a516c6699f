// Microsoft sign-in, the browser's part (docs/architecture.md "Microsoft sign-in"). Two small flows:
// - start: the sign-in screen's beta notice (spec §2 "A Microsoft login beta modal names the
//   company"). It names the company (one tenant), or lets the person pick theirs (several), then
//   leaves the app for `GET /sso/microsoft/login` (a full navigation: Microsoft's pages follow).
// - mfa (`/login/microsoft#mfa=<payload>`): the callback's sign-in that needs a second factor. The
//   payload is exchanged for the second factors (`POST /api/sso/microsoft/mfa`) and handed to the
//   sign-in's second factor, as a password sign-in's `mfa_required` is (the app keeps it as the tab's
//   waiting sign-in and opens its methods: src/login/MicrosoftContinuePage.tsx).
import { assign, fromPromise, setup } from 'xstate';
import type { MfaMethodSummary } from '../contract/baseSchemas.ts';
import type { SsoMfaAnswer } from '../contract/sso.ts';
import { problemCodeOf, type ProblemCode } from './failures.ts';
import { pathOf, safeTarget } from './routes.ts';

export type Tenant = { id: string; name: string | null };

export type MicrosoftStartInput = {
  tenants: readonly Tenant[];
  /** This browser's device id: a navigation carries no device header. */
  device: string;
  /** Where the sign-in goes afterwards (one of our screens, or the authorisation server's way back). */
  redirect: string | null;
};

/** Where the browser starts the sign-in with this tenant (contract/sso.ts SSO_LOGIN_PATH, written out:
 * the schemas there load with the API calls, not with the sign-in screen). */
export function startUrl(tenant: string, device: string, redirect: string | null): string {
  const query = new URLSearchParams({ tenant, device });
  const target = safeTarget(redirect);
  if (target) query.set('redirect', target);
  return `/sso/microsoft/login?${query.toString()}`;
}

/** A sign-in on the way to linking a Microsoft account: "Sign in to link my account" on
 * /partner/link-existing leads to the link's success, which sends a visitor to sign in first. That
 * sign-in says what it is for, naming the company where the portal allows one only, and does not
 * offer Microsoft again (the person just came from there). Null: an ordinary sign-in. */
export function microsoftLinkOf(target: string | null, tenants: readonly Tenant[]): { company: string | null } | null {
  const path = safeTarget(target)?.split(/[?#]/)[0];
  if (path !== pathOf('partner', 'linkSuccess')) return null;
  return { company: tenants.length === 1 ? tenants[0]!.name : null };
}

export const microsoftStartMachine = setup({
  types: {
    context: {} as MicrosoftStartInput & { tenant: string | null },
    input: {} as MicrosoftStartInput,
    events: {} as { type: 'CHOOSE'; tenant: string } | { type: 'CONTINUE' } | { type: 'CLOSE' },
  },
  actions: {
    /** Leaves the app for the server's start of the sign-in (provided by the app: a full navigation). */
    leaveTo: (_, _params: { url: string }) => {},
  },
  guards: {
    chosen: ({ context }) => context.tenant !== null,
    known: ({ context, event }) =>
      event.type === 'CHOOSE' && context.tenants.some((tenant) => tenant.id === event.tenant),
  },
}).createMachine({
  id: 'microsoftStart',
  // One company: it is the one. Several: the person picks theirs.
  context: ({ input }) => ({ ...input, tenant: input.tenants.length === 1 ? input.tenants[0]!.id : null }),
  initial: 'asking',
  states: {
    asking: {
      on: {
        CHOOSE: { guard: 'known', actions: assign({ tenant: ({ event }) => event.tenant }) },
        CONTINUE: { guard: 'chosen', target: 'leaving' },
        CLOSE: 'closed',
      },
    },
    leaving: {
      type: 'final',
      tags: ['busy'],
      entry: {
        type: 'leaveTo',
        params: ({ context }) => ({ url: startUrl(context.tenant!, context.device, context.redirect) }),
      },
    },
    closed: { type: 'final' },
  },
});

/** What the callback's hash carried: the sign-in's payload. */
export type MicrosoftMfaInput = { payload: string | null };

export type MicrosoftMfaContext = {
  payload: string | null;
  methods: MfaMethodSummary[];
  error: ProblemCode | null;
};

export const microsoftMfaMachine = setup({
  types: {
    context: {} as MicrosoftMfaContext,
    input: {} as MicrosoftMfaInput,
  },
  actors: {
    exchange: fromPromise<SsoMfaAnswer, { payload: string }>(async () => {
      throw new Error('exchange is provided by the app');
    }),
  },
  actions: {
    /** Hands the sign-in to its second factor (provided by the app: the login flow's `mfa` outcome). */
    handOver: (_, _params: { payload: string; methods: MfaMethodSummary[] }) => {},
  },
  guards: {
    hasPayload: ({ context }) => context.payload !== null,
  },
}).createMachine({
  id: 'microsoftMfa',
  context: ({ input }) => ({ payload: input.payload, methods: [], error: null }),
  initial: 'checking',
  states: {
    checking: {
      always: [
        { guard: 'hasPayload', target: 'exchanging' },
        { target: 'failed', actions: assign({ error: 'sso_failed' }) },
      ],
    },
    exchanging: {
      tags: ['busy'],
      invoke: {
        id: 'exchange',
        src: 'exchange',
        input: ({ context }) => ({ payload: context.payload! }),
        onDone: {
          target: 'handedOver',
          actions: assign({
            payload: ({ event }) => event.output.mfa.payload,
            methods: ({ event }) => event.output.mfa.methods,
          }),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    // The sign-in's second factor takes over (the root's, as after a password).
    handedOver: {
      tags: ['busy'],
      entry: { type: 'handOver', params: ({ context }) => ({ payload: context.payload!, methods: context.methods }) },
      type: 'final',
    },
    /** Nothing to go on with (no payload, expired, spent): the sign-in starts again. */
    failed: { type: 'final' },
  },
});
