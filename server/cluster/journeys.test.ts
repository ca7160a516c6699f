// Journeys through HAProxy while instances are lost with a call in flight: each lost call is done
// by its instance, which is killed before its answer leaves, so the caller sees the balancer's 502
// and repeats the call once, as the portal does (the same Idempotency-Key) or as an OAuth client
// does. The journey then completes, and the repeat never doubles an effect: one flow, one code per
// address, one account, one session, one set of tokens. Each lost instance comes back before the next.
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_ID_HEADER, IDEMPOTENCY_HEADER } from '../../contract/constants.ts';
import { DEMO_CLIENTS, DEMO_ONBOARDING_CARDS, DEMO_USERS, DEMO_PASSWORD } from '../seed/demo.ts';
import { startCluster, type Cluster } from '../testing/cluster.ts';
import { browse, codeFlowStart } from '../testing/oidcKit.ts';
import { codeIn, startSmsProvider, startSmtp, type SmsProvider } from '../testing/peers.ts';

const DEVICE = 'journeys-device-0001';
const nora = DEMO_ONBOARDING_CARDS[0]!;
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '2')!.redirect_uris.find((u) => u.startsWith('http://'))!;

describe('journeys through HAProxy that lose an instance with a call in flight', () => {
  let cluster: Cluster;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: SmsProvider;
  beforeAll(async () => {
    smtp = await startSmtp();
    sms = await startSmsProvider();
    // A message the lost instance had leased is sent by another once the lease is out (60 s by
    // default; 2 here, as server/cluster/outbox-crash.test.ts proves it).
    cluster = await startCluster({ SMTP_URL: smtp.url, SMS_PROVIDER_URL: sms.url, OUTBOX_LEASE_SECONDS: '2' }, 3, {
      lines: true,
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await smtp?.stop();
    await sms?.stop();
  }, 60_000);

  /** A call of the portal's, with the key it names it by. */
  const post = (path: string, body: object, key: string, headers: Record<string, string> = {}) =>
    fetch(`${cluster.base}/api/${path}`, {
      method: 'POST',
      headers: {
        [DEVICE_ID_HEADER]: DEVICE,
        [IDEMPOTENCY_HEADER]: key,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  /** The call's answer is lost with its instance; the person repeats it once, with the same key.
   * Gives the repeat's answer, checked to be the one the lost instance had given. */
  async function lostThenRepeated(path: string, body: object, headers: Record<string, string> = {}) {
    const key = randomUUID();
    const lost = cluster.loseAnswer((method, url) => method === 'POST' && url === `/api/${path}`);
    // The balancer answers 502 or 504, or closes a kept-alive connection so the caller may retry:
    // no answer, either way (the portal keeps the key for all of them: src/api/client.ts).
    const first = await post(path, body, key, headers).then(
      (answer) => answer.status,
      () => 0,
    );
    expect([0, 502, 504], `${path}: no answer from a lost instance`).toContain(first);
    const gone = await lost;
    const repeat = await post(path, body, key, headers);
    expect(repeat.status, path).toBe(gone.status);
    const text = await repeat.text();
    expect(text, path).toBe(gone.body);
    await cluster.start(gone.node);
    return { status: repeat.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, repeat };
  }
  /** A step whose answer arrives. */
  async function step(path: string, body: object) {
    const answer = await post(path, body, randomUUID());
    expect(answer.status, `${path}: ${await answer.clone().text()}`).toBeLessThan(300);
    return answer.status === 204 ? {} : ((await answer.json()) as Record<string, unknown>);
  }
  const codeFor = (to: string) => {
    const texts = [
      ...smtp.mails.filter((m) => m.to === to).map((m) => m.raw),
      ...sms.messages.filter((m) => m.to === to).map((m) => m.text),
    ];
    return { count: texts.length, code: texts.length ? codeIn(texts.at(-1)!) : '' };
  };

  it('activates a card: the card, the email code, its check and the password each lost once, one account', async () => {
    const started = await lostThenRepeated('onboarding/card', {
      cardNumber: nora.number,
      activationCode: nora.activationCode,
    });
    expect(started.status).toBe(201);
    const flow = started.body['flow'] as string;
    await step('onboarding/terms', {
      flow,
      terms: true,
      privacy: true,
      marketing: { email: false, sms: false, partners: false },
    });
    await step('onboarding/profile', { flow, firstname: nora.firstname!, lastname: nora.lastname! });

    // The email code is sent once, though its call was made twice.
    const sent = await lostThenRepeated('onboarding/email', { flow, email: nora.email! });
    expect(sent.body).toMatchObject({ verified: false });
    await expect.poll(() => codeFor(nora.email!).count, { timeout: 30_000 }).toBe(1);
    const checked = await lostThenRepeated('onboarding/verify', { flow, code: codeFor(nora.email!).code });
    expect(checked.body).toEqual({ verified: 'email' });

    await step('onboarding/phone', { flow, phone: nora.phone! });
    await expect.poll(() => codeFor(nora.phone!).count, { timeout: 15_000 }).toBe(1);
    await step('onboarding/verify', { flow, code: codeFor(nora.phone!).code });

    const password = 'Nora-nieuw-wachtwoord-42';
    const created = await lostThenRepeated('onboarding/password', {
      flow,
      password,
      confirmation: password,
      language: 'nl',
    });
    expect(created.status).toBe(201);
    // The repeat carries the session cookie the lost answer had set.
    expect(created.repeat.headers.getSetCookie().some((c) => c.startsWith('tessera_token='))).toBe(true);
    expect(codeFor(nora.email!).count).toBe(1);
    expect(codeFor(nora.phone!).count).toBe(1);

    // One account: the password signs in, on any instance.
    const signIn = await post('token', { username: nora.email!, password }, randomUUID());
    expect(signIn.status).toBe(200);
    const token = ((await signIn.json()) as { access_token: string }).access_token;
    for (let i = 0; i < 3; i++) {
      const user = await fetch(`${cluster.base}/api/user`, {
        headers: { [DEVICE_ID_HEADER]: DEVICE, authorization: `Bearer ${token}` },
      });
      expect(user.status).toBe(200);
      expect(
        ((await user.json()) as { data: { email: Array<{ value: string }> } }).data.email.map((e) => e.value),
      ).toEqual([nora.email!]);
    }
    // The card was activated once: starting again with it is refused.
    const again = await post(
      'onboarding/card',
      { cardNumber: nora.number, activationCode: nora.activationCode },
      randomUUID(),
    );
    expect(again.status).toBeGreaterThanOrEqual(400);
  }, 240_000);

  it("carries a partner's code flow and its refresh over lost instances, with one set of tokens at the end", async () => {
    const issuer = `${cluster.base}/oidc`;
    const config = await oidc.discovery(new URL(issuer), '2', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    // The sign-in's answer is lost: its repeat gives the same session, and opens no other.
    const signedIn = await lostThenRepeated('token', { username: emma.email, password: DEMO_PASSWORD });
    const cookie = signedIn.repeat.headers
      .getSetCookie()
      .find((c) => c.startsWith('tessera_token='))!
      .split(';')[0]!;
    expect(cookie).toBeTruthy();

    const authorise = async () => {
      const start = await codeFlowStart(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid offline_access',
        prompt: 'consent',
      });
      const res = await browse(cluster.base, start.url, [cookie]);
      expect(res.status).toBe(303);
      return { ...start, callback: new URL(res.headers.get('location')!) };
    };
    const exchange = (a: Awaited<ReturnType<typeof authorise>>) =>
      oidc.authorizationCodeGrant(config, a.callback, { pkceCodeVerifier: a.verifier, expectedState: a.state });
    const isGrant = (type: string) => (method: string, url: string, body: string) =>
      method === 'POST' && url.startsWith('/oidc/token') && new URLSearchParams(body).get('grant_type') === type;

    // The code exchange's answer is lost. The code is spent: used again, it is refused and what it
    // gave is revoked (RFC 6749 §4.1.2). The partner sends the person again; their session makes it
    // silent, and the new code gives the only tokens.
    const first = await authorise();
    const lostExchange = cluster.loseAnswer(isGrant('authorization_code'));
    await expect(exchange(first)).rejects.toBeTruthy();
    const gone = await lostExchange;
    const lostTokens = JSON.parse(gone.body) as { access_token: string; refresh_token: string };
    await expect(exchange(first)).rejects.toMatchObject({ error: 'invalid_grant' });
    await cluster.start(gone.node);
    expect((await oidc.tokenIntrospection(config, lostTokens.access_token)).active).toBe(false);
    const tokens = await exchange(await authorise());
    expect(tokens.refresh_token).toBeTruthy();

    // The refresh's answer is lost: the same refresh token again gets that same answer.
    const lostRefresh = cluster.loseAnswer(isGrant('refresh_token'));
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toBeTruthy();
    const goneRefresh = await lostRefresh;
    const repeated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    const kept = JSON.parse(goneRefresh.body) as { access_token: string; refresh_token: string };
    expect(repeated.access_token).toBe(kept.access_token);
    expect(repeated.refresh_token).toBe(kept.refresh_token);
    await cluster.start(goneRefresh.node);

    // One set of tokens: the repeat's works and goes on; the lost exchange's stays dead.
    expect((await oidc.tokenIntrospection(config, repeated.access_token)).active).toBe(true);
    expect((await oidc.tokenIntrospection(config, lostTokens.access_token)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, lostTokens.refresh_token)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const next = await oidc.refreshTokenGrant(config, repeated.refresh_token!);
    expect((await oidc.tokenIntrospection(config, next.access_token)).active).toBe(true);
  }, 240_000);
});
