// Serves the built single-page app, falling back to index.html for client routes.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../contract/constants.ts';
import { sendError } from '../http/errors.ts';

export async function installSpa(app: FastifyInstance, spaDir: string | null) {
  const root = spaDir ? resolve(spaDir) : null;
  const hasSpa = root !== null && existsSync(resolve(root, 'index.html'));
  if (hasSpa) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: false,
      setHeaders(reply, path) {
        // Vite fingerprints everything under assets/: cache it for a year; the rest revalidates.
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    if (path.startsWith(`${API_PREFIX}/`) || path === API_PREFIX || request.method !== 'GET' || !hasSpa) {
      return sendError(reply, 'not_found');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
