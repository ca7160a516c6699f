// Where a server's main thread spent its time, from a V8 CPU profile (BENCH_CPU_PROF=1 npm run bench):
//   node bench/profile.ts bench/results/profiles/<file>.cpuprofile [top=25]
// Prints self time by function and by package or source folder, and inclusive time of the
// project's own functions (server/, contract/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const where = (url: string) => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  const own = /\/((?:server|contract)\/[^/]+)/.exec(url)?.[1];
  if (own) return own;
  return url.startsWith('node:') ? url : url ? 'other' : '(native/gc/idle)';
};
const root = pathToFileURL(join(import.meta.dirname, '..')).href + '/';
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(root, '').replace(/^.*\/node_modules\//, '')}:${n.callFrame.lineNumber + 1}`;

function tally(key: (n: Node) => string, inclusive: boolean): Array<[string, number]> {
  const sums = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let n: Node | undefined = byId.get(id); n; n = inclusive ? byId.get(parent.get(n.id) ?? -1) : undefined) {
      const k = key(n);
      if (!seen.has(k)) sums.set(k, (sums.get(k) ?? 0) + us);
      seen.add(k);
    }
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

const print = (title: string, list: Array<[string, number]>) => {
  console.log(`\n${title}`);
  for (const [k, us] of list.slice(0, top)) console.log(`${((100 * us) / total).toFixed(1).padStart(6)} %  ${k}`);
};
const busy = total - (tally((n) => n.callFrame.functionName, false).find(([k]) => k === '(idle)')?.[1] ?? 0);
console.log(
  `${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (${((100 * busy) / total).toFixed(0)} %)`,
);
print('self time by function', tally(label, false));
print(
  'self time by package or folder',
  tally((n) => (n.callFrame.functionName === '(idle)' ? '(idle)' : where(n.callFrame.url)), false),
);
print(
  "inclusive time of the project's functions",
  tally(label, true).filter(([k]) => /^\S+ (server|contract)\//.test(k)),
);
