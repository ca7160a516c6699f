// The OpenID Provider: one oidc-provider instance per variant, its issuer `<public origin>/oidc` from
// the configuration (PUBLIC_ORIGIN_BE, PUBLIC_ORIGIN_LU; never the request's Host: the Host only
// selects the variant, server/http/origin.ts), built on first use and cached by issuer. Storage is
// ours (adapter.ts, clients.ts), keys are ours (keys.ts); when another instance rotates the keys,
// the providers are rebuilt with the new JWKS.
import { hkdfSync } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import Provider, {
  type Account,
  type AdapterFactory,
  type Configuration,
  type FapiEnabledConfiguration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import { CONSENT_SCOPES, INTERACTION_PATH, STANDARD_SCOPES } from '../../contract/constants.ts';
import type { Config } from '../config/index.ts';
import { isTrue, type Db } from '../db/index.ts';
import { accountReadAlong, oidcAdapterFactory, guarded, tokenRequestScope, withoutUnstorableKeys } from './adapter.ts';
import { FAPI_ALGORITHMS, OidcClientAdapter, TOKEN_AUTH_METHODS, clientSecretMatches } from './clients.ts';
import { SigningKeys, type SigningJwk } from './keys.ts';
import { renderOidcError } from './errors.ts';
import { ACR, interactionPolicyFor } from './policy.ts';
import { repeatRefreshGrants } from './refreshRepeat.ts';
import { endTesseraSessionOnLogout, linkSessions } from './logout.ts';
import { logoutSource, postLogoutSuccessSource } from './logoutScreens.ts';
import { authCookieOptions } from '../sessions/cookie.ts';
import { authCookieName } from '../sessions/cookie.ts';
import { publicOriginOf } from '../http/origin.ts';
import { openAccountClaims, rankedContacts, type ContactKind } from '../identity/accounts.ts';

export const OIDC_PREFIX = '/oidc';
export { INTERACTION_PATH };

const DAY = 86_400;
const MAX_PROVIDERS = 16;

/** Claims by scope (docs/decisions/oidc-claims.md). `user` carries the platform ids the users table has:
 * user_id, customer_user_id and fridom_user_id. */
export const CLAIMS_BY_SCOPE = {
  // Requested by name only (the provider's defaults).
  sid: null,
  iss: null,
  // How the person signed in is in every ID token: a client requiring a second factor reads amr/acr.
  openid: ['sub', 'acr', 'amr', 'auth_time'],
  profile: ['given_name', 'family_name', 'locale'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  user: ['user_id', 'customer_user_id', 'fridom_user_id'],
};

/** The account behind a `sub` (our users.id), its claims read when the provider asks. */
export async function findOidcAccount(db: Db, sub: string): Promise<Account | undefined> {
  // An account merged away has no claims: a code or token still naming it is refused (invalid_grant,
  // invalid_token). Not followed to the survivor here: the provider throws on a grant or token of
  // one account answered with another (accountId mismatch).
  // A token request read it with its code or refresh token (adapter.ts); otherwise it is read now.
  const readAlong = accountReadAlong(sub);
  const user = readAlong === undefined ? await guarded(() => openAccountClaims(db, sub)) : (readAlong ?? undefined);
  if (!user) return undefined;
  return {
    accountId: user.id,
    async claims(_use: string, scope: string, requested: Record<string, unknown> | undefined) {
      // A contact is read only when the token may carry it (its scope, or the claims parameter): an
      // ID token for `openid` alone costs no look-up of either.
      const scopes = new Set(scope.split(' '));
      const wants = (scopeName: string, claim: string) =>
        scopes.has(scopeName) || (requested !== undefined && claim in requested);
      // The default verified contact (else the first verified one): an unproven address is never a claim.
      const contact = async (kind: ContactKind) =>
        guarded(() =>
          rankedContacts(db, sub, kind).select('verified').where('verified', '=', 1).limit(1).executeTakeFirst(),
        );
      const [email, phone] = await Promise.all([
        wants('email', 'email') ? contact('email') : undefined,
        wants('phone', 'phone_number') ? contact('phone') : undefined,
      ]);
      return {
        sub: user.id,
        given_name: user.firstname,
        family_name: user.lastname,
        // Our locales are en_LU-style; claims use BCP 47 tags.
        locale: user.language.replace('_', '-'),
        ...(email ? { email: email.value, email_verified: isTrue(email.verified) } : {}),
        ...(phone ? { phone_number: phone.value, phone_number_verified: isTrue(phone.verified) } : {}),
        user_id: user.user_id,
        customer_user_id: user.customer_user_id,
        fridom_user_id: user.fridom_user_id,
      };
    },
  };
}

/** The cookie keys of the provider's own cookies (its session and interaction), from SECRET_KEY. */
function cookieKeys(secretKey: string): string[] {
  return [Buffer.from(hkdfSync('sha256', secretKey, 'tessera-oidc', 'oidc-cookie-keys', 32)).toString('base64url')];
}

/** Origins of the client's redirect URIs: the only origins its browser code calls the token,
 * userinfo or revocation endpoints from. */
function allowedOrigin(origin: string, redirectUris: readonly string[]): boolean {
  return redirectUris.some((uri) => {
    try {
      return new URL(uri).origin === origin;
    } catch {
      return false;
    }
  });
}

/** The configuration of the provider of one configured origin (its issuer's). */
export function providerConfiguration(db: Db, config: Config, keys: SigningKeys, origin: string): Configuration {
  // A client_id holding U+0000 is unknown, never a database error (adapter.ts).
  const clients = withoutUnstorableKeys(new OidcClientAdapter(db, origin));
  // Its error pages speak its variant's languages.
  const { variant } = publicOriginOf(config, { host: new URL(origin).host });
  const models = oidcAdapterFactory(db);
  const secure = config.env === 'production';
  const adapter = ((model: string) => (model === 'Client' ? clients : models(model))) as AdapterFactory;
  return {
    adapter,
    jwks: keys.jwks(),
    findAccount: (_ctx, sub) => findOidcAccount(db, sub),
    claims: CLAIMS_BY_SCOPE,
    scopes: [...STANDARD_SCOPES, ...CONSENT_SCOPES],
    // ID tokens carry only what the claims parameter asks; scope claims come from userinfo.
    conformIdTokenClaims: true,
    acrValues: [ACR.password, ACR.mfa],
    responseTypes: ['code'],
    // Exactly what a client can be registered with (clients.ts): discovery advertises these.
    clientAuthMethods: [...TOKEN_AUTH_METHODS],
    // Ours, carried with each client (clients.ts): whether it demands a second factor.
    // And whether it follows the FAPI 2.0 Security Profile (clients.ts: fapiMetadata).
    extraClientMetadata: { properties: ['require_mfa', 'fapi_profile'] },
    // The algorithms FAPI 2.0 allows for a client's assertion (private_key_jwt, the one method that signs).
    enabledJWA: { clientAuthSigningAlgValues: [...FAPI_ALGORITHMS] },
    pkce: { required: () => true },
    // An authorization request names its redirect_uri, always, and it matches exactly.
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      // Accepts any password: never on. Our own screens sign people in (interaction.ts).
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: true },
      userinfo: { enabled: true },
      // Its confirmation and success are our screens (logoutScreens.ts).
      rpInitiatedLogout: { enabled: true, logoutSource: logoutSource(db), postLogoutSuccessSource },
      backchannelLogout: { enabled: true },
      // Per client: a client marked FAPI 2.0 gets the profile, every other the plain rules.
      fapi: {
        enabled: true,
        profile: (_ctx, client) => (client?.['fapi_profile'] === '2.0' ? '2.0' : undefined),
      } satisfies FapiEnabledConfiguration,
    },
    // Every use of a refresh token spends it and gives a new one; a spent one used again revokes the
    // grant, except a retry whose answer was lost (refreshRepeat.ts). Not for a FAPI 2.0 client: its profile forbids rotation unless a retry with the previous
    // token succeeds, and its tokens are bound to its key (docs/decisions/fapi-refresh-tokens.md).
    rotateRefreshToken: (ctx) => ctx.oidc.client?.['fapi_profile'] !== '2.0',
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      // Each rotation gives a fresh 30 days, so whoever uses an application within a month stays
      // signed in to it; the grant caps the chain (oidc-provider never extends a grant).
      RefreshToken: 30 * DAY,
      // A year: long enough that nobody who signs in daily is ever signed out by the grant's expiry
      // (the default, 14 days, signs everyone out every fortnight). Our own session still decides.
      Grant: 365 * DAY,
      Session: 30 * DAY,
    },
    cookies: {
      keys: cookieKeys(config.secretKey),
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure },
    },
    interactions: {
      policy: interactionPolicyFor(db, authCookieName(config)),
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
    },
    // oidc-provider's outbound calls (back-channel logout) refuse special-use addresses unless the
    // configuration allows private ones (local set-ups, tests).
    ...(config.oidcPrivateOutbound
      ? {
          fetch: (url: string | URL | Request, options?: RequestInit) => {
            const { dispatcher: _ssrfGuard, ...rest } = (options ?? {}) as RequestInit & { dispatcher?: unknown };
            return fetch(url, rest);
          },
        }
      : {}),
    clientBasedCORS: (_ctx, origin, client) => allowedOrigin(origin, client.redirectUris ?? []),
    // The provider never redirects to a client it could not validate: an error page, or JSON.
    renderError: (ctx: KoaContextWithOIDC, out) => renderOidcError(variant, ctx, out),
    // Only a grant of this client and this account is reused; what it issues is bounded by this
    // request's scopes (the provider issues requested ∩ granted), and the consent step adds only
    // what this request asked (interaction.ts).
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId);
      if (!grantId) return undefined;
      const grant = await ctx.oidc.provider.Grant.find(grantId);
      if (!grant || grant.clientId !== ctx.oidc.client!.clientId || grant.accountId !== ctx.oidc.session?.accountId)
        return undefined;
      return grant;
    },
  };
}

