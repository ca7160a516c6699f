// The application factory: npm start, the tests and the benchmarks all build the server here.
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/constants.ts';
import { appConfigFor } from './appconfig/appConfig.ts';
import { appConfigRoutes } from './appconfig/routes.ts';
import type { Config } from './config/index.ts';
import type { AppContext } from './context.ts';
import { openDatabase } from './db/index.ts';
import { DeliveryUnavailable, createDelivery } from './delivery/index.ts';
import { queueSecurityEvents, setDelivery } from './oidc/securityEvents.ts';
import type { SigningJwk } from './oidc/keys.ts';
import { createOutbox } from './delivery/queue.ts';
import { outboxRoutes } from './delivery/outbox.ts';
import { mfaRoutes } from './mfa/routes.ts';
import { historyRoutes } from './history/routes.ts';
import { deviceRoutes } from './devices/routes.ts';
import { cardRoutes } from './cards/routes.ts';
import { exportRoutes } from './export/routes.ts';
import { loadCityDatabase } from './clientinfo/index.ts';
import { listAccessGrants } from './oidc/grants.ts';
import { queuedResets } from './recovery/forgot.ts';
import { recoveryRoutes } from './recovery/routes.ts';
import { captchaRoutes } from './captcha/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { migrate } from './db/migrations.ts';
import { codeDeliveryRoutes } from './delivery/fallback.ts';
import { forgetOldDeliveries, receiptRoutes } from './delivery/receipts.ts';
import { listenForChanges } from './cluster/invalidation.ts';
import { connectRedis } from './config/redis.ts';
import { healthRoutes } from './health/routes.ts';
import { startOidcPurge } from './oidc/adapter.ts';
import { createOidcProviders, type OidcProviders } from './oidc/provider.ts';
import { oidcRoutes } from './oidc/routes.ts';
import { consentRoutes } from './oidc/consent.ts';
import { loginTicketRoutes } from './oidc/loginTickets.ts';
import { endLinkedSessions } from './oidc/logout.ts';
import { revokeSession } from './sessions/store.ts';
import { clientOfInteraction, forgetCachedClients, paramsOfInteraction } from './oidc/clients.ts';
import { accessRoutes } from './oidc/accessRoutes.ts';
import { logoutRequestRoutes } from './oidc/logoutScreens.ts';
import { partnerRoutes } from './oidc/partners.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { onSecurityEvents, setAuditLogger } from './events/record.ts';
import { deviceKeyOf } from './http/auth.ts';
import { frameworkError, installErrorHandling, sendError } from './http/errors.ts';
import { forgetKeptAnswers, idempotentCalls } from './http/idempotency.ts';
import { proxyTrust } from './http/proxy.ts';
import { publicOriginOf, refuseUnconfiguredHosts } from './http/origin.ts';
import { contentSecurityPolicy, installSecurityHeaders, providerFormAction } from './http/security.ts';
import { passkeyRoutes, webauthnWellKnown } from './login/passkey-routes.ts';
import { loginRoutes } from './login/routes.ts';
import { createPasswordHasher } from './passwords/hashing.ts';
import { profileRoutes } from './profile/routes.ts';
import { fuzzionRoutes } from './fuzzion/routes.ts';
import { countedDelivery, createMetrics } from './metrics/index.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { createLimiters } from './ratelimit/limiters.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { authCookieName } from './sessions/cookie.ts';
import { createSignInRecords } from './sessions/records.ts';
import { newDeviceAlerts } from './devices/alerts.ts';
import { installSpa } from './spa/index.ts';
import { ssoApiRoutes, ssoBrowserRoutes } from './sso/routes.ts';

export type App = {
  app: FastifyInstance;
  ctx: AppContext;
  oidc: OidcProviders;
  /** The start of a stop: /readyz says 503 for `seconds` while every request is still served (the
   * balancer's checks take the node out meanwhile); `close` follows. */
  drain(seconds: number): Promise<void>;
  /** Stops accepting, finishes the requests it holds, hands back the outbox's leases, closes its
   * pools. */
  close(): Promise<void>;
  /** Resolves once the instance hears of changes made elsewhere (with Redis; at once without). */
  changesHeard: Promise<void>;
};

/** How often the outbox's housekeeping forgets what expired (old deliveries, kept answers). */
const FORGET_EVERY_MS = 10 * 60_000;

