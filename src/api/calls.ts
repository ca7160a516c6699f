// The API calls the first screen needs (the session, signing in), bound to the root's actors in
// src/app/actor.ts; the other flows' calls are in flowCalls.ts, loaded with the flows. Every JSON
// answer is parsed with its schema from contract/schemas.ts.
import { AppConfig, TokenAnswer, UserAnswer, type UserProfile } from '../../contract/baseSchemas.ts';
import { api, call, parsed } from './client.ts';

/** A CAPTCHA solution goes with a request when there is one. */
export const withCaptcha = (captcha: string | null) => (captcha ? { captcha } : {});

/** A CAPTCHA solution for a request whose body has no place for one (a code, a password typed
 * again): past an account's ceiling of failures the server reads it from this header. */
export const captchaHeader = (captcha: string | null | undefined) =>
  captcha ? { headers: { 'x-captcha': captcha } } : {};

export const loadConfig = () => parsed(AppConfig, () => api.get('config').json());

export const fetchUser = async (): Promise<UserProfile> =>
  (await parsed(UserAnswer, () => api.get('user').json())).data;

export const submitLogin = (input: {
  username: string;
  password: string;
  captcha: string | null;
  clientId?: string | null;
}) =>
  parsed(TokenAnswer, () =>
    api
      .post('token', {
        json: {
          username: input.username,
          password: input.password,
          ...withCaptcha(input.captcha),
          ...(input.clientId ? { client_id: input.clientId } : {}),
        },
      })
      .json(),
  );

/** POST /token/ticket: spends a sign-in ticket brought in the URL hash (src/app/loginTicket.ts). */
export const exchangeTicket = (input: { ticket: string; clientId: string }) =>
  parsed(TokenAnswer, () =>
    api.post('token/ticket', { json: { ticket: input.ticket, client_id: input.clientId } }).json(),
  );

export const logout = async () => {
  await call(() => api.delete('token'));
};
