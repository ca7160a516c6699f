// A refresh grant whose answer is lost on its way (the instance that gave it was lost, or the
// network) leaves the partner holding a spent refresh token: used again, oidc-provider takes it for
// a stolen one and revokes the whole grant, and the person must sign in again. So for REPEAT_SECONDS
// after a rotation, the same client presenting the same token gets the same answer again (the same
// access and refresh tokens: nothing new is issued), as long as what that answer gave is still
// unused and alive. Once the new refresh token is used, or after REPEAT_SECONDS, the old one is spent
// and its use revokes the grant as before (docs/decisions/refresh-token-repeat.md).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Provider } from 'oidc-provider';
// The provider's own grant handler, to run around it (there is no public hook after the client's
// authentication and before the grant). server/oidc/provider.test.ts proves it on every upgrade.
import instance from 'oidc-provider/lib/helpers/weak_cache.js';
import type { Db } from '../db/index.ts';
import { openFor, sealFor } from '../config/secrets.ts';
import { keptAnswerId } from '../http/idempotency.ts';
import { OidcAdapter, REFRESH_ANSWER } from './adapter.ts';

/** How long a rotated refresh token may be presented again for its answer: a client's retry. */
export const REPEAT_SECONDS = 60;
const PURPOSE = 'refresh-answer';

type Ctx = {
  oidc: { params: Record<string, unknown>; client?: { clientId: string }; entities: Record<string, unknown> };
  status: number;
  body: unknown;
  get(name: string): string;
};
type GrantHandler = (ctx: Ctx) => Promise<void>;
type Internals = { grantTypeHandlers: Map<string, GrantHandler> };
type Found = { consumed?: unknown; isExpired?: boolean } | undefined;

/** Thrown from the token's look-up, before the grant would take it for stolen: the kept answer. */
class Repeat {
  readonly body: unknown;
  constructor(body: unknown) {
    this.body = body;
  }
}

export function repeatRefreshGrants(provider: Provider, db: Db, secretKey: string): void {
  const { grantTypeHandlers } = instance(provider) as Internals;
  const grant = grantTypeHandlers.get('refresh_token');
  if (!grant) return;
  // The client of the refresh grant running now; none for any other look-up of a refresh token.
  const granting = new AsyncLocalStorage<{ clientId: string }>();
  const idOf = (clientId: string, token: string) => keptAnswerId('refresh', clientId, token);
  // Kept beside the tokens, in the same statement (adapter.ts), under the grant: revoking the grant
  // drops it too.
  const answers = new OidcAdapter(db, REFRESH_ANSWER);

  // Only a spent token costs a read: the kept answer, and whether what it gave is still unused.
  const tokens = provider.RefreshToken as unknown as { find(value: unknown, options?: object): Promise<Found> };
  const find = tokens.find.bind(tokens);
  tokens.find = async (value, options) => {
    const found = await find(value, options);
    const call = granting.getStore();
    if (!call || !found?.consumed || typeof value !== 'string') return found;
    const id = idOf(call.clientId, value);
    const kept = await answers.find(id);
    if (typeof kept?.['sealed'] !== 'string') return found;
    const body = JSON.parse(openFor(secretKey, PURPOSE, kept['sealed'], id)) as { refresh_token?: string };
    const successor = body.refresh_token ? await find(body.refresh_token) : undefined;
    if (successor && !successor.consumed && !successor.isExpired) throw new Repeat(body);
    return found;
  };

  grantTypeHandlers.set('refresh_token', async (ctx) => {
    const presented = ctx.oidc.params['refresh_token'];
    const clientId = ctx.oidc.client?.clientId ?? '';
    // A request bound to a key (DPoP) proves it afresh each time: it never gets a kept answer.
    if (typeof presented !== 'string' || ctx.get('dpop') !== '') return grant(ctx);
    try {
      await granting.run({ clientId }, () => grant(ctx));
    } catch (error) {
      if (!(error instanceof Repeat)) throw error;
      ctx.body = error.body;
      ctx.status = 200;
      return;
    }
    const given = (ctx.body as { refresh_token?: string } | undefined)?.refresh_token;
    if (ctx.oidc.entities['RotatedRefreshToken'] === undefined || !given) return;
    const id = idOf(clientId, presented);
    const grantId = (ctx.oidc.entities['RefreshToken'] as { grantId?: string } | undefined)?.grantId;
    await answers.upsert(
      id,
      { sealed: sealFor(secretKey, PURPOSE, JSON.stringify(ctx.body), id), ...(grantId ? { grantId } : {}) },
      REPEAT_SECONDS,
    );
  });
}
