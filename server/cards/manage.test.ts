import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { importCards } from './import.ts';
import { setCardStatus } from './manage.ts';

const kinds = await databaseKinds();

describe.each(kinds)('blocking and unblocking cards on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {}, { seed: false });
    await importCards(
      server.ctx.db,
      server.ctx.config.secretKey,
      'number,activation_code\n5065600000000001,ABCD\n5065600000000002,EFGH\n',
    );
  });
  afterAll(async () => server?.stop());

  const statuses = async () =>
    Object.fromEntries(
      (await server.ctx.db.selectFrom('cards').select(['number', 'status']).execute()).map((c) => [c.number, c.status]),
    );

  it('blocks a card, leaves the others, and unblocks it', async () => {
    expect(await statuses()).toEqual({ '5065600000000001': 'issued', '5065600000000002': 'issued' });
    expect(await setCardStatus(server.ctx.db, '5065 6000 0000 0001', 'blocked')).toEqual({ previous: 'issued' });
    expect(await statuses()).toEqual({ '5065600000000001': 'blocked', '5065600000000002': 'issued' });
    // Blocking again changes nothing and says so.
    expect(await setCardStatus(server.ctx.db, '5065600000000001', 'blocked')).toEqual({ previous: 'blocked' });
    expect(await setCardStatus(server.ctx.db, '5065600000000001', 'issued')).toEqual({ previous: 'blocked' });
    expect(await statuses()).toEqual({ '5065600000000001': 'issued', '5065600000000002': 'issued' });
  });

  it('finds no card for an unknown number', async () => {
    expect(await setCardStatus(server.ctx.db, '5065600000000099', 'blocked')).toBeNull();
    expect(await setCardStatus(server.ctx.db, 'not a number', 'issued')).toBeNull();
  });
});
