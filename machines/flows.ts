// The root's flows beyond login, as the pure machines: what tests and the statechart walk bind
// with `rootMachine.provide({ actors: FLOW_MACHINES })`. The app binds each to its own chunk
// instead (src/app/actor.ts), so nothing the app loads first imports this module.
import { setupMfaMachine } from './setupMfa.ts';
import { forgotPasswordMachine } from './forgotPassword.ts';
import { forgotUsernameMachine } from './forgotUsername.ts';
import { mfaMachine } from './mfa.ts';
import { securityMachine } from './security.ts';
import { accessMachine } from './access.ts';
import { historyMachine } from './history.ts';
import { devicesMachine } from './devices.ts';
import { editPasswordMachine } from './editPassword.ts';
import { notificationsMachine } from './notifications.ts';
import { onboardingMachine } from './onboarding.ts';
import { totpRecoveryMachine } from './totpRecovery.ts';
import { authenticatorMachine } from './authenticator.ts';
import { newPasswordMachine } from './newPassword.ts';
import { consentMachine } from './consent.ts';
import { partnerMachine } from './partner.ts';
import { appLogoutMachine } from './appLogout.ts';
import { profileMachine } from './profile.ts';
import { fuzzionMachine } from './fuzzion.ts';

export const FLOW_MACHINES = {
  mfa: mfaMachine,
  totpRecovery: totpRecoveryMachine,
  setupMfa: setupMfaMachine,
  security: securityMachine,
  access: accessMachine,
  securityHistory: historyMachine,
  devices: devicesMachine,
  editPassword: editPasswordMachine,
  notifications: notificationsMachine,
  authenticator: authenticatorMachine,
  weakPassword: newPasswordMachine,
  forgotPassword: forgotPasswordMachine,
  forgotUsername: forgotUsernameMachine,
  onboarding: onboardingMachine,
  consent: consentMachine,
  partner: partnerMachine,
  appLogout: appLogoutMachine,
  profile: profileMachine,
  fuzzion: fuzzionMachine,
};
