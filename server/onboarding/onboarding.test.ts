import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sendingBudgets } from '../methods/challenge-store.ts';
import { standing } from '../ratelimit/index.ts';
import { DEMO_USERS } from '../seed/demo.ts';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { DEVICE, databaseKinds, startTestServer, userIdByEmail, type TestServer } from '../testing/harness.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { makeCard, makeInvitation, onboardingClient } from '../testing/onboardingKit.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const PASSWORD = 'Nieuw-wachtwoord-42';

describe.each(kinds)('onboarding on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  let api: ReturnType<typeof onboardingClient>;
  useServerWithPeers(kind, {}, async (peers) => {
    ({ server, smtp, sms } = peers);
    api = onboardingClient(server, { mails: smtp.mails, messages: sms.messages });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A flow started with the card, at its email step. */
  async function atEmailStep(card: { number: string; activationCode: string }) {
    const flow = (await api.card(card.number, card.activationCode)).json().flow as string;
    expect((await api.terms(flow)).statusCode).toBe(204);
    expect((await api.profile(flow)).statusCode).toBe(204);
    return flow;
  }
  /** …and at its phone step, the card's email proven. */
  async function atPhoneStep(card: { number: string; activationCode: string; email: string }) {
    const flow = await atEmailStep(card);
    await api.email(flow, card.email);
    expect((await api.verify(flow, api.codeFor(card.email))).json()).toEqual({ verified: 'email' });
    return flow;
  }
  /** What a send leaves behind for an address: the messages it got, and its sending budgets spent. */
  async function traces(target: string) {
    const sent = smtp.mails.filter((m) => m.to === target).length + sms.messages.filter((m) => m.to === target).length;
    const budgets = await Promise.all(
      sendingBudgets(server.ctx, '127.0.0.1', target).map(
        async ([limiter, key]) => (await standing(limiter, key)).failures,
      ),
    );
    return { sent, budgets };
  }
  /** A code-sent answer without what names its address or its instant. */
  const sameButWhere = ({
    target: _target,
    expires_at: _expires,
    resend_at: _resend,
    ...rest
  }: Record<string, unknown>) => rest;
  const wrongCode = (right: string) => (right === '00000000' ? '11111111' : '00000000');

  const signIn = (username: string, password = PASSWORD) =>
    server.app.inject({ method: 'POST', url: '/api/token', headers: DEVICE, payload: { username, password } });

  it('creates the account from a card, with the proven email and phone, the consents and the card activated', async () => {
    const card = await makeCard(server);
    const started = (await api.card(card.number.replace(/(\d{4})/g, '$1 '), card.activationCode.toLowerCase())).json();
    expect(started).toMatchObject({
      source: 'card',
      welcome: {
        firstname: 'Nina',
        company: 'Test Company',
        email: card.email,
        emailVerified: false,
        phone: card.phone,
        language: 'nl',
      },
    });
    const flow = started.flow as string;
    expect((await api.terms(flow)).statusCode).toBe(204);
    expect((await api.profile(flow, ' Nina ', 'Nieuw')).statusCode).toBe(204);
    const sent = (await api.email(flow, card.email.toUpperCase())).json();
    expect(sent).toMatchObject({ verified: false, target: `n***@example.be`, expires_in: 900, resend_in: 30 });
    expect(smtp.mails.at(-1)!.raw).toMatch(/new Tessera account|nieuwe Tessera-account/);
    expect((await api.verify(flow, api.codeFor(card.email))).json()).toEqual({ verified: 'email' });
    expect((await api.phone(flow, card.phone, 'whatsapp')).json()).toMatchObject({ verified: false });
    expect(sms.messages.at(-1)).toMatchObject({ channel: 'whatsapp', to: card.phone });
    expect((await api.verify(flow, api.codeFor(card.phone))).json()).toEqual({ verified: 'phone' });
    // The person reads French; the card's holder was said to speak Dutch: the account speaks French.
    const done = await api.password(flow, PASSWORD, PASSWORD, 'fr');
    expect(done.statusCode).toBe(201);
    expect(done.json()).toMatchObject({ outcome: 'card_activated', username: card.email });

    const token = (await signIn(card.email)).json().access_token as string;
    const me = (
      await server.app.inject({
        method: 'GET',
        url: '/api/user',
        headers: { ...DEVICE, authorization: `Bearer ${token}` },
      })
    ).json().data;
    expect(me).toMatchObject({
      firstname: 'Nina',
      lastname: 'Nieuw',
      language: 'fr',
      user_id: expect.stringMatching(/^U-T/),
      password_status: 0,
    });
    expect(me.email).toEqual([{ value: card.email, default: true, verified: true }]);
    expect(me.phone).toEqual([{ value: card.phone, default: true, verified: true }]);
    expect((await signIn(card.phone)).statusCode).toBe(200);
    const stored = await server.ctx.db
      .selectFrom('cards')
      .select(['user_id', 'activated_at'])
      .where('number', '=', card.number)
      .executeTakeFirstOrThrow();
    expect(stored.activated_at).not.toBeNull();
    const userId = await userIdByEmail(server, card.email);
    expect(stored.user_id).toBe(userId);
    const consents = await server.ctx.db
      .selectFrom('consents')
      .select(['kind', 'granted'])
      .where('user_id', '=', userId)
      .orderBy('kind')
      .execute();
    expect(consents.map((c) => [c.kind, Number(c.granted)])).toEqual([
      ['marketing_email', 1],
      ['marketing_partners', 0],
      ['marketing_sms', 0],
      ['privacy', 1],
      ['terms', 1],
    ]);
    // The flow is over: its token opens nothing any more.
    expect((await api.terms(flow)).json().code).toBe('onboarding_expired');
    expect((await api.card(card.number, card.activationCode)).json().code).toBe('card_already_active');
  });

  it('answers a reload with what the flow holds at each step, and no more', async () => {
    const card = await makeCard(server);
    const started = (await api.card(card.number, card.activationCode)).json();
    const flow = started.flow as string;
    const state = async () => {
      const answer = await api.state(flow);
      expect(answer.statusCode).toBe(200);
      return answer.json();
    };
    const first = {
      progress: 'started',
      source: 'card',
      welcome: started.welcome,
      terms: null,
      profile: null,
      email: { address: card.email, verified: false },
      phone: { number: card.phone, verified: false },
      code: null,
    };
    // Exactly these keys: nothing of the card, its account or the flow's record beyond them.
    expect(await state()).toEqual(first);
    await api.terms(flow);
    expect(await state()).toEqual({
      ...first,
      progress: 'terms_accepted',
      terms: { marketing: { email: true, sms: false, partners: false } },
    });
    await api.profile(flow, 'Nina', 'Nieuw');
    expect(await state()).toMatchObject({
      progress: 'profile_saved',
      profile: { firstname: 'Nina', lastname: 'Nieuw' },
      code: null,
    });

    const typed = `typed.${Date.now()}@example.be`;
    await api.email(flow, typed.toUpperCase());
    const mails = smtp.mails.length;
    const waiting = await state();
    expect(waiting).toMatchObject({ progress: 'email_code_sent', email: { address: typed, verified: false } });
    expect(waiting.code).toEqual({
      kind: 'email',
      target: 't***@example.be',
      expires_at: expect.any(String),
      expires_in: 900,
      resend_at: expect.any(String),
      resend_in: 30,
    });
    // Reading sends nothing, and the code sent before still works.
    expect(smtp.mails.length).toBe(mails);
    expect((await api.verify(flow, api.codeFor(typed))).json()).toEqual({ verified: 'email' });
    expect(await state()).toMatchObject({
      progress: 'email_verified',
      email: { address: typed, verified: true },
      code: null,
    });

    await api.phone(flow, card.phone, 'call');
    expect((await state()).code).toMatchObject({
      kind: 'phone',
      target: '+32 ••• •• •• ' + card.phone.slice(-2),
      expires_in: 900,
      resend_in: 30,
    });
    // The timers run on: seconds to go, from the server's clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 40_000);
    expect((await state()).code).toMatchObject({ expires_in: 860, resend_in: 0 });
    vi.setSystemTime(Date.now() + 900_000);
    expect((await state()).code).toMatchObject({ expires_in: 0, resend_in: 0 });
    await api.phone(flow, card.phone);
    await api.verify(flow, api.codeFor(card.phone));
    expect(await state()).toMatchObject({
      progress: 'phone_verified',
      phone: { number: card.phone, verified: true },
      code: null,
    });

    // A finished flow reads as an expired one, as every other call of it does.
    expect((await api.password(flow, PASSWORD)).statusCode).toBe(201);
    expect((await api.state(flow)).json()).toEqual({
      code: 'onboarding_expired',
      message: 'Your activation has expired. Please start again.',
    });
    expect((await api.state(flow)).statusCode).toBe(410);
  });

  it('answers a reload of an invitation with its proven address, and refuses unknown, expired and malformed tokens', async () => {
    const invitation = await makeInvitation(server);
    const started = (await api.invitation(invitation.code)).json();
    expect((await api.state(started.flow)).json()).toEqual({
      progress: 'started',
      source: 'invitation',
      welcome: started.welcome,
      terms: null,
      profile: null,
      email: { address: invitation.email, verified: true },
      phone: null,
      code: null,
    });
    const unknown = await api.state('x'.repeat(43));
    expect(unknown.statusCode).toBe(410);
    expect(unknown.json().code).toBe('onboarding_expired');
    for (const body of [
      {},
      { flow: 'short' },
      { flow: 42 },
      { flow: started.flow, extra: true },
      { flow: `${started.flow}\u0000` },
    ]) {
      const bad = await api.post('state', body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().code).toBe('validation_failed');
    }
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3601_000);
    expect((await api.state(started.flow)).json().code).toBe('onboarding_expired');
  });

  it('refuses every call out of order, whatever the browser sends', async () => {
    const card = await makeCard(server);
    const flow = (await api.card(card.number, card.activationCode)).json().flow as string;
    expect((await api.profile(flow)).json().code).toBe('onboarding_out_of_order');
    expect((await api.email(flow, card.email)).json().code).toBe('onboarding_out_of_order');
    expect((await api.verify(flow, '12345678')).json().code).toBe('onboarding_out_of_order');
    expect((await api.password(flow, PASSWORD)).json().code).toBe('onboarding_out_of_order');
    expect((await api.terms(flow, false)).json()).toMatchObject({
      code: 'terms_required',
      message: 'Please accept the terms and the privacy policy to use your card.',
    });
    expect((await api.terms(flow)).statusCode).toBe(204);
    expect((await api.email(flow, card.email)).json().code).toBe('onboarding_out_of_order');
    expect((await api.profile(flow, '  ', 'X')).json()).toMatchObject({
      code: 'validation_failed',
      fields: [{ field: 'firstname', code: 'required' }],
    });
    expect((await api.profile(flow)).statusCode).toBe(204);
    expect((await api.phone(flow, card.phone)).json().code).toBe('onboarding_out_of_order');
    expect((await api.email(flow, card.email)).statusCode).toBe(200);
    expect((await api.phone(flow, card.phone)).json().code).toBe('onboarding_out_of_order');
    expect((await api.password(flow, PASSWORD)).json().code).toBe('onboarding_out_of_order');
    expect((await api.terms('x'.repeat(43))).json()).toMatchObject({
      code: 'onboarding_expired',
      message: 'Your activation has expired. Please start again.',
    });
    // Nothing was created along the way.
    expect(
      await server.ctx.db.selectFrom('user_emails').select('id').where('value', '=', card.email).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('tells nothing of which card numbers exist: only a malformed number is "invalid", any other wrong pair reads as a wrong code', async () => {
    const card = await makeCard(server);
    expect((await api.card('4065 0000 0000 0001', '123456')).json()).toMatchObject({
      code: 'invalid_card_number',
      message: 'Your card number is invalid.',
    });
    const unknown = await api.card('5065 9999 9999 9999', '123456');
    const known = await api.card(card.number, '123456');
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    expect(known.json()).toEqual({ code: 'invalid_activation_code', message: 'Your activation code is invalid.' });
    // A malformed activation code reads the same for both too.
    expect((await api.card('5065 9999 9999 9998', '!')).body).toBe((await api.card(card.number, '!')).body);
  });

  it('stops a stranger after five wrong codes for a card, while its holder still activates it from their own connection', async () => {
    const card = await makeCard(server);
    const stranger = '203.0.113.7';
    for (let i = 0; i < 5; i++) {
      expect((await api.card(card.number, 'WRONG1', stranger)).json()).toMatchObject({
        code: 'invalid_activation_code',
      });
    }
    const sixth = await api.card(card.number, 'WRONG1', stranger);
    expect(sixth.statusCode).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(3500);
    // The stranger's address is blocked for this card, even with the right code…
    expect((await api.card(card.number, card.activationCode, stranger)).json().code).toBe('too_many_attempts');
    // …and an unknown number is throttled the same way, so the block tells nothing either.
    for (let i = 0; i < 6; i++) await api.card('5065 9999 9999 9997', 'WRONG1', stranger);
    expect((await api.card('5065 9999 9999 9997', 'WRONG1', stranger)).json().code).toBe('too_many_attempts');
    // The holder, from their own address, is not locked out.
    expect((await api.card(card.number, card.activationCode, '198.51.100.20')).statusCode).toBe(201);
  });

  it('never blocks a card number for wrong codes from many addresses: its ceiling asks for a puzzle (ceiling.test.ts), never a wait', async () => {
    const card = await makeCard(server);
    for (let i = 0; i < 21; i++)
      expect((await api.card(card.number, 'WRONG1', `192.0.2.${i + 1}`)).statusCode).toBe(400);
    // With the CAPTCHA turned off by configuration there is no puzzle to ask for: the holder passes.
    expect((await api.card(card.number, card.activationCode, '198.51.100.21')).statusCode).toBe(201);
  });

  it('refuses a blocked card, and shows whose account holds an activated one', async () => {
    const blocked = await makeCard(server, { status: 'blocked' });
    expect((await api.card(blocked.number, blocked.activationCode)).json()).toMatchObject({ code: 'card_blocked' });
    const active = await api.card('5065 0000 0000 0002', '200202');
    expect(active.statusCode).toBe(409);
    expect(active.json()).toEqual({
      code: 'card_already_active',
      message: 'This card is already activated.',
      usernames: ['e***s@example.be', '+32 ••• •• •• 56'],
    });
    expect((await api.card('5065 0000 0000 0002', '999999')).json().code).toBe('invalid_activation_code');
  });

  it('starts from an invitation whose address is proven, and spends the invitation with the account', async () => {
    const invitation = await makeInvitation(server, { customerUserId: `C-I${Date.now()}` });
    expect((await api.invitation('TESS-0000-0000')).json()).toMatchObject({
      code: 'invalid_invitation_code',
      message: 'The code is invalid.',
    });
    const started = (await api.invitation(invitation.code.toLowerCase().replace(/-/g, ' '))).json();
    expect(started).toMatchObject({
      source: 'invitation',
      welcome: { email: invitation.email, emailVerified: true, company: 'Invite Corp', language: 'fr' },
    });
    const flow = started.flow as string;
    await api.terms(flow);
    await api.profile(flow, 'Iris', 'Invited');
    const mails = smtp.mails.length;
    // "Continue with the current email": no code, straight on to the phone.
    expect((await api.email(flow, invitation.email)).json()).toEqual({ verified: true, target: 'i***@example.be' });
    expect(smtp.mails.length).toBe(mails);
    const phone = `+32473${String(Date.now()).slice(-6)}`;
    await api.phone(flow, phone);
    await api.verify(flow, api.codeFor(phone));
    expect((await api.password(flow, PASSWORD)).json()).toMatchObject({
      outcome: 'invitation',
      username: invitation.email,
    });
    const user = await server.ctx.db
      .selectFrom('users')
      .innerJoin('user_emails', 'user_emails.user_id', 'users.id')
      .select(['users.customer_user_id', 'users.mfa_customer'])
      .where('user_emails.value', '=', invitation.email)
      .executeTakeFirstOrThrow();
    expect(user.customer_user_id).toMatch(/^C-I/);
    expect(Number(user.mfa_customer)).toBe(1);
    expect((await api.invitation(invitation.code)).json().code).toBe('invalid_invitation_code');
    const expired = await makeInvitation(server, { expired: true });
    expect((await api.invitation(expired.code)).json().code).toBe('invalid_invitation_code');
  });

  it("gives the account the language the person reads, as the variant offers it, whatever the card's holder speaks", async () => {
    const languageOf = async (email: string) =>
      (
        await server.ctx.db
          .selectFrom('users')
          .innerJoin('user_emails', 'user_emails.user_id', 'users.id')
          .select('users.language')
          .where('user_emails.value', '=', email)
          .executeTakeFirstOrThrow()
      ).language;
    // The holder speaks Dutch (makeCard): each reads another language as they make the account.
    for (const [read, stored] of [
      ['en', 'en'],
      // Luxembourg's French on the Belgian site: Belgium's French.
      ['fr_LU', 'fr'],
      // A language this site does not offer: the site's own.
      ['de_LU', 'nl'],
    ] as const) {
      const card = await makeCard(server);
      const flow = await api.throughPhone(card);
      expect((await api.password(flow, PASSWORD, PASSWORD, read)).statusCode).toBe(201);
      expect(await languageOf(card.email)).toBe(stored);
    }
    // Not a language at all: refused, like any malformed field.
    const card = await makeCard(server);
    const flow = await api.throughPhone(card);
    expect((await api.password(flow, PASSWORD, PASSWORD, 'xx')).json().code).toBe('validation_failed');
  });

  it('signs the new account in as a password sign-in does: the session, or the forced set-up of a second factor', async () => {
    const user = (token: string) =>
      server.app.inject({ method: 'GET', url: '/api/user', headers: { ...DEVICE, authorization: `Bearer ${token}` } });
    const card = await makeCard(server);
    const done = await api.password(await api.throughPhone(card), PASSWORD);
    expect(done.json().signIn).toEqual({
      kind: 'session',
      token: { access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number) },
    });
    // The session's cookie is set, as a sign-in sets it, and the session is a whole one.
    expect(done.cookies.map((c) => c.name)).toContain(server.ctx.cookieName);
    expect((await user(done.json().signIn.token.access_token)).json().data).toMatchObject({ firstname: 'Nina' });

    // An invitation whose account must have a second factor: a session that may only set one up,
    // the same answer a password sign-in of that account gets.
    const invitation = await makeInvitation(server, { mfaForced: true });
    const flow = (await api.invitation(invitation.code)).json().flow as string;
    await api.terms(flow);
    await api.profile(flow, 'Iris', 'Invited');
    await api.email(flow, invitation.email);
    const phone = `+32474${String(Date.now()).slice(-6)}`;
    await api.phone(flow, phone);
    await api.verify(flow, api.codeFor(phone));
    const forced = (await api.password(flow, PASSWORD)).json().signIn;
    expect(forced).toMatchObject({ kind: 'session', token: { mfa_enrolment: 'required' } });
    expect((await signIn(invitation.email)).json()).toMatchObject({ mfa_enrolment: 'required' });
    // Its session opens nothing but the set-up.
    const status = await server.app.inject({
      method: 'GET',
      url: '/api/mfa/status',
      headers: { ...DEVICE, authorization: `Bearer ${forced.token.access_token}` },
    });
    expect(status.json()).toMatchObject({ enrolment: 'required' });
    expect((await user(forced.token.access_token)).statusCode).toBe(200);
  });

  it('keeps codes single use, five tries each, for fifteen minutes, with a resend wait', async () => {
    const card = await makeCard(server);
    const flow = (await api.card(card.number, card.activationCode)).json().flow as string;
    await api.terms(flow);
    await api.profile(flow);
    await api.email(flow, card.email);
    expect((await api.email(flow, card.email)).json()).toMatchObject({ code: 'resend_too_soon' });
    const right = api.codeFor(card.email);
    const wrong = right === '00000000' ? '11111111' : '00000000';
    expect((await api.verify(flow, wrong)).json()).toMatchObject({ code: 'invalid_code', attempts_left: 4 });
    for (let i = 0; i < 3; i++) await api.verify(flow, wrong);
    expect((await api.verify(flow, wrong)).json()).toMatchObject({ code: 'challenge_closed', attempts_left: 0 });
    expect((await api.verify(flow, right)).json().code).toBe('challenge_closed');
    // A new code after the wait replaces the dead one.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 31_000);
    expect((await api.email(flow, card.email)).json()).toMatchObject({ verified: false, resend_in: 15 });
    const second = api.codeFor(card.email);
    // The first code, typed now: the person is told it was replaced, and it counts as a wrong one.
    expect((await api.verify(flow, right)).json()).toMatchObject({ code: 'code_replaced', attempts_left: 4 });
    vi.setSystemTime(Date.now() + 901_000);
    expect((await api.verify(flow, second)).json().code).toBe('code_expired');
    vi.setSystemTime(Date.now() + 16_000);
    // The expired code can no longer be typed: the new one is a first code again (the one resend
    // rule: 30 s, then 15 s after each resend), not a resend of it.
    expect((await api.email(flow, card.email)).json()).toMatchObject({ verified: false, resend_in: 30 });
    const third = api.codeFor(card.email);
    expect((await api.verify(flow, third)).json()).toEqual({ verified: 'email' });
    expect((await api.verify(flow, third)).json().code).toBe('onboarding_out_of_order');
  });

  it('refuses malformed emails and phones at once', async () => {
    const card = await makeCard(server);
    const flow = await atEmailStep(card);
    expect((await api.email(flow, 'not-an-email')).json()).toMatchObject({
      code: 'invalid_email',
      message: 'The email provided is invalid',
    });
    await api.email(flow, card.email);
    await api.verify(flow, api.codeFor(card.email));
    expect((await api.phone(flow, '12')).json().code).toBe('invalid_phone');
  });

  // From a stranger's side: one flow, started with a card, probing addresses. Each address in its
  // own flow, so that one's resend wait does not show in the other's answer.
  it('answers a code for a taken email as for a free one, and says "already used" only to its right code', async () => {
    const taken = emma.email;
    const free = `free.${Date.now()}@example.be`;
    const [onTaken, onFree] = [await atEmailStep(await makeCard(server)), await atEmailStep(await makeCard(server))];
    const before = { taken: await traces(taken), free: await traces(free) };

    const [toTaken, toFree] = [await api.email(onTaken, taken), await api.email(onFree, free)];
    expect(toTaken.statusCode).toBe(200);
    expect(toFree.statusCode).toBe(toTaken.statusCode);
    expect(Object.keys(toTaken.json()).sort()).toEqual(Object.keys(toFree.json()).sort());
    expect(sameButWhere(toTaken.json())).toEqual(sameButWhere(toFree.json()));
    expect(toTaken.json()).toMatchObject({
      verified: false,
      target: 'e***@example.be',
      expires_in: 900,
      resend_in: 30,
    });
    // The same work: a code went to each, in the same words, and each spent its sending budgets.
    expect(await traces(taken)).toEqual({
      sent: before.taken.sent + 1,
      budgets: before.taken.budgets.map((n) => n + 1),
    });
    expect(await traces(free)).toEqual({ sent: before.free.sent + 1, budgets: before.free.budgets.map((n) => n + 1) });
    for (const to of [taken, free])
      expect(smtp.mails.filter((m) => m.to === to).at(-1)!.raw).toMatch(/nieuwe Tessera-account/);

    // A wrong code tells nothing: the same answer for both.
    const [wrongTaken, wrongFree] = [
      await api.verify(onTaken, wrongCode(api.codeFor(taken))),
      await api.verify(onFree, wrongCode(api.codeFor(free))),
    ];
    expect(wrongTaken.statusCode).toBe(wrongFree.statusCode);
    expect(wrongTaken.json()).toEqual(wrongFree.json());
    expect(wrongTaken.json()).toMatchObject({ code: 'invalid_code', attempts_left: 4 });

    // The right code proves the address: only then "already used", and the address stays unproven.
    const right = await api.verify(onTaken, api.codeFor(taken));
    expect(right.statusCode).toBe(409);
    expect(right.json()).toEqual({ code: 'email_unavailable', message: 'This email is invalid or already used' });
    expect((await api.verify(onFree, api.codeFor(free))).json()).toEqual({ verified: 'email' });
    expect((await api.state(onTaken)).json()).toMatchObject({ email: { address: taken, verified: false }, code: null });
    expect((await api.phone(onTaken, '0470 99 99 99')).json().code).toBe('onboarding_out_of_order');
    // The code is spent: typed again, it proves nothing.
    expect((await api.verify(onTaken, api.codeFor(taken))).json().code).toBe('onboarding_out_of_order');

    // The person types another address, and goes on.
    const other = `other.${Date.now()}@example.be`;
    expect((await api.email(onTaken, other)).json()).toMatchObject({ verified: false });
    expect((await api.verify(onTaken, api.codeFor(other))).json()).toEqual({ verified: 'email' });
  });

  it('answers a code for a taken phone as for a free one, and says "already used" only to its right code', async () => {
    const taken = emma.phone;
    const free = `+32473${String(Date.now()).slice(-6)}`;
    const [onTaken, onFree] = [await atPhoneStep(await makeCard(server)), await atPhoneStep(await makeCard(server))];
    const before = { taken: await traces(taken), free: await traces(free) };

    const [toTaken, toFree] = [await api.phone(onTaken, '0470 12 34 56'), await api.phone(onFree, free)];
    expect(toTaken.statusCode).toBe(200);
    expect(toFree.statusCode).toBe(toTaken.statusCode);
    expect(Object.keys(toTaken.json()).sort()).toEqual(Object.keys(toFree.json()).sort());
    expect(sameButWhere(toTaken.json())).toEqual(sameButWhere(toFree.json()));
    expect(await traces(taken)).toEqual({
      sent: before.taken.sent + 1,
      budgets: before.taken.budgets.map((n) => n + 1),
    });
    expect(await traces(free)).toEqual({ sent: before.free.sent + 1, budgets: before.free.budgets.map((n) => n + 1) });

    const [wrongTaken, wrongFree] = [
      await api.verify(onTaken, wrongCode(api.codeFor(taken))),
      await api.verify(onFree, wrongCode(api.codeFor(free))),
    ];
    expect(wrongTaken.statusCode).toBe(wrongFree.statusCode);
    expect(wrongTaken.json()).toEqual(wrongFree.json());

    const right = await api.verify(onTaken, api.codeFor(taken));
    expect(right.statusCode).toBe(409);
    expect(right.json()).toEqual({
      code: 'phone_unavailable',
      message: 'This phone number is invalid or already used',
    });
    expect((await api.verify(onFree, api.codeFor(free))).json()).toEqual({ verified: 'phone' });
    // Not proven: no account with it.
    expect((await api.password(onTaken, PASSWORD)).json().code).toBe('onboarding_out_of_order');
    expect((await api.state(onTaken)).json()).toMatchObject({
      progress: 'phone_code_sent',
      phone: { number: taken, verified: false },
      code: null,
    });

    const other = `+32474${String(Date.now()).slice(-6)}`;
    await api.phone(onTaken, other);
    expect((await api.verify(onTaken, api.codeFor(other))).json()).toEqual({ verified: 'phone' });
    expect((await api.password(onTaken, PASSWORD)).json()).toMatchObject({ outcome: 'card_activated' });
  });

  it('tells the holder of an invitation, whose address is proven, that an account took that address', async () => {
    const invitation = await makeInvitation(server);
    // Someone else makes an account with the invited address first, proving it by its code.
    const card = await makeCard(server);
    await api.password(await api.throughPhone({ ...card, email: invitation.email }), PASSWORD);
    const flow = (await api.invitation(invitation.code)).json().flow as string;
    await api.terms(flow);
    await api.profile(flow);
    const mails = smtp.mails.length;
    expect((await api.email(flow, invitation.email)).json()).toEqual({
      code: 'email_unavailable',
      message: 'This email is invalid or already used',
    });
    expect(smtp.mails.length).toBe(mails);
  });

  it('lets the person go back and change the email after the phone is proven, without proving the phone again', async () => {
    const card = await makeCard(server);
    const flow = await api.throughPhone(card);
    const other = `changed.${Date.now()}@example.be`;
    await api.email(flow, other);
    // The new address is not proven yet: no account.
    expect((await api.password(flow, PASSWORD)).json().code).toBe('onboarding_out_of_order');
    expect((await api.verify(flow, api.codeFor(other))).json()).toEqual({ verified: 'email' });
    // The phone stays proven ("continue with the current phone").
    expect((await api.phone(flow, card.phone)).json()).toMatchObject({ verified: true });
    expect((await api.password(flow, PASSWORD)).json()).toMatchObject({ outcome: 'card_activated', username: other });
  });

  it('creates the account but says so when the card was activated or blocked meanwhile', async () => {
    const card = await makeCard(server);
    const first = await api.throughPhone(card);
    const second = await api.throughPhone({
      ...card,
      email: `twin.${Date.now()}@example.be`,
      phone: `+32474${String(Date.now()).slice(-6)}`,
    });
    expect((await api.password(first, PASSWORD)).json().outcome).toBe('card_activated');
    const late = await api.password(second, PASSWORD);
    expect(late.statusCode).toBe(201);
    expect(late.json().outcome).toBe('card_activation_failed');
    expect((await signIn(late.json().username)).statusCode).toBe(200);

    const lost = await makeCard(server);
    const flow = await api.throughPhone(lost);
    await server.ctx.db.updateTable('cards').set({ status: 'blocked' }).where('number', '=', lost.number).execute();
    expect((await api.password(flow, PASSWORD)).json().outcome).toBe('card_activation_failed');
  });

  it('creates the account and activates the card together or not at all: a failure between them leaves neither, and the next try does both', async () => {
    const card = await makeCard(server);
    const flow = await api.throughPhone(card);
    // The database refuses to activate cards, as a crash at that instant would stop it.
    if (kind === 'postgres') {
      await sql`create function refuse_activation() returns trigger language plpgsql as $$ begin raise exception 'power cut'; end $$`.execute(
        server.ctx.db,
      );
      await sql`create trigger refuse_activation before update of activated_at on cards for each row execute function refuse_activation()`.execute(
        server.ctx.db,
      );
    } else {
      await sql`create trigger refuse_activation before update of activated_at on cards begin select raise(abort, 'power cut'); end`.execute(
        server.ctx.db,
      );
    }
    try {
      expect((await api.password(flow, PASSWORD)).statusCode).toBe(500);
    } finally {
      await sql`drop trigger refuse_activation${sql.raw(kind === 'postgres' ? ' on cards' : '')}`.execute(
        server.ctx.db,
      );
    }
    expect(
      await server.ctx.db.selectFrom('user_emails').select('id').where('value', '=', card.email).executeTakeFirst(),
    ).toBeUndefined();
    expect(
      await server.ctx.db
        .selectFrom('cards')
        .select('activated_at')
        .where('number', '=', card.number)
        .executeTakeFirstOrThrow(),
    ).toEqual({ activated_at: null });
    // The same flow finishes on the next try, card and all.
    expect((await api.password(flow, PASSWORD)).json()).toMatchObject({
      outcome: 'card_activated',
      username: card.email,
    });
    const owner = await server.ctx.db
      .selectFrom('cards')
      .innerJoin('user_emails', 'user_emails.user_id', 'cards.user_id')
      .select('user_emails.value')
      .where('cards.number', '=', card.number)
      .executeTakeFirstOrThrow();
    expect(owner.value).toBe(card.email);
  });

  it('sends one code when thirty requests for the same address race the resend wait', async () => {
    const card = await makeCard(server);
    const flow = (await api.card(card.number, card.activationCode)).json().flow as string;
    await api.terms(flow);
    await api.profile(flow);
    const before = smtp.mails.filter((m) => m.to === card.email).length;
    const answers = await atOnce(30, () => api.email(flow, card.email));
    expect(statusCounts(answers)).toEqual({ 200: 1, 429: 29 });
    expect(smtp.mails.filter((m) => m.to === card.email).length).toBe(before + 1);
    expect((await api.verify(flow, api.codeFor(card.email))).json()).toEqual({ verified: 'email' });
  });

  it('gives an address proven by two flows at once to the first account only', async () => {
    const [one, two] = [await makeCard(server), await makeCard(server)];
    const first = await api.throughPhone(one);
    const second = await api.throughPhone({ ...two, email: one.email, phone: one.phone });
    const answers = await Promise.all([api.password(first, PASSWORD), api.password(second, PASSWORD)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.statusCode === 409)!.json().code).toMatch(/^(email|phone)_unavailable$/);
    expect(
      await server.ctx.db.selectFrom('user_emails').select('id').where('value', '=', one.email).execute(),
    ).toHaveLength(1);
  });

  it('takes the password once, only a good one, and refuses a flow past its life', async () => {
    const card = await makeCard(server);
    const flow = await api.throughPhone(card);
    expect((await api.password(flow, PASSWORD, 'something else')).json()).toMatchObject({
      code: 'weak_new_password',
      problems: ['mismatch'],
    });
    expect((await api.password(flow, 'short1!')).json()).toMatchObject({
      code: 'weak_new_password',
      problems: ['too_short'],
    });
    expect((await api.password(flow, 'Password-2026!')).json()).toMatchObject({ code: 'common_password' });
    const [a, b] = await Promise.all([api.password(flow, PASSWORD), api.password(flow, PASSWORD)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 410]);
    expect(
      await server.ctx.db.selectFrom('user_emails').select('id').where('value', '=', card.email).execute(),
    ).toHaveLength(1);

    const slow = await makeCard(server);
    const stale = (await api.card(slow.number, slow.activationCode)).json().flow as string;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3601_000);
    expect((await api.terms(stale)).json().code).toBe('onboarding_expired');
  });
});

describe('onboarding behind the CAPTCHA', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', CAPTCHA_ON);
  });
  afterAll(async () => server?.stop());

  it('starts only with a solved challenge', async () => {
    const card = await makeCard(server);
    const post = (path: string, payload: object) =>
      server.app.inject({ method: 'POST', url: `/api/onboarding/${path}`, headers: DEVICE, payload });
    expect((await post('card', { cardNumber: card.number, activationCode: card.activationCode })).json().code).toBe(
      'captcha_required',
    );
    expect((await post('invitation', { code: 'TESS-JOIN-0001' })).json().code).toBe('captcha_required');
    const started = await post('card', {
      cardNumber: card.number,
      activationCode: card.activationCode,
      captcha: await solvedCaptcha(server.app),
    });
    expect(started.statusCode).toBe(201);
    expect(
      (await post('invitation', { code: 'TESS-JOIN-0001', captcha: await solvedCaptcha(server.app) })).statusCode,
    ).toBe(201);
  });
});
