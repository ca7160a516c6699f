// The API calls of the flows beyond login, bound to their machines' actors in each feature's
// bindings.ts (src/mfa/bindings.ts, src/security/bindings.ts…) and loaded with the first of them.
// Every JSON answer is parsed with its schema from contract/schemas.ts.
import { apiFailure } from '../../contract/api.ts';
import { LOCALES, NEW_METHOD_IDS, type Locale } from '../../contract/constants.ts';
import {
  OnboardingCodeSent,
  OnboardingDone,
  OnboardingStarted,
  OnboardingState,
  OnboardingVerified,
  type MarketingPreferences,
  ForgotPasswordAnswer,
  ForgotPasswordVerifyAnswer,
  ForgotUsernameAnswer,
  MfaActivateAnswer,
  MfaActivateResult,
  CodeDelivery,
  MfaChallengeAnswer,
  MfaMethodList,
  MfaStatus,
  MfaVerifyAnswer,
  RecoveryKeysAnswer,
  ApprovalAnswer,
  AuthorizeAnswer,
  AccessGrantList,
  PartnerAnswer,
  LogoutRequestAnswer,
  AccessRequestAnswer,
  PartnerAccessAnswer,
  UserAnswer,
  HistoryPage,
  HistorySummary,
  DeviceList,
  ChangePasswordAnswer,
  NotificationsAnswer,
  type PasskeyCredential,
} from '../../contract/schemas.ts';
import {
  AccountCardAnswer,
  AccountCardList,
  AddContactAnswer,
  UndoChangeAnswer,
  type CardProduct,
  type IbanRequest,
  type ProfileInfoRequest,
} from '../../contract/profile.ts';
import { FuzzionAnswer, FuzzionOffer, FuzzionSendAnswer, type FuzzionIntent } from '../../contract/fuzzion.ts';
import { LinkAccountAnswer, SsoIdentityList, SsoMfaAnswer, SsoTicketAnswer } from '../../contract/sso.ts';
import { captchaHeader, withCaptcha } from './calls.ts';

/** What a code's check may carry: the solved CAPTCHA the server asked for past the account's ceiling. */
type WithCaptcha = { captcha?: string | null };
import { api, call, parsed } from './client.ts';

export const startChallenge = (input: { mfaId: number; loginPayload: string | null; channel: string | null }) => {
  const searchParams: Record<string, string> = { mfaId: String(input.mfaId) };
  if (input.loginPayload) searchParams.payload = input.loginPayload;
  if (input.channel) searchParams.channel = input.channel;
  return parsed(MfaChallengeAnswer, () => api.get('mfa/sudo', { searchParams }).json());
};

/** How a sent code is getting there (its challenge's payload names it): the way it went, and the one
 * it left. A forgotten password's code is unknown here (404). */
export const codeDelivery = (input: { payload: string }) =>
  parsed(CodeDelivery, () => api.get(`codes/${encodeURIComponent(input.payload)}/delivery`).json());

export const verifyCode = (input: { payload: string; code: string; trust: boolean } & WithCaptcha) =>
  parsed(MfaVerifyAnswer, () =>
    api
      .post('mfa/sudo', {
        json: { payload: input.payload, code: input.code, isTrustedDevice: input.trust },
        ...captchaHeader(input.captcha),
      })
      .json(),
  );

/** POST /mfa/sudo with a passkey's signed answer instead of a code. */
export const verifyPasskey = (input: { payload: string; credential: PasskeyCredential; trust: boolean }) =>
  parsed(MfaVerifyAnswer, () =>
    api
      .post('mfa/sudo', {
        json: { payload: input.payload, credential: input.credential, isTrustedDevice: input.trust },
      })
      .json(),
  );

/** POST /mfa/enrolment/later: a customer's "not now" to the offered second factor, for 30 days. */
export const offerLater = async () => {
  await call(() => api.post('mfa/enrolment/later'));
};

