// The onboarding's progress, shared by the server (which refuses a call before its step) and the
// browser (which resumes a reload there); apart from contract/constants.ts, which the first screen loads.

/** How far an onboarding flow got, in the order its steps go (spec §2, §4 Onboarding): the server
 * keeps it in the flow's record, and a reload resumes from it. */
export const ONBOARDING_PROGRESS = [
  'started',
  'terms_accepted',
  'profile_saved',
  'email_code_sent',
  'email_verified',
  'phone_code_sent',
  'phone_verified',
  'completed',
] as const;
export type OnboardingProgress = (typeof ONBOARDING_PROGRESS)[number];

/** How far a flow must have got for each of its calls: the server refuses a call before, and a
 * reload shows the step that makes the call only from there. */
export const ONBOARDING_NEEDS = {
  terms: 'started',
  profile: 'terms_accepted',
  email: 'profile_saved',
  phone: 'email_verified',
  password: 'phone_verified',
} as const satisfies Record<string, OnboardingProgress>;

/** Whether a flow at `progress` got at least as far as `minimum`. */
export function progressReached(progress: string, minimum: OnboardingProgress): boolean {
  return ONBOARDING_PROGRESS.indexOf(progress as OnboardingProgress) >= ONBOARDING_PROGRESS.indexOf(minimum);
}
