// Bench-only: CPU of the embedded libSQL driver per kind of statement batch, by patching
// the driver's file client (`--stats` in bench/scale.ts). A batch runs synchronously once
// its connection is acquired, so the CPU from its call to its answer is the batch's own
// (plus whatever microtasks ran in between: an upper bound).
import { Sqlite3Client } from "@libsql/client/sqlite3";
import type { InStatement } from "@libsql/client";

/** CPU ms and calls per batch kind; clients opened (a new client after a lock failure). */
export interface DriverStats {
  kinds: Record<string, { calls: number; cpuMs: number; busy: number }>;
  clients: number;
}

const KINDS: [RegExp, string][] = [
  [/^INSERT INTO edgecron_jobs \(name, first_seen, paused\)\s+SELECT/, "snapshot (write)"],
  [/^SELECT j\.name[\s\S]*UNION SELECT name FROM edgecron_defs/, "snapshot (read)"],
  [/^SELECT j\.name/, "read"],
  [/^WITH req AS MATERIALIZED/, "claim"],
  [
    /^UPDATE edgecron_runs SET status = CASE WHEN (json_type|req\.mask)|^UPDATE edgecron_runs SET status = \?/,
    "updateMany",
  ],
  [/^UPDATE edgecron_runs SET lease_until = req\.lease/, "renew"],
  [/^UPDATE edgecron_runs SET/, "update"],
  [/^SELECT value FROM edgecron_settings|^INSERT INTO edgecron_settings|edgecron_settings/, "settings"],
  [/^SELECT 1 FROM edgecron_runs/, "update"],
];

const kindOf = (stmts: readonly InStatement[]): string => {
  const first = stmts[0];
  const sql = (typeof first === "string" ? first : Array.isArray(first) ? String(first[0]) : first?.sql ?? "").trim();
  for (const [re, kind] of KINDS) if (re.test(sql)) return kind;
  return sql.replace(/\s+/g, " ").slice(0, 40);
};

/** Starts counting; the returned object fills in as batches run. */
export function driverStats(): DriverStats {
  const stats: DriverStats = { kinds: {}, clients: 0 };
  const seen = new WeakSet<object>();
  const proto = Sqlite3Client.prototype as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  for (const method of ["batch", "execute"] as const) {
    const original = proto[method]!;
    proto[method] = async function (this: object, ...args: unknown[]) {
      if (!seen.has(this)) {
        seen.add(this);
        stats.clients++;
      }
      const stmts = method === "batch" ? args[0] as InStatement[] : [args[0] as InStatement];
      const kind = kindOf(stmts);
      const entry = stats.kinds[kind] ??= { calls: 0, cpuMs: 0, busy: 0 };
      const c0 = process.cpuUsage();
      try {
        return await original.apply(this, args);
      } catch (e) {
        entry.busy++;
        throw e;
      } finally {
        const c = process.cpuUsage(c0);
        entry.calls++;
        entry.cpuMs += (c.user + c.system) / 1000;
      }
    };
  }
  return stats;
}

/** Zeroes the counts (the measured window starts). */
export function resetStats(stats: DriverStats): void {
  stats.kinds = {};
  stats.clients = 0;
}
