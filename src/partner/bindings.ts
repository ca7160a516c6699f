// How the partner pages' flow meets the real world: its machine (imported here, in its own chunk),
// its API calls, its ways on (the router, or a full load) and the memory a sign-in carries. Loaded
// when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { flowMemory } from '../shell/storage.ts';
import type { Go } from '../shell/bindings.ts';
import { linkAccount, readPartner, readPartnerAccess, readSsoTicket, requestPartnerAccess } from '../api/flowCalls.ts';

/** Whether a partner page's way on is a screen of the app (the router) rather than a page of the
 * server or another site (a full load). */
const inApp = (url: string) => url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/oidc/');

/** The Microsoft sign-in's link ticket, kept in the tab across the sign-in that links it. */
const linkTicket = flowMemory<string>('ssoLinkTicket');

export const partner = (go: Go) =>
  import('../../machines/partner.ts').then(({ partnerMachine }) =>
    partnerMachine.provide({
      actors: {
        readPartner: fromPromise(({ input }) => readPartner(input)),
        requestAccess: fromPromise(({ input }) => requestPartnerAccess(input)),
        readAccess: fromPromise(({ input }) => readPartnerAccess(input)),
        readTicket: fromPromise(({ input }) => readSsoTicket(input)),
        recallTicket: fromPromise(linkTicket.recall),
        linkAccount: fromPromise(({ input }) => linkAccount(input)),
      },
      actions: {
        leaveTo: (_, { url }) => {
          if (inApp(url)) go(url);
          else window.location.assign(url);
        },
        keepTicket: (_, { ticket }) => linkTicket.keep(ticket),
      },
    }),
  );
