// Serves the built single-page app, falling back to index.html for client routes.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../contract/constants.ts';
import { sendError } from '../http/errors.ts';
import { pageRenderer, type PageSources } from './page.ts';

/** A file's path: an asset, or anything whose last segment has an extension. Page routes have neither. */
function isFilePath(path: string): boolean {
  return path.startsWith('/assets/') || /\.[A-Za-z0-9]+$/.test(path.slice(path.lastIndexOf('/') + 1));
}

export async function installSpa(
  app: FastifyInstance,
  spaDir: string | null,
  options: { sourceMaps: boolean; page: PageSources },
) {
  const root = spaDir ? resolve(spaDir) : null;
  const hasSpa = root !== null && existsSync(resolve(root, 'index.html'));
  const sendPage = hasSpa ? pageRenderer(root, options.page) : null;
  if (hasSpa) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: false,
      // The build wrote .br and .gz twins (scripts/build.ts): sent with Content-Encoding and
      // Vary: Accept-Encoding to a browser that accepts them, the shell included.
      preCompressed: true,
      // The page and the screens drawn ahead go out only as written into each page (./page.ts).
      // Source maps give the sources away: only a development server serves them.
      globIgnore: ['index.html*', 'prerendered.json*', ...(options.sourceMaps ? [] : ['**/*.map'])],
      setHeaders(reply, path) {
        // Vite fingerprints everything under assets/: cache it for a year; the rest revalidates.
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // The drawn sign-in posted before any script ran (the app holds it once its entry is there):
    // back to the page, never a dead end. Nothing posted is read.
    if (
      request.method === 'POST' &&
      sendPage &&
      !path.startsWith(`${API_PREFIX}/`) &&
      path !== API_PREFIX &&
      !isFilePath(path)
    ) {
      return reply.redirect(request.url, 303);
    }
    // A missing script or file is a 404: the app shell in its place would be run or parsed as something it is not.
    if (
      path.startsWith(`${API_PREFIX}/`) ||
      path === API_PREFIX ||
      request.method !== 'GET' ||
      !sendPage ||
      isFilePath(path)
    ) {
      return sendError(reply, 'not_found');
    }
    return sendPage(request, reply);
  });
}
