// An instance killed (SIGKILL) in the middle of a code's fallback: the next one resumes it. A step
// is sent again only when the instance died between the provider taking it and the outbox writing
// that down, and then under the same idempotency key, which the provider uses to keep it once: the
// person gets one message per step, and the code still signs in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../seed/demo.ts';
import { instanceReady, spawnInstance } from '../testing/cluster.ts';
import { freePort } from '../testing/ports.ts';
import { codeIn, startSmsProvider, type SmsProvider } from '../testing/peers.ts';

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;

describe('an instance killed during a fallback', () => {
  let dir: string;
  let provider: SmsProvider;
  let instance: ChildProcess | null = null;
  let port: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-crash-'));
    provider = await startSmsProvider();
    port = await freePort();
    env = {
      SQLITE_PATH: join(dir, 'tessera.sqlite'),
      SMS_PROVIDERS: `local=${provider.url}`,
      // A dead instance's message is taken over once its lease is out: 2 s here, not a minute.
      OUTBOX_LEASE_SECONDS: '2',
    };
  });
  afterAll(async () => {
    instance?.kill('SIGKILL');
    await provider?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (seed = false) => {
    instance = spawnInstance(port, { ...env, SEED_DEMO: seed ? 'true' : 'false' });
    await instanceReady(port);
  };
  const killNow = async () => {
    const exited = once(instance!, 'exit');
    instance!.kill('SIGKILL');
    await exited;
    instance = null;
  };
  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`http://127.0.0.1:${port}/api${path}`, {
      method: init.method ?? 'GET',
      headers: { 'x-device-id': 'crash-test-device', 'content-type': 'application/json' },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });

  it('resumes each step after a restart, sends it again only under the same key, and the code still signs in', async () => {
    await start(true);
    const signIn = await api('/token', { method: 'POST', body: { username: mila.email, password: DEMO_PASSWORD } });
    expect(signIn.status).toBe(401);
    const { mfa } = (await signIn.json()) as { mfa: { payload: string; methods: { id: number; method: string }[] } };
    const phone = mfa.methods.find((m) => m.method === 'sms')!;

    // WhatsApp fails; the SMS that follows is taken, but the answer never comes back: the instance
    // dies before it wrote down that the step was sent.
    provider.failingChannels.add('whatsapp');
    provider.answerLost.add('sms');
    const asked = await api(`/mfa/sudo?mfaId=${phone.id}&payload=${encodeURIComponent(mfa.payload)}&channel=whatsapp`);
    expect(asked.status).toBe(200);
    const challenge = ((await asked.json()) as { payload: string }).payload;
    await expect.poll(() => provider.messages.length, { timeout: 15_000 }).toBe(1);
    await killNow();

    // The next instance takes the step over once the lease is out, and sends it again, same key.
    provider.answerLost.clear();
    await start();
    await expect.poll(() => provider.requests.filter((m) => m.channel === 'sms').length, { timeout: 20_000 }).toBe(2);
    const [first, again] = provider.requests.filter((m) => m.channel === 'sms');
    expect(again!.idempotencyKey).toBe(first!.idempotencyKey);
    // One message per step: none by WhatsApp (it failed), one SMS.
    expect(provider.messages.map((m) => m.channel)).toEqual(['sms']);
    expect(provider.requests.filter((m) => m.channel === 'whatsapp')).toHaveLength(1);

    const verified = await api('/mfa/sudo', {
      method: 'POST',
      body: { payload: challenge, code: codeIn(provider.messages[0]!.text) },
    });
    expect(verified.status).toBe(200);

    // The first step, the same way: WhatsApp takes it, the answer is lost, the instance dies.
    provider.failingChannels.clear();
    provider.answerLost.add('whatsapp');
    const signedInAgain = await api('/token', {
      method: 'POST',
      body: { username: mila.email, password: DEMO_PASSWORD },
    });
    const next = ((await signedInAgain.json()) as { mfa: { payload: string } }).mfa.payload;
    expect((await api(`/mfa/sudo?mfaId=${phone.id}&payload=${encodeURIComponent(next)}&channel=whatsapp`)).status).toBe(
      200,
    );
    await expect
      .poll(() => provider.messages.filter((m) => m.channel === 'whatsapp').length, { timeout: 15_000 })
      .toBe(1);
    await killNow();
    provider.answerLost.clear();
    await start();
    await expect
      .poll(() => provider.requests.filter((m) => m.channel === 'whatsapp').length, { timeout: 20_000 })
      .toBe(3);
    const whatsapp = provider.requests.filter((m) => m.channel === 'whatsapp').slice(1);
    expect(whatsapp[1]!.idempotencyKey).toBe(whatsapp[0]!.idempotencyKey);
    // Taken once by the provider: the step is done, nothing more goes.
    expect(provider.messages.map((m) => m.channel)).toEqual(['sms', 'whatsapp']);
  }, 90_000);
});
