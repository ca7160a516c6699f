// A solved CAPTCHA that comes with any API request in the `X-Captcha` header. The forms that always
// want one (sign-in, onboarding's start, the forgotten password and username) carry it in their body;
// the checks deep in a flow that an account-wide ceiling may make ask for one (a code, a password
// typed again) are reached by many routes whose bodies have no place for it. The header is read here,
// once, for every API route, and what it holds is kept for the request's own asynchronous work, where
// those checks read it (./ceilings.ts). A request without the header costs one property read.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';

const HEADER = 'x-captcha';
/** As long as the body field may be (contract CaptchaField). */
const MAX_LENGTH = 4096;

const carried = new AsyncLocalStorage<string>();

/** Installs the reading on an instance: it applies to all its routes, registered before or after.
 * It runs before the routes' own pre-handlers, after the body is read, so everything the route then
 * does runs inside it. */
export function carryCaptchaHeader(app: FastifyInstance): void {
  app.addHook('preHandler', (request, _reply, done) => {
    const value = request.headers[HEADER];
    if (typeof value === 'string' && value !== '' && value.length <= MAX_LENGTH) carried.run(value, done);
    else done();
  });
}

/** The solution this request carries in its header, if any. */
export function carriedCaptcha(): string | undefined {
  return carried.getStore();
}
