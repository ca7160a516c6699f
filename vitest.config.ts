import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'contract/**/*.test.ts',
      'server/**/*.test.ts',
      'machines/**/*.test.ts',
      'model-tests/**/*.test.ts',
      'locales/**/*.test.ts',
      'src/**/*.test.{ts,tsx}',
      'scripts/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Argon2id is memory-hard: two workers on two cores keep the machine responsive.
    maxWorkers: 2,
  },
});