export type OidcProviders = {
  /** The provider of the configured origin the request's host selects. */
  forRequest(request: FastifyRequest): Promise<Provider>;
  /** The provider of an issuer this instance serves (or built now). */
  forIssuer(issuer: string): Provider;
  /** Checks the database for rotated keys now (the timer does it on its own). */
  refreshKeys(): Promise<boolean>;
  /** The key the provider signs with now (security event tokens are signed with it too). */
  signingKey(): SigningJwk;
  close(): void;
};

/** The providers of this instance. `onError` hears a failed key poll (database away). */
export async function createOidcProviders(
  db: Db,
  config: Config,
  options: {
    onError?: (error: unknown) => void;
    keyPollMs?: number;
    proxy?: boolean;
    /** Hears what the provider answered as server_error (it logs nothing itself). */
    onServerError?: (error: unknown) => void;
    /** Ends a Tessera session (an RP-initiated logout the person confirmed ends theirs). */
    endSession?: (sessionId: string) => Promise<void>;
  } = {},
): Promise<OidcProviders> {
  const keys = new SigningKeys(db, config.secretKey);
  await keys.init();
  let providers = new Map<string, Provider>();
  const build = (issuer: string) => {
    const provider = new Provider(issuer, providerConfiguration(db, config, keys, new URL(issuer).origin));
    provider.proxy = options.proxy ?? false;
    provider.use(servedAt(issuer));
    provider.use(tokenRequestScope());
    // A confidential client's secret is stored as a digest (clients.ts): compare digests.
    provider.Client.prototype.compareClientSecret = function compareClientSecret(
      this: { clientSecret?: string },
      presented: string,
    ) {
      return Promise.resolve(clientSecretMatches(this.clientSecret, presented));
    };
    provider.use(linkSessions(db, authCookieName(config)));
    repeatRefreshGrants(provider, db, config.secretKey);
    if (options.endSession) {
      const { endSession } = options;
      provider.use(
        endTesseraSessionOnLogout(
          db,
          authCookieName(config),
          (host) => {
            const { maxAge: _drop, ...rest } = authCookieOptions(config, host);
            return rest;
          },
          endSession,
        ),
      );
    }
    provider.on('server_error', (_ctx: unknown, error: unknown) => options.onServerError?.(error));
    return provider;
  };

  const refreshKeys = async () => {
    if (!(await keys.loadIfChanged())) return false;
    // New keys: fresh providers, built on next use (their storage is shared, nothing is lost).
    providers = new Map();
    return true;
  };
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    refreshKeys()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        polling = false;
      });
  }, options.keyPollMs ?? 30_000);
  timer.unref();

  const forIssuer = (issuer: string) => {
    let provider = providers.get(issuer);
    if (!provider) {
      // Issuers come from the configuration, or from sessions linked under an earlier one (logout.ts): bounded all the same.
      if (providers.size >= MAX_PROVIDERS) providers.delete(providers.keys().next().value!);
      providers.set(issuer, (provider = build(issuer)));
    }
    return provider;
  };

  return {
    async forRequest(request) {
      return forIssuer(`${publicOriginOf(config, request).origin}${OIDC_PREFIX}`);
    },
    forIssuer,
    refreshKeys,
    signingKey: () => keys.jwks().keys[0]!,
    close: () => clearInterval(timer),
  };
}

/** Koa middleware, first of the provider's: every URL the provider builds from the request (the
 * discovery document's endpoints, the token endpoint a client assertion names, its forms' actions)
 * is its issuer's, whatever Host or X-Forwarded-Host the request carries; and its cookies are
 * Secure where the issuer is https, as a proxy that ends TLS in front of it would otherwise hide. */
function servedAt(issuer: string) {
  const { host, protocol } = new URL(issuer);
  const pinned = { host: { value: host }, protocol: { value: protocol.slice(0, -1) } };
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    Object.defineProperties(ctx.request, pinned);
    await next();
  };
}
