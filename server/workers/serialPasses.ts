// The background workers' pass runner (the outbox, the sign-in records): one pass at a time, and a
// pass asked for while one runs comes right after it, so nothing asked for is missed and passes
// never overlap in one instance.
export type SerialPasses = {
  /** Starts a pass, or asks for another after the one under way; resolves when that one ends. */
  run(): Promise<void>;
  /** Runs a pass and returns once none is under way, one asked for meanwhile included. */
  drain(): Promise<void>;
  /** The pass under way, if any. */
  current(): Promise<void> | null;
};

/** `pass` failing is reported to `onError` and survived: the next pass tries again. */
export function serialPasses(pass: () => Promise<void>, onError: (error: unknown) => void): SerialPasses {
  let running: Promise<void> | null = null;
  let again = false;

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await pass().catch(onError);
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    run,
    async drain() {
      await run();
      while (running) await running;
    },
    current: () => running,
  };
}
