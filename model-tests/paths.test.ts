import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MACHINES } from '../scripts/statecharts.ts';
import { allPaths, indexDocument } from '../scripts/testerPaths.ts';
import { MODELS } from './models.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'paths');
const all = allPaths();

describe('paths for testers', () => {
  it('walks every machine the charts draw', () => {
    expect(all.map((p) => p.key)).toEqual(Object.keys(MACHINES).sort());
  });

  it.each(all.map((p) => [p.key, p] as const))('docs/paths/%s.md is current (run `npm run paths`)', (key, paths) => {
    const file = join(dir, `${key}.md`);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(paths.document);
  });

  it('docs/paths/README.md is current (run `npm run paths`)', () => {
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe(indexDocument(all));
  });

  // Every machine walked again: allow a slow, busy machine.
  it('is the same on a second run (no time or order in it)', () => {
    expect(allPaths().map((p) => p.document)).toEqual(all.map((p) => p.document));
  }, 180_000);

  it("walks each machine from its model test's starts, with its events' payloads", () => {
    for (const p of all)
      for (const [i, start] of MODELS[p.key]!.starts.entries())
        expect(p.document).toContain(`## Start ${i + 1}: ${start.name}\n`);
    expect(all.find((p) => p.key === 'root')!.document).toContain(
      'send `xstate.done.actor.loadConfig` { output: {"variant":"be"',
    );
    expect(all.find((p) => p.key === 'access')!.document).toContain(
      'send `xstate.error.actor.listGrants` { error: 503 database_unavailable }',
    );
  });

  it('enters every state node a flow can rest in', () => {
    expect(all.filter((p) => p.notReached.length > 0).map((p) => [p.key, p.notReached])).toEqual([]);
  });
});
