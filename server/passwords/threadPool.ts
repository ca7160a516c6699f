// Argon2id runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
// file and DNS work share: the pool gets room for the hashes and four threads more. The server's
// entry points import this first, since the pool is made on its first use and keeps its size.
import { availableParallelism } from 'node:os';
import { ConfigError, hashConcurrencyOf } from '../config/index.ts';

try {
  process.env.UV_THREADPOOL_SIZE ??= String(hashConcurrencyOf(process.env, availableParallelism()) + 4);
} catch (error) {
  // A bad HASH_CONCURRENCY: the server's start reports it with the rest of its configuration.
  if (!(error instanceof ConfigError)) throw error;
}
