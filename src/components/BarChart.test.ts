import { describe, expect, it } from 'vitest';
import { scaleTop } from './BarChart.tsx';

describe('the scale of the graph', () => {
  it('tops at a round number at or above the largest value, never under 4, with a whole half', () => {
    expect([0, 1, 3, 4].map(scaleTop)).toEqual([4, 4, 4, 4]);
    expect([5, 9, 10].map(scaleTop)).toEqual([10, 10, 10]);
    expect([11, 20, 21, 40, 41].map(scaleTop)).toEqual([20, 20, 40, 40, 100]);
    expect([101, 399, 401, 4001].map(scaleTop)).toEqual([200, 400, 1000, 10000]);
    for (let value = 0; value < 5000; value += 7) {
      const top = scaleTop(value);
      expect(top).toBeGreaterThanOrEqual(value);
      expect(top % 2).toBe(0);
    }
  });
});
