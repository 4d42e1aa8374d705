/**
 * The hash behind `H`: FNV-1a, 32 bits, over the UTF-8 bytes of
 * `key + "\u0000" + fieldName`, so that every node and runtime derives the same value
 * from a job's name, and `H H * * *` draws its minute and hour independently.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a (32-bit) of the UTF-8 encoding of `text`, as an unsigned integer.
 *
 * @example fnv1a32("a") // 0xe40c292c
 */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * The hash `H` reads in one field: `fnv1a32(key + "\u0000" + fieldName)`, where
 * `fieldName` is `second`, `minute`, `hour`, `day-of-month`, `month`, `day-of-week`
 * or `year`.
 *
 * @example fieldHash("backup", "minute") % 60 // the minute of "H * * * *" for job "backup"
 */
export function fieldHash(key: string, fieldName: string): number {
  return fnv1a32(`${key}\u0000${fieldName}`);
}
