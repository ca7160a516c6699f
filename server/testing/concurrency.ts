// Fires many requests at the same instant, as an attacker racing a "read, check, then write" rule
// would. Every request is built first, then all are released together.
export async function atOnce<T>(count: number, request: (index: number) => Promise<T>): Promise<T[]> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pending = Array.from({ length: count }, (_, index) => gate.then(() => request(index)));
  release();
  return Promise.all(pending);
}

/** How many answers had each status code: `{ 204: 1, 409: 29 }`. */
export function statusCounts(answers: Array<{ statusCode: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { statusCode } of answers) counts[statusCode] = (counts[statusCode] ?? 0) + 1;
  return counts;
}
