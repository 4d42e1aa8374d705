// The documented H hash written independently of the code under test (BigInt
// arithmetic, UTF-8 bytes by hand), for hash_test.ts and hash_process_test.ts.

function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
}

/** The documented hash: FNV-1a 32 over UTF-8 of `key + "\0" + field`. */
export function reference(key: string, field: string): number {
  let h = 2166136261n;
  for (const b of utf8(`${key}\u0000${field}`)) h = ((h ^ BigInt(b)) * 16777619n) % 4294967296n;
  return Number(h);
}
