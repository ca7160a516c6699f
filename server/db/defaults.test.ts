// What the schema gives a row that does not say: a user's language is English (spec §3, "language
// (default en)"), on both databases.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databaseKinds, useTestDatabase, type DatabaseKind } from '../testing/harness.ts';
import { userRow } from '../testing/rows.ts';
import type { DatabaseHandle } from './index.ts';

const kinds = await databaseKinds();

describe.each(kinds)('schema defaults on %s', (kind: DatabaseKind) => {
  let handle: DatabaseHandle;
  useTestDatabase(kind, (opened) => {
    handle = opened;
  });

  it('gives a user who names no language English, and keeps one who does', async () => {
    const row = (id: string) => userRow(id, { firstname: 'Noa', lastname: 'Default' });
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
