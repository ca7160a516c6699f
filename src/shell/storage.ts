// The browser's storage, which may be missing or full (private windows, quotas): a failure there
// never breaks a flow, it only means a reload cannot resume it.

/** Which storage: the browser's (`localStorage`) or the tab's (`sessionStorage`). Named, not passed:
 * a browser that refuses site data throws as soon as the property is read. */
export type StorageArea = 'localStorage' | 'sessionStorage';

/** A text kept in the area, or null (none, or the area refused). */
export function read(area: StorageArea, key: string): string | null {
  try {
    return globalThis[area].getItem(key);
  } catch {
    return null;
  }
}

export function readJson<T>(area: StorageArea, key: string): T | null {
  const raw = read(area, key);
  try {
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export function write(area: StorageArea, key: string, value: string | null): void {
  try {
    if (value === null) globalThis[area].removeItem(key);
    else globalThis[area].setItem(key, value);
  } catch {
    // storage unavailable: the session lives in memory only
  }
}

/** Empties the area (nothing to do where it is refused). */
export function clear(area: StorageArea): void {
  try {
    globalThis[area].clear();
  } catch {
    // nothing stored
  }
}

/** A flow's memory in this tab (session storage): what a reload needs to resume it. */
export const flowMemory = <T>(key: string) => ({
  recall: async () => readJson<T>('sessionStorage', key),
  keep: (value: T | null) => write('sessionStorage', key, value === null ? null : JSON.stringify(value)),
});
