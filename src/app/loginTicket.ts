// Sign-in by URL hash (spec §4; server/oidc/loginTickets.ts): a first-party platform sends the
// browser here with `#ticket=…&client_id=…` (and `scope=partner&partner_token=…` for a partner's
// sign-in). The hash is taken once and stripped at once, before anything else reads the address,
// so that the ticket stays in no history entry; the root machine spends it. A partner's own token
// is not kept (docs/decisions/partner-token.md): nothing here reads it.

export type LoginTicket = { ticket: string; clientId: string };

export function takeLoginTicket(): LoginTicket | null {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const ticket = hash.get('ticket');
  if (ticket === null) return null;
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  const clientId = hash.get('client_id');
  return clientId ? { ticket, clientId } : null;
}
