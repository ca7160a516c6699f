// npm run cli -- <command> …: the operator's command line (server/cli/index.ts).
import { runCli } from '../server/cli/index.ts';

process.exitCode = await runCli(process.argv.slice(2));
