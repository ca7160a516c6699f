// What every flow's routes get: configuration, database, hasher, limiters, metrics.
import type { Redis } from 'ioredis';
import type { Config } from './config/index.ts';
import type { Db, DatabaseHandle } from './db/index.ts';
import type { Delivery } from './delivery/index.ts';
import type { LoginLimiters } from './login/authenticate.ts';
import type { Metrics } from './metrics/index.ts';
import type { PasswordHasher } from './passwords/hashing.ts';

export type AppContext = {
  config: Config;
  db: Db;
  database: DatabaseHandle;
  redis: Redis | null;
  hasher: PasswordHasher;
  limiters: LoginLimiters;
  cookieName: string;
  delivery: Delivery;
  metrics: Metrics;
};