/** `logStream`: where the log goes instead of stdout (tests read it). */
/** `now`: the delivery circuits' clock (tests move it). */
export async function buildApp(
  config: Config,
  options: { logStream?: { write(line: string): void }; now?: () => number } = {},
): Promise<App> {
  loadCityDatabase(config.geoipCityDb);
  const database = openDatabase(config);
  await migrate(database.db);
  // A command on a connection that stopped answering fails after a second (the limiters then use
  // the database); ioredis keeps reconnecting in the background (to the new primary, after a
  // Sentinel failover).
  const redis = config.redis
    ? connectRedis(config.redis, { maxRetriesPerRequest: 2, enableOfflineQueue: true, commandTimeout: 1000 })
    : null;
  const store = { database, redis };
  const hasher = createPasswordHasher(config.hashConcurrency);
  const metrics = createMetrics({ database, hasher, processMetrics: config.env !== 'test' });
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      // Secrets never reach the log: tokens, cookies, passwords.
      redact: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.access_token',
      ],
    },
    bodyLimit: config.bodyLimitBytes,
    // A request, body included, must arrive within the bound (Fastify's default is no bound at all),
    // and its headers within 10 s; Node checks these every second (its default is every 30 s).
    requestTimeout: config.requestTimeoutSeconds * 1000,
    http: { headersTimeout: Math.min(10, config.requestTimeoutSeconds) * 1000, connectionsCheckingInterval: 1000 },
    trustProxy: proxyTrust(config.trustProxy),
    frameworkErrors: frameworkError,
    // Unknown fields and wrong types are refused, never silently dropped or coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });

  // Partners' security event tokens are signed with the provider's key, known once it is up (below).
  let providerKey: (() => SigningJwk) | null = null;
  const partnerEvents = setDelivery(database.db, config, () => {
    if (!providerKey) throw new DeliveryUnavailable('the authorisation server is not up yet');
    return providerKey();
  });
  const delivery = createDelivery(config, database.db, partnerEvents, {
    redis,
    log: app.log,
    observe: (channel, provider, outcome) => metrics.deliveries.inc({ channel, provider, outcome }),
    ...(options.now ? { now: options.now } : {}),
  });
  const ctx: AppContext = {
    config,
    db: database.db,
    database,
    redis,
    hasher,
    limiters: await createLimiters(config, store),
    cookieName: authCookieName(config),
    outbox: createOutbox(database.db, countedDelivery(delivery, metrics), app.log, {
      dropped: (channel) => metrics.deliveryFailures.inc({ channel }),
      fellBack: (from, to) => metrics.fallbacks.inc({ from, to }),
      stepSeconds: config.delivery.stepSeconds,
      leaseMs: config.delivery.outboxLeaseSeconds * 1000,
    }),
    // A sign-in from a new device mails its owner (server/devices/alerts.ts).
    signInRecords: createSignInRecords(database.db, app.log, () => newDeviceAlerts(ctx)),
    circuits: () => delivery.circuits(),
    metrics,
    // Nothing depends on sessions until the authorisation server is up (below).
    sessionsEnded: async () => {},
    draining: false,
  };
  metrics.measureOutbox(() => ctx.outbox.depth());
  metrics.measureCircuits(() => ctx.circuits());

  setAuditLogger(database.db, app.log);
  onSecurityEvents(database.db, (events) => queueSecurityEvents(ctx, events));
  database.pgPool?.on('error', (error) => app.log.warn({ err: error }, 'database connection lost'));
  redis?.on('error', (error) => app.log.warn({ err: error }, 'redis unavailable'));
  installErrorHandling(app);
  // Before any route: in production a host that is no configured origin's gets 421 (server/http/origin.ts).
  refuseUnconfiguredHosts(app, config);
  installSecurityHeaders(app, config);
  await metricsRoutes(app, ctx);
  await app.register(fastifyCookie);

  if (config.env !== 'production') {
    await app.register(fastifySwagger, {
      openapi: { info: { title: 'Tessera account API', version: '1' }, servers: [{ url: API_PREFIX }] },
    });
  }

  const oidcProviders = await createOidcProviders(database.db, config, {
    proxy: config.trustProxy !== false,
    onError: (error) => app.log.warn({ err: error }, 'OIDC signing keys could not be checked'),
    onServerError: (error) => app.log.error({ err: error }, 'OIDC request failed'),
    endSession: async (sessionId) => {
      await revokeSession(database.db, sessionId);
      await ctx.sessionsEnded({ sessionIds: [sessionId] });
    },
  });
  providerKey = () => oidcProviders.signingKey();
  // Keys rotated and clients changed by the command line are reloaded at once on every instance
  // (server/cluster/invalidation.ts).
  const changes = redis
    ? listenForChanges(
        redis,
        {
          'oidc-keys': () => oidcProviders.refreshKeys(),
          'oidc-clients': async () => forgetCachedClients(database.db),
        },
        app.log,
      )
    : null;
  ctx.sessionsEnded = endLinkedSessions(database.db, oidcProviders.forIssuer, app.log);
  await app.register(
    async (api) => {
      // Callback style: every API call passes here, and an async hook costs a promise each time. A
      // refusal thrown here (no device id) reaches the error handler as an async one would.
      api.addHook('onRequest', (request, reply, done) => {
        if (config.maintenance) {
          sendError(reply, 'maintenance');
          return;
        }
        request.deviceKey = deviceKeyOf(request);
        request.session = null;
        done();
      });
      idempotentCalls(api, ctx);
      await appConfigRoutes(api, ctx);
      await loginRoutes(api, ctx);
      await passkeyRoutes(api, ctx);
      await sessionRoutes(api, ctx);
      await profileRoutes(api, ctx);
      await fuzzionRoutes(api, ctx);
      await mfaRoutes(api, ctx);
      await codeDeliveryRoutes(api, ctx);
      await deviceRoutes(api, ctx);
      await cardRoutes(api, ctx);
      await exportRoutes(api, ctx, { grantsOf: listAccessGrants });
      await historyRoutes(api, ctx);
      await recoveryRoutes(api, ctx);
      await captchaRoutes(api, ctx);
      await onboardingRoutes(api, ctx);
      await consentRoutes(api, ctx, oidcProviders);
      await loginTicketRoutes(api, ctx, oidcProviders);
      await accessRoutes(api, ctx, oidcProviders);
      await partnerRoutes(api, ctx);
      await logoutRequestRoutes(api, ctx);
      await notificationRoutes(api, ctx);
      await ssoApiRoutes(api, ctx);
      if (config.env !== 'production') {
        api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      }
    },
    { prefix: API_PREFIX },
  );

  await healthRoutes(app, ctx);
  await receiptRoutes(app, ctx);
  await webauthnWellKnown(app, ctx);
  await ssoBrowserRoutes(app, ctx);
  await oidcRoutes(app, ctx, oidcProviders);
  const stopOidcPurge = startOidcPurge(database.db, {
    onError: (error) => app.log.warn({ err: error }, 'expired OIDC models could not be purged'),
  });
  if (config.env !== 'production') await outboxRoutes(app, ctx);
  await installSpa(app, config.spaDir, {
    sourceMaps: config.env === 'development',
    // The page carries the config the API would answer: none while the API answers "maintenance".
    page: {
      cookieName: ctx.cookieName,
      configFor: async (host) => (config.maintenance ? null : appConfigFor(ctx, host)),
      signingInTo: (redirect, locale, host) =>
        clientOfInteraction(database.db, redirect, locale, publicOriginOf(config, { host }).origin),
      authorisationRequest: (uid) => paramsOfInteraction(database.db, uid),
      securityPolicy: (styles, scripts, answersProvider) =>
        contentSecurityPolicy(config, {
          styles,
          scripts,
          ...(answersProvider ? { formAction: providerFormAction(config) } : {}),
        }),
    },
  });
  ctx.outbox.addStep(queuedResets(ctx));
  // Housekeeping: what expired is forgotten at most every ten minutes.
  ctx.outbox.addStep(() => forgetOldDeliveries(database.db), FORGET_EVERY_MS);
  ctx.outbox.addStep(() => forgetKeptAnswers(database.db), FORGET_EVERY_MS);
  ctx.outbox.start();
  ctx.signInRecords.start();

  return {
    app,
    ctx,
    oidc: oidcProviders,
    async drain(seconds) {
      ctx.draining = true;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    },
    changesHeard: changes?.ready ?? Promise.resolve(),
    async close() {
      changes?.stop();
      oidcProviders.close();
      stopOidcPurge();
      await app.close();
      // No request is left to add records: write what waits.
      await ctx.signInRecords.stop();
      await ctx.outbox.stop();
      redis?.disconnect();
      await database.close();
    },
  };
}
