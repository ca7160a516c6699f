// The events a model test feeds a machine in place of its invoked actors, and a way to let the
// promises they start settle.
import { apiFailure } from '../contract/api.ts';

/** The invoked actor `id` finished with `output`. */
export const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output });
/** The invoked actor `id` failed as the API fails: this status and error code. */
export const fail = (id: string, status: number, code: string) => ({
  type: `xstate.error.actor.${id}`,
  error: apiFailure(status, { code }),
});
/** A call that always fails as the API fails: this status and body (`T`: what it would answer). */
export const refuses =
  <T = never>(status: number, body: Record<string, unknown> = {}) =>
  async (): Promise<T> => {
    throw apiFailure(status, body);
  };
/** Lets the promises started so far settle. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A call that fails the first time, as when the database is away, and then answers `value`. */
export function failingOnce<T>(value: T): () => Promise<T> {
  let attempts = 0;
  return async () => {
    attempts += 1;
    if (attempts === 1) throw apiFailure(503, { code: 'database_unavailable' });
    return value;
  };
}

/** A fixed instant far ahead, for the times a walk sends: none has passed, and none changes from one
 * run to the next. */
export const AHEAD = Date.UTC(2100, 0, 1);

/** Types `code` into a code entry and sends it, then lets the check settle. */
export async function enterCode(entry: { send(event: never): void }, code: string) {
  entry.send({ type: 'TYPE', value: code } as never);
  entry.send({ type: 'SUBMIT' } as never);
  await settle();
}
