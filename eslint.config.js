// ESLint: the recommended JavaScript and TypeScript rules, with little style, and the import rules
// that hold the code's directions (DESIGN.md, "Shape of the repository"):
//   - machines/ are pure XState: no React, no DOM code from src/, no API client, no server;
//   - contract/ is shared by browser and server, so it imports npm packages only, none of our code;
//   - the API client (src/api/) knows no machine; the machines receive it through .provide();
//   - the browser (src/, machines/) and the server never import each other;
//   - no import cycles;
//   - a feature folder never imports another feature folder (front end and server), and a shared
//     folder imports no feature: what two features need goes to a shared folder. Only the shells
//     that wire the features together (src/app, server/app.ts, the command line, the demo data)
//     import them all.
// Not type-aware: it stays fast on small machines, and `tsc` already checks the types.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const SRC_FEATURES = [
  'login',
  'mfa',
  'recovery',
  'onboarding',
  'security',
  'dashboard',
  'maintenance',
  'profile',
  'undoChange',
  'notMe',
  'notifications',
];
// src/app is the shell that routes to every feature's page, so it may import them all.
const SRC_SHARED = ['components', 'api'];

const SERVER_FEATURES = [
  'appconfig',
  'cards',
  'export',
  'devices',
  'history',
  'invitations',
  'login',
  'merge',
  'mfa',
  'notifications',
  'oidc',
  'onboarding',
  'profile',
  'recovery',
  'sso',
];
const SERVER_SHARED = [
  'config',
  'db',
  'http',
  'ratelimit',
  'delivery',
  'events',
  'testing',
  'passwords',
  'sessions',
  'metrics',
  'health',
  'spa',
  'methods',
  'captcha',
  'identity',
  'workers',
  'clientinfo',
];
// Like server/app.ts, which mounts every feature's routes, the operators' command line and the demo
// data drive several features (cards, invitations, accounts), so they may import them all; no
// feature or shared folder imports them.
const SERVER_ROOTS = ['cli', 'seed'];

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
  const features = (base, features, shared) => {
    for (const from of features) {
      const targets = [...features.filter((f) => f !== from), ...shared];
      for (const target of targets) {
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
  if (featuresApart) {
    features('src', SRC_FEATURES, SRC_SHARED);
    features('server', SERVER_FEATURES, SERVER_SHARED);
    result.push({
      target: [...SERVER_FEATURES, ...SERVER_SHARED].map((folder) => `./server/${folder}`),
      from: SERVER_ROOTS.map((root) => `./server/${root}`),
      message: 'The command line and the demo data drive the features: no feature or shared folder imports them.',
    });
  }
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
