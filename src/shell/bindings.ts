// What the features' bindings (each feature's bindings.ts: how its flows meet the real world)
// share: what they get from the app (src/app/flows.ts), the code entry specialised by its calls,
// and the new password's machine.
import { fromPromise } from 'xstate';
import { codeEntryMachineOf, type NewCode } from '../../machines/codeEntry.ts';
import { codeDelivery } from '../api/flowCalls.ts';

/** Asks the router for a path. */
export type Go = (to: string) => void;
/** Tells the root the address a form has typed (it carries to sign-in and back). */
export type KeepUsername = (value: string) => void;

/** The new password's machine, in its own chunk. */
export const newPassword = () => import('../../machines/newPassword.ts');

/** The shared code entry, specialised by the call that checks the code (`ticket` is what goes with
 * it) and, for a code that is sent again, the call that sends it (`request`: the flow's). Where the
 * entry follows its code's delivery, the challenge's payload is its ticket, unless `payloadOf`
 * reads it from the ticket. */
export const codeEntryChecking = <TResult, TRequest = unknown>(
  check: (input: { ticket: string; code: string; remember: boolean; captcha: string | null }) => Promise<TResult>,
  send?: (input: { request: TRequest; captcha: string | null }) => Promise<NewCode>,
  payloadOf: (ticket: string) => string = (ticket) => ticket,
) =>
  codeEntryMachineOf<TResult, TRequest>().provide({
    actors: {
      check: fromPromise(({ input }) => check(input)),
      ...(send ? { send: fromPromise(({ input }) => send(input)) } : {}),
      askDelivery: fromPromise(({ input }) => codeDelivery({ payload: payloadOf(input.ticket) })),
    },
  });
