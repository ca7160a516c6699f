// Stable error codes of the API. Every 4xx/5xx body is `{ code, message }`; the browser translates
// `errors.<code>` and falls back to the message the server sent.

export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  validation_failed: 400,
  device_id_required: 400,
  invalid_credentials: 400,
  weak_password: 403,
  mfa_required: 401,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_many_attempts: 429,
  invalid_code: 422,
  code_expired: 410,
  challenge_closed: 410,
  resend_too_soon: 429,
  step_up_required: 403,
  delivery_failed: 503,
  email_in_use: 409,
  phone_in_use: 409,
  invalid_email: 400,
  invalid_phone: 400,
  last_method: 409,
  mfa_enrolment_required: 403,
  weak_new_password: 422,
  invalid_card_number: 400,
  invalid_national_register_number: 400,
  password_reused: 422,
  internal_error: 500,
  maintenance: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** English messages, word for word from the spec where it gives them. */
export const ERROR_MESSAGES: Record<ErrorCode, string> = {
  invalid_request: 'The request is invalid.',
  invalid_json: 'The request body is not valid JSON.',
  validation_failed: 'Some fields are missing or invalid.',
  device_id_required: 'The device id header is missing or invalid.',
  invalid_credentials: 'Invalid username/password.',
  weak_password: 'Your password must be changed before you can sign in.',
  mfa_required: 'A second factor is required.',
  unauthorized: 'You need to sign in.',
  forbidden: 'You are not allowed to do this.',
  not_found: 'Not found.',
  body_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request must be sent as JSON.',
  too_many_attempts: 'Too many attempts. Please try again later.',
  invalid_code: 'Your code is invalid, try again.',
  code_expired: 'This code has expired. Ask for a new one.',
  challenge_closed: 'This code can no longer be used. Ask for a new one.',
  resend_too_soon: 'Please wait before asking for a new code.',
  step_up_required: 'Please confirm it is you with a second factor first.',
  delivery_failed: 'The code could not be sent. Please try again later.',
  email_in_use: 'This email is already in use. Please use another one.',
  phone_in_use: 'This phone number is already in use. Please use a different one.',
  invalid_email: 'The email provided is invalid',
  invalid_phone: 'The phone number provided is invalid',
  last_method: 'You cannot delete your last email or phone verification method.',
  mfa_enrolment_required: 'Set up two-step verification first.',
  weak_new_password: 'This password does not meet the rules.',
  invalid_card_number: 'Your card number is invalid.',
  invalid_national_register_number: 'The national register number is invalid.',
  password_reused: 'Choose a password you have not used recently.',
  internal_error: 'An error has occurred. Please try again later.',
  maintenance: 'Login is unavailable at the moment. Please try again later.',
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}
