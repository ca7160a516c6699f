// Sign-in by URL hash (spec §4; server/oidc/loginTickets.ts): a first-party platform sends the
// browser here with `#ticket=…&client_id=…` (and `scope=partner&partner_token=…` for a partner's
// sign-in). The hash is taken once and stripped at once, before anything else reads the address,
// so that the ticket stays in no history entry; the root machine spends it.
import { write } from '../shell/storage.ts';

export type LoginTicket = { ticket: string; clientId: string };

export function takeLoginTicket(): LoginTicket | null {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const ticket = hash.get('ticket');
  if (ticket === null) return null;
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  const clientId = hash.get('client_id');
  // The partner's own token goes with the tab (session storage `partner_token`, spec §3).
  const partnerToken = hash.get('scope') === 'partner' ? hash.get('partner_token') : null;
  if (partnerToken) write(sessionStorage, 'partner_token', partnerToken);
  return clientId ? { ticket, clientId } : null;
}
