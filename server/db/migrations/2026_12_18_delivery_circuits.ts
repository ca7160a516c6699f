// Each delivery provider's circuit breaker (server/delivery/breaker.ts), shared by every instance
// when there is no Redis: its consecutive failures, until when it is skipped, and the lease of the
// one message that tries it again after that.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('delivery_circuits')
    .addColumn('provider', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_until', 'text')
    .addColumn('trial_until', 'text')
    .execute();
}
