// A rolling restart through a real load balancer drops no request: three instances on one
// PostgreSQL and one Redis behind HAProxy (deploy/haproxy.cfg), under steady load, each restarted in
// turn with SIGTERM. Each drains (readyz 503 while it still serves), the balancer takes it out, it
// finishes what it holds and exits; the next starts only once it is back in rotation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { startCluster, type Cluster } from '../testing/cluster.ts';

const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;

describe('a rolling restart behind HAProxy', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 120_000);
  afterAll(async () => cluster?.close(), 60_000);

  it('restarts every instance in turn under load, and no request fails', async () => {
    const headers = { 'x-device-id': 'rolling-restart-01', 'content-type': 'application/json' };
    // A session, in the shared database: every instance serves it.
    const signedIn = await fetch(`${cluster.base}/api/token`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ username: emma.email, password: DEMO_PASSWORD }),
    });
    expect(signedIn.status).toBe(200);
    const token = ((await signedIn.json()) as { access_token: string }).access_token;

    const outcomes = new Map<string, number>();
    let loading = true;
    const worker = async () => {
      while (loading) {
        const status = await Promise.all([
          fetch(`${cluster.base}/api/config`, { headers }).then((r) => r.status),
          fetch(`${cluster.base}/api/user`, { headers: { ...headers, authorization: `Bearer ${token}` } }).then(
            (r) => r.status,
          ),
        ]).then(
          (statuses) => statuses.find((s) => s !== 200) ?? 200,
          (error: Error) => `network: ${error.message}`,
        );
        outcomes.set(String(status), (outcomes.get(String(status)) ?? 0) + 1);
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, worker));

    for (const node of cluster.nodes) {
      let exited = false;
      const draining = cluster.stop(node).then((code) => ((exited = true), code));
      // Taken out by its health checks while it still runs and serves; then it exits cleanly.
      await expect.poll(() => cluster.statusOf(node), { timeout: 10_000 }).not.toBe('UP');
      expect(exited).toBe(false);
      expect(await draining).toBe(0);
      await cluster.start(node);
    }
    loading = false;
    await load;
    expect([...outcomes.keys()]).toEqual(['200']);
    expect(outcomes.get('200')).toBeGreaterThan(100);
  }, 180_000);
});