/** POST /mfa/sudo/password: the step-up of an account without a second factor (with the CAPTCHA,
 * once the server asks one past the account's ceiling of wrong passwords). */
export const stepUpWithPassword = async ({ captcha, ...input }: { password: string } & WithCaptcha) => {
  await call(() => api.post('mfa/sudo/password', { json: input, ...captchaHeader(captcha) }));
};

export const regenerateRecoveryKeys = () =>
  parsed(RecoveryKeysAnswer, () => api.post('mfa/regenerate-recovery').json());

/** GET /mfa/{-1|-2|-4|-5}/activate: null when there is nothing to do (204). */
export const startActivation = async (input: { kind: 'sms' | 'call' | 'whatsapp' | 'email'; target: string }) => {
  const response = await call(() =>
    api.get(`mfa/${NEW_METHOD_IDS[input.kind]}/activate`, { searchParams: { target: input.target } }),
  );
  return response.status === 204 ? null : parsed(MfaActivateAnswer, () => response.json());
};

export const confirmActivation = ({ captcha, ...input }: { payload: string; code: string } & WithCaptcha) =>
  parsed(MfaActivateResult, () => api.post('mfa/activate', { json: input, ...captchaHeader(captcha) }).json());

/** GET /mfa/-6/activate: the payload, and the options the browser makes the new passkey with. */
export const startPasskey = async () => {
  const started = await parsed(MfaActivateAnswer, () => api.get(`mfa/${NEW_METHOD_IDS.passkey}/activate`).json());
  // A passkey is never "one already": its answer always carries what to ask.
  if (!started.data.passkey) throw apiFailure(500, { code: 'internal_error', message: '' });
  return { payload: started.payload, options: started.data.passkey };
};

/** POST /mfa/activate with the new passkey; then who keeps it, as the account's list names it. */
export const confirmPasskey = async (input: { payload: string; credential: PasskeyCredential }) => {
  const added = await parsed(MfaActivateResult, () => api.post('mfa/activate', { json: input }).json());
  // Its provider only names it in a form: a list that cannot be read leaves the form empty.
  const listed = await listMethods().catch(() => []);
  return { id: added.id, provider: listed.find((m) => m.id === added.id)?.provider ?? null };
};

/** PATCH /mfa/{id}: a passkey's new name. */
export const renamePasskey = async (input: { id: number; name: string }) => {
  await call(() => api.patch(`mfa/${input.id}`, { json: { name: input.name } }));
};

/** GET /mfa/status's offer of a passkey (the account has none, and did not say "not now"). */
export const passkeyOffered = async () => (await parsed(MfaStatus, () => api.get('mfa/status').json())).passkey_offer;

/** POST /passkey/offer/later: "not now" to the passkey offered, remembered for the account. */
export const declinePasskeyOffer = () => call(() => api.post('passkey/offer/later'));

export const mfaStatus = async () => {
  const [status, methods] = await Promise.all([
    parsed(MfaStatus, () => api.get('mfa/status').json()),
    parsed(MfaMethodList, () => api.get('mfa', { searchParams: { includeAll: 'true' } }).json()),
  ]);
  return { sudo: status.sudo, methods: methods.data };
};
export const listMethods = async () =>
  (await parsed(MfaMethodList, () => api.get('mfa', { searchParams: { includeAll: 'true' } }).json())).data;
export const switchPrimary = async (input: { id: number }) => {
  await call(() => api.post(`mfa/switch-primary/${input.id}`));
};
export const deleteMethod = async (input: { id: number }) => {
  await call(() => api.delete(`mfa/${input.id}`));
};

/** GET /mfa/-3/activate: the new authenticator's key and QR code; null when one is set already. */
export const listAccessGrants = async () => (await parsed(AccessGrantList, () => api.get('tokens').json())).data;
export const revokeAccessGrant = async (input: { clientId: string }) => {
  await call(() => api.delete(`token/${encodeURIComponent(input.clientId)}`));
};

