// Real protocol peers for tests: an SMTP server and an SMS/voice/WhatsApp HTTP provider, on loopback.
import http from 'node:http';
import { SMTPServer } from 'smtp-server';

export type Mail = { to: string; raw: string };
export type ProviderMessage = {
  channel: string;
  to: string;
  text: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
};

export async function startSmtp(port = 0): Promise<{ url: string; mails: Mail[]; stop(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8');
      });
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    mails,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type SmsProvider = {
  url: string;
  /** The messages it accepted. */
  messages: ProviderMessage[];
  /** Every request it received, accepted or not. */
  requests: ProviderMessage[];
  /** Answers 500 and keeps nothing. */
  failing: boolean;
  /** Answers 500 for these channels only (a provider whose WhatsApp is down, say). */
  failingChannels: Set<string>;
  /** Never answers. */
  hanging: boolean;
  /** Never answers for these channels only. */
  hangingChannels: Set<string>;
  /** Keeps the message but never answers, for these channels (its answer lost on the way). */
  answerLost: Set<string>;
  /** Answers after this many milliseconds. */
  delayMs: number;
  stop(): Promise<void>;
};

/** A provider that accepts every message (202), unless told to fail, hang or answer late; a message it
 * already has (the same Idempotency-Key) it takes again and keeps once, as real providers do. */
export async function startSmsProvider(port = 0): Promise<SmsProvider> {
  const messages: ProviderMessage[] = [];
  const requests: ProviderMessage[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const parsed = JSON.parse(body) as { channel: string; to: string; text: string };
      const message = {
        ...parsed,
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      };
      requests.push(message);
      if (peer.hanging || peer.hangingChannels.has(parsed.channel)) return;
      // A message it has already (the same Idempotency-Key): taken again, kept once.
      const repeat = message.idempotencyKey && messages.some((m) => m.idempotencyKey === message.idempotencyKey);
      if (peer.answerLost.has(parsed.channel)) {
        if (!repeat) messages.push(message);
        return;
      }
      if (peer.failing || peer.failingChannels.has(parsed.channel)) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"status":"down"}');
        return;
      }
      setTimeout(() => {
        if (!repeat) messages.push(message);
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"queued"}');
      }, peer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as { port: number }).port;
  const peer: SmsProvider = {
    url: `http://127.0.0.1:${bound}/messages`,
    messages,
    requests,
    failing: false,
    failingChannels: new Set(),
    hanging: false,
    hangingChannels: new Set(),
    answerLost: new Set(),
    delayMs: 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return peer;
}

/** The 8-digit code in a message text, or in a mail's body (not its headers: a Message-ID may hold
 * eight digits too), which may be quoted-printable; or the digits a voice call spells out. */
export function codeIn(text: string): string {
  const headerEnd = text.search(/\r?\n\r?\n/);
  const body = /^[\w-]+: /.test(text) && headerEnd >= 0 ? text.slice(headerEnd) : text;
  const unfolded = body.replace(/=\r?\n/g, '');
  const match = /\b(\d{8})\b/.exec(unfolded);
  if (match) return match[1]!;
  // A voice call's text reads the digits one by one: "1, 2, 3, …".
  const spoken = /\b(?:\d, ){7}\d\b/.exec(unfolded);
  if (spoken) return spoken[0].replace(/\D/g, '');
  throw new Error(`no code in: ${text.slice(0, 200)}`);
}
