/**
 * IP address classification for outbound requests: which literal hosts are internal
 * (loopback, private, link-local, unspecified...). Pure; no DNS here.
 */

/** Why an address is internal, or undefined for a public one. */
export type InternalKind = "loopback" | "private" | "link-local" | "unspecified" | "shared" | "multicast" | "reserved";

/** Parses an IPv4 host in any spelling WHATWG URLs accept (`2130706433`, `0x7f.1`, `0177.0.0.1`). */
export function parseIPv4(host: string): number | undefined {
  const text = host.endsWith(".") ? host.slice(0, -1) : host;
  const parts = text.split(".");
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    let n: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) n = parseInt(part.slice(1), 8);
    else if (/^(?:0|[1-9][0-9]*)$/.test(part)) n = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(n)) return undefined;
    numbers.push(n);
  }
  const last = numbers.pop() as number;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return undefined;
  let value = last;
  numbers.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return value;
}

/** Parses an IPv6 literal (brackets and a zone id allowed) into eight 16-bit groups. */
export function parseIPv6(host: string): number[] | undefined {
  let text = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  if (!text.includes(":")) return undefined;
  const v4 = /(?:^|:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (v4) {
    const dotted = v4[1] as string;
    if (dotted.split(".").some((p) => Number(p) > 255 || (p.length > 1 && p.startsWith("0")))) return undefined;
    const ip = parseIPv4(dotted) as number;
    text = `${text.slice(0, text.length - dotted.length)}${Math.floor(ip / 65536).toString(16)}:${(ip % 65536).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const group = (s: string): number[] | undefined => {
    if (s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = group(halves[0] as string);
  const rest = halves.length === 2 ? group(halves[1] as string) : [];
  if (head === undefined || rest === undefined) return undefined;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest];
}

const V4_RANGES: readonly [string, number, InternalKind][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

/** The internal kind of an IPv4 address given as a 32-bit number. */
export function classifyIPv4(ip: number): InternalKind | undefined {
  for (const [base, bits, kind] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    const start = parseIPv4(base) as number;
    if (ip >= start && ip < start + size) return kind;
  }
  return undefined;
}

/** The internal kind of an IPv6 address, following embedded IPv4 addresses. */
export function classifyIPv6(g: readonly number[]): InternalKind | undefined {
  const v4 = ((g[6] as number) * 65536) + (g[7] as number);
  const zeros = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "unspecified";
  if (zeros(7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64) reach IPv4.
  if (zeros(5) && (g[5] === 0xffff || g[5] === 0)) return classifyIPv4(v4) ?? (g[5] === 0 ? "reserved" : undefined);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIPv4(v4);
  if (g[0] === 0x2002) return classifyIPv4(((g[1] as number) * 65536) + (g[2] as number));
  const first = g[0] as number;
  if ((first & 0xfe00) === 0xfc00) return "private";
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xffc0) === 0xfec0) return "private";
  if ((first & 0xff00) === 0xff00) return "multicast";
  if (first === 0x100 && g.slice(1, 4).every((x) => x === 0)) return "reserved";
  return undefined;
}

/**
 * Classifies a URL hostname or a resolved address: `localhost` and `*.localhost` are
 * loopback; IP literals by range; any other name is undefined (not known internal).
 *
 * @example classifyHost("2130706433") // "loopback"
 */
export function classifyHost(host: string): InternalKind | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  const v6 = parseIPv6(name);
  if (v6 !== undefined) return classifyIPv6(v6);
  const v4 = parseIPv4(name);
  if (v4 !== undefined) return classifyIPv4(v4);
  return undefined;
}
