// Reading stored values shared by several features: a JSON column, and a registered client's name
// in a locale (the authorisation server's screens, the access list and the devices list name
// clients alike).

/** A JSON column's value (a client's lists and names, a model's payload); the fallback for nothing
 * or for text that is not JSON. */
export function jsonColumn<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return (JSON.parse(text) as T | null) ?? fallback;
  } catch {
    return fallback;
  }
}

/** The client's name in a locale: the locale's own, else its language's (fr for fr_LU), else the default. */
export function clientNameIn(row: { name: string; names: string | null }, locale: string): string {
  const names = jsonColumn<unknown>(row.names, null);
  if (!names || typeof names !== 'object') return row.name;
  const byLocale = names as Record<string, unknown>;
  const found = byLocale[locale] ?? byLocale[locale.split('_')[0]!];
  return typeof found === 'string' && found ? found : row.name;
}
