// A card's activation from the attacker's side: wrong activation codes from many addresses must
// not lock the card's holder out. Each address is stopped after five (its own limit); counted per
// card number from anywhere, past twenty every try on the card needs a raised ALTCHA, and past a
// hundred in a day the top one. The holder's right code with a solved puzzle always passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { makeCard } from '../testing/onboardingKit.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the ceiling of a card number on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, CAPTCHA_ON);
  });
  afterAll(async () => server?.stop());

  const card = (cardNumber: string, activationCode: string, from: string, captcha?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/onboarding/card',
      headers: { 'x-device-id': 'ceiling-device-01' },
      payload: { cardNumber, activationCode, ...(captcha ? { captcha } : {}) },
      remoteAddress: from,
    });
  /** `count` wrong codes, each from an address of its own, each with the puzzle it needs. */
  async function strangers(number: string, count: number, first = 0) {
    for (let i = first; i < first + count; i++) {
      const level = i >= 100 ? 2 : i >= 20 ? 1 : 0;
      const from = `10.${Math.floor(i / 250)}.${i % 250}.7`;
      const answer = await card(number, 'WRONG1', from, await solvedCaptcha(server.app, level));
      expect(answer.statusCode, `wrong code ${i + 1}`).toBe(400);
      expect(answer.json().code).toBe('invalid_activation_code');
    }
  }

  it('asks the holder for a raised puzzle after twenty wrong codes from twenty addresses, never a wait', async () => {
    const mine = await makeCard(server);
    await strangers(mine.number, 19);
    // The twentieth reaches the ceiling: its answer says what the next try needs.
    const twentieth = await card(mine.number, 'WRONG1', '192.0.2.20', await solvedCaptcha(server.app));
    expect(twentieth.json()).toMatchObject({ code: 'invalid_activation_code', captcha: true, captcha_level: 1 });

    const home = '198.51.100.30';
    // Without a puzzle, the holder's right code is asked for one: not a 429, no Retry-After.
    const bare = await card(mine.number, mine.activationCode, home);
    expect(bare.statusCode).toBe(400);
    expect(bare.headers['retry-after']).toBeUndefined();
    expect(bare.json()).toMatchObject({ code: 'captcha_required', captcha: true, captcha_level: 1 });
    // The form's own (low-level) puzzle is refused past the ceiling, however right the code.
    const low = await card(mine.number, mine.activationCode, home, await solvedCaptcha(server.app, 0));
    expect(low.json()).toMatchObject({ code: 'captcha_required', captcha_level: 1 });
    // A raised one lets the right code through.
    const started = await card(mine.number, mine.activationCode, home, await solvedCaptcha(server.app, 1));
    expect(started.statusCode).toBe(201);
    expect(started.json()).toMatchObject({ source: 'card', flow: expect.any(String) });
  });

  it('asks for the top level past a hundred wrong codes in a day, and only that', async () => {
    const mine = await makeCard(server);
    await strangers(mine.number, 100);
    const home = '198.51.100.31';
    expect((await card(mine.number, mine.activationCode, home)).json()).toMatchObject({
      code: 'captcha_required',
      captcha_level: 2,
    });
    expect(
      (await card(mine.number, mine.activationCode, home, await solvedCaptcha(server.app, 1))).json(),
    ).toMatchObject({ code: 'captcha_required', captcha_level: 2 });
    expect((await card(mine.number, mine.activationCode, home, await solvedCaptcha(server.app, 2))).statusCode).toBe(
      201,
    );
  });

  it('counts an unknown card number alike, so the puzzle tells nothing of which numbers exist', async () => {
    const known = await makeCard(server);
    const unknown = '5065 9999 9999 9998';
    await strangers(known.number, 20);
    await strangers(unknown, 20);
    const a = await card(known.number, 'WRONG2', '198.51.100.32');
    const b = await card(unknown, 'WRONG2', '198.51.100.32');
    expect(a.statusCode).toBe(b.statusCode);
    expect(a.body).toBe(b.body);
    expect(a.json()).toMatchObject({ code: 'captcha_required', captcha_level: 1 });
  });

  it('keeps the per-address limit tight: that address alone waits', async () => {
    const mine = await makeCard(server);
    const stranger = '203.0.113.40';
    for (let i = 0; i < 5; i++) await card(mine.number, 'WRONG1', stranger, await solvedCaptcha(server.app));
    const sixth = await card(mine.number, 'WRONG1', stranger, await solvedCaptcha(server.app));
    expect(sixth.statusCode).toBe(429);
    expect(
      (await card(mine.number, mine.activationCode, '198.51.100.33', await solvedCaptcha(server.app))).statusCode,
    ).toBe(201);
  });

  it('binds the level into the signed challenge: a level written into an easy one is refused', async () => {
    const mine = await makeCard(server);
    await strangers(mine.number, 20);
    const forged = JSON.parse(Buffer.from(await solvedCaptcha(server.app, 0), 'base64').toString());
    forged.challenge.parameters.data = { level: 1 };
    const answer = await card(
      mine.number,
      mine.activationCode,
      '198.51.100.34',
      Buffer.from(JSON.stringify(forged)).toString('base64'),
    );
    expect(answer.json()).toMatchObject({ code: 'captcha_invalid', captcha_level: 1 });
  });
});