/** The history's filters as GET /api/history and /api/history/summary take them (no categories: all). */
type HistoryFilters = { from: string; to: string; categories: readonly string[] | null };
const historyParams = (filters: HistoryFilters, cursor?: string) => ({
  from: filters.from,
  to: filters.to,
  ...(filters.categories ? { categories: filters.categories.join(',') } : {}),
  ...(cursor ? { cursor } : {}),
});
export const loadHistoryPage = (input: HistoryFilters & { cursor: string }) =>
  parsed(HistoryPage, () => api.get('history', { searchParams: historyParams(input, input.cursor) }).json());
export const loadHistory = async (filters: HistoryFilters) => {
  const [page, summary] = await Promise.all([
    parsed(HistoryPage, () => api.get('history', { searchParams: historyParams(filters) }).json()),
    parsed(HistorySummary, () =>
      api.get('history/summary', { searchParams: { from: filters.from, to: filters.to } }).json(),
    ),
  ]);
  return { page, summary };
};

export const listDevices = async () => (await parsed(DeviceList, () => api.get('devices').json())).data;
/** A device signed out, every other one, every session (this one too), or a device's trust ended. */
export const runDeviceAction = async (
  input:
    | { action: 'logout'; id: string }
    | { action: 'others' }
    | { action: 'everywhere' }
    | { action: 'untrust'; id: string },
) => {
  const path =
    input.action === 'logout'
      ? `devices/${encodeURIComponent(input.id)}/sessions`
      : input.action === 'untrust'
        ? `devices/${encodeURIComponent(input.id)}/trust`
        : input.action === 'others'
          ? 'sessions/others'
          : 'sessions';
  await call(() => api.delete(path));
};

/** GET /mfa/{new totp}/activate; `reset` replaces an authenticator the account still has (`edit`). */
export const startTotp = async ({ reset }: { reset: boolean }) => {
  const response = await call(() =>
    api.get(`mfa/${NEW_METHOD_IDS.totp}/activate`, reset ? { searchParams: { edit: 'true' } } : {}),
  );
  return response.status === 204 ? null : parsed(MfaActivateAnswer, () => response.json());
};
export const confirmTotp = ({ captcha, ...input }: { payload: string; code: string } & WithCaptcha) =>
  parsed(MfaActivateResult, () => api.post('mfa/activate', { json: input, ...captchaHeader(captcha) }).json());

/** Deletes the authenticator (and its recovery keys): the TOTP recovery screen's reset. */
export const resetAuthenticator = async () => {
  const methods = await listMethods();
  const totp = methods.find((m) => m.method === 'totp');
  if (totp) await deleteMethod({ id: totp.id });
};

/** POST /user/reset-password: the fields the route takes, and only those (the new-password machine's
 * input also has a place for a CAPTCHA, which only a change needs). */
export const resetPassword = async (input: { payload: string; password: string; confirmation: string }) => {
  await call(() =>
    api.post('user/reset-password', {
      json: { payload: input.payload, password: input.password, confirmation: input.confirmation },
    }),
  );
};

/** GET and PUT /notifications: the marketing preferences and the security alerts. */
export const loadNotifications = () => parsed(NotificationsAnswer, () => api.get('notifications').json());
export const saveNotifications = (input: { marketing: MarketingPreferences }) =>
  parsed(NotificationsAnswer, () => api.put('notifications', { json: input }).json());

/** POST /user/password: the signed-in person's new password, with the current one (and the CAPTCHA,
 * once the server asks one past the account's ceiling of wrong passwords). */
export const changePassword = ({
  captcha,
  ...input
}: { current: string; keepThisSession: boolean; password: string; confirmation: string } & WithCaptcha) =>
  parsed(ChangePasswordAnswer, () => api.post('user/password', { json: input, ...captchaHeader(captcha) }).json());

