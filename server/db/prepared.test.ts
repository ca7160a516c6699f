// The hot path's prepared queries: the values are swapped in on every call, and a query run while
// a transaction holds the connection never reads that transaction's uncommitted rows.
import { describe, expect, it } from 'vitest';
import { databaseKinds, useTestDatabase, type DatabaseKind } from '../testing/harness.ts';
import { userRow } from '../testing/rows.ts';
import type { DatabaseHandle } from './index.ts';
import { compileStatement, prepared } from './prepared.ts';

const kinds = await databaseKinds();

describe.each(kinds)('prepared queries on %s', (kind: DatabaseKind) => {
  let handle: DatabaseHandle;
  const user = (id: string) => userRow(id, { firstname: `First ${id}`, lastname: 'Last', language: 'en' });

  useTestDatabase(kind, async (opened) => {
    handle = opened;
    await handle.db
      .insertInto('users')
      .values([user('u-1'), user('u-2')])
      .execute();
  });

  it('answers each call with its own values', async () => {
    const firstnameOf = prepared(
      handle.db,
      (q, id: string) => q.selectFrom('users').select('firstname').where('id', '=', id),
      1,
    );
    expect(await firstnameOf('u-1')).toEqual([expect.objectContaining({ firstname: 'First u-1' })]);
    expect(await firstnameOf('u-2')).toEqual([expect.objectContaining({ firstname: 'First u-2' })]);
    expect(await firstnameOf('nobody')).toEqual([]);
  });

  it('does not read what an open transaction has not committed, nor what it rolled back', async () => {
    const firstnameOf = prepared(
      handle.db,
      (q, id: string) => q.selectFrom('users').select('firstname').where('id', '=', id),
      1,
    );
    let read: Promise<unknown[]> | null = null;
    await handle.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('users').set({ firstname: 'Uncommitted' }).where('id', '=', 'u-1').execute();
        // Issued while the transaction is open (on SQLite it holds the only connection).
        read = firstnameOf('u-1');
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    expect(await read!).toEqual([expect.objectContaining({ firstname: 'First u-1' })]);
    expect(await firstnameOf('u-1')).toEqual([expect.objectContaining({ firstname: 'First u-1' })]);
  });

  it('reads what a transaction committed, once it has', async () => {
    const firstnameOf = prepared(
      handle.db,
      (q, id: string) => q.selectFrom('users').select('firstname').where('id', '=', id),
      1,
    );
    await handle.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ firstname: 'Committed' }).where('id', '=', 'u-2').execute();
    });
    expect(await firstnameOf('u-2')).toEqual([expect.objectContaining({ firstname: 'Committed' })]);
  });

  it('compiles a statement the bare driver runs with the values of a call in their places', async () => {
    const { sql, values } = compileStatement(
      handle.db,
      (q, id: string, not: string) =>
        q
          .selectFrom('users')
          .select('id')
          .where('firstname', '!=', 'nobody')
          .where('id', '=', id)
          .where('id', '!=', not),
      2,
    );
    expect(values(['u-2', 'u-1'])).toEqual(['nobody', 'u-2', 'u-1']);
    const rows = handle.pgPool
      ? (await handle.pgPool.query(sql, values(['u-2', 'u-1']))).rows
      : handle.sqlite!.prepare(sql).all(...(values(['u-2', 'u-1']) as string[]));
    expect(rows).toEqual([{ id: 'u-2' }]);
  });
});
