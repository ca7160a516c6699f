// A small closed-loop load generator: `concurrency` workers each send a request, wait for the
// answer, and send the next, over keep-alive connections, until the time is up.
import http from 'node:http';

export type LoadResult = { requests: number; ok: number; perSecond: number; p50Ms: number; p99Ms: number };

export type RequestSpec = { method: string; path: string; headers: Record<string, string>; body?: string };

function send(agent: http.Agent, port: number, spec: RequestSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method: spec.method, path: spec.path, headers: spec.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(spec.body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function load(port: number, options: { seconds: number; concurrency: number; request: (i: number) => RequestSpec }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const deadline = performance.now() + options.seconds * 1000;
  const latencies: number[] = [];
  let ok = 0;
  let counter = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, async () => {
    while (performance.now() < deadline) {
      const spec = options.request(counter++);
      const t0 = performance.now();
      const status = await send(agent, port, spec);
      latencies.push(performance.now() - t0);
      if (status >= 200 && status < 300) ok++;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, ok, perSecond: ok / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}
