// The relying party of the Microsoft sign-in: openid-client against Entra ID, one issuer per
// allowed tenant (`{authority}/{tenant id}/v2.0`), built here from the configured authority and the
// tenant id; discovery checks that the document it fetches names exactly that issuer. The
// multi-tenant endpoints' templated issuer (`{tenantid}`) is never used: a sign-in starts at the
// tenant's own endpoint, and its ID token must come from that tenant's issuer and name that tenant.
import * as client from 'openid-client';
import type { MicrosoftConfig } from '../config/index.ts';

export type MicrosoftIdentity = {
  tenantId: string;
  objectId: string;
  /** Shown to the person, never used to find or link an account. */
  email: string | null;
  name: string | null;
};

/** Why a callback is refused. `tenant`: the token names a tenant not allowed (or not the one asked). */
export class SsoRefused extends Error {
  readonly reason: 'tenant' | 'failed';
  constructor(reason: 'tenant' | 'failed', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export const issuerOf = (config: MicrosoftConfig, tenantId: string) => `${config.authority}/${tenantId}/v2.0`;

/** The tenants' configurations, discovered on first use; a failed discovery is tried again next time. */
export function microsoftClient(config: MicrosoftConfig) {
  const configurations = new Map<string, Promise<client.Configuration>>();
  const insecure = config.authority.startsWith('http:');
  const configurationOf = (tenantId: string) => {
    let found = configurations.get(tenantId);
    if (!found) {
      found = client.discovery(
        new URL(issuerOf(config, tenantId)),
        config.clientId,
        config.clientSecret,
        undefined,
        insecure ? { execute: [client.allowInsecureRequests], timeout: 10 } : { timeout: 10 },
      );
      found.catch(() => configurations.delete(tenantId));
      configurations.set(tenantId, found);
    }
    return found;
  };
  const allowed = (tenantId: string) => config.tenants.some((tenant) => tenant.id === tenantId);

  return {
    allowed,
    /** Where the browser goes to sign in at the tenant: code flow with PKCE S256, state and nonce. */
    async authorizeUrl(input: {
      tenantId: string;
      redirectUri: string;
      state: string;
      nonce: string;
      codeVerifier: string;
    }): Promise<string> {
      const configuration = await configurationOf(input.tenantId);
      return client.buildAuthorizationUrl(configuration, {
        redirect_uri: input.redirectUri,
        response_type: 'code',
        scope: 'openid profile email',
        state: input.state,
        nonce: input.nonce,
        response_mode: 'query',
        code_challenge: await client.calculatePKCECodeChallenge(input.codeVerifier),
        code_challenge_method: 'S256',
      }).href;
    },
    /** Exchanges the callback's code and checks the ID token: the tenant's issuer, our client id as
     * audience, the nonce, the state, and a `tid` that is the tenant asked (and allowed). */
    async finish(input: {
      tenantId: string;
      callbackUrl: URL;
      state: string;
      nonce: string;
      codeVerifier: string;
    }): Promise<MicrosoftIdentity> {
      if (!allowed(input.tenantId)) throw new SsoRefused('tenant', `tenant ${input.tenantId} is not allowed`);
      let claims: client.IDToken | undefined;
      try {
        const configuration = await configurationOf(input.tenantId);
        const tokens = await client.authorizationCodeGrant(configuration, input.callbackUrl, {
          pkceCodeVerifier: input.codeVerifier,
          expectedState: input.state,
          expectedNonce: input.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (error) {
        throw new SsoRefused('failed', `the Microsoft sign-in failed: ${(error as Error).message}`, { cause: error });
      }
      if (!claims) throw new SsoRefused('failed', 'no ID token');
      const tid = typeof claims.tid === 'string' ? claims.tid.toLowerCase() : null;
      const oid = typeof claims.oid === 'string' ? claims.oid : null;
      if (!tid || !oid) throw new SsoRefused('failed', 'the ID token has no tid or oid');
      if (tid !== input.tenantId || !allowed(tid))
        throw new SsoRefused('tenant', `the ID token names tenant ${tid}, not ${input.tenantId}`);
      const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value.slice(0, 320) : null);
      return {
        tenantId: tid,
        objectId: oid,
        email: text(claims.email) ?? text(claims.preferred_username),
        name: text(claims.name),
      };
    },
  };
}
export type MicrosoftClient = ReturnType<typeof microsoftClient>;