export const requestPasswordCode = (input: {
  username: string;
  channel: 'sms' | 'call' | 'whatsapp' | null;
  captcha: string | null;
}) =>
  parsed(ForgotPasswordAnswer, () =>
    api
      .post('user/forgot-password', {
        json: {
          username: input.username,
          ...(input.channel ? { channel: input.channel } : {}),
          ...withCaptcha(input.captcha),
        },
      })
      .json(),
  );
export const verifyPasswordCode = ({ captcha, ...input }: { payload: string; code: string } & WithCaptcha) =>
  parsed(ForgotPasswordVerifyAnswer, () =>
    api.post('user/forgot-password/verify', { json: input, ...captchaHeader(captcha) }).json(),
  );

export const findUsernames = async (input: {
  kind: 'card' | 'nationalRegister';
  value: string;
  captcha: string | null;
}) =>
  (
    await parsed(ForgotUsernameAnswer, () =>
      api
        .post('user/forgot-username', {
          json: {
            ...(input.kind === 'card' ? { cardNumber: input.value } : { nationalRegisterNumber: input.value }),
            ...withCaptcha(input.captcha),
          },
        })
        .json(),
    )
  ).usernames;

// ---- Onboarding: every call after the start carries the flow's token -----------------------------

/** The language the person reads, when it is one of ours: the flow's messages speak it. */
const withLanguage = (language: string | undefined) =>
  (LOCALES as readonly string[]).includes(language ?? '') ? { language: language as Locale } : {};

export const startWithCard = (input: {
  cardNumber: string;
  activationCode: string;
  captcha: string | null;
  language?: string;
}) =>
  parsed(OnboardingStarted, () =>
    api
      .post('onboarding/card', {
        json: {
          cardNumber: input.cardNumber,
          activationCode: input.activationCode,
          ...withLanguage(input.language),
          ...withCaptcha(input.captcha),
        },
      })
      .json(),
  );

export const startWithInvitation = (input: { code: string; captcha: string | null; language?: string }) =>
  parsed(OnboardingStarted, () =>
    api
      .post('onboarding/invitation', {
        json: { code: input.code, ...withLanguage(input.language), ...withCaptcha(input.captcha) },
      })
      .json(),
  );

export const acceptTerms = async (input: {
  flow: string;
  terms: boolean;
  privacy: boolean;
  marketing: MarketingPreferences;
}) => {
  await call(() => api.post('onboarding/terms', { json: input }));
};

export const saveProfile = async (input: { flow: string; firstname: string; lastname: string }) => {
  await call(() => api.post('onboarding/profile', { json: input }));
};

export const sendEmailCode = (input: { flow: string; email: string }) =>
  parsed(OnboardingCodeSent, () => api.post('onboarding/email', { json: input }).json());

export const sendPhoneCode = (input: { flow: string; phone: string; channel: 'sms' | 'call' | 'whatsapp' }) =>
  parsed(OnboardingCodeSent, () => api.post('onboarding/phone', { json: input }).json());

export const verifyOnboardingCode = (input: { flow: string; code: string }) =>
  parsed(OnboardingVerified, () => api.post('onboarding/verify', { json: input }).json());

/** What the flow holds, for a reload (POST keeps the token out of URLs and logs). */
export const onboardingState = (input: { flow: string }) =>
  parsed(OnboardingState, () => api.post('onboarding/state', { json: input }).json());

/** The password step: the new-password machine's call, whose payload is the flow's token. */
/** The password creates the account, which speaks `language` (the one the person reads). */
export const createAccount = (input: { payload: string; password: string; confirmation: string; language: Locale }) =>
  parsed(OnboardingDone, () =>
    api
      .post('onboarding/password', {
        json: {
          flow: input.payload,
          password: input.password,
          confirmation: input.confirmation,
          language: input.language,
        },
      })
      .json(),
  );

