// A repeated call answers as the first did. The portal sends an `Idempotency-Key` with each call
// that changes something, and sends the same key again when it repeats a call whose answer never
// came (the instance that held it was lost). The first answer, when it succeeded, is kept sealed
// for a few minutes, bound to the key, the device, the call and the credentials it came with; the
// repeat gets it back (with its cookies) and runs nothing: one account, one code, one session.
// A refresh grant's answer is kept beside its tokens instead (server/oidc/refreshRepeat.ts).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_HEADER } from '../../contract/constants.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { perDatabase, prepared } from '../db/prepared.ts';
import { openFor, sealFor } from '../config/secrets.ts';
import { ApiError } from './errors.ts';

/** Long enough for a person to press the button again; short, since an answer may hold a session. */
export const KEPT_SECONDS = 15 * 60;
// What a client may use as a key (a UUID, say): printable, no spaces, bounded.
const KEY = /^[\x21-\x7e]{8,255}$/;
const PURPOSE = 'kept-answer';

export type KeptAnswer = { status: number; headers: Record<string, string | string[]>; body: string };

const hash = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('base64url');
export const keptAnswerId = hash;

// Compiled once per database: each call with a key reads one, and each success keeps one.
const statements = perDatabase((db: Db) => ({
  keep: prepared(
    db,
    (q, id: string, fingerprint: string, sealed: string, expires: string) =>
      q
        .insertInto('kept_answers')
        .values({ id, fingerprint, sealed, expires_at: expires })
        .onConflict((oc) => oc.column('id').doNothing()),
    4,
  ),
  read: prepared(
    db,
    (q, id: string, now: string) =>
      q.selectFrom('kept_answers').select(['fingerprint', 'sealed']).where('id', '=', id).where('expires_at', '>', now),
    2,
  ),
}));

/** Keeps `answer` under `id` for `seconds`; a second answer for the same id changes nothing. */
async function keepAnswer(
  db: Db,
  secretKey: string,
  entry: { id: string; fingerprint: string; answer: KeptAnswer; seconds: number },
  now = Date.now(),
): Promise<void> {
  const sealed = sealFor(secretKey, PURPOSE, JSON.stringify(entry.answer), entry.id);
  await statements(db).keep(entry.id, entry.fingerprint, sealed, nowIso(now + entry.seconds * 1000));
}

/** The answer kept under `id`, with the fingerprint it was kept with; null once it expired. */
async function keptAnswer(
  db: Db,
  secretKey: string,
  id: string,
  now = Date.now(),
): Promise<{ fingerprint: string; answer: KeptAnswer } | null> {
  const [row] = await statements(db).read(id, nowIso(now));
  if (!row) return null;
  return {
    fingerprint: row.fingerprint,
    answer: JSON.parse(openFor(secretKey, PURPOSE, row.sealed, id)) as KeptAnswer,
  };
}

/** Forgets the answers that expired (an outbox step, server/app.ts). */
export async function forgetKeptAnswers(db: Db): Promise<void> {
  await db.deleteFrom('kept_answers').where('expires_at', '<=', nowIso()).execute();
}

/** What a call is: the same key sent with another call (another body, another session) is refused. */
function fingerprintOf(request: FastifyRequest, cookieName: string): string {
  return hash(
    request.method,
    request.url,
    request.body === undefined ? '' : JSON.stringify(request.body),
    request.headers.authorization ?? '',
    request.cookies?.[cookieName] ?? '',
  );
}

const pending = new WeakMap<FastifyRequest, { id: string; fingerprint: string }>();

/** Installs the keys on the API's calls that change something: every method but GET and HEAD, and
 * the GETs marked `changes` (the spec makes a few of them send a code).
 * Callback style: every API call passes here, and a call without a key must not pay a promise. */
export function idempotentCalls(api: FastifyInstance, ctx: AppContext): void {
  const { db } = ctx;
  const { secretKey } = ctx.config;
  async function repeatOrRun(request: FastifyRequest, reply: FastifyReply, key: unknown): Promise<boolean> {
    if (typeof key !== 'string' || !KEY.test(key)) throw new ApiError('invalid_request');
    const id = hash(key, request.deviceKey);
    const fingerprint = fingerprintOf(request, ctx.cookieName);
    const kept = await keptAnswer(db, secretKey, id);
    if (!kept) {
      pending.set(request, { id, fingerprint });
      return false;
    }
    if (kept.fingerprint !== fingerprint) throw new ApiError('idempotency_key_reused');
    const { status, headers, body } = kept.answer;
    reply
      .code(status)
      .headers({ ...headers, 'idempotent-replayed': 'true' })
      .send(body === '' ? undefined : body);
    return true;
  }
  api.addHook('preHandler', (request, reply, done) => {
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined) return done();
    if ((request.method === 'GET' || request.method === 'HEAD') && !request.routeOptions.config?.changes) return done();
    repeatOrRun(request, reply, key).then((answered) => {
      if (!answered) done();
    }, done);
  });

  async function keep(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const call = pending.get(request)!;
    const headers: Record<string, string | string[]> = {};
    for (const name of ['content-type', 'set-cookie', 'cache-control']) {
      const value = reply.getHeader(name);
      if (typeof value === 'string' || Array.isArray(value)) headers[name] = value;
    }
    try {
      await keepAnswer(db, secretKey, {
        id: call.id,
        fingerprint: call.fingerprint,
        answer: { status: reply.statusCode, headers, body: payload ? String(payload) : '' },
        seconds: KEPT_SECONDS,
      });
    } catch (error) {
      // The call's work is done: its answer goes out; only a repeat of it would run again.
      request.log.warn({ err: error }, 'answer not kept for a repeat');
    }
  }
  // After every other onSend (the cookie plugin's among them): the headers are those sent. Only a
  // success is kept: a refusal runs nothing, so its repeat may run again.
  api.addHook('onSend', (request, reply, payload, done) => {
    const keepable =
      pending.has(request) &&
      reply.statusCode >= 200 &&
      reply.statusCode <= 299 &&
      (payload === null || payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload));
    if (!keepable) return done(null, payload);
    keep(request, reply, payload).then(() => done(null, payload));
  });
}
