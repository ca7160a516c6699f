// Delivery: one interface, four channels. Email goes over SMTP (nodemailer) to the servers of
// SMTP_URLS (or SMTP_URL); SMS, voice calls and WhatsApp go to the HTTP providers of SMS_PROVIDERS
// (or SMS_PROVIDER_URL), each tried in turn behind its circuit breaker (./breaker.ts). Without
// them, outside production, messages land in the dev outbox (a table shown at /dev/outbox).
import type { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';
import { createBreaker, type CircuitState } from './breaker.ts';
import { recordDelivery } from './receipts.ts';

export type Channel = 'email' | 'sms' | 'call' | 'whatsapp';
/** What the outbox carries: a message on a channel, or a partner's security event token ('set'). */
/** `id`: the outbox's id of the message, sent to providers to tell a repeat from a new message;
 * `code`: for a code, its challenge and the step of its fallback (./fallback.ts). */
export type Message = {
  channel: Channel | 'set';
  to: string;
  subject: string;
  body: string;
  id?: string;
  code?: { challengeId: string; step: number };
};
/** Who took a message, and whether a receipt will say what became of it; null where nothing will
 * (the dev outbox, a partner's event). */
export type Taken = { provider: string; receipts: boolean } | null;
export type Delivery = { send(message: Message): Promise<Taken | void> };

export class DeliveryUnavailable extends Error {}

function outbox(db: Db): Delivery {
  return {
    async send(message) {
      await db
        .insertInto('outbox')
        .values({
          id: newId(),
          channel: message.channel,
          recipient: message.to,
          subject: message.subject,
          body: message.body,
          created_at: nowIso(),
        })
        .execute();
    },
  };
}

/** One provider's attempt ended: sent, failed (an error or a refusal), timed out, or skipped while
 * its circuit is open. */
export type DeliveryOutcome = 'sent' | 'failed' | 'timeout' | 'skipped';

/** A provider: a name (metrics, circuits, /readyz), a send that stops when `signal` aborts, and
 * whether it reports what became of a message (a receipt), or counts as delivered once it took it. */
type Provider = { name: string; receipts: boolean; send(message: Message, signal: AbortSignal): Promise<void> };

class DeliveryTimeout extends DeliveryUnavailable {}

/** The provider's answer within `ms`, or a DeliveryTimeout (and the send aborted). */
async function withDeadline(ms: number, send: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const timeout = new DeliveryTimeout(`no answer within ${ms} ms`);
      controller.abort(timeout);
      reject(timeout);
    }, ms);
  });
  try {
    await Promise.race([send(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function smtp(name: string, url: string, from: string, timeoutMs: number): Provider {
  // A mail server that hangs must not hold a worker for minutes (nodemailer's defaults).
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const domain = /@([^>\s]+)/.exec(from)?.[1] ?? 'tessera';
  return {
    name,
    receipts: false,
    async send(message) {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.body,
        // The same on every try and every server: a server that got it already can drop it.
        ...(message.id ? { messageId: `<${message.id}@${domain}>` } : {}),
      });
    },
  };
}

/** The provider adapter: POST {channel, to, text} as JSON with a bearer key, and the message's id
 * as its Idempotency-Key (the same on every try and every provider). */
function httpProvider(name: string, url: string, key: string | null, receipts: boolean): Provider {
  return {
    name,
    receipts,
    async send(message, signal) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(message.id ? { 'idempotency-key': message.id } : {}),
        },
        body: JSON.stringify({ channel: message.channel, to: message.to, text: message.body }),
        signal,
      });
      if (!response.ok) throw new DeliveryUnavailable(`provider answered ${response.status}`);
    },
  };
}

export type ProviderCircuit = { provider: string; state: CircuitState };

export type Deliveries = Delivery & {
  /** Every configured provider's circuit, email's first, each list in the order tried. */
  circuits(): Promise<ProviderCircuit[]>;
};

