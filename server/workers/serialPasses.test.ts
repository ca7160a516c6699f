import { describe, expect, it } from 'vitest';
import { serialPasses } from './serialPasses.ts';

describe('serial passes', () => {
  it('never overlaps passes, and runs one more after the one under way for any number of requests meanwhile', async () => {
    let active = 0;
    let most = 0;
    let passes = 0;
    let release!: () => void;
    const runner = serialPasses(
      async () => {
        passes += 1;
        active += 1;
        most = Math.max(most, active);
        if (passes === 1)
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        active -= 1;
      },
      () => {},
    );
    const first = runner.run();
    const asked = [runner.run(), runner.run(), runner.run()];
    release();
    await Promise.all([first, ...asked]);
    expect(passes).toBe(2);
    expect(most).toBe(1);
    expect(runner.current()).toBeNull();
  });

  it('reports a failed pass and goes on: the next one runs', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const runner = serialPasses(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
      },
      (error) => errors.push(error),
    );
    await runner.drain();
    await runner.drain();
    expect(errors).toHaveLength(1);
    expect(calls).toBe(2);
  });
});
