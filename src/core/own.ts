/** Safe reads of records keyed by user text (job names such as "toString" or "__proto__"). */

/**
 * `record[key]` when `key` is the record's OWN property, else undefined: never an
 * inherited `Object.prototype` member.
 *
 * @example own({}, "toString") // undefined
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
