// Starts the server: validates configuration, migrates, seeds demo data on an empty database,
// listens, and prints where to go and how to sign in.
// First: it sizes libuv's thread pool, which the imports below must not start.
import '../server/passwords/threadPool.ts';
import { availableParallelism } from 'node:os';
import { buildApp } from '../server/app.ts';
import { ConfigError, loadConfig, type Config } from '../server/config/index.ts';
import {
  DEMO_INVITATIONS,
  DEMO_MFA_USERS,
  DEMO_ONBOARDING_CARDS,
  DEMO_PASSWORD,
  DEMO_USERS,
  seedDemo,
} from '../server/seed/demo.ts';
import { startEntraStandIn, type EntraStandIn } from '../server/testing/entraStandIn.ts';

/** The demo's Microsoft sign-in: where no Microsoft settings are given, a local stand-in for Entra
 * ID with a page of its own (any work email signs in), for one made-up company. Development only,
 * with the demo data, and not with DEMO_MICROSOFT=false. */
const DEMO_TENANT = '7e57ab1e-0000-4000-8000-00000000de70';
async function demoMicrosoft(env: NodeJS.ProcessEnv): Promise<EntraStandIn | null> {
  if (
    (env.NODE_ENV ?? 'development') !== 'development' ||
    env.SEED_DEMO === 'false' ||
    env.MICROSOFT_CLIENT_ID ||
    env.DEMO_MICROSOFT === 'false'
  )
    return null;
  const ports = [env.PORT ?? '3000', '5173'];
  const hosts = ['account.localhost', 'account.lu.localhost', 'localhost'];
  const entra = await startEntraStandIn({
    tenants: [DEMO_TENANT],
    clientId: 'tessera-demo',
    clientSecret: 'tessera-demo-stand-in',
    interactive: true,
    redirectUris: ports.flatMap((port) => hosts.map((host) => `http://${host}:${port}/sso/microsoft/login/callback`)),
  });
  Object.assign(env, {
    MICROSOFT_CLIENT_ID: 'tessera-demo',
    MICROSOFT_CLIENT_SECRET: 'tessera-demo-stand-in',
    MICROSOFT_TENANTS: `${DEMO_TENANT}=Demo Company`,
    MICROSOFT_AUTHORITY: entra.authority,
  });
  return entra;
}

let config: Config;
let server: Awaited<ReturnType<typeof buildApp>>;
const entra = await demoMicrosoft(process.env);
try {
  config = loadConfig(process.env, availableParallelism());
  server = await buildApp(config);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

const seeded = config.seedDemo ? await seedDemo(server.ctx) : false;
await server.app.listen({ port: config.port, host: config.host });

// Where the app is: its configured origins (npm run dev sets them to Vite's port).
const lines = [
  '',
  `Tessera is running (${server.ctx.database.kind === 'postgres' ? 'PostgreSQL' : `SQLite at ${config.sqlitePath}`}).`,
  `  Belgian variant:     ${config.publicOrigins.be}/`,
  `  Luxembourg variant:  ${config.publicOrigins.lu}/`,
  `  API:                 http://localhost:${config.port}/api   (health at /healthz and /readyz)`,
];
if (config.env !== 'production')
  lines.push(`  OpenAPI:             http://localhost:${config.port}/api/openapi.json (send any x-device-id header)`);
if (config.seedDemo) {
  lines.push('', `Demo accounts${seeded ? ' (seeded now)' : ''}, password for all: ${DEMO_PASSWORD}`);
  for (const user of [...DEMO_USERS, ...DEMO_MFA_USERS])
    lines.push(`  ${user.email.padEnd(28)} ${user.phone.padEnd(15)} ${user.description}`);
  lines.push('', 'Cards to activate (number, activation code) and invitation codes, at /onboarding:');
  for (const card of DEMO_ONBOARDING_CARDS) {
    const who =
      card.status === 'blocked'
        ? 'blocked (lost card)'
        : card.firstname
          ? `${card.firstname} ${card.lastname}, ${card.company}`
          : 'no holder details';
    lines.push(`  ${card.number.replace(/(\d{4})(?=\d)/g, '$1 ')}  ${card.activationCode}   ${who}`);
  }
  for (const invitation of DEMO_INVITATIONS) lines.push(`  ${invitation.code}  ${invitation.email}`);
  if (config.delivery.smtp.length === 0 || config.delivery.sms.length === 0)
    lines.push(`  Codes sent by email or phone appear at http://localhost:${config.port}/dev/outbox`);
  if (entra)
    lines.push(
      `  "Sign in with Microsoft" goes to a local stand-in for Entra ID (${entra.authority}): any work email signs in`,
    );
}
console.log(lines.join('\n') + '\n');

const stop = async (drainSeconds: number) => {
  // Out of the balancer first (readyz 503, every request still served), then closed.
  if (drainSeconds > 0) await server.drain(drainSeconds);
  await server.close();
  await entra?.close();
  process.exit(0);
};
// Ctrl-C stops at once; SIGTERM (a rolling restart) drains first.
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(config.shutdownDrainSeconds));
