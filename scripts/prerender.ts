// Part of the build (scripts/build.ts): draws the public screens ahead of the script, for each
// variant, language and screen, into dist/prerendered.json, with the locale chunks the page should
// preload. The app draws them itself (src/prerender.tsx, bundled here for Node with the app's own
// Vite config); the server puts the one that fits into the page (server/spa/shell.ts).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { VARIANT_LOCALES, type Locale, type Variant } from '../contract/constants.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { pathOf } from '../machines/routes.ts';

const root = join(import.meta.dirname, '..');

/** The screens drawn ahead: a first visit lands on the sign-in. */
export const PRERENDERED_PATHS = [pathOf('login', 'email'), pathOf('login', 'phone')];
/** A host name of each variant (contract/constants.ts variantOfHost). */
const HOSTS: Record<Variant, string> = { be: 'account.localhost', lu: 'account.lu.localhost' };

export type Prerendered = {
  /** The app's modules, which the entry imports once the drawn screen is painted: the page preloads them. */
  app: string[];
  /** Each locale's strings, as the page preloads them: the chunk's path. */
  locales: Partial<Record<Locale, string>>;
  screens: Partial<
    Record<Variant, Partial<Record<Locale, Record<string, { html: string; title: string; description: string }>>>>
  >;
};

/** The module src/main.tsx imports to start the app. */
const APP_MODULE = 'src/app/start.tsx';

/** A module's chunk and every chunk it imports statically, as the page names them. */
function chunksOf(
  manifest: Record<string, { file: string; imports?: string[] }>,
  key: string,
  seen = new Set<string>(),
): string[] {
  const entry = manifest[key];
  if (!entry) throw new Error(`prerender: no ${key} in the build's manifest`);
  if (seen.has(entry.file)) return [];
  seen.add(entry.file);
  return [`/${entry.file}`, ...(entry.imports ?? []).flatMap((imported) => chunksOf(manifest, imported, seen))];
}

/** What the modules read of the browser when they load, for drawing in Node: the host decides the variant. */
function pretendBrowserAt(host: string): void {
  Object.assign(globalThis, {
    window: {
      location: { host, pathname: '/', search: '', hash: '' },
      history: { state: null },
      addEventListener() {},
    },
    document: { documentElement: { lang: '', dataset: {} }, getElementById: () => null },
  });
}

export async function prerender(distDir: string): Promise<Prerendered> {
  // Inside the project, so that the bundle finds the libraries it leaves out (react, i18next, xstate).
  const outDir = join(root, 'node_modules', '.cache', `tessera-prerender-${process.pid}`);
  try {
    await build({
      root,
      mode: 'production',
      logLevel: 'warn',
      configFile: join(root, 'vite.config.ts'),
      // One file, so that loading it again (per variant) loads every module again.
      build: {
        ssr: 'src/prerender.tsx',
        outDir,
        emptyOutDir: true,
        sourcemap: false,
        manifest: false,
        rolldownOptions: { output: { codeSplitting: false } },
      },
    });
    const manifest = JSON.parse(readFileSync(join(distDir, '.vite', 'manifest.json'), 'utf8')) as Record<
      string,
      { file: string; imports?: string[] }
    >;
    const result: Prerendered = { app: chunksOf(manifest, APP_MODULE), locales: {}, screens: {} };
    for (const [variant, offer] of Object.entries(VARIANT_LOCALES) as Array<
      [Variant, (typeof VARIANT_LOCALES)[Variant]]
    >) {
      pretendBrowserAt(HOSTS[variant]);
      const app = (await import(
        `${pathToFileURL(join(outDir, 'prerender.js')).href}?variant=${variant}`
      )) as typeof import('../src/prerender.tsx');
      if (app.variant !== variant) throw new Error(`prerender: drew ${app.variant} for ${variant}`);
      const config = {
        variant,
        locales: Object.values(offer.locales),
        defaultLocale: offer.default,
        redirectTargets: [],
        analyticsUrl: null,
        passwordPolicy: DEFAULT_PASSWORD_POLICY,
        captcha: false,
      };
      const screens: Partial<Record<Locale, Record<string, { html: string; title: string; description: string }>>> = {};
      for (const locale of Object.values(offer.locales)) {
        const chunk = manifest[`locales/${locale}.json`]?.file;
        if (!chunk) throw new Error(`prerender: no chunk for locales/${locale}.json in the build's manifest`);
        result.locales[locale] = `/${chunk}`;
        screens[locale] = {};
        for (const path of PRERENDERED_PATHS) screens[locale][path] = await app.draw(path, locale, config);
      }
      result.screens[variant] = screens;
    }
    writeFileSync(join(distDir, 'prerendered.json'), JSON.stringify(result));
    return result;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const drawn = await prerender(join(root, 'dist'));
  const count = Object.values(drawn.screens).flatMap((byLocale) =>
    Object.values(byLocale).flatMap((paths) => Object.keys(paths)),
  ).length;
  console.info(`prerender: ${count} screens drawn ahead`);
  process.exit(0);
}
