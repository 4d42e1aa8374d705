/**
 * What the two D1 exactly-once files share: the fixture worker built with the D1 bundle's
 * options, the minutes they deliver and the tally of what each slot ended as.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
// @ts-ignore: plain JS module shared with `npm run build`
import { bundles } from "../../scripts/build.mjs";
import { JOBS } from "./fixtures/d1_worker.ts";

export const ROOT = new URL("../..", import.meta.url).pathname;
export const MINUTE = 60_000;
/** The minutes the Workers case delivers. */
export const MINUTES = 30;
// Recent whole minutes, oldest first, as Cron Triggers deliver them.
export const BASE = Math.floor(Date.now() / MINUTE) * MINUTE - (MINUTES + 5) * MINUTE;
export const T = (i: number): number => BASE + i * MINUTE;

/** The temporary folder of this file's run, and the fixture worker built into it. */
export const dir = mkdtempSync(join(tmpdir(), "edgecron-d1-"));
export const script = join(dir, "d1_worker.mjs");

/** Builds the fixture with the D1 worker bundle's options (workerd conditions, no libSQL). */
export async function buildWorker(): Promise<void> {
  const { shrink: _shrink, ...options } = bundles["worker-d1"];
  await build({
    ...options,
    entryPoints: [join(ROOT, "test/integration/fixtures/d1_worker.ts")],
    outfile: script,
    minify: false,
    metafile: false,
  });
}

/** Counts what one expected set of slots ended as. */
export function tally(
  expected: Map<string, number[]>,
  rows: { job: string; slot: number; status: string }[],
  lines: { job: string; slot: number }[],
) {
  const okRows = new Map<string, number>();
  for (const r of rows) {
    if (r.status === "ok") okRows.set(`${r.job} ${r.slot}`, (okRows.get(`${r.job} ${r.slot}`) ?? 0) + 1);
  }
  const lineCount = new Map<string, number>();
  for (const l of lines) lineCount.set(`${l.job} ${l.slot}`, (lineCount.get(`${l.job} ${l.slot}`) ?? 0) + 1);
  let slots = 0;
  let lost = 0;
  for (const [job, list] of expected) {
    for (const slot of list) {
      slots++;
      if (okRows.get(`${job} ${slot}`) !== 1 || lineCount.get(`${job} ${slot}`) !== 1) lost++;
    }
  }
  const duplicates = [...lineCount.values()].filter((n) => n > 1).length;
  return { slots, lost, duplicates, lines: lines.length, okRows: okRows.size };
}

/** The slots of each job in [T(0), T(minutes)] (the first event registers the jobs and runs its minute). */
export function expectedSlots(minutes = MINUTES): Map<string, number[]> {
  const steps: Record<string, number> = { "* * * * *": 1, "*/2 * * * *": 2, "*/5 * * * *": 5, "*/10 * * * *": 10 };
  const expected = new Map<string, number[]>();
  for (const [job, cron] of Object.entries(JOBS)) {
    const step = steps[cron]!;
    const list: number[] = [];
    for (let i = 0; i <= minutes; i++) if (new Date(T(i)).getUTCMinutes() % step === 0) list.push(T(i));
    expected.set(job, list);
  }
  return expected;
}