/** GET /authorize: the partner request waiting for this person (the spec's authorize response). */
export const readAuthorization = (input: { uid: string }) =>
  parsed(AuthorizeAnswer, () => api.get('authorize', { searchParams: input }).json());
/** Send-approval: the person's answer; where the browser goes on. */
export const sendApproval = (input: { uid: string; approve: boolean }) =>
  parsed(ApprovalAnswer, () => api.post('authorize', { json: input }).json());

/** GET /logout-requests/{ref}: an application's sign-out waiting for the person's answer. */
export const readLogoutRequest = (input: { ref: string }) =>
  parsed(LogoutRequestAnswer, () => api.get(`logout-requests/${encodeURIComponent(input.ref)}`).json());

/** GET /partners/{client_id}: a partner application as its landing page shows it. */
export const readPartner = (input: { clientId: string }) =>
  parsed(PartnerAnswer, () => api.get(`partners/${encodeURIComponent(input.clientId)}`).json());
/** GET /partners/{client_id}/access-requests: where the signed-in person stands before asking. */
export const readPartnerAccess = (input: { clientId: string }) =>
  parsed(PartnerAccessAnswer, () => api.get(`partners/${encodeURIComponent(input.clientId)}/access-requests`).json());
/** POST /partners/{client_id}/access-requests: asks the partner's administrator for access. */
export const requestPartnerAccess = (input: { clientId: string }) =>
  parsed(AccessRequestAnswer, () => api.post(`partners/${encodeURIComponent(input.clientId)}/access-requests`).json());

// ---- The profile -----------------------------------------------------------------------------------

/** PUT /user: the personal information; the answer is the profile as it now is. */
export const saveProfileInfo = async (input: ProfileInfoRequest) =>
  (await parsed(UserAnswer, () => api.put('user', { json: input }).json())).data;
/** PUT /user/iban: the bank account (sensitive); the answer is the profile, its IBAN masked. */
export const saveIban = async (input: IbanRequest) =>
  (await parsed(UserAnswer, () => api.put('user/iban', { json: input }).json())).data;

type Contact = { kind: 'email' | 'phone'; value: string };
const contactBody = (contact: Contact) =>
  contact.kind === 'email' ? { email: contact.value } : { phone: contact.value };

/** POST /user/login: a code to a new email or phone number (a number's by SMS, call or WhatsApp). */
export const startContact = (input: Contact & { channel: 'sms' | 'call' | 'whatsapp' }) =>
  parsed(AddContactAnswer, () =>
    api
      .post('user/login', {
        json: { ...contactBody(input), ...(input.kind === 'phone' ? { channel: input.channel } : {}) },
      })
      .json(),
  );
/** POST /user/login/confirm: the code; the answer is the profile with the new contact. */
export const confirmContact = async ({ captcha, ...input }: { payload: string; code: string } & WithCaptcha) =>
  (await parsed(UserAnswer, () => api.post('user/login/confirm', { json: input, ...captchaHeader(captcha) }).json()))
    .data;
export const deleteContact = async (input: Contact) =>
  (await parsed(UserAnswer, () => api.delete('user/login', { json: contactBody(input) }).json())).data;
export const makeContactPrimary = async (input: Contact) =>
  (await parsed(UserAnswer, () => api.post('user/login/primary', { json: contactBody(input) }).json())).data;

// ---- The account's cards ---------------------------------------------------------------------------

export const listCards = async () => (await parsed(AccountCardList, () => api.get('cards').json())).data;
export const setCardProduct = async (input: { cardId: string; product: CardProduct; active: boolean }) =>
  (
    await parsed(AccountCardAnswer, () =>
      api
        .put(`cards/${encodeURIComponent(input.cardId)}/products/${input.product}`, { json: { active: input.active } })
        .json(),
    )
  ).data;

/** GET /user/export: the account's data, as the file the server names. */
export const exportAccountData = async () => {
  const response = await call(() => api.get('user/export'));
  const name =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'tessera-account.json';
  return { name, text: await response.text() };
};

