// The Microsoft Entra ID stand-in of the browser tests (server/testing/entraStandIn.ts), which the
// peers' process runs: its tenants, the app registration the portal uses there, and how a test
// names who signs in at Microsoft next.

/** The company whose people may sign in with Microsoft (MICROSOFT_TENANTS of the e2e server). */
export const ACME_TENANT = '6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';
export const ACME_NAME = 'Acme Corp';
/** A tenant the stand-in serves but the portal does not allow: its tokens are refused. */
export const OTHER_TENANT = '0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';
export const ENTRA_CLIENT_ID = 'tessera-e2e';
export const ENTRA_CLIENT_SECRET = 'tessera-e2e-secret-for-the-stand-in-only';

/** The stand-in's port: the one after the SMS provider's. */
export const entraPort = (peersPort: number) => peersPort + 3;

/** Who signs in at the stand-in next (any tenant): a Microsoft work account, by its object id. */
export async function nextMicrosoftUser(
  peersPort: number,
  user: { oid: string; email?: string; name?: string; tid?: string },
) {
  const res = await fetch(`http://127.0.0.1:${peersPort}/entra/next`, { method: 'POST', body: JSON.stringify(user) });
  if (!res.ok) throw new Error(`the Entra stand-in refused the next user: ${res.status}`);
}
