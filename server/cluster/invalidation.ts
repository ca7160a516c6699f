// What an instance keeps in memory and another process can change (the OIDC signing keys, rotated
// by the command line; the OIDC clients' rows, which it edits) is reloaded on every instance at
// once, through Redis pub/sub: the change is announced on one channel, each instance reloads and
// answers on the announcement's own channel, and the announcer waits for as many answers as Redis
// says received it, or 1 s. Without Redis (one instance), each instance still catches up (it polls
// the keys every 30 s, and reads a client's row again 30 s after it last did): nothing here is needed.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const CHANNEL = 'tessera:invalidate';
const ackChannel = (id: string) => `tessera:invalidated:${id}`;
/** How long an announcer waits for the instances' answers. */
export const ACK_TIMEOUT_MS = 1000;

/** What can be announced, and what each instance does about it: reload the OIDC signing keys, or
 * drop the OIDC client rows it keeps (server/oidc/clients.ts). */
export type Reloads = { 'oidc-keys': () => Promise<unknown>; 'oidc-clients': () => Promise<unknown> };
export type Reloadable = keyof Reloads;

/** Subscribes an instance: each announcement runs its reload, then is answered (a reload that
 * failed is answered too: the instance's polling catches up). Never holds the start: `ready`
 * resolves once subscribed (ioredis subscribes again after a reconnection or a failover). */
export function listenForChanges(
  redis: Redis,
  reloads: Reloads,
  log: { warn(data: object, message: string): void },
): { ready: Promise<void>; stop(): void } {
  const subscriber = redis.duplicate();
  subscriber.on('error', (error) => log.warn({ err: error }, 'redis subscriber unavailable'));
  subscriber.on('message', (channel, raw) => {
    if (channel !== CHANNEL) return;
    let announced: { id: string; what: Reloadable };
    try {
      announced = JSON.parse(raw) as { id: string; what: Reloadable };
    } catch {
      return;
    }
    const reload = reloads[announced.what];
    if (!reload) return;
    void reload()
      .catch((error: unknown) => log.warn({ err: error, what: announced.what }, 'reload after a change failed'))
      .finally(() =>
        redis.publish(ackChannel(announced.id), 'done').catch(() => {
          // The announcer's timeout covers an answer that could not be sent.
        }),
      );
  });
  const ready = subscriber.subscribe(CHANNEL).then(
    () => {},
    (error: unknown) => log.warn({ err: error }, 'not subscribed to changes; polling catches up'),
  );
  return { ready, stop: () => subscriber.disconnect() };
}

/** Announces a change to every instance, and resolves once each that received it has reloaded, or
 * after ACK_TIMEOUT_MS: how many received it, and how many answered in time. */
export async function announceChange(
  redis: Redis,
  what: Reloadable,
  timeoutMs = ACK_TIMEOUT_MS,
): Promise<{ instances: number; reloaded: number }> {
  const id = randomUUID();
  const listener = redis.duplicate();
  listener.on('error', () => {});
  try {
    let reloaded = 0;
    let expected = Number.POSITIVE_INFINITY;
    let settle: () => void = () => {};
    const all = new Promise<void>((resolve) => (settle = resolve));
    listener.on('message', () => {
      reloaded += 1;
      if (reloaded >= expected) settle();
    });
    await listener.subscribe(ackChannel(id));
    const instances = await redis.publish(CHANNEL, JSON.stringify({ id, what }));
    expected = instances;
    if (reloaded >= expected) settle();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    return { instances, reloaded: Math.min(reloaded, instances) };
  } finally {
    listener.disconnect();
  }
}
