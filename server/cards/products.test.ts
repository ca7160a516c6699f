// The account's cards and their voucher products (GET /api/cards, PUT /api/cards/{id}/products/{p})
// on both databases: masked numbers, the switch stored, another account's card unknown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { AccountCardList } from '../../contract/profile.ts';
import { DEMO_CARDS, DEMO_USERS } from '../seed/demo.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { signInCookie } from '../testing/oidcKit.ts';
import type { AddressInfo } from 'node:net';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const claire = DEMO_USERS.find((u) => u.key === 'customer')!;

describe.each(kinds)('cards and their products on %s', (kind) => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => server?.stop());

  const call = (method: 'GET' | 'PUT', url: string, cookie: string, payload?: object) =>
    server.app.inject({
      method,
      url,
      headers: { 'x-device-id': 'cards-device-01', cookie },
      ...(payload ? { payload } : {}),
    });

  it("lists the account's cards masked, every product active until switched, and keeps a switch", async () => {
    const cookie = await signInCookie(base, emma.email);
    const listed = v.parse(AccountCardList, (await call('GET', '/api/cards', cookie)).json()).data;
    const own = DEMO_CARDS.filter((c) => c.holder === 'cardholder');
    expect(listed.map((c) => c.number)).toEqual(own.map((c) => `•••• •••• •••• ${c.number.slice(-4)}`));
    expect(JSON.stringify(listed)).not.toContain(own[0]!.number);
    expect(listed[0]!.products).toEqual([
      { product: 'emv', active: true },
      { product: 'eco', active: true },
      { product: 'gift', active: true },
      { product: 'activ', active: true },
    ]);
    const off = await call('PUT', `/api/cards/${listed[0]!.id}/products/gift`, cookie, { active: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().data.products).toContainEqual({ product: 'gift', active: false });
    const again = v.parse(AccountCardList, (await call('GET', '/api/cards', cookie)).json()).data;
    expect(again[0]!.products.find((p) => p.product === 'gift')).toEqual({ product: 'gift', active: false });
    expect(
      (await call('PUT', `/api/cards/${listed[0]!.id}/products/gift`, cookie, { active: true })).json().data.products,
    ).toContainEqual({ product: 'gift', active: true });
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('detail')
      .where('type', '=', 'card_product_changed')
      .execute();
    expect(events.length).toBeGreaterThanOrEqual(2);
  });

  it("answers another account's card as unknown, and refuses a product or body it does not know", async () => {
    const owner = await signInCookie(base, emma.email);
    const cardId = v.parse(AccountCardList, (await call('GET', '/api/cards', owner)).json()).data[0]!.id;
    const stranger = await signInCookie(base, claire.email);
    expect(v.parse(AccountCardList, (await call('GET', '/api/cards', stranger)).json()).data).toEqual([]);
    const theirs = await call('PUT', `/api/cards/${cardId}/products/emv`, stranger, { active: false });
    expect(theirs.statusCode).toBe(404);
    const unknown = await call('PUT', `/api/cards/${crypto.randomUUID()}/products/emv`, stranger, { active: false });
    expect(unknown.json()).toEqual(theirs.json());
    expect((await call('PUT', `/api/cards/${cardId}/products/caviar`, owner, { active: false })).statusCode).toBe(400);
    expect((await call('PUT', `/api/cards/not-a-uuid/products/emv`, owner, { active: false })).statusCode).toBe(400);
    expect((await call('PUT', `/api/cards/${cardId}/products/emv`, owner, { active: 'no' })).statusCode).toBe(400);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/cards', headers: { 'x-device-id': 'cards-device-01' } }))
        .statusCode,
    ).toBe(401);
    const state = await server.ctx.db
      .selectFrom('card_product_states')
      .selectAll()
      .where('card_id', '=', cardId)
      .where('product', '=', 'emv')
      .execute();
    expect(state).toEqual([]);
  });

  it('keeps one state per product whatever thirty simultaneous switches do', async () => {
    const cookie = await signInCookie(base, emma.email);
    const cardId = v.parse(AccountCardList, (await call('GET', '/api/cards', cookie)).json()).data[0]!.id;
    const answers = await atOnce(30, (i) =>
      call('PUT', `/api/cards/${cardId}/products/eco`, cookie, { active: i % 2 === 0 }),
    );
    expect(statusCounts(answers)).toEqual({ 200: 30 });
    const rows = await server.ctx.db
      .selectFrom('card_product_states')
      .selectAll()
      .where('card_id', '=', cardId)
      .where('product', '=', 'eco')
      .execute();
    expect(rows).toHaveLength(1);
  });
});
