import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInvitationCode } from '../../contract/rules.ts';
import { invitationCodeHash } from '../methods/invitation-code.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { createInvitation, InvitationInputError, type InvitationInput } from './create.ts';

const kinds = await databaseKinds();
const DAY = 86_400_000;

describe.each(kinds)('creating invitations on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {}, { seed: false });
  });
  afterAll(async () => server?.stop());

  const byCode = (code: string) =>
    server.ctx.db
      .selectFrom('invitations')
      .selectAll()
      .where('code_hash', '=', invitationCodeHash(server.ctx.config.secretKey, code))
      .executeTakeFirst();
  const count = async () =>
    Number(
      (
        await server.ctx.db
          .selectFrom('invitations')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('takes a code of our own choosing (published demo codes), and refuses one that is not a code', async () => {
    const created = await createInvitation(server.ctx.db, server.ctx.config.secretKey, {
      email: 'demo.code@example.be',
      code: 'TESS-JOIN-0099',
    });
    expect(created.code).toBe('TESS-JOIN-0099');
    expect((await byCode('tess join 0099'))?.email).toBe('demo.code@example.be');
    await expect(
      createInvitation(server.ctx.db, server.ctx.config.secretKey, { email: 'x@example.be', code: 'TESS-JOIN' }),
    ).rejects.toThrow(/not an invitation code/);
  });

  it('stores an invitation found by the keyed hash of its code, never the code', async () => {
    const now = Date.parse('2026-11-23T10:00:00.000Z');
    const created = await createInvitation(
      server.ctx.db,
      server.ctx.config.secretKey,
      {
        email: ' Anna.Peeters@Example.BE ',
        firstname: ' Anna ',
        lastname: 'Peeters',
        language: 'NL',
        company: 'Acme',
        userId: 'U-1',
        customerUserId: 'C-1',
        fridomUserId: 'F-1',
        mfaForced: true,
      },
      now,
    );
    expect(created.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(isInvitationCode(created.code)).toBe(true);
    expect(created.expiresAt).toBe(new Date(now + 14 * DAY).toISOString());
    const row = await byCode(created.code);
    expect(row).toMatchObject({
      id: created.id,
      email: 'anna.peeters@example.be',
      firstname: 'Anna',
      lastname: 'Peeters',
      language: 'nl',
      company: 'Acme',
      user_id: 'U-1',
      customer_user_id: 'C-1',
      fridom_user_id: 'F-1',
      mfa_forced: 1,
      mfa_customer: 0,
      expires_at: created.expiresAt,
      created_at: new Date(now).toISOString(),
      used_at: null,
      used_by: null,
    });
    // Typed loosely (lower case, no dashes), the code still finds it; the clear code is nowhere in the row.
    expect((await byCode(created.code.toLowerCase().replace(/-/g, '')))?.id).toBe(created.id);
    expect(JSON.stringify(row)).not.toContain(created.code.replace(/-/g, '').slice(0, 8));
    expect(await byCode('0000-0000-0000')).toBeUndefined();
  });

  it('takes the validity in days, and gives each invitation its own code', async () => {
    const now = Date.now();
    const a = await createInvitation(
      server.ctx.db,
      server.ctx.config.secretKey,
      { email: 'b@example.be', days: 1, mfaCustomer: true },
      now,
    );
    const b = await createInvitation(
      server.ctx.db,
      server.ctx.config.secretKey,
      { email: 'b@example.be', days: 90, language: 'fr-lu' },
      now,
    );
    expect(a.expiresAt).toBe(new Date(now + DAY).toISOString());
    expect(b.expiresAt).toBe(new Date(now + 90 * DAY).toISOString());
    expect(a.code).not.toBe(b.code);
    expect(await byCode(a.code)).toMatchObject({
      mfa_forced: 0,
      mfa_customer: 1,
      language: null,
      firstname: null,
      company: null,
    });
    expect((await byCode(b.code))?.language).toBe('fr_LU');
  });

  it.each<[InvitationInput, string]>([
    [{ email: 'not-an-email' }, 'email'],
    [{ email: 'a@example.be', language: 'de' }, 'language'],
    [{ email: 'a@example.be', days: 0 }, 'days'],
    [{ email: 'a@example.be', days: 91 }, 'days'],
    [{ email: 'a@example.be', days: 1.5 }, 'days'],
    [{ email: 'a@example.be', firstname: 'x'.repeat(101) }, 'firstname'],
    [{ email: 'a@example.be', company: 'two\nlines' }, 'company'],
  ])('refuses %j, naming %s, and stores nothing', async (input, field) => {
    const before = await count();
    const error = await createInvitation(server.ctx.db, server.ctx.config.secretKey, input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvitationInputError);
    expect((error as InvitationInputError).field).toBe(field);
    expect(await count()).toBe(before);
  });
});
