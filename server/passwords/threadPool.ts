// Argon2id runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
// file and DNS work share: the pool gets room for the hashes and four threads more. The server's
// entry points import this first, since the pool is made on its first use and keeps its size.
import { availableParallelism } from 'node:os';
import { defaultHashConcurrency } from '../config/index.ts';

const hashes = Number(process.env.HASH_CONCURRENCY) || defaultHashConcurrency(availableParallelism());
process.env.UV_THREADPOOL_SIZE ??= String(Math.min(1024, hashes + 4));
