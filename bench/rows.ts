// The rows of the bench table (bench/run.ts prints and keeps them), as every measurement writes them.
export type Row = {
  measurement: string;
  value: number;
  baseline: number | null;
  unit: string;
  target: string;
  meets: boolean | null;
};

/** A row that only reports a figure (beside its baseline, if any): it has no target to meet. */
export const reported = (measurement: string, value: number, unit: string, baseline: number | null = null): Row => ({
  measurement,
  value,
  baseline,
  unit,
  target: '—',
  meets: null,
});
