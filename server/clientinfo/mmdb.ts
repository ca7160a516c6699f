// Writes a small city database in the MaxMind DB format (https://maxmind.github.io/MaxMind-DB/):
// a binary search tree over IPv4 prefixes, a data section and the metadata. Tests and the demo use
// it to stand in for a real GeoLite2-City file, which cannot ship with the project.

/** A prefix, its city's English name (and its names in other languages) and its country. */
export type CityEntry = { prefix: string; city: string; country: string; names?: Record<string, string> };

/** The bytes of an IPv4 .mmdb file that answers each prefix ("81.246.0.0/16") with its city. */
export function writeCityDatabase(entries: CityEntry[]): Buffer {
  // The data section: one record per entry, and its offset.
  const records = entries.map((entry) =>
    encode({ city: { names: { en: entry.city, ...entry.names } }, country: { iso_code: entry.country } }),
  );
  const offsets: number[] = [];
  records.reduce((offset, record) => (offsets.push(offset), offset + record.length), 0);

  // The tree: node 0 is the root; each node has a left (bit 0) and a right (bit 1) record.
  type Node = [number | Node | null, number | Node | null];
  const root: Node = [null, null];
  entries.forEach((entry, index) => {
    const [address, length] = entry.prefix.split('/');
    const bits = address!.split('.').reduce((n, part) => n * 256 + Number(part), 0);
    let node = root;
    for (let depth = 0; depth < Number(length); depth += 1) {
      const bit = Math.floor(bits / 2 ** (31 - depth)) % 2;
      if (depth === Number(length) - 1) node[bit] = index;
      else node = (node[bit] = (node[bit] as Node | null) ?? [null, null]) as Node;
    }
  });
  const nodes: Node[] = [];
  const queue: Node[] = [root];
  while (queue.length) {
    const node = queue.shift()!;
    nodes.push(node);
    for (const child of node) if (child && typeof child === 'object') queue.push(child);
  }
  const nodeCount = nodes.length;
  const value = (child: number | Node | null) =>
    child === null ? nodeCount : typeof child === 'number' ? nodeCount + 16 + offsets[child]! : nodes.indexOf(child);
  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((node, index) => {
    tree.writeUIntBE(value(node[0]), index * 6, 3);
    tree.writeUIntBE(value(node[1]), index * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: { uint32: nodeCount },
    record_size: { uint16: 24 },
    ip_version: { uint16: 4 },
    database_type: 'Tessera-Test-City',
    languages: ['en', 'fr', 'de'],
    binary_format_major_version: { uint16: 2 },
    binary_format_minor_version: { uint16: 0 },
    build_epoch: { uint32: 1_700_000_000 },
    description: { en: 'test cities' },
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    ...records,
    Buffer.from('ABCDEF4D61784D696E642E636F6D', 'hex'),
    metadata,
  ]);
}

type Value = string | Value[] | { uint16: number } | { uint32: number } | { [key: string]: Value };

/** A value in the format's data encoding: strings, maps, arrays and unsigned integers, short ones. */
function encode(value: Value): Buffer {
  const control = (type: number, size: number) =>
    type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  if ('uint16' in value && typeof value.uint16 === 'number') return unsigned(5, value.uint16, 2);
  if ('uint32' in value && typeof value.uint32 === 'number') return unsigned(6, value.uint32, 4);
  const pairs = Object.entries(value);
  return Buffer.concat([
    control(7, pairs.length),
    ...pairs.flatMap(([key, item]) => [encode(key), encode(item as Value)]),
  ]);

  function unsigned(type: number, n: number, bytes: number) {
    const body = Buffer.alloc(bytes);
    body.writeUIntBE(n, 0, bytes);
    return Buffer.concat([control(type, bytes), body]);
  }
}
