// Argon2id with the OWASP baseline (19 MiB, t=2, p=1). At most `concurrency` computations run at a
// time, so memory stays bounded (19 MiB each) whatever the load; the rest wait in a queue.
import { hash, verify } from '@node-rs/argon2';

const ARGON2ID = 2; // Algorithm.Argon2id (a const enum, so not importable at run time)
/** What an account's password becomes when it must not be usable until a new one is chosen (a change
 * undone by its owner): no password matches it, and checking it costs what a real one costs. */
export const LOCKED_PASSWORD = '!locked';

export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }

  /** Tasks running, and tasks waiting for a turn (for the metrics). */
  get load(): { running: number; queued: number } {
    return { running: this.active, queued: this.waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export type PasswordHasher = {
  hash(password: string): Promise<string>;
  verify(storedHash: string, password: string): Promise<boolean>;
  /** Spends the same time as a real verification, for unknown accounts (no enumeration by timing). */
  verifyDummy(password: string): Promise<false>;
  /** Computations running and waiting now. */
  load(): { running: number; queued: number };
};

export function createPasswordHasher(concurrency: number): PasswordHasher {
  const gate = new Semaphore(concurrency);
  // Computed lazily once: a real Argon2id hash of a random secret with the same parameters.
  let dummy: Promise<string> | null = null;
  const dummyHash = () => (dummy ??= gate.run(() => hash(crypto.randomUUID(), ARGON2_OPTIONS)));

  return {
    hash: (password) => gate.run(() => hash(password, ARGON2_OPTIONS)),
    async verify(storedHash, password) {
      return gate.run(async () => {
        try {
          return await verify(storedHash, password);
        } catch {
          return false; // a malformed stored hash never lets anyone in
        }
      });
    },
    async verifyDummy(password) {
      const stored = await dummyHash();
      await gate.run(() => verify(stored, password).catch(() => false));
      return false;
    },
    load: () => gate.load,
  };
}
