// What the schema gives a row that does not say: a user's language is English (spec §3, "language
// (default en)"), on both databases.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKinds, type DatabaseKind } from '../testing/harness.ts';
import type { DatabaseHandle } from './index.ts';

const kinds = await databaseKinds();

describe.each(kinds)('schema defaults on %s', (kind: DatabaseKind) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    handle = await database.open();
  });
  afterAll(async () => database?.drop());

  it('gives a user who names no language English, and keeps one who does', async () => {
    const row = (id: string) => ({
      id,
      firstname: 'Noa',
      lastname: 'Default',
      password_status: 0 as const,
      mfa_forced: 0 as const,
      mfa_customer: 0 as const,
      has_sso: 0 as const,
      sso_only: 0 as const,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    // Written as a client that knows nothing of the column would write it (the typed builder asks for it).
    const omitted = row('d-1');
    const columns = Object.keys(omitted);
    await sql`insert into users (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(Object.values(omitted))})`.execute(
      handle.db,
    );
    await handle.db
      .insertInto('users')
      .values({ ...row('d-2'), language: 'nl' })
      .execute();
    const languages = await handle.db.selectFrom('users').select(['id', 'language']).orderBy('id').execute();
    expect(languages).toEqual([
      { id: 'd-1', language: 'en' },
      { id: 'd-2', language: 'nl' },
    ]);
  });
});
