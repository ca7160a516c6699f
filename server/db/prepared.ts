// Hot-path queries built and compiled once. Kysely builds and compiles a query on every call; for
// the few queries every authenticated request runs, we compile with stand-in values once and
// afterwards only swap the values in.
import { CompiledQuery, type Compilable } from 'kysely';
import type { Db } from './index.ts';

const STAND_IN = '\u0000stand-in:';

export function prepared<Args extends Array<string | null>, Row>(
  db: Db,
  build: (db: Db, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (...args: Args) => Promise<Row[]> {
  const standIns = Array.from({ length: arity }, (_, i) => `${STAND_IN}${i}`) as unknown as Args;
  const compiled = build(db, ...standIns).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(STAND_IN) ? Number(value.slice(STAND_IN.length)) : -1);
  for (let i = 0; i < arity; i++) {
    if (!slots.includes(i)) throw new Error(`prepared: argument ${i} is not used as a parameter`);
  }
  return async (...args: Args) => {
    const parameters = compiled.parameters.map((value, i) => (slots[i]! >= 0 ? args[slots[i]!] : value));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters));
    return result.rows;
  };
}
