// A code that does not arrive goes another way. Each channel a code may be chosen for has the same
// order after it, whatever the purpose (a forgotten password's too, though its screen says nothing):
// WhatsApp, then SMS, then a call; SMS, then a call; a call, then SMS; an email only to the next
// mail server (./index.ts), never another channel. A step moves on when every provider of its
// channel failed it, or when its provider sends receipts and none said "delivered" within the step's
// time (DELIVERY_STEP_SECONDS_<CHANNEL>), or one said "failed". Every step carries the same code with
// the same expiry, each text written in the person's language when the code was made; a step is no
// new send (no resend wait, spacing or cap counts it). The fallback stops at the first delivery, or
// once the code is spent, replaced or expired. The outbox (./queue.ts) runs the steps.
import type { FastifyInstance } from 'fastify';
import { CodeDelivery } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';
import { responses } from '../http/schema.ts';
import { hashToken } from '../sessions/tokens.ts';
import type { Channel } from './index.ts';

export const FALLBACK_ORDER: Record<Channel, Channel[]> = {
  whatsapp: ['sms', 'call'],
  sms: ['call'],
  call: ['sms'],
  email: [],
};

/** A step still to try: its channel and its text there. */
export type FallbackStep = { channel: Channel; subject: string; body: string };

/** The steps after `channel`, each with its text (`render`: the code's message on that channel). */
export const fallbackSteps = (
  channel: Channel,
  render: (channel: Channel) => { subject: string; body: string },
): FallbackStep[] => FALLBACK_ORDER[channel].map((next) => ({ channel: next, ...render(next) }));

/** The id a step's message is sent with (its Idempotency-Key, named by its receipts): the outbox
 * row's for the chosen channel, and one of its own for each step after, the same on every retry. */
export const stepMessageId = (rowId: string, step: number) => (step === 0 ? rowId : `${rowId}.${step}`);
/** The outbox row a step's message id belongs to. */
export const rowIdOf = (messageId: string) => messageId.split('.')[0]!;

/** Whether the code is still wanted: its challenge open (not spent, replaced or expired). */
export async function codeStillWanted(db: Db, challengeId: string): Promise<boolean> {
  const open = await db
    .selectFrom('mfa_challenges')
    .select('id')
    .where('id', '=', challengeId)
    .where('completed_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  return open !== undefined;
}

/** A challenge's delivery (what the code screen may say of it: the way of its latest step, what
 * became of it, the way it left for this one), from its steps' records and its message still in
 * the outbox. `sending`: no provider took the latest step yet. */
export async function codeDeliveryOf(db: Db, challengeId: string, chosen: Channel): Promise<CodeDelivery> {
  const [steps, queued] = await Promise.all([
    db
      .selectFrom('message_deliveries')
      .select(['channel', 'status', 'step'])
      .where('challenge_id', '=', challengeId)
      .orderBy('step', 'desc')
      .limit(2)
      .execute(),
    db
      .selectFrom('message_outbox')
      .select(['channel', 'step', 'awaiting_id'])
      .where('challenge_id', '=', challengeId)
      .executeTakeFirst(),
  ]);
  const [latest, previous] = steps;
  // A step the outbox moved on to that no provider took yet.
  if (queued && !queued.awaiting_id && (!latest || Number(queued.step) > Number(latest.step))) {
    const before = latest ?? null;
    return {
      channel: queued.channel as Channel,
      status: 'sending',
      fell_back_from: Number(queued.step) > 0 ? ((before?.channel as Channel | null) ?? null) : null,
    };
  }
  if (!latest) return { channel: chosen, status: 'sending', fell_back_from: null };
  return {
    channel: (latest.channel as Channel | null) ?? chosen,
    status: latest.status,
    fell_back_from: Number(latest.step) > 0 ? ((previous?.channel as Channel | null) ?? null) : null,
  };
}

/** GET /codes/{payload}/delivery: the code screen asks while it waits. A forgotten password's code
 * answers as no code does (404): its screen must not tell a real account from an unknown one. */
export async function codeDeliveryRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { payload: string } }>(
    '/codes/:payload/delivery',
    {
      schema: {
        tags: ['mfa'],
        summary: 'How a code sent for this challenge is getting there: its way, and whether it fell back',
        params: {
          type: 'object',
          properties: { payload: { type: 'string', minLength: 1, maxLength: 200 } },
          required: ['payload'],
        },
        response: responses({ 200: CodeDelivery }, [400, 404, 429, 503]),
      },
    },
    async (request) => {
      const challenge = await ctx.db
        .selectFrom('mfa_challenges')
        .leftJoin('mfa_methods', 'mfa_methods.id', 'mfa_challenges.method_id')
        .select(['mfa_challenges.id', 'mfa_challenges.purpose', 'mfa_challenges.new_method', 'mfa_methods.method'])
        .where('mfa_challenges.payload_hash', '=', hashToken(request.params.payload))
        .executeTakeFirst();
      const kind = challenge?.method ?? challenge?.new_method;
      if (!challenge || challenge.purpose === 'reset' || !kind || !(kind in FALLBACK_ORDER))
        throw new ApiError('not_found');
      return codeDeliveryOf(ctx.db, challenge.id, kind as Channel);
    },
  );
}
