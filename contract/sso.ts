// Microsoft sign-in (server/sso/, docs/architecture.md "Microsoft sign-in"). The browser starts it by
// navigating to `/sso/microsoft/login` (outside /api); the callback sends it on with a one-time
// ticket: a second factor (`/login/microsoft#mfa=<payload>`) or an identity to link
// (`/partner/link-existing?ticket=<ticket>`). These are the API calls around it.
import * as v from 'valibot';
import { MfaMethodSummary, text } from './baseSchemas.ts';

/** Where a browser starts the sign-in: `?tenant=<tenant id>` (needed when several are configured),
 * `redirect=<one of our paths>`, `device=<the device id>`. */
export const SSO_LOGIN_PATH = '/sso/microsoft/login';
export const SSO_CALLBACK_PATH = '/sso/microsoft/login/callback';
/** Where the callback sends a sign-in that needs a second factor: the payload follows in the hash (`#mfa=`). */
export const SSO_MFA_PATH = '/login/microsoft';
/** Where the callback sends an identity no account has: `?ticket=`. */
export const SSO_LINK_PATH = '/partner/link-existing';
/** Where the callback sends a refusal: `?sso_error=<error code>` (sso_failed, sso_tenant_not_allowed, sso_unavailable). */
export const SSO_ERROR_PATH = '/login/email';

const ticket = text(200, 1);

/** POST /api/sso/microsoft/ticket: what a link ticket names, for the link-existing screen. */
export const SsoTicketRequest = v.strictObject({ ticket });
export type SsoTicketRequest = v.InferOutput<typeof SsoTicketRequest>;

export const SsoTicketAnswer = v.object({
  provider: v.literal('microsoft'),
  tenant: v.object({ id: v.string(), name: v.nullable(v.string()) }),
  /** The identity's email and name claims, for display only. */
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  expires_at: v.string(),
});
export type SsoTicketAnswer = v.InferOutput<typeof SsoTicketAnswer>;

/** POST /api/sso/microsoft/mfa: the second factors a Microsoft sign-in's payload can go on with
 * (the 401 body of a password sign-in, as a 200). */
export const SsoMfaRequest = v.strictObject({ payload: ticket });
export type SsoMfaRequest = v.InferOutput<typeof SsoMfaRequest>;
export const SsoMfaAnswer = v.object({
  code: v.literal('mfa_required'),
  message: v.string(),
  mfa: v.object({ payload: v.string(), methods: v.array(MfaMethodSummary) }),
});
export type SsoMfaAnswer = v.InferOutput<typeof SsoMfaAnswer>;

/** POST /api/user/link-account: links the ticket's identity to the signed-in account. */
export const LinkAccountRequest = v.strictObject({ ticket });
export type LinkAccountRequest = v.InferOutput<typeof LinkAccountRequest>;

/** A linked identity as its owner sees it. */
export const SsoIdentity = v.object({
  id: v.string(),
  provider: v.literal('microsoft'),
  tenant: v.object({ id: v.string(), name: v.nullable(v.string()) }),
  email: v.nullable(v.string()),
  name: v.nullable(v.string()),
  linked_at: v.string(),
  last_used_at: v.nullable(v.string()),
});
export type SsoIdentity = v.InferOutput<typeof SsoIdentity>;

export const LinkAccountAnswer = v.object({ data: SsoIdentity });
export type LinkAccountAnswer = v.InferOutput<typeof LinkAccountAnswer>;

/** GET /api/user/sso: the account's linked identities and whether it signs in with Microsoft only. */
export const SsoIdentityList = v.object({ data: v.array(SsoIdentity), sso_only: v.boolean() });
export type SsoIdentityList = v.InferOutput<typeof SsoIdentityList>;
