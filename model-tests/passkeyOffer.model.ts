// The passkey offer's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { passkeyOfferMachine, type PasskeyOfferStatus } from '../machines/passkeyOffer.ts';
import type { Model } from './coverage.ts';
import { done } from './events.ts';

const status = (offer: boolean, canCreate: boolean, quietCreate: boolean): PasskeyOfferStatus => ({
  offer,
  canCreate,
  quietCreate,
});

export const passkeyOfferModel: Model = {
  machine: passkeyOfferMachine,
  starts: [
    { name: 'after a password sign-in', input: { passwordSignIn: true } },
    { name: 'after a passkey sign-in or a reload', input: { passwordSignIn: false } },
  ],
  events: () => [
    { type: 'ADD' },
    { type: 'LATER' },
    done('offerStatus', status(true, true, true)),
    done('offerStatus', status(true, true, false)),
    done('offerStatus', status(true, false, false)),
    done('offerStatus', status(false, true, true)),
    { type: 'xstate.error.actor.offerStatus', error: apiFailure(503, { code: 'database_unavailable' }) },
    done('quietCreate', { id: 9, provider: null }),
    { type: 'xstate.error.actor.quietCreate', error: Object.assign(new Error('no'), { name: 'NotAllowedError' }) },
    done('create', { id: 9, provider: null }),
    { type: 'xstate.error.actor.create', error: Object.assign(new Error('no'), { name: 'NotAllowedError' }) },
    { type: 'xstate.error.actor.create', error: Object.assign(new Error('held'), { name: 'InvalidStateError' }) },
    done('decline'),
    { type: 'xstate.error.actor.decline', error: apiFailure(503, { code: 'database_unavailable' }) },
  ],
};
