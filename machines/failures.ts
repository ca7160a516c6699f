// How the machines read a failed call: the actor's error is an ApiFailure (contract/api.ts) or,
// for a failure before any answer, anything else.
import { isApiFailure } from '../contract/api.ts';

export type Problem = { code: string; message: string };

/** The error an actor failed with, for guards and actions that see the machine's whole event union. */
export function errorOf(event: object): unknown {
  return 'error' in event ? event.error : undefined;
}

export function problemOf(event: object): Problem {
  const error = errorOf(event);
  return isApiFailure(error) ? { code: error.code, message: error.message } : { code: 'internal_error', message: 'An error has occurred. Please try again later.' };
}

export function problemCodeOf(event: object): string {
  return problemOf(event).code;
}
