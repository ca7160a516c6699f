// Prometheus metrics (prom-client), one registry per app so that several apps in one process (the
// tests, the benchmarks) keep their counts apart. Counters are moved by the HTTP hooks (requests,
// sign-ins, 429s) and by the delivery wrapper (codes sent, failures); gauges are read when scraped.
//
// For other parts of the server:
// - `metrics.deliveryFailures.inc({ channel })` counts a message a channel refused or lost.
// - `metrics.measureOutbox(() => depth)` gives the function the outbox depth gauge calls at each
//   scrape (messages waiting to be sent); without one the gauge stays 0.
// - `metrics.deliveries.inc({ channel, provider, outcome })` counts each provider's attempt.
// - `metrics.measureCircuits(() => circuits)` gives the function the circuit gauge calls at each scrape.
// - `metrics.receipts` and `metrics.deliveryTime` are moved by the delivery receipts' route.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DatabaseHandle } from '../db/index.ts';
import type { Delivery, ProviderCircuit } from '../delivery/index.ts';
import type { PasswordHasher } from '../passwords/hashing.ts';

export type SignInOutcome = 'success' | 'mfa_required' | 'weak_password' | 'invalid_credentials' | 'throttled';

export type Metrics = {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  signIns: Counter<'outcome'>;
  codesSent: Counter<'channel'>;
  deliveryFailures: Counter<'channel'>;
  throttled: Counter<'route'>;
  deliveries: Counter<'channel' | 'provider' | 'outcome'>;
  receipts: Counter<'provider' | 'status'>;
  fallbacks: Counter<'from' | 'to'>;
  deliveryTime: Histogram<'channel'>;
  measureOutbox(depth: () => number | Promise<number>): void;
  measureCircuits(circuits: () => Promise<ProviderCircuit[]>): void;
};

/** The circuit gauge's values. */
const CIRCUIT_VALUES = { closed: 0, half_open: 1, open: 2 } as const;

export function createMetrics(sources: {
  database: DatabaseHandle;
  hasher: PasswordHasher;
  processMetrics: boolean;
}): Metrics {
  const registry = new Registry();
  // Process metrics (memory, CPU, event loop lag) keep a timer each: one set per real process.
  if (sources.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  let outboxDepth: (() => number | Promise<number>) | null = null;
  new Gauge({
    name: 'tessera_outbox_depth',
    help: 'Messages waiting in the outbox',
    registers,
    async collect() {
      if (outboxDepth) this.set(await outboxDepth());
    },
  });

  let circuits: (() => Promise<ProviderCircuit[]>) | null = null;
  new Gauge({
    name: 'tessera_delivery_circuit_state',
    help: "Each delivery provider's circuit: 0 closed, 1 half-open (one message tries it), 2 open (skipped)",
    labelNames: ['provider'],
    registers,
    async collect() {
      for (const circuit of circuits ? await circuits() : [])
        this.set({ provider: circuit.provider }, CIRCUIT_VALUES[circuit.state]);
    },
  });

  const { database, hasher } = sources;
  new Gauge({
    name: 'tessera_db_connections',
    help: 'Database connections by state (SQLite: its one connection)',
    labelNames: ['state'],
    registers,
    collect() {
      const pool = database.pgPool;
      this.set({ state: 'total' }, pool ? pool.totalCount : 1);
      this.set({ state: 'idle' }, pool ? pool.idleCount : 1);
      this.set({ state: 'waiting' }, pool ? pool.waitingCount : 0);
    },
  });
  new Gauge({
    name: 'tessera_password_hashes',
    help: 'Argon2id computations running, and queued for a turn',
    labelNames: ['state'],
    registers,
    collect() {
      const load = hasher.load();
      this.set({ state: 'running' }, load.running);
      this.set({ state: 'queued' }, load.queued);
    },
  });

  return {
    registry,
    httpRequests: new Counter({
      name: 'tessera_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'tessera_http_request_duration_seconds',
      help: 'HTTP request latency by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    signIns: new Counter({
      name: 'tessera_sign_ins_total',
      help: 'Password sign-ins by outcome',
      labelNames: ['outcome'],
      registers,
    }),
    codesSent: new Counter({
      name: 'tessera_codes_sent_total',
      help: 'Codes handed to a channel (email, sms, call, whatsapp)',
      labelNames: ['channel'],
      registers,
    }),
    deliveryFailures: new Counter({
      name: 'tessera_delivery_failures_total',
      help: 'Messages a channel refused or lost',
      labelNames: ['channel'],
      registers,
    }),
    throttled: new Counter({
      name: 'tessera_throttled_total',
      help: 'Requests refused with 429, by route pattern',
      labelNames: ['route'],
      registers,
    }),
    deliveries: new Counter({
      name: 'tessera_deliveries_total',
      help: 'Delivery attempts by channel, provider and outcome (sent, failed, timeout, skipped: circuit open)',
      labelNames: ['channel', 'provider', 'outcome'],
      registers,
    }),
    receipts: new Counter({
      name: 'tessera_delivery_receipts_total',
      help: "Providers' delivery receipts by provider and status (delivered, failed, unknown)",
      labelNames: ['provider', 'status'],
      registers,
    }),
    fallbacks: new Counter({
      name: 'tessera_delivery_fallbacks_total',
      help: 'Codes that went another way, by the channel left and the channel taken',
      labelNames: ['from', 'to'],
      registers,
    }),
    deliveryTime: new Histogram({
      name: 'tessera_delivery_seconds',
      help: 'Time from a provider taking a message to its receipt saying it was delivered, by channel',
      labelNames: ['channel'],
      registers,
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300],
    }),
    measureOutbox(depth) {
      outboxDepth = depth;
    },
    measureCircuits(measure) {
      circuits = measure;
    },
  };
}

/** Counts what a delivery sends and what it fails to send, by channel. */
export function countedDelivery(delivery: Delivery, metrics: Metrics): Delivery {
  return {
    async send(message) {
      let taken;
      try {
        taken = await delivery.send(message);
      } catch (error) {
        metrics.deliveryFailures.inc({ channel: message.channel });
        throw error;
      }
      metrics.codesSent.inc({ channel: message.channel });
      return taken;
    },
  };
}
