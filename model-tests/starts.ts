// What the model tests start their machines with, shared with the testers' paths
// (scripts/testerPaths.ts), so that both walk from the same account.
import type { UserProfile } from '../contract/schemas.ts';

/** A signed-in account with a second factor, one email and one phone. */
export const signedInUser: UserProfile = {
  id: 'u1',
  firstname: 'Emma',
  lastname: 'Peeters',
  birthdate: '1990-04-12',
  gender: 'female',
  language: 'nl',
  email: [{ value: 'emma@example.be', default: true, verified: true }],
  phone: [{ value: '+32470123456', default: true, verified: true }],
  user_id: 'U1',
  customer_user_id: null,
  fridom_user_id: null,
  password_status: 0,
  last_password_change: null,
  mfa_forced: false,
  mfa_customer: false,
  mfa_offer_later: false,
  has_sso: false,
  sso_only: false,
  mfa_enrolled: true,
  totpRecovery: 0,
  picture: null,
  banking: null,
};
