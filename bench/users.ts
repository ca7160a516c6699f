// The extra accounts the benchmark server creates, so that logins spread over several users (no
// second factor, a password in good standing: each login ends in a 200 with a token).
export const BENCH_USERS = 16;
export const benchEmail = (i: number) => `bench.user${i}@example.be`;
export const benchUser = (i: number) => ({
  firstname: `Bench${i}`,
  lastname: 'User',
  language: 'en',
  email: benchEmail(i),
  phone: `+3247090${String(i).padStart(4, '0')}`,
  user_id: `UB-${i}`,
  customer_user_id: null,
  fridom_user_id: null,
  password_status: 0 as const,
});
