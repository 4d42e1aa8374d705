/**
 * The options of `denoKvStore`, checked once: a prefix Deno KV can use as a key, a
 * boolean `closeKv`, and no option it does not take (a misspelt `prefx` shared the
 * default prefix with every other app on the KV).
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import { unknownOption } from "../../core/suggest.ts";
import type { KvKey } from "./_kv.ts";

/** Options of `denoKvStore`. */
export interface DenoKvStoreOptions {
  /**
   * The key prefix every entry lives under; default `["edgecron"]`. Lets several
   * schedulers share one KV. Parts are strings, numbers, bigints, booleans or
   * `Uint8Array`s, at most {@link MAX_PREFIX_BYTES} bytes in all.
   */
  prefix?: KvKey;
  /** Whether `close()` closes the KV; default false (whoever opened it closes it). */
  closeKv?: boolean;
}

/** The resolved options. */
export interface ResolvedKvOptions {
  prefix: KvKey;
  closeKv: boolean;
}

/**
 * The longest prefix, in encoded bytes. A KV key holds 2048 bytes, and the store's keys
 * add a kind, a job name (up to 128 characters, 512 bytes) and a slot or status to it.
 */
export const MAX_PREFIX_BYTES = 1024;

const OPTIONS = ["prefix", "closeKv"];

const invalid = (path: string, message: string): SchedulerError =>
  new SchedulerError("invalid-spec", `denoKvStore.${path}: ${message}`, { path });

/** A key part's size as Deno KV encodes it (a tag, the bytes, a terminator), or undefined for a part it refuses. */
function partBytes(part: unknown): number | undefined {
  if (typeof part === "string") return new TextEncoder().encode(part).length + 2;
  if (part instanceof Uint8Array) return part.length + 2;
  if (typeof part === "number") return 9;
  if (typeof part === "bigint") return 10 + Math.ceil(part.toString(16).length / 2);
  if (typeof part === "boolean") return 1;
  return undefined;
}

/**
 * @throws {SchedulerError} `invalid-spec` for options that are not an object, an option
 * it does not take (naming the nearest), a prefix that is not an array of key parts or
 * is longer than {@link MAX_PREFIX_BYTES}, and a `closeKv` that is not a boolean.
 */
export function resolveKvOptions(options: unknown): ResolvedKvOptions {
  if (options === undefined) return { prefix: ["edgecron"], closeKv: false };
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new SchedulerError(
      "invalid-spec",
      `denoKvStore: expected options { prefix, closeKv }, got ${quote(options)}`,
    );
  }
  const given = options as Record<string, unknown>;
  const unknown = unknownOption(given, OPTIONS);
  if (unknown !== undefined) {
    throw invalid(unknown.key, `unknown option (it takes ${OPTIONS.join(", ")})${unknown.hint}`);
  }
  const prefix = given.prefix ?? ["edgecron"];
  if (!Array.isArray(prefix)) throw invalid("prefix", `expected an array of key parts, got ${quote(prefix)}`);
  let bytes = 0;
  prefix.forEach((part: unknown, i) => {
    const size = partBytes(part);
    if (size === undefined) {
      throw invalid(`prefix[${i}]`, `expected a string, number, bigint, boolean or Uint8Array, got ${quote(part)}`);
    }
    bytes += size;
  });
  if (bytes > MAX_PREFIX_BYTES) {
    throw invalid("prefix", `expected at most ${MAX_PREFIX_BYTES} bytes of key (a KV key holds 2048), got ${bytes}`);
  }
  const closeKv = given.closeKv ?? false;
  if (typeof closeKv !== "boolean") throw invalid("closeKv", `expected true or false, got ${quote(closeKv)}`);
  return { prefix: [...prefix] as KvKey, closeKv };
}
