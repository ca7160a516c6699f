// The peers of the browser tests, as one process Playwright starts: a real SMTP server and a local
// SMS/voice/WhatsApp provider, with what they received at GET /inbox, and an OpenID provider that
// stands in for Microsoft Entra ID (e2e/microsoftPeer.ts), told who signs in next at POST /entra/next.
// Usage: node e2e/peers.ts <peers port> <the portal's port>
import http from 'node:http';
import { startEntraStandIn } from '../server/testing/entraStandIn.ts';
import { startSmsProvider, startSmtp } from '../server/testing/peers.ts';
import { ACME_TENANT, ENTRA_CLIENT_ID, ENTRA_CLIENT_SECRET, OTHER_TENANT, entraPort } from './microsoftPeer.ts';

const port = Number(process.argv[2] ?? 3126);
const portal = Number(process.argv[3] ?? 3100);
const smtp = await startSmtp(port + 1);
const sms = await startSmsProvider(port + 2);
const entra = await startEntraStandIn({
  tenants: [ACME_TENANT, OTHER_TENANT],
  clientId: ENTRA_CLIENT_ID,
  clientSecret: ENTRA_CLIENT_SECRET,
  port: entraPort(port),
  redirectUris: [`http://account.localhost:${portal}/sso/microsoft/login/callback`],
});
http
  .createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/entra/next') {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        entra.signInAs(JSON.parse(body) as Parameters<typeof entra.signInAs>[0]);
        res.writeHead(204).end();
      });
    } else if (req.url === '/inbox') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ smtp: smtp.url, sms: sms.url, mails: smtp.mails, messages: sms.messages }));
    } else {
      res.writeHead(200).end('ok');
    }
  })
  .listen(port, '127.0.0.1');
