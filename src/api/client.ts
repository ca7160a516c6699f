// The one HTTP client of the app: fetch with JSON, the device id header on every call and a time
// limit; answers parsed with the contract's valibot schemas, and failures turned into ApiFailure
// (status, stable code, message) for the machines. A few lines of our own instead of a client
// library: the first screen carries every byte of it.
import * as v from 'valibot';
import { apiFailure, type ApiFailure } from '../../contract/api.ts';
import { API_PREFIX, DEVICE_ID_HEADER, REQUEST_TIMEOUT_MS } from '../../contract/constants.ts';
import { ErrorBody } from '../../contract/baseSchemas.ts';
import { deviceId } from './device.ts';

/** `file`: raw bytes sent with their own type (a picture), instead of JSON. `headers`: a call's own
 * (a solved CAPTCHA, X-Captcha). */
type Options = { json?: unknown; file?: Blob; searchParams?: Record<string, string>; headers?: Record<string, string> };
/** An answer on its way, whose JSON body can be asked for directly, as `api.get(…).json()`. */
type Answer = Promise<Response> & { json: () => Promise<unknown> };

/** A non-2xx answer: its status and its body, JSON when it is JSON. */
class HttpError extends Error {
  readonly status: number;
  readonly data: unknown;
  constructor(status: number, data: unknown) {
    super(`HTTP ${status}`);
    this.status = status;
    this.data = data;
  }
}

function send(method: string, path: string, options: Options = {}): Answer {
  const query = options.searchParams ? `?${new URLSearchParams(options.searchParams)}` : '';
  // The language of the screen (i18n.ts sets it on <html>): a code sent during a sign-in speaks it.
  const headers: Record<string, string> = {
    ...options.headers, accept: 'application/json', 'accept-language': document.documentElement.lang || 'en', [DEVICE_ID_HEADER]: deviceId(),
  };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (options.file) headers['content-type'] = options.file.type;
  const body = options.file ?? (options.json !== undefined ? JSON.stringify(options.json) : undefined);
  const answer = fetch(`${API_PREFIX}/${path}${query}`, {
    method, headers, credentials: 'same-origin', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(body !== undefined ? { body } : {}),
  }).then(async (response) => {
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    let data: unknown = {};
    try {
      data = JSON.parse(text);
    } catch {
      // not JSON: keep the status only
    }
    throw new HttpError(response.status, data);
  });
  return Object.assign(answer, { json: () => answer.then((response) => (response.status === 204 ? undefined : response.json())) });
}

/** The one HTTP client of the app: fetch, JSON, the device id header on every call, a time limit. */
export const api = {
  get: (path: string, options?: Options) => send('GET', path, options),
  post: (path: string, options?: Options) => send('POST', path, options),
  delete: (path: string, options?: Options) => send('DELETE', path, options),
  put: (path: string, options?: Options) => send('PUT', path, options),
};

let unauthorised = () => {};

/**
 * Who hears every 401: the server no longer knows the session, whichever call found out. The app
 * tells the root machine, which acts only while signed in (a sign-in's own 401s mean something else).
 */
export const onUnauthorised = (listener: () => void) => { unauthorised = listener; };

function toFailure(error: unknown): ApiFailure {
  if (error instanceof HttpError) {
    if (error.status === 401) unauthorised();
    // An error answer is `{ code, message, … }` (contract/errors.ts); the whole body is kept for the
    // answers that carry more (mfa, payload, retry_after). Anything else keeps the status only.
    const body = v.is(ErrorBody, error.data) ? (error.data as Record<string, unknown>) : {};
    return apiFailure(error.status, body);
  }
  // No answer: the network, or the time limit.
  return apiFailure(0, {});
}

/** Runs a call; rejects with an ApiFailure the machines understand. */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toFailure(error);
  }
}

/** An answer that does not match its schema: the server broke the contract, shown as a server error. */
const BAD_ANSWER = { code: 'internal_error', message: 'An error has occurred. Please try again later.' };

/** Runs a call and parses its JSON answer with the contract's schema. */
export async function parsed<S extends v.GenericSchema>(schema: S, request: () => Promise<unknown>): Promise<v.InferOutput<S>> {
  const result = v.safeParse(schema, await call(request));
  if (!result.success) throw apiFailure(502, BAD_ANSWER);
  return result.output;
}
