// A test server whose mail and texts reach real peers on loopback: the set-up of every test that
// reads the codes and notices it sends.
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type DatabaseKind, type TestServer } from './harness.ts';
import { startSmsProvider, startSmtp } from './peers.ts';

export type Smtp = Awaited<ReturnType<typeof startSmtp>>;
export type SmsProvider = Awaited<ReturnType<typeof startSmsProvider>>;

/** A test server on `kind` sending over SMTP and to the SMS provider; `env` adds to or overrides
 * that configuration. `stop()` stops all three. */
export async function startServerWithPeers(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: Parameters<typeof startTestServer>[2] = {},
): Promise<{ server: TestServer; smtp: Smtp; sms: SmsProvider; stop(): Promise<void> }> {
  const smtp = await startSmtp();
  const sms = await startSmsProvider().catch(async (error: unknown) => {
    await smtp.stop();
    throw error;
  });
  const server = await startTestServer(kind, { SMTP_URL: smtp.url, SMS_PROVIDER_URL: sms.url, ...env }, options).catch(
    async (error: unknown) => {
      await smtp.stop();
      await sms.stop();
      throw error;
    },
  );
  return {
    server,
    smtp,
    sms,
    async stop() {
      await server.stop();
      await smtp.stop();
      await sms.stop();
    },
  };
}

/** `startServerWithPeers` for the tests of the calling block: `started` gets the three before they
 * run; all stop after them. */
export function useServerWithPeers(
  kind: DatabaseKind,
  env: Record<string, string>,
  started: (peers: { server: TestServer; smtp: Smtp; sms: SmsProvider }) => void | Promise<void>,
): void {
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const peers = await startServerWithPeers(kind, env);
    stop = peers.stop;
    await started(peers);
  });
  afterAll(async () => {
    await stop?.();
  });
}