export type DeliveryOptions = {
  redis?: Redis | null;
  /** The breaker's clock (tests move it). */
  now?: () => number;
  observe?(channel: Channel, provider: string, outcome: DeliveryOutcome): void;
  log?: { warn(data: object, message: string): void };
};

/** `set`: the delivery of partners' security event tokens (server/oidc/securityEvents.ts). Each
 * channel tries its providers in order, skipping those whose circuit is open, until one takes the
 * message; only when none does does the outbox retry it later. */
export function createDelivery(config: Config, db: Db, set?: Delivery, options: DeliveryOptions = {}): Deliveries {
  const { timeoutMs, breakerFailures, breakerCooldownSeconds, mailFrom } = config.delivery;
  const breaker = createBreaker(
    { db, redis: options.redis ?? null },
    {
      failures: breakerFailures,
      cooldownMs: breakerCooldownSeconds * 1000,
      trialLeaseMs: 2 * timeoutMs,
      now: options.now ?? Date.now,
    },
  );
  const devOutbox = config.env === 'production' ? null : outbox(db);
  const email = config.delivery.smtp.map((server) => smtp(server.name, server.url, mailFrom, timeoutMs));
  const phone = config.delivery.sms.map((provider) =>
    httpProvider(provider.name, provider.url, provider.key, provider.receiptSecret !== null),
  );
  // The breaker's own failures (its store unreachable) do not decide whether a message was sent.
  const report = (promise: Promise<unknown>) =>
    promise.catch((error) => options.log?.warn({ err: error }, 'delivery circuit not updated'));

  async function failOver(providers: Provider[], channel: Channel, message: Message): Promise<Taken> {
    const errors: string[] = [];
    for (const provider of providers) {
      const entry = await breaker.enter(provider.name);
      if (entry === 'skip') {
        options.observe?.(channel, provider.name, 'skipped');
        errors.push(`${provider.name}: circuit open`);
        continue;
      }
      try {
        await withDeadline(timeoutMs, (signal) => provider.send(message, signal));
      } catch (error) {
        options.observe?.(channel, provider.name, error instanceof DeliveryTimeout ? 'timeout' : 'failed');
        errors.push(`${provider.name}: ${String((error as Error)?.message ?? error)}`);
        await report(
          breaker.failed(provider.name, entry).then(({ opened }) => {
            if (opened) options.log?.warn({ provider: provider.name }, 'delivery provider circuit opened');
          }),
        );
        continue;
      }
      options.observe?.(channel, provider.name, 'sent');
      await report(breaker.succeeded(provider.name, entry));
      if (message.id) {
        const status = provider.receipts ? 'sent' : 'delivered';
        await recordDelivery(db, {
          id: message.id,
          provider: provider.name,
          channel,
          status,
          ...(message.code ? { code: message.code } : {}),
        }).catch((error) => options.log?.warn({ err: error }, 'delivery not recorded'));
      }
      return { provider: provider.name, receipts: provider.receipts };
    }
    throw new DeliveryUnavailable(errors.join('; '));
  }

  return {
    async send(message) {
      if (message.channel === 'set') {
        if (!set) throw new DeliveryUnavailable('no delivery configured for security events');
        return set.send(message);
      }
      const providers = message.channel === 'email' ? email : phone;
      if (providers.length > 0) return failOver(providers, message.channel, message);
      if (!devOutbox) throw new DeliveryUnavailable(`no delivery configured for ${message.channel}`);
      await devOutbox.send(message);
      // Shown at /dev/outbox at once: as delivered as it gets here.
      if (message.id)
        await recordDelivery(db, {
          id: message.id,
          provider: 'outbox',
          channel: message.channel,
          status: 'delivered',
          ...(message.code ? { code: message.code } : {}),
        });
      return null;
    },
    async circuits() {
      return Promise.all(
        [...email, ...phone].map(async (provider) => ({
          provider: provider.name,
          state: await breaker.state(provider.name),
        })),
      );
    },
  };
}
