// How a failed API call reaches the machines: the status, the stable code and the server's message.
// status 0 means the network failed (no answer).
import type { FailureCode, UnknownErrorCode } from './errors.ts';

export type ApiFailure = {
  readonly kind: 'api_failure';
  status: number;
  code: FailureCode;
  message: string;
  /** The whole answer body, for answers that carry more than an error (mfa, payload, retry_after). */
  body: Record<string, unknown>;
};

/** The code of an answer: any string the server sent is a code, known to this build or not (an
 * unknown one is kept as it came: contract/errors.ts UnknownErrorCode), so nothing here checks it
 * against the list, which spares the first screen that list. */
export function apiFailure(status: number, body: Record<string, unknown>): ApiFailure {
  const code: FailureCode =
    typeof body.code === 'string'
      ? (body.code as FailureCode)
      : status === 0
        ? 'network_error'
        : status >= 500
          ? 'internal_error'
          : (`http_${status}` as unknown as UnknownErrorCode);
  const message = typeof body.message === 'string' ? body.message : `HTTP error, status = ${status}`;
  return { kind: 'api_failure', status, code, message, body };
}

export function isApiFailure(value: unknown): value is ApiFailure {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'api_failure';
}
