// npm run paths: writes, for every statechart, the shortest path to each state under docs/paths/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allPaths, indexDocument } from './testerPaths.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'paths');
mkdirSync(dir, { recursive: true });
const all = allPaths();
for (const { key, document, reached, bounded } of all) {
  writeFileSync(join(dir, `${key}.md`), document);
  console.log(`docs/paths/${key}.md: ${reached} states${bounded ? ' (bounded)' : ''}`);
}
writeFileSync(join(dir, 'README.md'), indexDocument(all));
console.log('docs/paths/README.md');
