// Stable error codes of the API. Every 4xx/5xx body is `{ code, message }`; the browser translates
// `errors.<code>` and falls back to the message the server sent.

/** Every code the server answers with: its HTTP status and its English message (word for word from
 * the spec where it gives them). The one table: the status and the message are read from it. */
export const ERRORS = {
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  validation_failed: { status: 400, message: 'Some fields are missing or invalid.' },
  device_id_required: { status: 400, message: 'The device id header is missing or invalid.' },
  invalid_credentials: { status: 400, message: 'Invalid username/password.' },
  weak_password: { status: 403, message: 'Your password must be changed before you can sign in.' },
  mfa_required: { status: 401, message: 'A second factor is required.' },
  unauthorized: { status: 401, message: 'You need to sign in.' },
  forbidden: { status: 403, message: 'You are not allowed to do this.' },
  not_found: { status: 404, message: 'Not found.' },
  body_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request must be sent as JSON.' },
  too_many_attempts: { status: 429, message: 'Too many attempts. Please try again later.' },
  invalid_code: { status: 422, message: 'Your code is invalid, try again.' },
  code_replaced: { status: 422, message: 'This code was replaced by a newer one. Type the last code we sent.' },
  passkey_refused: { status: 422, message: 'The passkey could not be used. Try again, or choose another way.' },
  passkey_unknown: {
    status: 422,
    message: 'This passkey is not known here any more. Sign in with your password, then add a new one.',
  },
  code_expired: { status: 410, message: 'This code has expired. Ask for a new one.' },
  challenge_closed: { status: 410, message: 'This code can no longer be used. Ask for a new one.' },
  resend_too_soon: { status: 429, message: 'Please wait before asking for a new code.' },
  step_up_required: { status: 403, message: 'Please confirm it is you with a second factor first.' },
  second_factor_required: {
    status: 409,
    message: 'This account confirms it is you with its second factor, not its password.',
  },
  delivery_failed: { status: 503, message: 'The code could not be sent. Please try again later.' },
  email_in_use: { status: 409, message: 'This email is already in use. Please use another one.' },
  phone_in_use: { status: 409, message: 'This phone number is already in use. Please use a different one.' },
  invalid_email: { status: 400, message: 'The email provided is invalid' },
  invalid_phone: { status: 400, message: 'The phone number provided is invalid' },
  idempotency_key_reused: {
    status: 422,
    message: 'This request key was already used for another request. Try again.',
  },
  last_method: { status: 409, message: 'You cannot delete your last email or phone verification method.' },
  mfa_enrolment_required: { status: 403, message: 'Set up two-step verification first.' },
  weak_new_password: { status: 422, message: 'This password does not meet the rules.' },
  common_password: {
    status: 422,
    message:
      'This password is too common: it is among the first that attackers try. Choose one that is harder to guess.',
  },
  invalid_card_number: { status: 400, message: 'Your card number is invalid.' },
  invalid_national_register_number: { status: 400, message: 'The national register number is invalid.' },
  password_reused: { status: 422, message: 'Choose a password you have not used recently.' },
  wrong_current_password: { status: 422, message: 'Your current password is not right.' },
  captcha_required: { status: 400, message: 'Please confirm that you are not a robot.' },
  captcha_invalid: { status: 400, message: 'The robot check failed or expired. Please try again.' },
  invalid_activation_code: { status: 400, message: 'Your activation code is invalid.' },
  invalid_invitation_code: { status: 400, message: 'The code is invalid.' },
  card_blocked: { status: 409, message: 'This card is blocked. Please contact your employer or our support.' },
  card_already_active: { status: 409, message: 'This card is already activated.' },
  onboarding_expired: { status: 410, message: 'Your activation has expired. Please start again.' },
  onboarding_out_of_order: { status: 409, message: 'Please complete the previous steps first.' },
  terms_required: { status: 400, message: 'Please accept the terms and the privacy policy to use your card.' },
  email_unavailable: { status: 409, message: 'This email is invalid or already used' },
  phone_unavailable: { status: 409, message: 'This phone number is invalid or already used' },
  authorization_expired: {
    status: 410,
    message: 'This request is no longer valid. Go back to the application and sign in again.',
  },
  access_request_unavailable: {
    status: 409,
    message: 'Access request could not be sent. This application has no administrator to ask.',
  },
  invalid_login_ticket: { status: 400, message: 'This sign-in link has expired or was already used. Please sign in.' },
  iban_invalid: { status: 422, message: 'The provided IBAN is invalid.' },
  // The body names both (`country`: the IBAN's, `chosen`), for the screen to say them.
  iban_country_mismatch: { status: 422, message: 'This IBAN is from another country than the one chosen.' },
  last_contact: {
    status: 409,
    message: 'At least one email address and one phone number must remain on your account.',
  },
  invalid_picture: { status: 415, message: 'The picture must be a JPEG, PNG or WebP image.' },
  undo_unavailable: { status: 410, message: 'This link has expired or was already used.' },
  merge_unavailable: {
    status: 409,
    message: 'A technical error occurred during the merging of the accounts. Please try again later.',
  },
  decline_unavailable: {
    status: 409,
    message:
      'The other account must keep at least one email address and one phone number. Please use another email or phone.',
  },
  merge_sso_only: {
    status: 409,
    message:
      'The other account signs in with Microsoft only. Sign in to it with Microsoft and add this email or phone from there.',
  },
  merge_proof_required: {
    status: 403,
    message: 'Please confirm the other account with one of its two-step verification methods first.',
  },
  primary_contact: { status: 409, message: 'Make another one primary before you delete this one.' },
  primary_needs_mfa: { status: 409, message: 'An error occurred during the switch.' },
  invalid_date_range: {
    status: 400,
    message: 'The dates are invalid: give days as YYYY-MM-DD, the first on or before the last, at most a year apart.',
  },
  sso_required: {
    status: 403,
    message: 'This account signs in with Microsoft only. Please use "Sign in with Microsoft".',
  },
  sso_unavailable: { status: 404, message: 'Signing in with Microsoft is not available.' },
  sso_ticket_invalid: {
    status: 410,
    message: 'This Microsoft sign-in has expired or was already used. Please sign in with Microsoft again.',
  },
  sso_identity_taken: { status: 409, message: 'This Microsoft account is already linked to an account.' },
  sso_last_identity: {
    status: 409,
    message: 'This account signs in with Microsoft only: it must keep at least one Microsoft account.',
  },
  sso_failed: { status: 400, message: 'The sign-in with Microsoft did not succeed. Please try again.' },
  sso_tenant_not_allowed: {
    status: 403,
    message: 'Your organisation cannot sign in with Microsoft here. Please sign in with your email and password.',
  },
  internal_error: { status: 500, message: 'An error has occurred. Please try again later.' },
  maintenance: { status: 503, message: 'Login is unavailable at the moment. Please try again later.' },
  database_unavailable: { status: 503, message: 'The service is briefly unavailable. Please try again in a moment.' },
  /** A host that is no configured public origin's (production): the request went to the wrong server. */
  misdirected_request: { status: 421, message: 'This service is not available at this address.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The HTTP status a code is answered with. */
export function statusOf<C extends ErrorCode>(code: C): (typeof ERRORS)[C]['status'] {
  return ERRORS[code].status;
}

/** The English message a code is answered with. */
export function messageOf<C extends ErrorCode>(code: C): (typeof ERRORS)[C]['message'] {
  return ERRORS[code].message;
}

/** The browser's own code for a call that got no answer (the network, the time limit): never the server's. */
export type NoAnswerCode = 'network_error';

declare const unknownErrorCode: unique symbol;
/** A code this build does not know (a newer server's, or `http_<status>` for an answer without a
 * code): kept as it came, so a screen falls back to the general error's text for it. A string at run
 * time, typed opaque so that no literal is one: a code compared with a misspelt literal fails `tsc`. */
export type UnknownErrorCode = { readonly [unknownErrorCode]: true };

/** The code of a failed call, as the browser reads it: one of the API's, no answer, or one it does not know. */
export type FailureCode = ErrorCode | NoAnswerCode | UnknownErrorCode;
