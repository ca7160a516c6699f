// A one-time secret that a screen owns the whole hash for (a "this wasn't me" token, a Microsoft
// sign-in's payload): taken once and dropped from the history entry at once, so that Back or a
// reload cannot send it again. (The sign-in ticket of src/app/loginTicket.ts is taken at start on
// any page, where a hash may be an anchor: it drops the hash only when it holds a ticket.)

/** The hash, without its `#` (empty when there is none), dropped from the history entry. */
export function takeHash(): string {
  const hash = window.location.hash.slice(1);
  if (hash) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return hash;
}
