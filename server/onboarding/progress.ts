// How far an onboarding flow got, in the order the spec's steps go (§2, §4 Onboarding): the card or
// invitation, the terms, the person's details, the email (its code), the phone (its code), the
// password that creates the account. Each call needs the flow to have got at least so far
// (ONBOARDING_NEEDS); the server refuses any call out of that order, whatever the browser sends.
import { progressReached, type OnboardingProgress } from '../../contract/onboarding.ts';
import { ApiError } from '../http/errors.ts';

export type Progress = OnboardingProgress;

/** Refuses a call the flow is not ready for. */
export function requireProgress(state: string, minimum: Progress): void {
  if (!progressReached(state, minimum)) throw new ApiError('onboarding_out_of_order');
}

/** The further of the two: going back to an earlier screen does not undo what was done. */
export function furthest(state: string, reached: Progress): Progress {
  return progressReached(state, reached) ? (state as Progress) : reached;
}
