// An instance lost (SIGKILL) in the middle of a journey, behind HAProxy: the balancer stops sending
// it requests, and the person's next step, on another instance, goes on from where they were. The
// sign-in's ticket, the code sent and the session are in the shared database: nothing is lost, one
// code was sent, and the session works on every instance left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../seed/demo.ts';
import { startCluster, type Cluster } from '../testing/cluster.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;

describe('an instance lost in the middle of a sign-in, behind HAProxy', () => {
  let cluster: Cluster;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    cluster = await startCluster({ SMTP_URL: smtp.url });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await smtp?.stop();
  }, 60_000);

  const api = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    fetch(`${cluster.base}/api${path}`, {
      method: init.method ?? 'GET',
      headers: {
        'x-device-id': 'node-loss-device',
        'content-type': 'application/json',
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });

  it('goes on after an instance is killed between its steps, with one code and a session every instance knows', async () => {
    const signIn = await api('/token', { method: 'POST', body: { username: mila.email, password: DEMO_PASSWORD } });
    expect(signIn.status).toBe(401);
    const { mfa } = (await signIn.json()) as { mfa: { payload: string; methods: { id: number; method: string }[] } };
    const email = mfa.methods.find((m) => m.method === 'email')!;
    const asked = await api(`/mfa/sudo?mfaId=${email.id}&payload=${encodeURIComponent(mfa.payload)}`);
    expect(asked.status).toBe(200);
    const challenge = ((await asked.json()) as { payload: string }).payload;
    await expect.poll(() => smtp.mails.filter((m) => m.to === mila.email).length, { timeout: 15_000 }).toBe(1);

    // One instance is lost; the balancer finds out by itself.
    const lost = cluster.nodes[0]!;
    await cluster.kill(lost);
    await expect.poll(() => cluster.statusOf(lost), { timeout: 10_000 }).toBe('DOWN');

    const verified = await api('/mfa/sudo', {
      method: 'POST',
      body: { payload: challenge, code: codeIn(smtp.mails.at(-1)!.raw) },
    });
    expect(verified.status).toBe(200);
    const token = ((await verified.json()) as { access_token: string }).access_token;
    // The session is the database's: each instance left serves it (round robin: several calls).
    for (let i = 0; i < 4; i++) expect((await api('/user', { token })).status).toBe(200);
    expect(smtp.mails.filter((m) => m.to === mila.email)).toHaveLength(1);

    // The lost instance comes back, and serves the same session.
    await cluster.start(lost);
    const direct = await fetch(`http://127.0.0.1:${lost.port}/api/user`, {
      headers: { 'x-device-id': 'node-loss-device', authorization: `Bearer ${token}` },
    });
    expect(direct.status).toBe(200);
  }, 120_000);
});
