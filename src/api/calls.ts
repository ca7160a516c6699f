// The API calls of the root and login flows, bound to the machines' actors in src/app/actor.ts.
import type { AppConfig, TokenAnswer, UserAnswer, UserProfile } from '../../contract/schemas.ts';
import { api, call } from './client.ts';

export const loadConfig = () => call(() => api.get('config').json<AppConfig>());

export const fetchUser = async (): Promise<UserProfile> => (await call(() => api.get('user').json<UserAnswer>())).data;

export const submitLogin = (input: { username: string; password: string }) =>
  call(() => api.post('token', { json: input }).json<TokenAnswer>());

export const logout = async () => {
  await call(() => api.delete('token'));
};
