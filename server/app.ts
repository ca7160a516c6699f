// The application factory: npm start, the tests and the benchmarks all build the server here.
import { availableParallelism } from 'node:os';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { API_PREFIX } from '../contract/constants.ts';
import { appConfigRoutes } from './appconfig/routes.ts';
import type { Config } from './config/index.ts';
import type { AppContext } from './context.ts';
import { openDatabase } from './db/index.ts';
import { createDelivery } from './delivery/index.ts';
import { outboxRoutes } from './delivery/outbox.ts';
import { mfaRoutes } from './mfa/routes.ts';
import { deviceRoutes } from './devices/routes.ts';
import { recoveryRoutes } from './recovery/routes.ts';
import { captchaRoutes } from './captcha/routes.ts';
import { onboardingRoutes } from './onboarding/routes.ts';
import { migrate } from './db/migrations.ts';
import { healthRoutes } from './health/routes.ts';
import { setAuditLogger } from './events/record.ts';
import { deviceKeyOf } from './http/auth.ts';
import { installErrorHandling, sendError } from './http/errors.ts';
import { installSecurityHeaders } from './http/security.ts';
import { loginRoutes } from './login/routes.ts';
import { createPasswordHasher } from './passwords/hashing.ts';
import { profileRoutes } from './profile/routes.ts';
import { countedDelivery, createMetrics } from './metrics/index.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { createLimiter } from './ratelimit/index.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { authCookieName } from './sessions/cookie.ts';
import { installSpa } from './spa/index.ts';

export type App = { app: FastifyInstance; ctx: AppContext; close(): Promise<void> };

/** `logStream`: where the log goes instead of stdout (tests read it). */
export async function buildApp(config: Config, options: { logStream?: { write(line: string): void } } = {}): Promise<App> {
  const database = openDatabase(config);
  await migrate(database.db);
  // A command on a connection that stopped answering fails after a second (the limiters then use
  // the database); ioredis keeps reconnecting in the background.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, commandTimeout: 1000 }) : null;
  const store = { database, redis };
  const hasher = createPasswordHasher(config.hashConcurrency || availableParallelism());
  const metrics = createMetrics({ database, hasher, processMetrics: config.env !== 'test' });
  const ctx: AppContext = {
    config,
    db: database.db,
    database,
    redis,
    hasher,
    limiters: {
      userIp: await createLimiter({ keyPrefix: 'login_user_ip', points: config.login.maxFailsPerUserIp,
        duration: config.login.windowSeconds, blockDuration: config.login.blockSeconds }, store),
      account: await createLimiter({ keyPrefix: 'login_account', points: config.login.maxFailsPerAccount,
        duration: 3600, blockDuration: config.login.blockSeconds }, store),
      ip: await createLimiter({ keyPrefix: 'login_ip', points: config.login.maxFailsPerIp,
        duration: 3600, blockDuration: 3600 }, store),
      codeDestination: await createLimiter({ keyPrefix: 'code_destination', points: config.mfa.sendsPerDestination, duration: 3600, blockDuration: 0 }, store),
      codeAccount: await createLimiter({ keyPrefix: 'code_account', points: config.mfa.sendsPerAccount, duration: 3600, blockDuration: 0 }, store),
      mfaFailures: await createLimiter({ keyPrefix: 'mfa_failures', points: config.mfa.maxFailsPerAccount, duration: 3600,
        blockDuration: config.mfa.failBlockSeconds }, store),
      targetLookups: await createLimiter({ keyPrefix: 'mfa_target_lookups', points: 30, duration: 3600, blockDuration: 0 }, store),
      activationAttempts: await createLimiter({ keyPrefix: 'card_activation', points: 5, duration: 3600, blockDuration: 3600 }, store),
    },
    cookieName: authCookieName(config),
    delivery: countedDelivery(createDelivery(config, database.db), metrics),
    metrics,
  };

  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      // Secrets never reach the log: tokens, cookies, passwords.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.password', '*.access_token'],
    },
    bodyLimit: config.bodyLimitBytes,
    // A request, body included, must arrive within the bound (Fastify's default is no bound at all),
    // and its headers within 10 s; Node checks these every second (its default is every 30 s).
    requestTimeout: config.requestTimeoutSeconds * 1000,
    http: { headersTimeout: Math.min(10, config.requestTimeoutSeconds) * 1000, connectionsCheckingInterval: 1000 },
    trustProxy: config.trustProxy,
    // Unknown fields and wrong types are refused, never silently dropped or coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });

  setAuditLogger(database.db, app.log);
  database.pgPool?.on('error', (error) => app.log.warn({ err: error }, 'database connection lost'));
  redis?.on('error', (error) => app.log.warn({ err: error }, 'redis unavailable'));
  installErrorHandling(app);
  installSecurityHeaders(app, config);
  await metricsRoutes(app, ctx);
  await app.register(fastifyCookie);

  if (config.env !== 'production') {
    await app.register(fastifySwagger, {
      openapi: { info: { title: 'Tessera account API', version: '1' }, servers: [{ url: API_PREFIX }] },
    });
  }

  await app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      if (config.maintenance) return sendError(reply, 'maintenance');
      request.deviceKey = deviceKeyOf(request);
      request.session = null;
    });
    await appConfigRoutes(api, ctx);
    await loginRoutes(api, ctx);
    await sessionRoutes(api, ctx);
    await profileRoutes(api, ctx);
    await mfaRoutes(api, ctx);
    await deviceRoutes(api, ctx);
    await recoveryRoutes(api, ctx);
    await captchaRoutes(api, ctx);
    await onboardingRoutes(api, ctx);
    if (config.env !== 'production') {
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    }
  }, { prefix: API_PREFIX });

  await healthRoutes(app, ctx);
  if (config.env !== 'production') await outboxRoutes(app, ctx);
  await installSpa(app, config.spaDir);

  return {
    app,
    ctx,
    async close() {
      await app.close();
      redis?.disconnect();
      await database.close();
    },
  };
}
