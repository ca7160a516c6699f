// The API calls of the root and login flows, bound to the machines' actors in src/app/actor.ts.
import type { AppConfig, MfaChallengeAnswer, MfaMethodSummary, TokenAnswer, UserAnswer, UserProfile } from '../../contract/schemas.ts';
import { NEW_METHOD_IDS } from '../../contract/constants.ts';
import { api, call } from './client.ts';

export const loadConfig = () => call(() => api.get('config').json<AppConfig>());

export const fetchUser = async (): Promise<UserProfile> => (await call(() => api.get('user').json<UserAnswer>())).data;

export const submitLogin = (input: { username: string; password: string }) =>
  call(() => api.post('token', { json: input }).json<TokenAnswer>());

export const logout = async () => {
  await call(() => api.delete('token'));
};

export const startChallenge = (input: { mfaId: number; loginPayload: string | null; channel: string | null }) => {
  const searchParams: Record<string, string> = { mfaId: String(input.mfaId) };
  if (input.loginPayload) searchParams.payload = input.loginPayload;
  if (input.channel) searchParams.channel = input.channel;
  return call(() => api.get('mfa/sudo', { searchParams }).json<MfaChallengeAnswer>());
};

export const verifyCode = (input: { payload: string; code: string; trust: boolean }) =>
  call(() => api.post('mfa/sudo', { json: { payload: input.payload, code: input.code, isTrustedDevice: input.trust } })
    .json<{ access_token?: string; recovery_keys_left?: number }>());

export const regenerateRecoveryKeys = () => call(() => api.post('mfa/regenerate-recovery').json<{ recovery_keys: string[] }>());

/** GET /mfa/{-1|-2}/activate: null when there is nothing to do (204). */
export const startActivation = async (input: { kind: 'sms' | 'email'; target: string }) => {
  const id = input.kind === 'email' ? NEW_METHOD_IDS.email : NEW_METHOD_IDS.sms;
  const response = await call(() => api.get(`mfa/${id}/activate`, { searchParams: { target: input.target } }));
  return response.status === 204 ? null : ((await response.json()) as { payload: string; fuzzion: boolean; data: { target?: string; code?: string; message?: string } });
};

export const confirmActivation = (input: { payload: string; code: string }) => call(() => api.post('mfa/activate', { json: input }).json<unknown>());

export const secondFactorStatus = async () => {
  const [status, methods] = await Promise.all([
    call(() => api.get('mfa/status').json<{ sudo: boolean }>()),
    call(() => api.get('mfa', { searchParams: { includeAll: 'true' } }).json<{ data: MfaMethodSummary[] }>()),
  ]);
  return { sudo: status.sudo, methods: methods.data };
};
export const listMethods = async () => (await call(() => api.get('mfa', { searchParams: { includeAll: 'true' } }).json<{ data: MfaMethodSummary[] }>())).data;
export const switchPrimary = async (input: { id: number }) => { await call(() => api.post(`mfa/switch-primary/${input.id}`)); };
export const deleteMethod = async (input: { id: number }) => { await call(() => api.delete(`mfa/${input.id}`)); };

/** GET /mfa/-3/activate: the new authenticator's key and QR code; null when one is set already. */
export const startTotp = async () => {
  const response = await call(() => api.get(`mfa/${NEW_METHOD_IDS.totp}/activate`));
  return response.status === 204 ? null : ((await response.json()) as { payload: string; data: { secret?: string; otpauth_url?: string; qr_svg?: string } });
};
export const confirmTotp = (input: { payload: string; code: string }) => call(() => api.post('mfa/activate', { json: input }).json<{ recovery_keys?: string[] }>());

/** Deletes the authenticator (and its recovery keys): the TOTP recovery screen's reset. */
export const resetAuthenticator = async () => {
  const methods = await listMethods();
  const totp = methods.find((m) => m.method === 'totp');
  if (totp) await deleteMethod({ id: totp.id });
};

export const resetPassword = async (input: { payload: string; password: string; confirmation: string }) => {
  await call(() => api.post('user/reset-password', { json: input }));
};

export const requestPasswordCode = (input: { username: string; channel: 'sms' | 'call' | 'whatsapp' | null }) =>
  call(() => api.post('user/forgot-password', { json: { username: input.username, ...(input.channel ? { channel: input.channel } : {}) } })
    .json<{ recipient: string[]; technology: string; payload: string }>());
export const verifyPasswordCode = (input: { payload: string; code: string }) =>
  call(() => api.post('user/forgot-password/verify', { json: input }).json<{ payload: string }>());

export const findUsernames = async (input: { kind: 'card' | 'nationalRegister'; value: string }) =>
  (await call(() => api.post('user/forgot-username', { json: input.kind === 'card' ? { cardNumber: input.value } : { nationalRegisterNumber: input.value } })
    .json<{ usernames: string[] }>())).usernames;
