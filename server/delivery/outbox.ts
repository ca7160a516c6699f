// /dev/outbox: what would have been sent, for development without SMTP or SMS provider. Never in production.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { latestMessages } from './queue.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function outboxRoutes(app: FastifyInstance, ctx: AppContext) {
  const latest = () => latestMessages(ctx.db);
  app.get('/dev/outbox.json', { schema: { hide: true } }, async () => ({ messages: await latest() }));
  app.get('/dev/outbox', { schema: { hide: true } }, async (_request, reply) => {
    const rows = (await latest()).map(
      (m) =>
        `<li><p><strong>${escape(m.channel)}</strong> to ${escape(m.recipient)} · ${escape(m.created_at)}</p><p>${escape(m.subject)}</p><pre>${escape(m.body)}</pre></li>`,
    );
    return reply
      .type('text/html')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dev outbox</title></head><body><main><h1>Dev outbox</h1><ol>${rows.join('')}</ol></main></body></html>`,
      );
  });
}
