// The one HTTP client of the app: ky, JSON, the device id header on every call, answers parsed
// with the contract's valibot schemas, and failures turned into ApiFailure (status, stable code,
// message) for the machines.
import ky, { HTTPError } from 'ky';
import * as v from 'valibot';
import { apiFailure, type ApiFailure } from '../../contract/api.ts';
import { API_PREFIX, DEVICE_ID_HEADER, REQUEST_TIMEOUT_MS } from '../../contract/constants.ts';
import { ErrorBody } from '../../contract/schemas.ts';
import { deviceId } from './device.ts';

export const api = ky.create({
  prefix: API_PREFIX,
  timeout: REQUEST_TIMEOUT_MS,
  credentials: 'same-origin',
  retry: 0,
  headers: { accept: 'application/json' },
  hooks: {
    beforeRequest: [({ request }) => { request.headers.set(DEVICE_ID_HEADER, deviceId()); }],
  },
});

function toFailure(error: unknown): ApiFailure {
  if (error instanceof HTTPError) {
    let data: unknown = error.data;
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data);
      } catch {
        data = {}; // not JSON: keep the status only
      }
    }
    // An error answer is `{ code, message, … }` (contract/errors.ts); the whole body is kept for the
    // answers that carry more (mfa, payload, retry_after). Anything else keeps the status only.
    const body = v.is(ErrorBody, data) ? (data as Record<string, unknown>) : {};
    return apiFailure(error.response.status, body);
  }
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
