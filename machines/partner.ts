// The partner pages (spec §2 `/partner…`): one machine for the five pages, because they are one
// short errand around one partner application (its landing, asking its administrator for access,
// the options without an account, linking an existing one, the success that goes on) and share what
// they know: the partner from the query, and the way on. Each page is a region the machine enters
// by the step the root starts it with; the root starts it again on every partner path, so a page
// never inherits another's state. The pages:
// - landing (`/partner?client_id=…&redirect=…`): the partner's name, logo and what it may ask for;
//   Continue goes on to the authorisation server's request (which signs in first when needed), or
//   home when the query carries none; Cancel goes home.
// - requestAccess (private): first where the person stands (access given already, asked already, or
//   no administrator to ask: each says so, with nothing to send); else asks the partner's
//   administrator, once; a failure may be retried.
// - noAccount: choices, nothing to load.
// - linkExisting (`?ticket=`: the Microsoft sign-in's callback for an identity no account has):
//   who signed in with Microsoft (`POST /api/sso/microsoft/ticket`), and the two ways on: sign in
//   to link an existing account (the ticket is kept in the tab, since the sign-in leaves the page),
//   or activate a card. Without a ticket there is nothing to link: the way to sign in with Microsoft.
// - linkSuccess (private, sensitive: the root proves the second factor first): a ticket kept in
//   the tab is linked to the account now signed in (`POST /api/user/link-account`); then the
//   success, and after LINK_SUCCESS_REDIRECT_MS the destination (a registered redirect_uri, else the
//   dashboard). Without a ticket nothing is linked: the page says so, and goes on the same way. An account is never linked by its email alone: only by this signed-in, proven link.
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import { LINK_SUCCESS_REDIRECT_MS, serviceHost } from '../contract/constants.ts';
import type { AccessRequestAnswer, PartnerAccessAnswer, PartnerAnswer, PartnerClient } from '../contract/schemas.ts';
import type { LinkAccountAnswer, SsoTicketAnswer } from '../contract/sso.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';
import { HOME_PATH, LINKS, allowedRedirect, isAuthorisationReturn, pathOf, type StepOf } from './routes.ts';

export type PartnerStep = StepOf<'partner'>;

export type PartnerInput = {
  step: PartnerStep;
  /** The page's query: client_id, redirect (landing), redirect_uri (link-success). */
  search: string;
  /** The addresses a `redirect_uri` may name (the app's config). */
  redirectTargets: readonly string[];
};

type Context = {
  step: PartnerStep;
  clientId: string | null;
  client: PartnerClient | null;
  scopes: string[];
  /** Where Continue (landing) or the success (link-success) goes on. */
  destination: string;
  /** Link-existing's way to the success, with the redirect_uri it carries on. */
  linkTo: string;
  requestedAt: string | null;
  error: ProblemCode | null;
  /** The Microsoft sign-in's link ticket (link-existing's query, or kept in the tab for link-success). */
  ticket: string | null;
  /** Who signed in with Microsoft, as the ticket names them. */
  identity: SsoTicketAnswer | null;
};

/** The authorisation server's request a landing goes on to: the way back to an interaction, or an
 * authorization request of ours. Anything else is ignored (no open redirect). */
