// The mail and SMS peers of the browser tests, as one process Playwright starts: a real SMTP
// server and a local SMS/voice/WhatsApp provider, with what they received at GET /inbox.
import http from 'node:http';
import { startSmsProvider, startSmtp } from '../server/testing/peers.ts';

const port = Number(process.argv[2] ?? 3126);
const smtp = await startSmtp(port + 1);
const sms = await startSmsProvider(port + 2);
http.createServer((req, res) => {
  if (req.url === '/inbox') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ smtp: smtp.url, sms: sms.url, mails: smtp.mails, messages: sms.messages }));
  } else {
    res.writeHead(200).end('ok');
  }
}).listen(port, '127.0.0.1');
