import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API server: on :3000 unless scripts/dev.ts moved it (PORT).
const api = `http://127.0.0.1:${process.env.API_PORT ?? 3000}`;

// What the first screen (/login/email) needs that later screens share: its libraries, and the app
// modules both the entry and the lazy chunks import. A flow's own modules must not match.
const FIRST_LOAD_LIBRARIES =
  /node_modules[\\/](react|react-dom|scheduler|i18next|react-i18next|xstate|@xstate[\\/]react|ky|valibot|use-sync-external-store)[\\/]/;
const FIRST_LOAD_MODULES =
  /(machines[\\/](routes|failures|captchaAnswer)|contract[\\/](api|password|constants|baseSchemas|rules)|src[\\/](api[\\/](client|calls)|shell[\\/](context|lazyFlow|storage)|components[\\/](TopBar|PublicLayout|Alert|Button|Card|Pending)))\.tsx?$/;

export default defineConfig({
  plugins: [react(), tailwindcss()],
  server: {
    port: 5173,
    // *.localhost names choose the variant, as on the real server.
    allowedHosts: ['.localhost'],
    // The OIDC issuer is this origin's in development (scripts/dev.ts): /oidc goes to the server too.
    proxy: { '/api': api, '/healthz': api, '/readyz': api, '/dev': api, '/sso': api, '/oidc': api },
  },
  build: {
    target: 'es2022',
    sourcemap: true,
    // Which chunk holds each locale's strings: the server preloads the visitor's (scripts/prerender.ts).
    manifest: true,
    chunkSizeWarningLimit: 400,
    // Every browser the target names but Safari 16 preloads modules itself; there the app still
    // loads, only without preloading, and the polyfill would be first-load bytes for all.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // Seven hash characters name a build's few dozen chunks without a clash (the bundler's minimum for them), and every chunk's
        // name is written again in the entry's preload lists: the first load carries them all.
        chunkFileNames: 'assets/[name]-[hash:7].js',
        // The first screen's libraries and the app modules it shares with the lazy screens in one
        // chunk beside the entry, rather than a dozen small ones: one request, and gzip compresses
        // them together (bench/bundle.ts measures the first load).
        // Vite's preload helper and the entry's own take-over modules stay out of it, together in
        // one small chunk (one request less before the first paint): the entry uses them before the
        // page's drawn screen is painted (src/main.tsx), and must not load or run the shell's
        // modules until then; the app's start uses them too.
        codeSplitting: {
          groups: [
            {
              name: 'early',
              test: (id: string) =>
                id.includes('vite/preload-helper') || /src[\\/]app[\\/](takeOver|clicks)\.ts$/.test(id),
            },
            { name: 'shell', test: (id: string) => FIRST_LOAD_LIBRARIES.test(id) || FIRST_LOAD_MODULES.test(id) },
          ],
        },
      },
    },
  },
});
