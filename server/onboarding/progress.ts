// How far an onboarding flow got, in the order the spec's steps go (§2, §4 Onboarding): the card or
// invitation, the terms, the person's details, the email (its code), the phone (its code), the
// password that creates the account. Each call needs the flow to have got at least so far; the
// server refuses any call out of that order, whatever the browser sends.
import { ApiError } from '../http/errors.ts';

export const PROGRESS = [
  'started', 'terms_accepted', 'profile_saved', 'email_code_sent', 'email_verified', 'phone_code_sent', 'phone_verified', 'completed',
] as const;
export type Progress = (typeof PROGRESS)[number];

const rank = (state: string) => PROGRESS.indexOf(state as Progress);

/** Refuses a call the flow is not ready for. */
export function requireProgress(state: string, minimum: Progress): void {
  if (rank(state) < rank(minimum)) throw new ApiError('onboarding_out_of_order');
}

/** The further of the two: going back to an earlier screen does not undo what was done. */
export function furthest(state: string, reached: Progress): Progress {
  return rank(state) >= rank(reached) ? (state as Progress) : reached;
}
