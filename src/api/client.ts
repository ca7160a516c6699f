// The one HTTP client of the app: ky, JSON, the device id header on every call, and failures
// turned into ApiFailure (status, stable code, message) for the machines.
import ky, { HTTPError } from 'ky';
import { apiFailure, type ApiFailure } from '../../contract/api.ts';
import { API_PREFIX, DEVICE_ID_HEADER, REQUEST_TIMEOUT_MS } from '../../contract/constants.ts';
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
    const body = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
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
