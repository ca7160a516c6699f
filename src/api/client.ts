// The one HTTP client of the app: ky (the design card's client) under /api, with the device id and
// the screen's language on every call and the spec's time limit; answers parsed with the contract's
// valibot schemas, and failures turned into ApiFailure (status, stable code, message) for the
// machines, in one beforeError hook.
import ky, {
  isHTTPError,
  type AfterResponseHook,
  type BeforeErrorHook,
  type BeforeRequestHook,
  type Options as KyOptions,
} from 'ky';
import * as v from 'valibot';
import { apiFailure, type ApiFailure } from '../../contract/api.ts';
import type { ErrorCode } from '../../contract/errors.ts';
import { API_PREFIX, DEVICE_ID_HEADER, IDEMPOTENCY_HEADER, REQUEST_TIMEOUT_MS } from '../../contract/constants.ts';
import { ErrorBody } from '../../contract/baseSchemas.ts';
import { deviceId } from './device.ts';

/** A call's own options. `file`: raw bytes sent with their own type (a picture), instead of JSON.
 * `headers`: a call's own (a solved CAPTCHA, X-Captcha). */
type Options = { json?: unknown; file?: Blob; searchParams?: Record<string, string>; headers?: Record<string, string> };

let unauthorised = () => {};

/** The balancer's answers for a call whose instance was lost: the call may have run, or not. */
const LOST = new Set([502, 503, 504]);

/**
 * Who hears every 401: the server no longer knows the session, whichever call found out. The app
 * tells the root machine, which acts only while signed in (a sign-in's own 401s mean something else).
 */
export const onUnauthorised = (listener: () => void) => {
  unauthorised = listener;
};

/** What the client throws: ky's error replaced by the ApiFailure it means, which `call` unwraps. */
class ApiError extends Error {
  readonly failure: ApiFailure;
  constructor(failure: ApiFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

/** The language of the screen (i18n.ts sets it on <html>): a code sent during a sign-in speaks it. */
const stamp: BeforeRequestHook = ({ request }) => {
  request.headers.set(DEVICE_ID_HEADER, deviceId());
  request.headers.set('accept-language', globalThis.document?.documentElement.lang || 'en');
};

/** A body ky left as text (not labelled JSON) may still be JSON; anything else keeps the status only. */
function jsonOf(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data);
  } catch {
    return {};
  }
}

/** Every failure, mapped once: an error answer is `{ code, message, … }` (contract/errors.ts), kept
 * whole for the answers that carry more (mfa, payload, retry_after); no answer (the network, the
 * time limit) is status 0. */
const toApiError: BeforeErrorHook = ({ error }) => {
  if (isHTTPError(error)) {
    const { status } = error.response;
    if (status === 401) unauthorised();
    const data = jsonOf(error.data);
    return new ApiError(apiFailure(status, v.is(ErrorBody, data) ? (data as Record<string, unknown>) : {}));
  }
  return new ApiError(apiFailure(0, {}));
};

/** The client: `baseUrl` and `timeout` only for tests outside a browser (a page resolves /api itself). */
export function createApi(settings: { baseUrl?: string; timeout?: number } = {}) {
  // Every call but a file carries an Idempotency-Key (the server honours it where the call changes
  // something, a few GETs included: the spec's code sends). When its answer never came (no answer,
  // or the balancer's 502–504: the instance holding it was lost), the same call made again carries
  // the same key, and the server answers it as it answered the first, doing nothing twice
  // (server/http/idempotency.ts). Any other answer ends the call; the next one is new.
  const unanswered = new Map<string, string>();
  const keyOf = (method: string, path: string, options: Omit<Options, 'file' | 'headers'>) => {
    const call = JSON.stringify([method, path, options.searchParams ?? null, options.json ?? null]);
    const key = unanswered.get(call) ?? crypto.randomUUID();
    unanswered.delete(call);
    unanswered.set(call, key);
    // A few repeats wait at most: the oldest goes first.
    if (unanswered.size > 16) unanswered.delete(unanswered.keys().next().value!);
    return key;
  };
  const answered: AfterResponseHook = ({ request, response }) => {
    const key = request.headers.get(IDEMPOTENCY_HEADER);
    if (!key || LOST.has(response.status)) return;
    for (const [call, kept] of unanswered) if (kept === key) unanswered.delete(call);
  };
  const client = ky.create({
    prefix: API_PREFIX,
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    timeout: settings.timeout ?? REQUEST_TIMEOUT_MS,
    // No call is ever sent twice: a POST is not idempotent, and a GET's failure is the machine's to show.
    retry: { limit: 0 },
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
    // An empty answer (204) reads as nothing rather than failing to parse.
    parseJson: (text) => (text === '' ? undefined : JSON.parse(text)),
    hooks: { beforeRequest: [stamp], afterResponse: [answered], beforeError: [toApiError] },
  });
  const send =
    (method: 'get' | 'post' | 'put' | 'patch' | 'delete') =>
    (path: string, { file, headers, ...options }: Options = {}) => {
      const keyed = file ? headers : { ...headers, [IDEMPOTENCY_HEADER]: keyOf(method, path, options) };
      const own: KyOptions = file
        ? { body: file, headers: { ...headers, 'content-type': file.type } }
        : keyed
          ? { headers: keyed }
          : {};
      return client(path, { method, ...options, ...own });
    };
  return { get: send('get'), post: send('post'), delete: send('delete'), put: send('put'), patch: send('patch') };
}

/** The one HTTP client of the app: `api.get('user').json()`, `api.post('token', { json })`. */
export const api = createApi();

/** Runs a call; rejects with an ApiFailure the machines understand. */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    // Anything the hook did not map (a 2xx answer whose body is not JSON): as no answer.
    throw error instanceof ApiError ? error.failure : apiFailure(0, {});
  }
}

/** An answer that does not match its schema: the server broke the contract, shown as a server error. */
const BAD_ANSWER = {
  code: 'internal_error',
  message: 'An error has occurred. Please try again later.',
} satisfies { code: ErrorCode; message: string };

/** Runs a call and parses its JSON answer with the contract's schema. */
export async function parsed<S extends v.GenericSchema>(
  schema: S,
  request: () => Promise<unknown>,
): Promise<v.InferOutput<S>> {
  const result = v.safeParse(schema, await call(request));
  if (!result.success) throw apiFailure(502, BAD_ANSWER);
  return result.output;
}
