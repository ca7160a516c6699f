// Rows written straight to the database, for storage tests that bypass the services.

/** A `users` row with every column but `language` (whose default is itself under test); `fields`
 * adds to or overrides it. */
export const userRow = <T extends Record<string, unknown>>(id: string, fields: T = {} as T) => ({
  id,
  firstname: 'Test',
  lastname: 'User',
  password_status: 0 as const,
  mfa_forced: 0 as const,
  mfa_customer: 0 as const,
  has_sso: 0 as const,
  sso_only: 0 as const,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...fields,
});
