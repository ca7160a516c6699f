// Delivery receipts: what became of a message once a provider took it. A provider configured with a
// receipt secret (DELIVERY_RECEIPT_SECRET_<NAME>) calls back POST /api/delivery/receipts/<name>,
// signed with that secret; the message is then delivered, failed or unknown. A provider without one
// counts as delivered as soon as it accepts a message. Receipts may come late, twice or out of
// order, even before the node that sent the message wrote it down: each status has a rank, and a
// write only ever raises it (one conditional statement, so two nodes cannot undo each other).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';

export type DeliveryStatus = 'sent' | 'unknown' | 'failed' | 'delivered';

/** A later status never gives way to an earlier one: a delivery is final, a failure only gives way
 * to a delivery, and "unknown" only says more than "sent". */
const RANK: Record<DeliveryStatus, number> = { sent: 1, unknown: 2, failed: 3, delivered: 4 };

/** How far a receipt's timestamp may be from this server's clock (replays are refused past it). */
export const RECEIPT_TOLERANCE_SECONDS = 300;
/** Receipts are small; anything larger is no receipt. */
const RECEIPT_MAX_BYTES = 4096;
/** How long what became of a message is kept (the code it carried lives minutes). */
const KEPT_MS = 24 * 3600_000;

export const SIGNATURE_HEADER = 'x-tessera-signature';
export const TIMESTAMP_HEADER = 'x-tessera-timestamp';

/** The signature of a receipt's body sent at `timestamp` (seconds), as the provider computes it:
 * `v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>` under the provider's receipt secret. */
export const signReceipt = (secret: string, timestamp: number, body: string) =>
  `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

const Receipt = v.strictObject({
  /** The message's id, sent to the provider as its Idempotency-Key. */
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  status: v.picklist(['delivered', 'failed', 'unknown']),
  /** When the provider saw it happen; else when it reached us. */
  at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});

/** Writes a message's status, unless it already has one that says as much or more; the status it
 * has now. */
export async function recordDelivery(
  db: Db,
  entry: {
    id: string;
    provider: string;
    channel?: string;
    status: DeliveryStatus;
    at?: string;
    /** For a code: its challenge and the step of its fallback. */
    code?: { challengeId: string; step: number };
  },
): Promise<DeliveryStatus> {
  const at = entry.at ?? nowIso();
  const rank = RANK[entry.status];
  const sentAt = entry.status === 'sent' ? at : null;
  const written = await db
    .insertInto('message_deliveries')
    .values({
      id: entry.id,
      channel: entry.channel ?? null,
      provider: entry.provider,
      status: entry.status,
      rank,
      sent_at: sentAt,
      updated_at: at,
      challenge_id: entry.code?.challengeId ?? null,
      step: entry.code?.step ?? 0,
    })
    .onConflict((conflict) =>
      conflict.column('id').doUpdateSet((eb) => ({
        // The node's own record fills in what an early receipt could not know.
        channel: eb.fn.coalesce('message_deliveries.channel', eb.ref('excluded.channel')),
        challenge_id: eb.fn.coalesce('message_deliveries.challenge_id', eb.ref('excluded.challenge_id')),
        step: sql<number>`case when message_deliveries.challenge_id is null then excluded.step else message_deliveries.step end`,
        sent_at: eb.fn.coalesce('message_deliveries.sent_at', eb.ref('excluded.sent_at')),
        status: sql<DeliveryStatus>`case when excluded.rank > message_deliveries.rank then excluded.status else message_deliveries.status end`,
        rank: sql<number>`case when excluded.rank > message_deliveries.rank then excluded.rank else message_deliveries.rank end`,
        updated_at: sql<string>`case when excluded.rank > message_deliveries.rank then excluded.updated_at else message_deliveries.updated_at end`,
      })),
    )
    .returning('status')
    .executeTakeFirstOrThrow();
  return written.status;
}

/** What became of a message, or null (never taken by a provider, or forgotten). */
export async function deliveryOf(db: Db, id: string) {
  return (
    (await db
      .selectFrom('message_deliveries')
      .select(['channel', 'provider', 'status', 'sent_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirst()) ?? null
  );
}

/** Forgets what became of messages long gone. */
export async function forgetOldDeliveries(db: Db, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('message_deliveries')
    .where('updated_at', '<', nowIso(now - KEPT_MS))
    .execute();
}

function signedBy(secret: string, timestamp: string | undefined, signature: string | undefined, body: string) {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > RECEIPT_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signReceipt(secret, Number(timestamp), body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function receiptRoutes(app: FastifyInstance, ctx: AppContext) {
  const secrets = new Map(
    ctx.config.delivery.sms.flatMap((p) => (p.receiptSecret ? [[p.name, p.receiptSecret] as const] : [])),
  );
  // The signature covers the bytes as sent: the body is kept as text, and parsed after the check.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: RECEIPT_MAX_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { provider: string }; Body: string }>(
      '/api/delivery/receipts/:provider',
      {
        schema: {
          tags: ['delivery'],
          summary: "A provider's delivery receipt for a message it took, signed with its receipt secret",
          params: {
            type: 'object',
            properties: { provider: { type: 'string', maxLength: 32 } },
            required: ['provider'],
          },
        },
      },
      async (request, reply) => {
        const secret = secrets.get(request.params.provider);
        if (!secret) throw new ApiError('not_found');
        const body = typeof request.body === 'string' ? request.body : '';
        const header = (name: string) => {
          const value = request.headers[name];
          return typeof value === 'string' ? value : undefined;
        };
        if (!signedBy(secret, header(TIMESTAMP_HEADER), header(SIGNATURE_HEADER), body))
          throw new ApiError('unauthorized');
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          throw new ApiError('invalid_json');
        }
        const receipt = v.safeParse(Receipt, parsed);
        if (!receipt.success) throw new ApiError('invalid_request');
        const { id, status, at } = receipt.output;
        const before = await deliveryOf(ctx.db, id);
        // The status as it now stands (a late receipt changes nothing) decides the code's next step.
        const now = await recordDelivery(ctx.db, { id, provider: request.params.provider, status, at });
        await ctx.outbox.heard(id, now);
        ctx.metrics.receipts.inc({ provider: request.params.provider, status });
        // Time to delivery, from the provider's acceptance, the first time a delivery is heard of.
        if (status === 'delivered' && before?.status !== 'delivered' && before?.sent_at) {
          const seconds = (Date.parse(at ?? nowIso()) - Date.parse(before.sent_at)) / 1000;
          if (seconds >= 0) ctx.metrics.deliveryTime.observe({ channel: before.channel ?? 'unknown' }, seconds);
        }
        return reply.code(204).send();
      },
    );
  });
}
