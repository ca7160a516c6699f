// Every charted machine's model, by the key the charts and the testers' paths give it
// (scripts/statecharts.ts): the starts, events and states its model test walks.
import { accessModel } from './access.model.ts';
import { appLogoutModel } from './appLogout.model.ts';
import { captchaModel } from './captcha.model.ts';
import { cardsModel } from './cards.model.ts';
import { codeEntryModel } from './codeEntry.model.ts';
import { consentModel } from './consent.model.ts';
import type { Model } from './coverage.ts';
import { devicesModel } from './devices.model.ts';
import { editPasswordModel } from './editPassword.model.ts';
import { setupMfaModel } from './setupMfa.model.ts';
import { forgotPasswordModel } from './forgotPassword.model.ts';
import { forgotUsernameModel } from './forgotUsername.model.ts';
import { fuzzionModel } from './fuzzion.model.ts';
import { historyModel } from './history.model.ts';
import { loginModel } from './login.model.ts';
import { mfaModel } from './mfa.model.ts';
import { securityModel } from './security.model.ts';
import { microsoftMfaModel, microsoftStartModel } from './microsoft.model.ts';
import { newPasswordModel } from './newPassword.model.ts';
import { notificationsModel } from './notifications.model.ts';
import { onboardingModel } from './onboarding.model.ts';
import { partnerModel } from './partner.model.ts';
import { passkeyOfferModel } from './passkeyOffer.model.ts';
import { profileModel } from './profile.model.ts';
import { rootModel } from './root.model.ts';
import { ssoLinksModel } from './ssoLinks.model.ts';
import { totpRecoveryModel } from './totpRecovery.model.ts';
import { authenticatorModel } from './authenticator.model.ts';
import { undoChangeModel } from './undoChange.model.ts';

export const MODELS: Record<string, Model> = {
  root: rootModel,
  login: loginModel,
  mfa: mfaModel,
  totpRecovery: totpRecoveryModel,
  setupMfa: setupMfaModel,
  security: securityModel,
  access: accessModel,
  history: historyModel,
  devices: devicesModel,
  editPassword: editPasswordModel,
  notifications: notificationsModel,
  authenticator: authenticatorModel,
  newPassword: newPasswordModel,
  codeEntry: codeEntryModel,
  forgotPassword: forgotPasswordModel,
  forgotUsername: forgotUsernameModel,
  captcha: captchaModel,
  onboarding: onboardingModel,
  consent: consentModel,
  partner: partnerModel,
  appLogout: appLogoutModel,
  profile: profileModel,
  cards: cardsModel,
  passkeyOffer: passkeyOfferModel,
  undoChange: undoChangeModel,
  fuzzion: fuzzionModel,
  microsoftStart: microsoftStartModel,
  microsoftMfa: microsoftMfaModel,
  ssoLinks: ssoLinksModel,
};
