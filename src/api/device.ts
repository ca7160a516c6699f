// The device id: random, kept in local storage, sent with every call (spec §3 "Client state").
const KEY = 'device_id';
let cached: string | null = null;

export function deviceId(): string {
  if (cached) return cached;
  try {
    cached = localStorage.getItem(KEY);
    if (!cached || !/^[A-Za-z0-9_-]{8,128}$/.test(cached)) {
      cached = crypto.randomUUID();
      localStorage.setItem(KEY, cached);
    }
  } catch {
    cached = crypto.randomUUID(); // storage unavailable: a per-tab id
  }
  return cached;
}
