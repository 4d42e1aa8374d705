/**
 * IP address classification for outbound requests: which hosts are internal (loopback,
 * private, link-local, unspecified...). Pure; no DNS here. Hosts are first normalised by
 * the WHATWG URL parser, which turns every IPv4 spelling (`2130706433`, `0x7f.1`,
 * `0177.0.0.1`) into a dotted quad and every IPv6 literal into its canonical form.
 */

/** Why an address is internal, or undefined for a public one. */
export type InternalKind = "loopback" | "private" | "link-local" | "unspecified" | "shared" | "multicast" | "reserved";

// [first address as a 32-bit number, prefix length, kind]
const V4_RANGES: readonly [number, number, InternalKind][] = [
  [0x00000000, 8, "unspecified"],
  [0x0a000000, 8, "private"],
  [0x64400000, 10, "shared"],
  [0x7f000000, 8, "loopback"],
  [0xa9fe0000, 16, "link-local"],
  [0xac100000, 12, "private"],
  [0xc0000000, 24, "reserved"],
  [0xc0a80000, 16, "private"],
  [0xc6120000, 15, "reserved"],
  [0xe0000000, 4, "multicast"],
  [0xf0000000, 4, "reserved"],
];

/** The internal kind of an IPv4 address given as a 32-bit number. */
export function classifyIPv4(ip: number): InternalKind | undefined {
  for (const [start, bits, kind] of V4_RANGES) if (ip >= start && ip < start + 2 ** (32 - bits)) return kind;
  return undefined;
}

/** The internal kind of an IPv6 address given as eight 16-bit groups, following embedded IPv4. */
export function classifyIPv6(g: readonly number[]): InternalKind | undefined {
  const v4 = (hi: number, lo: number): number => (g[hi] as number) * 65536 + (g[lo] as number);
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const first = g[0] as number;
  if (zero(0, 8)) return "unspecified";
  if (zero(0, 7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (SIIT translated)
  // and 64:ff9b::a.b.c.d (NAT64 well-known prefix) reach IPv4.
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) {
    return classifyIPv4(v4(6, 7)) ?? (g[5] === 0 ? "reserved" : undefined);
  }
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(v4(6, 7));
  // Anything else in 64:ff9b::/32, such as the local-use NAT64 prefix 64:ff9b:1::/48 (RFC
  // 8215), reaches an IPv4 address at a position only the operator's prefix length
  // tells: refuse it whole rather than guess.
  if (first === 0x64 && g[1] === 0xff9b) return zero(2, 6) ? classifyIPv4(v4(6, 7)) : "reserved";
  if (first === 0x2002) return classifyIPv4(v4(1, 2)); // 6to4
  if ((first & 0xfe00) === 0xfc00) return "private";
  if ((first & 0xff80) === 0xfe80) return (first & 0xffc0) === 0xfe80 ? "link-local" : "private"; // fec0::/10 site-local
  if (first >= 0xff00) return "multicast";
  return first === 0x100 && zero(1, 4) ? "reserved" : undefined;
}

/** Expands a canonical IPv6 literal (no brackets) into eight groups. */
function groups(text: string): number[] {
  const [head = "", tail] = text.split("::");
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((x) => parseInt(x, 16)));
  const a = parse(head);
  const b = tail === undefined ? [] : parse(tail);
  return [...a, ...new Array<number>(8 - a.length - b.length).fill(0), ...b];
}

/**
 * Classifies a URL hostname or a resolved address: `localhost` and `*.localhost` are
 * loopback; IP literals (any spelling) by range; any other name is undefined.
 *
 * @example classifyHost("2130706433") // "loopback"
 */
export function classifyHost(host: string): InternalKind | undefined {
  let name = host.replace(/%.*$/, "]").replace(/]]$/, "]"); // drop an IPv6 zone id
  if (name.includes(":") && !name.startsWith("[")) name = `[${name.replace(/]$/, "")}]`;
  try {
    name = new URL(`http://${name}/`).hostname.replace(/\.$/, "");
  } catch {
    return undefined;
  }
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  if (name.startsWith("[")) return classifyIPv6(groups(name.slice(1, -1)));
  const quad = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(name);
  return quad ? classifyIPv4(quad.slice(1).reduce((n, part) => n * 256 + Number(part), 0)) : undefined;
}