/** PUT /user/picture: the picture's bytes as the browser shrank them; the answer is the profile. */
export const uploadPicture = async (picture: Blob) =>
  (await parsed(UserAnswer, () => api.put('user/picture', { file: picture }).json())).data;
export const removePicture = async () => (await parsed(UserAnswer, () => api.delete('user/picture').json())).data;

/** POST /account/undo: "this wasn't me", with the token of the change notice's link. */
export const undoChange = (input: { token: string }) =>
  parsed(UndoChangeAnswer, () => api.post('account/undo', { json: input }).json());

/** POST /devices/not-me: "this wasn't me", with the ticket of a new-device mail's link (204). */
export const notMe = async (input: { ticket: string }) => {
  await call(() => api.post('devices/not-me', { json: input }));
};

// The merge of a duplicated account (contract/fuzzion.ts): its offer comes with the 409 answer to a
// code (POST /user/login/confirm, POST /mfa/activate), never before.
/** POST /fuzzion/offer: what the offer is about, what is proven and what still counts. */
export const readFuzzionOffer = (input: { payload: string }) =>
  parsed(FuzzionOffer, () => api.post('fuzzion/offer', { json: input }).json());
/** POST /mfa/fuzzion: starts one of the other account's second factors (a code to its own destination). */
export const startFuzzionMethod = (input: { payload: string; mfaId: number; channel?: 'sms' | 'call' | 'whatsapp' }) =>
  parsed(FuzzionSendAnswer, () => api.post('mfa/fuzzion', { json: input }).json());
/** POST /fuzzion: the answer to that method's challenge, typed or a passkey's signed one (with the
 * CAPTCHA, once the server asks one). */
export const proveFuzzionCode = ({
  captcha,
  ...input
}: { payload: string; intent: FuzzionIntent; challenge: string } & (
  { code: string } | { credential: PasskeyCredential }
) &
  WithCaptcha) => parsed(FuzzionAnswer, () => api.post('fuzzion', { json: input, ...captchaHeader(captcha) }).json());
/** POST /fuzzion/password: the other account's password, where it still counts (with the CAPTCHA,
 * once the server asks one past that account's ceiling of wrong passwords). */
export const proveFuzzionPassword = ({
  captcha,
  ...input
}: { payload: string; intent: FuzzionIntent; password: string } & WithCaptcha) =>
  parsed(FuzzionAnswer, () => api.post('fuzzion/password', { json: input, ...captchaHeader(captcha) }).json());
/** POST /fuzzion/finish: nothing more to prove (the offer said `enough`). */
export const finishFuzzion = (input: { payload: string; intent: FuzzionIntent }) =>
  parsed(FuzzionAnswer, () => api.post('fuzzion/finish', { json: input }).json());
/** POST /fuzzion/cancel: "use another address", the session's open offer is spent. */
export const cancelFuzzion = async () => {
  await call(() => api.post('fuzzion/cancel'));
};

/** Microsoft sign-in (contract/sso.ts): what a link ticket names, the second factors of a sign-in
 * waiting for one, linking the ticket's identity, and the linked identities. */
export const readSsoTicket = (input: { ticket: string }) =>
  parsed(SsoTicketAnswer, () => api.post('sso/microsoft/ticket', { json: input }).json());
export const exchangeSsoMfa = (input: { payload: string }) =>
  parsed(SsoMfaAnswer, () => api.post('sso/microsoft/mfa', { json: input }).json());
export const linkAccount = (input: { ticket: string }) =>
  parsed(LinkAccountAnswer, () => api.post('user/link-account', { json: input }).json());
export const listSsoIdentities = () => parsed(SsoIdentityList, () => api.get('user/sso').json());
export const unlinkSsoIdentity = async (input: { id: string }) => {
  await call(() => api.delete(`user/sso/${encodeURIComponent(input.id)}`));
};
