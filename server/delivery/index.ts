// Delivery: one interface, four channels. Email goes over SMTP (nodemailer) when SMTP_URL is set;
// SMS, voice calls and WhatsApp go to an HTTP provider when SMS_PROVIDER_URL is set. Without them,
// outside production, messages land in the dev outbox (a table shown at /dev/outbox).
import nodemailer from 'nodemailer';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';

export type Channel = 'email' | 'sms' | 'call' | 'whatsapp';
/** What the outbox carries: a message on a channel, or a partner's security event token ('set'). */
export type Message = { channel: Channel | 'set'; to: string; subject: string; body: string };
export type Delivery = { send(message: Message): Promise<void> };

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

function smtp(url: string, from: string): Delivery {
  // A mail server that hangs must not hold a worker for minutes (nodemailer's defaults).
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.body });
    },
  };
}

/** The provider adapter: POST {channel, to, text} as JSON with a bearer key. */
function httpProvider(url: string, key: string | null): Delivery {
  return {
    async send(message) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ channel: message.channel, to: message.to, text: message.body }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new DeliveryUnavailable(`provider answered ${response.status}`);
    },
  };
}

/** `set`: the delivery of partners' security event tokens (server/oidc/securityEvents.ts). */
export function createDelivery(config: Config, db: Db, set?: Delivery): Delivery {
  const devOutbox = config.env === 'production' ? null : outbox(db);
  const email = config.delivery.smtpUrl ? smtp(config.delivery.smtpUrl, config.delivery.mailFrom) : devOutbox;
  const phone = config.delivery.smsProviderUrl
    ? httpProvider(config.delivery.smsProviderUrl, config.delivery.smsProviderKey)
    : devOutbox;
  return {
    async send(message) {
      if (message.channel === 'set') {
        if (!set) throw new DeliveryUnavailable('no delivery configured for security events');
        return set.send(message);
      }
      const channel = message.channel === 'email' ? email : phone;
      if (!channel) throw new DeliveryUnavailable(`no delivery configured for ${message.channel}`);
      await channel.send(message);
    },
  };
}
