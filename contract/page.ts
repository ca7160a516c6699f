// What the page the server writes and the app's entry agree on, in a module of its own: the entry
// imports it, and whatever else it imported would come into the first load before the paint.

/** The page's <template> holding the app's module preloads when it comes with its screen drawn: the
 * entry starts them once that screen is painted (server/spa/page.ts, src/main.tsx). */
export const AFTER_PAINT_ID = 'after-paint';
