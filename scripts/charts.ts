// npm run charts: writes every statechart as a Mermaid diagram under docs/statecharts/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MACHINES, chartDocument } from './statecharts.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'statecharts');
mkdirSync(dir, { recursive: true });
for (const [key, machine] of Object.entries(MACHINES)) {
  writeFileSync(join(dir, `${key}.md`), chartDocument(key, machine));
  console.log(`docs/statecharts/${key}.md`);
}
