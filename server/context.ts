// What every flow's routes get: configuration, database, hasher, limiters, metrics.
import type { Redis } from 'ioredis';
import type { Config } from './config/index.ts';
import type { Db, DatabaseHandle } from './db/index.ts';
import type { ProviderCircuit } from './delivery/index.ts';
import type { Outbox } from './delivery/queue.ts';
import type { Limiters } from './ratelimit/limiters.ts';
import type { Metrics } from './metrics/index.ts';
import type { PasswordHasher } from './passwords/hashing.ts';
import type { SignInRecords } from './sessions/records.ts';

export type AppContext = {
  config: Config;
  db: Db;
  database: DatabaseHandle;
  redis: Redis | null;
  hasher: PasswordHasher;
  limiters: Limiters;
  cookieName: string;
  /** Every message leaves through it (server/delivery/queue.ts). */
  outbox: Outbox;
  /** The delivery providers' circuits (server/delivery/breaker.ts), for /readyz and /metrics. */
  circuits(): Promise<ProviderCircuit[]>;
  /** Writes each sign-in's event and device sighting after its answer (server/sessions/records.ts). */
  signInRecords: SignInRecords;
  metrics: Metrics;
  /** Tells what depends on Tessera sessions that some have ended (these, or all of an account's):
   * the authorisation server ends the sessions they signed in (server/oidc/logout.ts). */
  sessionsEnded(ended: EndedSessions): Promise<void>;
  /** Set once the node is told to stop (SIGTERM): /readyz answers 503 so the balancer takes it out,
   * while it still serves what comes (server/app.ts `drain`). */
  draining: boolean;
};

export type EndedSessions = ({ sessionIds: string[] } | { accountId: string }) & {
  /** The account's password changed, it signed out everywhere, or a change was undone: the partners lose the tokens they hold for it (access and
   * refresh tokens, offline ones too), and must sign the person in again. */
  refreshTokensOf?: string;
};
