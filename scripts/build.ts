// npm run build, and the build npm start and npm test make: the web app into dist/, always in
// production mode. Vite keeps a NODE_ENV it finds in the environment, so a shell with
// NODE_ENV=development would otherwise ship React's development build.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

export function webBuildCommand(env: NodeJS.ProcessEnv): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return { command: 'vite', args: ['build', '--mode', 'production', '--logLevel', 'warn'], env: { ...env, NODE_ENV: 'production' } };
}

/** Builds the web app; returns the exit status of the build. */
export function buildWebApp(env: NodeJS.ProcessEnv = process.env): number {
  const { command, args, env: childEnv } = webBuildCommand(env);
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', env: childEnv }).status ?? 1;
}

if (import.meta.main) process.exit(buildWebApp());
