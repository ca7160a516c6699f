// Virtual page views (spec §4): sent only when the server's config names an analytics endpoint.
let endpoint: string | null = null;

export function configureAnalytics(url: string | null): void {
  endpoint = url;
}

export function trackPageView(path: string): void {
  if (!endpoint || typeof navigator.sendBeacon !== 'function') return;
  navigator.sendBeacon(endpoint, JSON.stringify({ type: 'page_view', path, at: new Date().toISOString() }));
}
