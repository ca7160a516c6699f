// The browser's storage, which may be missing or full (private windows, quotas): a failure there
// never breaks a flow, it only means a reload cannot resume it.

export function readJson<T>(storage: Storage, key: string): T | null {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export function write(storage: Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // storage unavailable: the session lives in memory only
  }
}

/** A flow's memory in this tab (session storage): what a reload needs to resume it. */
export const flowMemory = <T>(key: string) => ({
  recall: async () => readJson<T>(sessionStorage, key),
  keep: (value: T | null) => write(sessionStorage, key, value === null ? null : JSON.stringify(value)),
});
