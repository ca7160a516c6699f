// Row locks for "read, check, then write" rules. PostgreSQL's read committed isolation lets two
// transactions read the same rows and both write; `select … for update` makes the second wait for
// the first and then read what it wrote. SQLite runs one transaction at a time on its one
// connection, so there the transaction alone serialises.
import { SqliteAdapter, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Holds the account's row until the transaction ends: every rule that counts an account's methods,
 * contacts or codes takes this lock first, so the count it reads is the count it writes against. */
export async function lockUser(trx: Transaction<Database>, userId: string): Promise<boolean> {
  if (trx.getExecutor().adapter instanceof SqliteAdapter) {
    return (await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
  }
  return (
    (await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst()) !== undefined
  );
}
