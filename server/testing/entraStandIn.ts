// A stand-in for Microsoft Entra ID in tests: oidc-provider on a loopback port, one provider per
// tenant at `http://127.0.0.1:<port>/<tenant id>/v2.0` (its issuer, as Entra's are
// `https://login.microsoftonline.com/<tenant id>/v2.0`), issuing `tid` and `oid` in its ID tokens.
// Whoever the test names in `signInAs` signs in at the next authorization: no pages, no consent.
// With `interactive` (the demo of `npm start`), nobody named signs in through a page of its own
// instead: any work email and name, its object id derived from the email.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import Provider from 'oidc-provider';

/** The interactive stand-in's sign-in page: a work email and a name, nothing checked. */
const SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Microsoft sign-in (demo stand-in)</title><style>body{font:16px system-ui;max-width:26rem;margin:3rem auto;padding:0 1rem}
label{display:block;margin-top:1rem}input{display:block;width:100%;padding:.6rem;margin-top:.3rem;box-sizing:border-box}
button{margin-top:1.5rem;padding:.7rem 1.2rem;background:#0f6cbd;color:#fff;border:0;border-radius:4px;font-size:1rem}</style></head>
<body><h1>Sign in with your work account</h1><p>This is the demo's stand-in for Microsoft Entra ID: any address signs in, as the same
work account each time.</p><form method="post"><label>Work email<input name="email" type="email" required autocomplete="email"></label>
<label>Name<input name="name" autocomplete="name"></label><button type="submit">Sign in</button></form></body></html>`;

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
      if (body.length > 4096) req.destroy();
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** The work account of the form: the same email is the same account (its object id, a UUID shape, derived from it). */
export function userOfForm(body: string): EntraUser | null {
  const form = new URLSearchParams(body);
  const email = form.get('email')?.trim().toLowerCase() ?? '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) return null;
  const hex = createHash('sha256').update(email).digest('hex');
  const oid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const name = form.get('name')?.trim().slice(0, 100);
  return { oid, email, ...(name ? { name } : {}) };
}

export type EntraUser = {
  oid: string;
  email?: string;
  name?: string;
  /** The `tid` its ID token names, when not the tenant it signs in at (a token from another tenant). */
  tid?: string;
};

export type EntraStandIn = {
  authority: string;
  /** The user of the next sign-in at any tenant. */
  signInAs(user: EntraUser): void;
  /** Follows the authorization from its URL to the redirect back to the relying party: that URL. */
  authorize(url: string): Promise<URL>;
  close(): Promise<void>;
};

export async function startEntraStandIn(options: {
  tenants: string[];
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  port?: number;
  interactive?: boolean;
}): Promise<EntraStandIn> {
  const providers = new Map<string, Provider>();
  let next: EntraUser | null = null;
  const users = new Map<string, EntraUser>();
  const handlers = new Map<string, ReturnType<Provider['callback']>>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const [, tenant, version] = url.split(/[/?]/);
    const provider = tenant ? providers.get(tenant) : undefined;
    if (!provider || version !== 'v2.0') {
      res.statusCode = 404;
      res.end();
      return;
    }
    const prefix = `/${tenant}/v2.0`;
    const rest = url.slice(prefix.length) || '/';
    if (rest.startsWith('/interaction/')) {
      void finishInteraction(provider, req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    // Mounted under the tenant's path, as Express mounts it: the provider reads originalUrl.
    (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
    req.url = rest;
    handlers.get(tenant!)!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const authority = `http://127.0.0.1:${port}`;

  async function finishInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name !== 'login') throw new Error(`unexpected prompt ${details.prompt.name}`);
    let user = next;
    if (!user && options.interactive) {
      if (req.method !== 'POST') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SIGN_IN_PAGE);
        return;
      }
      user = userOfForm(await bodyOf(req));
      if (!user) {
        res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(SIGN_IN_PAGE);
        return;
      }
    }
    if (!user) throw new Error('no user to sign in: call signInAs() first');
    users.set(user.oid, user);
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.oid } },
      { mergeWithLastSubmission: false },
    );
  }

  for (const tenant of options.tenants) {
    const issuer = `${authority}/${tenant}/v2.0`;
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: options.clientId,
          client_secret: options.clientSecret,
          redirect_uris: options.redirectUris,
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      cookies: { keys: ['entra-stand-in-cookie-key-for-tests-only'] },
      claims: { openid: ['sub', 'tid', 'oid'], email: ['email', 'preferred_username'], profile: ['name'] },
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/${tenant}/v2.0/interaction/${interaction.uid}` },
      // Consent is not what is tested: every grant is given at once.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
      findAccount: async (_ctx, id) => {
        const user = users.get(id);
        if (!user) return undefined;
        return {
          accountId: id,
          claims: async () => ({
            sub: `pairwise-${id}`,
            tid: user.tid ?? tenant,
            oid: user.oid,
            ...(user.email ? { email: user.email, preferred_username: user.email } : {}),
            ...(user.name ? { name: user.name } : {}),
          }),
        };
      },
      pkce: { required: () => true },
    });
    providers.set(tenant, provider);
    handlers.set(tenant, provider.callback());
  }

  return {
    authority,
    signInAs(user) {
      next = user;
    },
    async authorize(start) {
      const jar = new Map<string, string>();
      let url = new URL(start);
      for (let hops = 0; hops < 10; hops += 1) {
        if (!url.href.startsWith(authority)) return url;
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair!.indexOf('=');
          jar.set(pair!.slice(0, at), pair!.slice(at + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`the stand-in answered ${res.status} without a redirect: ${await res.text()}`);
        url = new URL(location, url);
      }
      throw new Error('too many redirects at the stand-in');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