export function wayOn(search: string): string | null {
  const redirect = new URLSearchParams(search).get('redirect');
  if (!redirect) return null;
  if (isAuthorisationReturn(redirect)) return redirect;
  return /^\/oidc\/auth\?[^#\s]*$/.test(redirect) ? redirect : null;
}

/** The platform a destination belongs to, as the success names it (spec §2 link-success): a screen
 * of ours is the account; another registered address is named by its host. */
export type Platform = 'consumer' | 'clientArea' | 'account' | 'default';
export function platformOf(destination: string, host: string): Platform {
  if (destination.startsWith('/') && !destination.startsWith('//')) return 'account';
  let target: string;
  try {
    target = new URL(destination, 'http://app.invalid').hostname;
  } catch {
    return 'default';
  }
  // By host name: the platforms listen on their own ports in development.
  const named = (service: 'my' | 'client') => serviceHost(host, service).split(':')[0];
  if (target === named('my')) return 'consumer';
  if (target === named('client')) return 'clientArea';
  return 'default';
}

/** A client id as the API accepts it; anything else is unknown at once. */
const CLIENT_ID = /^[\w.:-]{1,100}$/;

const isGone = (event: object) => {
  const error = errorOf(event);
  return isApiFailure(error) && (error.status === 404 || error.status === 400);
};

const partnerSetup = setup({
  types: {
    context: {} as Context,
    input: {} as PartnerInput,
    events: {} as
      | { type: 'CONTINUE' }
      | { type: 'CANCEL' }
      | { type: 'SEND' }
      | { type: 'RETRY' }
      | { type: 'GO' }
      | DoneActorEvent<string | null, 'recallTicket'>
      | DoneActorEvent<PartnerAccessAnswer, 'readAccess'>,
  },
  actors: {
    readPartner: fromPromise<PartnerAnswer, { clientId: string }>(async () => {
      throw new Error('readPartner is provided by the app');
    }),
    requestAccess: fromPromise<AccessRequestAnswer, { clientId: string }>(async () => {
      throw new Error('requestAccess is provided by the app');
    }),
    readAccess: fromPromise<PartnerAccessAnswer, { clientId: string }>(async () => {
      throw new Error('readAccess is provided by the app');
    }),
    readTicket: fromPromise<SsoTicketAnswer, { ticket: string }>(async () => {
      throw new Error('readTicket is provided by the app');
    }),
    /** The ticket kept in the tab before the sign-in, if any. */
    recallTicket: fromPromise<string | null>(async () => {
      throw new Error('recallTicket is provided by the app');
    }),
    linkAccount: fromPromise<LinkAccountAnswer, { ticket: string }>(async () => {
      throw new Error('linkAccount is provided by the app');
    }),
  },
  actions: {
    /** Keeps the link ticket in the tab's session storage across the sign-in (null forgets it). */
    keepTicket: (_, _params: { ticket: string | null }) => {},
    /** Goes on: a screen of ours, the authorisation server, or a registered address (the app decides how). */
    leaveTo: (_, _params: { url: string }) => {},
  },
  delays: { LINK_SUCCESS_REDIRECT: LINK_SUCCESS_REDIRECT_MS },
  guards: {
    stepIs: ({ context }, { step }: { step: PartnerStep }) => context.step === step,
    noClient: ({ context }) => context.clientId === null,
    hasTicket: ({ context }) => context.ticket !== null,
    recalled: ({ event }) => event.type === 'xstate.done.actor.recallTicket' && typeof event.output === 'string',
    gone: ({ event }) => isGone(event),
    accessIs: ({ event }, { access }: { access: PartnerAccessAnswer['access'] }) =>
      event.type === 'xstate.done.actor.readAccess' && event.output.access === access,
    noAdministrator: ({ event }) => problemCodeOf(event) === 'access_request_unavailable',
  },
});

/** The partner's loading, shared by the pages that show it: an unknown id says so, a failure may
 * be retried; `then` is the page's first state once the partner is known. */
const loadingPartner = (then: string) => ({
  checking: partnerSetup.createStateConfig({
    always: [{ guard: 'noClient', target: 'unknown' }, { target: 'loading' }],
  }),
  loading: partnerSetup.createStateConfig({
    tags: ['busy'],
    invoke: {
      id: 'readPartner',
      src: 'readPartner',
      input: ({ context }) => ({ clientId: context.clientId! }),
      onDone: {
        target: then,
        actions: assign({
          client: ({ event }) => event.output.client,
          scopes: ({ event }) => event.output.scopes,
          error: null,
        }),
      },
      onError: [
        { guard: 'gone', target: 'unknown' },
        { target: 'unavailable', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      ],
    },
  }),
  unknown: partnerSetup.createStateConfig({ type: 'final' }),
  unavailable: partnerSetup.createStateConfig({
    on: { RETRY: { target: 'loading', actions: assign({ error: null }) } },
  }),
});

export const partnerMachine = partnerSetup.createMachine({
  id: 'partner',
  context: ({ input }) => {
    const query = new URLSearchParams(input.search);
    const clientId = query.get('client_id');
    const destination =
      input.step === 'linkSuccess'
        ? (allowedRedirect(input.search, input.redirectTargets) ?? HOME_PATH)
        : (wayOn(input.search) ?? HOME_PATH);
    const redirectUri = query.get('redirect_uri');
    const linkTo = `${pathOf('partner', 'linkSuccess')}${redirectUri ? `?${new URLSearchParams({ redirect_uri: redirectUri })}` : ''}`;
    return {
      step: input.step,
      clientId: clientId && CLIENT_ID.test(clientId) ? clientId : null,
      client: null,
      scopes: [],
      destination,
      linkTo,
      requestedAt: null,
      error: null,
      ticket: input.step === 'linkExisting' ? query.get('ticket') || null : null,
      identity: null,
    };
  },
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: { type: 'stepIs', params: { step: 'requestAccess' } }, target: 'requestAccess' },
        { guard: { type: 'stepIs', params: { step: 'noAccount' } }, target: 'noAccount' },
        { guard: { type: 'stepIs', params: { step: 'linkExisting' } }, target: 'linkExisting' },
        { guard: { type: 'stepIs', params: { step: 'linkSuccess' } }, target: 'linkSuccess' },
        { target: 'landing' },
      ],
    },
    landing: {
      initial: 'checking',
      states: {
        ...loadingPartner('ready'),
        ready: {
          on: {
            CONTINUE: { target: '#partner.leaving' },
            // Home: for a visitor that is the sign-in, for a signed-in person the dashboard.
            CANCEL: { target: '#partner.leaving', actions: assign({ destination: LINKS.home }) },
          },
        },
      },
    },
    requestAccess: {
      initial: 'checking',
      states: {
        ...loadingPartner('reading'),
        // Where the person stands decides what the page offers: nothing to send when it cannot help.
        reading: {
          tags: ['busy'],
          invoke: {
            id: 'readAccess',
            src: 'readAccess',
            input: ({ context }) => ({ clientId: context.clientId! }),
            onDone: [
              { guard: { type: 'accessIs', params: { access: 'granted' } }, target: 'granted' },
              {
                guard: { type: 'accessIs', params: { access: 'requested' } },
                target: 'sent',
                actions: assign({ requestedAt: ({ event }) => event.output.requested_at }),
              },
              { guard: { type: 'accessIs', params: { access: 'unavailable' } }, target: 'noAdministrator' },
              { target: 'asking' },
            ],
            onError: [
              { guard: 'gone', target: 'unknown' },
              { target: 'unavailable', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
        granted: { type: 'final' },
        noAdministrator: { type: 'final' },
        asking: { on: { SEND: 'sending' } },
        sending: {
          tags: ['busy'],
          invoke: {
            id: 'requestAccess',
            src: 'requestAccess',
            input: ({ context }) => ({ clientId: context.clientId! }),
            onDone: {
              target: 'sent',
              actions: assign({ requestedAt: ({ event }) => event.output.requested_at, error: null }),
            },
            onError: [
              { guard: 'noAdministrator', target: 'noAdministrator' },
              { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
        failed: { on: { RETRY: 'sending' } },
        sent: { type: 'final' },
      },
    },
    noAccount: { type: 'final' },
    linkExisting: {
      initial: 'checking',
      states: {
        checking: { always: [{ guard: 'hasTicket', target: 'reading' }, { target: 'noTicket' }] },
        reading: {
          tags: ['busy'],
          invoke: {
            id: 'readTicket',
            src: 'readTicket',
            input: ({ context }) => ({ ticket: context.ticket! }),
            onDone: {
              target: 'identified',
              actions: [
                assign({ identity: ({ event }) => event.output }),
                { type: 'keepTicket', params: ({ context }) => ({ ticket: context.ticket }) },
              ],
            },
            onError: {
              target: 'invalid',
              actions: [
                assign({ error: ({ event }) => problemCodeOf(event) }),
                { type: 'keepTicket', params: { ticket: null } },
              ],
            },
          },
        },
        // Sign in to link an existing account, or activate a card.
        identified: { type: 'final' },
        // Spent, expired, from another browser: sign in with Microsoft again.
        invalid: { type: 'final' },
        noTicket: { type: 'final' },
      },
    },
    linkSuccess: {
      initial: 'recalling',
      states: {
        recalling: {
          tags: ['busy'],
          invoke: {
            id: 'recallTicket',
            src: 'recallTicket',
            onDone: [
              { guard: 'recalled', target: 'linking', actions: assign({ ticket: ({ event }) => event.output }) },
              { target: 'nothingLinked' },
            ],
            onError: { target: 'nothingLinked' },
          },
        },
        linking: {
          tags: ['busy'],
          invoke: {
            id: 'linkAccount',
            src: 'linkAccount',
            input: ({ context }) => ({ ticket: context.ticket! }),
            onDone: {
              target: 'shown',
              actions: [assign({ identity: null }), { type: 'keepTicket', params: { ticket: null } }],
            },
            onError: {
              target: 'failed',
              actions: [
                assign({ error: ({ event }) => problemCodeOf(event) }),
                { type: 'keepTicket', params: { ticket: null } },
              ],
            },
          },
        },
        // Not linked (taken by another account, expired): the screen says why; nothing goes on by itself.
        failed: { type: 'final' },
        // The success shows for a moment, then goes on by itself (or at once, when asked).
        shown: {
          after: { LINK_SUCCESS_REDIRECT: '#partner.leaving' },
          on: { GO: '#partner.leaving' },
        },
        // No Microsoft sign-in was waiting to be linked: the page says nothing was linked, and goes on alike.
        nothingLinked: {
          after: { LINK_SUCCESS_REDIRECT: '#partner.leaving' },
          on: { GO: '#partner.leaving' },
        },
      },
    },
    leaving: {
      type: 'final',
      tags: ['busy'],
      entry: { type: 'leaveTo', params: ({ context }) => ({ url: context.destination }) },
    },
  },
});
