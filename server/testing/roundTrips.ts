// Counts the database round trips one piece of work makes: every statement sent to PostgreSQL (a
// pg client's query, BEGIN and COMMIT included: the client waits for each answer before the next)
// and every statement run on SQLite. Only what the work itself runs is counted, through its async
// context: the outbox's and the sign-in records' polls beside it are not, nor anything it left
// running after it resolved (the records written after an answer).
import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import pg from 'pg';

type Tally = { statements: string[]; open: boolean };

const current = new AsyncLocalStorage<Tally>();
let installed = false;

function note(sql: unknown): void {
  const tally = current.getStore();
  if (tally?.open) tally.statements.push(String(sql).replace(/\s+/g, ' ').trim());
}

function wrap<T extends object>(target: T, method: string, sqlOf: (self: never, args: unknown[]) => unknown): void {
  const original = (target as Record<string, (...args: unknown[]) => unknown>)[method]!;
  (target as Record<string, unknown>)[method] = function (this: never, ...args: unknown[]) {
    note(sqlOf(this, args));
    return original.apply(this, args);
  };
}

function install(): void {
  if (installed) return;
  installed = true;
  wrap(pg.Client.prototype, 'query', (_self, [query]) =>
    typeof query === 'string' ? query : (query as { text?: string } | undefined)?.text,
  );
  for (const method of ['all', 'get', 'run', 'iterate'])
    wrap(StatementSync.prototype, method, (self: StatementSync) => self.sourceSQL);
  wrap(DatabaseSync.prototype, 'exec', (_self, [sql]) => sql);
}

/** Runs the work and gives what it resolved to with the statements it sent, in order. */
export async function roundTripsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  install();
  const tally: Tally = { statements: [], open: true };
  try {
    // Awaited inside: a thenable (Fastify's inject) starts its work when awaited, in the awaiter's context.
    const result = await current.run(tally, async () => await work());
    return { result, statements: tally.statements };
  } finally {
    tally.open = false;
  }
}
