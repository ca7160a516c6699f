// ESLint: the recommended JavaScript and TypeScript rules, with little style, and the import rules
// that hold the code's directions (docs/decisions/code-directions.md):
//   - machines/ are pure XState: no React, no DOM code from src/, no API client, no server;
//   - contract/ is shared by browser and server, so it imports npm packages only, none of our code;
//   - the API client (src/api/) knows no machine; the machines receive it through .provide();
//   - the browser (src/, machines/) and the server never import each other;
//   - no import cycles;
//   - a feature folder never imports another feature folder (front end and server), and a shared
//     folder imports no feature and no shell: what two features need goes to a shared folder. Only
//     the shells that wire the features together (src/app, server/app.ts, the command line, the
//     demo data) import them all. Every folder directly under src/ and server/ that is not named
//     shared or shell below is a feature, so a new folder is held apart by itself;
//   - the server's shared folders stand in layers: none imports a higher layer.
// Not type-aware: it stays fast on small machines, and `tsc` already checks the types.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/** The folders directly under `base`: every one not named shared or shell is a feature. */
function foldersOf(base) {
  return readdirSync(new URL(`./${base}/`, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

// src/app wires the app (the root actor, the router, every feature's page), so it may import them
// all; src/shell is what features may import of it (the root actor's context, the page's boot data,
// storage, lazy flows), and imports no feature and nothing of src/app.
const SRC_SHELLS = ['app'];
const SRC_SHARED = ['components', 'api', 'shell'];
const SRC_FEATURES = foldersOf('src').filter((dir) => !SRC_SHELLS.includes(dir) && !SRC_SHARED.includes(dir));

// The server's shared folders in layers, lowest first: a shared folder imports only folders of its
// own layer or below. Folders that lean on each other share a layer:
//   - http/auth.ts reads sessions, sessions answer with http's errors and schemas and record
//     events, and events/record.ts takes its ids from sessions/tokens.ts;
//   - methods check passwords with passwords/hashing.ts, passwords/confirm.ts checks the current
//     password through identity/accounts.ts and methods/password.ts, identity describes methods.
// server/context.ts (the types of the app's context) is no folder: any folder may import it.
const SERVER_LAYERS = [
  ['config', 'db', 'workers'],
  ['clientinfo', 'ratelimit'],
  ['http', 'sessions', 'events'],
  ['delivery', 'captcha'],
  ['identity', 'methods', 'passwords'],
  ['health', 'metrics', 'spa'],
  // The test kits start the whole server.
  ['testing'],
];
const SERVER_SHARED = SERVER_LAYERS.flat();
// server/app.ts mounts every feature's routes, and the operators' command line and the demo data
// drive several features (cards, invitations, accounts): these shells may import them all, and no
// feature or shared folder imports them.
const SERVER_SHELLS = ['cli', 'seed', 'app.ts'];
const SERVER_FEATURES = foldersOf('server').filter(
  (dir) => !SERVER_SHELLS.includes(dir) && !SERVER_SHARED.includes(dir),
);

const TOP = ['contract', 'server', 'machines', 'src', 'locales', 'model-tests', 'e2e', 'bench', 'scripts'];

/** The zones of import-x/no-restricted-paths. */
function zones({ featuresApart = true } = {}) {
  const result = [
    {
      target: './machines',
      from: ['./src', './server'],
      message: 'Machines are pure XState: views, the API client and the server reach them through .provide().',
    },
    {
      target: './contract',
      from: TOP.filter((dir) => dir !== 'contract').map((dir) => `./${dir}`),
      message: 'contract/ is shared by browser and server: it imports npm packages only.',
    },
    { target: './src/api', from: './machines', message: 'The API client knows no machine.' },
    { target: './src', from: './server', message: 'The browser talks to the server over HTTP only.' },
    { target: './server', from: ['./src', './machines'], message: 'The server imports contract/, never browser code.' },
  ];
  if (!featuresApart) return result;
  const features = (base, features, shared) => {
    for (const from of features) {
      for (const target of [...features.filter((f) => f !== from), ...shared]) {
        result.push({
          target: `./${base}/${target}`,
          from: `./${base}/${from}`,
          message: shared.includes(target)
            ? `A shared folder imports no feature (${from}).`
            : `Features do not import each other: move what ${target} needs from ${from} to a shared folder.`,
        });
      }
    }
  };
  features('src', SRC_FEATURES, SRC_SHARED);
  features('server', SERVER_FEATURES, SERVER_SHARED);
  for (const shell of SRC_SHELLS) {
    result.push({
      target: [...SRC_SHARED, ...SRC_FEATURES].map((folder) => `./src/${folder}`),
      from: `./src/${shell}`,
      message:
        'Nothing imports the app: it wires the features and the shared folders (what they need of it is in src/shell).',
    });
  }
  SERVER_LAYERS.forEach((layer, index) => {
    const higher = SERVER_LAYERS.slice(index + 1).flat();
    if (higher.length === 0) return;
    result.push({
      target: layer.map((folder) => `./server/${folder}`),
      from: higher.map((folder) => `./server/${folder}`),
      message: `Shared folders import their own layer or lower ones: ${layer.join(', ')} sit below ${higher.join(', ')}.`,
    });
  });
  result.push({
    target: [...SERVER_FEATURES, ...SERVER_SHARED].map((folder) => `./server/${folder}`),
    from: SERVER_SHELLS.map((shell) => `./server/${shell}`),
    message:
      'The app, the command line and the demo data drive the features: no feature or shared folder imports them.',
  });
  return result;
}

const restrictedPaths = (options) => ['error', { basePath: import.meta.dirname, zones: zones(options) }];

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', 'data/', 'docs/', 'test-reports/', 'test-results/', 'public/'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver()],
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      // TypeScript checks these better than ESLint can.
      'no-undef': 'off',
      'no-redeclare': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],

      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': restrictedPaths(),
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['react', 'react-dom', '@xstate/react', 'react-router', 'react-i18next', 'i18next'].map((name) => ({
            name,
            message: 'Machines are pure XState: no React, no DOM, no HTTP client; use actors passed with .provide().',
          })),
          patterns: [{ group: ['react/*', 'react-dom/*', 'ky/*'], message: 'Machines are pure XState.' }],
        },
      ],
    },
  },
  {
    // Tests and their kits drive whole journeys through the demo data and several features: only
    // the directions between the layers hold for them.
    files: ['**/*.test.{ts,tsx}', 'server/testing/**/*.ts'],
    rules: { 'import-x/no-restricted-paths': restrictedPaths({ featuresApart: false }) },
  },
);
