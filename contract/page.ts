// What the page the server writes and the app's entry agree on, in a module of its own: the entry
// imports it, and whatever else it imported would come into the first load before the paint.

/** The page's <template> holding the app's module preloads when it comes with its screen drawn: the
 * entry starts them once that screen is painted (server/spa/page.ts, src/main.tsx). */
export const AFTER_PAINT_ID = 'after-paint';

/** Attributes of the page's root element (`data-…`, read as `dataset`) between a drawn page's starter
 * (server/spa/page.ts), which asks for the entry once the screen is painted, and the entry: a
 * submission of the drawn form made before the entry arrived is held (`HELD_SUBMIT`), not posted,
 * and a plain click on a link to another of our screens is held (`HELD_LINK`, its address), not
 * loaded anew, until the entry, once there (`ENTRY_THERE`), does it in the app with what was typed. */
export const ENTRY_THERE = 'entry';
export const HELD_SUBMIT = 'heldSubmit';
export const HELD_LINK = 'heldLink';
