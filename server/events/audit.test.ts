// Every security event is also one structured log line, with nothing secret in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(kinds)('audit log on %s', (kind) => {
  let server: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startTestServer(
      kind,
      { LOG_LEVEL: 'info' },
      {
        logStream: {
          write: (line) => {
            lines.push(line);
          },
        },
      },
    );
  });
  afterAll(async () => server?.stop());

  it('writes one audit line for a failed sign-in, without the password or the device id', async () => {
    const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
    const password = 'Wrong-but-secret-4242!';
    lines.length = 0;
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: DEVICE,
      payload: { username: emma.email, password },
    });
    expect(res.statusCode).toBe(400);

    const audit = lines.map((line) => JSON.parse(line)).filter((entry) => entry.audit === true);
    expect(audit).toHaveLength(1);
    // The same event as the row it stands beside.
    const row = await server.ctx.db
      .selectFrom('security_events')
      .select(['user_id', 'ip'])
      .where('type', '=', 'login_failed')
      .executeTakeFirstOrThrow();
    expect(audit[0]).toMatchObject({
      level: 30,
      audit: true,
      event: 'login_failed',
      user_id: row.user_id,
      ip: row.ip,
      msg: 'security event',
    });
    expect(row.user_id).toEqual(expect.any(String));
    expect(audit[0].device).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const all = lines.join('\n');
    expect(all).not.toContain(password);
    expect(all).not.toContain(DEMO_PASSWORD);
    expect(audit[0].device).not.toBe(DEVICE['x-device-id']);
  });
});
