// The extra accounts the benchmark server creates, so logins spread over several users.
export const BENCH_USERS = 16;
export const benchEmail = (i: number) => `bench.user${i}@example.be`;
