import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(kinds)('forgotten username on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());
  const ask = (payload: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-username',
      headers: { 'x-device-id': 'username-device-1' },
      payload,
    });

  it('finds the usernames by card number, masked', async () => {
    const res = await ask({ cardNumber: '5065 0000 0000 0002' });
    expect(res.json()).toEqual({ usernames: ['e***s@example.be', '+32 ••• •• •• 56'] });
  });
  it('finds them by national register number, separators allowed', async () => {
    expect((await ask({ nationalRegisterNumber: '85.07.30-033.28' })).json().usernames).toEqual([
      'e***s@example.be',
      '+32 ••• •• •• 56',
    ]);
  });
  it('says none was found for a valid number of nobody', async () => {
    expect((await ask({ cardNumber: '5065999999999999' })).json()).toEqual({ usernames: [] });
  });
  it('refuses invalid numbers with the spec messages, and asking by both or neither', async () => {
    expect((await ask({ cardNumber: '4065000000000002' })).json()).toMatchObject({
      code: 'invalid_card_number',
      message: 'Your card number is invalid.',
    });
    expect((await ask({ nationalRegisterNumber: '85073003329' })).json().code).toBe('invalid_national_register_number');
    expect((await ask({})).json().code).toBe('validation_failed');
    expect((await ask({ cardNumber: '5065000000000002', nationalRegisterNumber: '85073003328' })).json().code).toBe(
      'validation_failed',
    );
  });
});
