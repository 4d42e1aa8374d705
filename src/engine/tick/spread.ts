/**
 * The order in which a node claims a large minute, so that nodes spread it without
 * waiting on one another: rendezvous hashing gives each due job one owner among the
 * nodes known to be live; a node claims its own share first, front to back, then helps
 * with the others' shares from their back ends, where their owners reach last. Every
 * node still walks every job, so a dead owner's share is taken over in the same tick;
 * the store's claim keeps each slot to one run whatever the nodes believe.
 */

/** Who is known to be ticking and where this node starts when it knows of no one else. */
export interface SpreadInput {
  node: string;
  /** Other nodes known to be live (duplicates and `node` itself are fine). */
  nodes: readonly string[];
  /** Rotation of the list when this node knows of no other (nodes then start at different places). */
  offset: number;
}

/**
 * `items` in claim order for `input.node`. Alone: rotated by `offset`. With other live
 * nodes: this node's rendezvous share (in list order), then the other shares
 * interleaved, each from its end.
 *
 * @example spreadOrder(jobs, (j) => j.name, { node: "n1", nodes: ["n2", "n3"], offset: 0 })
 */
export function spreadOrder<T>(items: readonly T[], name: (item: T) => string, input: SpreadInput): T[] {
  return spread(items, name, input).order;
}

/**
 * {@link spreadOrder}, where this node's own share ends in it (the length when alone), and
 * the other nodes' shares by node (none when alone).
 */
export function spread<T>(
  items: readonly T[],
  name: (item: T) => string,
  input: SpreadInput,
): { order: T[]; own: number; shares: ReadonlyMap<string, readonly T[]> } {
  const nodes = [...new Set([input.node, ...input.nodes])].sort();
  if (items.length === 0) return { order: [], own: 0, shares: new Map() };
  if (nodes.length === 1) {
    const start = input.offset % items.length;
    return { order: items.slice(start).concat(items.slice(0, start)), own: items.length, shares: new Map() };
  }
  const shares = new Map<string, T[]>(nodes.map((n) => [n, []]));
  const seeds = nodes.map(seedOf);
  for (const item of items) shares.get(nodes[ownerIndex(seeds, name(item))]!)!.push(item);
  const out = shares.get(input.node)!;
  const own = out.length;
  shares.delete(input.node);
  const others = nodes.filter((n) => n !== input.node).map((n) => shares.get(n)!);
  const longest = Math.max(...others.map((s) => s.length));
  for (let k = 1; k <= longest; k++) {
    for (const share of others) if (share.length >= k) out.push(share[share.length - k]!);
  }
  return { order: out, own, shares };
}

/**
 * The rendezvous owner of `name` among `nodes`: the same on every node that knows the
 * same nodes, and when a node leaves, only its own jobs change owner.
 *
 * @example ownerOf("backup", ["n1", "n2", "n3"]) // one of the three, the same everywhere
 */
export function ownerOf(name: string, nodes: readonly string[]): string {
  return nodes[ownerIndex(nodes.map(seedOf), name)]!;
}

/** The index of the rendezvous owner of `name` among the nodes whose seeds are given: the highest score wins. */
function ownerIndex(seeds: readonly number[], name: string): number {
  const h = hashText(name);
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < seeds.length; i++) {
    const score = mix(seeds[i]! ^ h);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

function seedOf(node: string): number {
  return mix(hashText(node) ^ 0x9e3779b9);
}

/** FNV-1a over UTF-16 code units: names are validated ASCII, and every node computes the same. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** murmur3's finaliser: FNV's low bits are weak, and rendezvous needs every bit to count. */
export function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
