// One process of the 4-process punctuality bench (bench/scale.ts): timer mode on a shared
// libSQL file, <jobs> no-op `* * * * *` jobs. Records each handler's start lateness
// (start − slot) for slots in [first, last], and this process's CPU over those minutes.
// Usage: _scale_worker.ts <db> <node> <jobs> <first slot> <minutes> [stats|-] [schedule|-] [claimAhead]
// Prints one JSON line: { node, lateness: number[], cpuMs, claimed, lost, stats? }; with
// `stats`, the driver's CPU per kind of statement batch over the measured minutes.
import { createScheduler } from "../src/engine/mod.ts";
import { libsqlStore } from "../src/store/libsql/mod.ts";
import type { Store } from "../src/store/types.ts";
import { driverStats, resetStats } from "./_driver_stats.ts";
import { cpuPerMinute, until } from "./_minutes.ts";
import { readdirSync, readFileSync } from "node:fs";

const MIN = 60_000;
const [db, node, jobsText, firstText, minutesText, statsFlag, scheduleArg, claimAhead] = process.argv.slice(2);
const scheduleText = scheduleArg === "-" ? undefined : scheduleArg;
const stats = statsFlag === "stats" ? driverStats() : undefined;
const first = Number(firstText);
const last = first + (Number(minutesText) - 1) * MIN;
const lateness: number[] = [];
let claimed = 0;
let lost = 0;
// Per measured minute: ms after the slot of this node's first and last claim and its last start.
const phases = new Map<number, { firstClaim: number; lastClaim: number; lastStart: number }>();
const phase = (slot: number) => {
  let p = phases.get(slot);
  if (p === undefined) phases.set(slot, p = { firstClaim: Infinity, lastClaim: -Infinity, lastStart: 0 });
  return p;
};
// When each store method was first called and first answered in each measured minute (ms after
// the slot; from 10 s before it, for claims made ahead).
const calls: Record<string, string> = {};
const traced = (store: Store): Store =>
  new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        const slot = Math.floor((Date.now() + 10_000) / MIN) * MIN;
        const from = Date.now() - slot;
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (slot >= first && slot <= last && from < 10_000) {
          const k = `${(slot - first) / MIN}:${key}`;
          void Promise.resolve(result).then(() => void (calls[k] ??= `${from}-${Date.now() - slot}`), () => {});
        }
        return result;
      };
    },
  });
const scheduler = createScheduler({
  store: traced(libsqlStore({ url: `file:${db}`, busyTimeout: 30_000 })),
  node: node!,
  ...(claimAhead === undefined ? {} : { claimAhead }),
  logger: {
    warn: (m) => console.error(`[${node}] ${m}`),
    error: (m) => console.error(`[${node}] ${m}`),
  },
  onEvent: (e) => {
    if (e.type === "claimed") {
      claimed++;
      if (e.slot >= first && e.slot <= last) {
        const p = phase(e.slot);
        const at = Date.now() - e.slot;
        p.firstClaim = Math.min(p.firstClaim, at);
        p.lastClaim = Math.max(p.lastClaim, at);
      }
    } else if (e.type === "lost") lost++;
  },
});
for (let i = 0; i < Number(jobsText); i++) {
  scheduler.job(`job-${String(i).padStart(6, "0")}`, {
    schedule: scheduleText ?? "* * * * *",
    run: (ctx) => {
      if (ctx.slot >= first && ctx.slot <= last) {
        const at = Date.now() - ctx.slot;
        lateness.push(at);
        const p = phase(ctx.slot);
        p.lastStart = Math.max(p.lastStart, at);
      }
    },
  });
}
await scheduler.ready();
scheduler.start();
// CPU from 1 s before the first slot to 1 s before the minute after the last one.
await until(first - 1_000);
const cpu0 = process.cpuUsage();
const threads0 = threadCpu();
// Where in the minute the CPU goes, by time from the nearest slot: the CPU clock is read at
// each phase's first instant (six timers a minute). A sampler every 50 ms cost a worker about
// 0.25 s of CPU a minute on its own (1 200 wakeups), which the ratios counted as edgecron's.
const PHASES = [
  ["before", -30_000],
  ["claim", -2_500],
  ["starts", -500],
  ["after", 1_000],
  ["help", 1_800],
  ["rest", 3_500],
] as const;
const byPhase: Record<string, number> = Object.fromEntries(PHASES.map(([name]) => [name, 0]));
const phaseAt = (t: number): string => {
  const offset = t - Math.round(t / MIN) * MIN;
  let name: string = PHASES[0][0];
  for (const [n, from] of PHASES) if (offset >= from) name = n;
  return name;
};
const end = last + MIN - 1_000;
let current = { name: phaseAt(Date.now()), cpu: cpu0 };
const closePhase = (at: number): void => {
  const now = process.cpuUsage();
  byPhase[current.name]! += (now.user - current.cpu.user + now.system - current.cpu.system) / 1000;
  current = { name: phaseAt(at), cpu: now };
};
const boundaries = Array.from({ length: Number(minutesText) + 2 }, (_, i) => first + (i - 1) * MIN)
  .flatMap((slot) => PHASES.map(([, from]) => slot + from))
  .filter((at) => at > Date.now() && at < end)
  .sort((a, b) => a - b);
const phaseTimers = (async () => {
  for (const at of boundaries) {
    await until(at);
    closePhase(at);
  }
})();
if (stats !== undefined) resetStats(stats);
// CPU of each measured minute, from 1 s before its slot.
const perMinute = await cpuPerMinute(first, last, cpu0);
const cpu = process.cpuUsage(cpu0);
const threads1 = threadCpu();
await phaseTimers;
closePhase(end);
const measured = stats === undefined ? undefined : structuredClone(stats);
await scheduler.stop({ grace: "2s", deadline: "5s" });
await scheduler.close();
console.log(
  JSON.stringify({
    node,
    lateness,
    phases: [...phases.values()],
    perMinute,
    byPhase: Object.fromEntries(Object.entries(byPhase).map(([k, v]) => [k, Math.round(v / Number(minutesText))])),
    calls,
    cpuMs: (cpu.user + cpu.system) / 1000,
    claimed,
    lost,
    stats: measured,
    threads: Object.fromEntries(
      Object.entries(threads1).map(([k, v]) => [k, Math.round((v - (threads0[k] ?? 0)) / Number(minutesText))]),
    ),
  }),
);

/**
 * CPU ms of this process's threads by thread name (Linux `/proc`; empty elsewhere): the main
 * thread against V8's helpers (concurrent marking, parallel scavenges, the optimising compiler).
 */
function threadCpu(): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const task of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const name = task === String(process.pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
    }
  } catch {
    // Not Linux: no per-thread figures.
  }
  return out;
}
