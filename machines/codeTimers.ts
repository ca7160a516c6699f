// The two timers of a code screen (DESIGN.md: parallel regions with `after` delays whose length
// comes from context), shared by the machines that send codes. A machine using them declares the
// delays `expiry` and `resendCooldown` in its setup, and its own `ready` state for a new code.

/** Running until the code expires, then expired (the screen says so; the server refuses it anyway). */
export const expiryRegion = {
  initial: 'running',
  states: {
    running: { after: { expiry: 'expired' } },
    expired: {},
  },
} as const;

/** The wait before a new code may be asked for; then `ready`, where the machine puts its RESEND. */
export const resendCooling = { after: { resendCooldown: 'ready' } } as const;
