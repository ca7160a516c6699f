import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MACHINES, chartDocument, mermaid } from '../scripts/statecharts.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'statecharts');

describe('statechart diagrams', () => {
  it.each(Object.keys(MACHINES))('docs/statecharts/%s.md is current (run `npm run charts`)', (key) => {
    const file = join(dir, `${key}.md`);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(chartDocument(key, MACHINES[key]!));
  });

  it('draws every state and the guarded transitions', () => {
    const login = mermaid(MACHINES.login!);
    for (const state of ['editing', 'submitting', 'done']) expect(login).toContain(`login_${state}`);
    expect(login).toContain('error: submitLogin [needsMfa]');
    expect(login).toContain('SUBMIT [canSubmit]');
  });
});
