/**
 * The exactly-once tally the multi-process tests share: the store's rows and the side
 * log the handlers append to (`<job> <slot>` per line), checked over the slots of the
 * common window of every process.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { RunRecord } from "../../src/store/types.ts";

/** What each worker process reported when it stopped. */
export interface WorkerResult {
  node: string;
  started: number;
  stopped: number;
  events: Record<string, number>;
}

/**
 * Runs one worker process to its end and resolves with the JSON (object or array) of
 * its last stdout line; rejects on a non-zero exit or no JSON. Killed after `timeoutMs`.
 */
export function runWorker(
  label: string,
  cmd: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs: number },
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const kill = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("close", (code) => {
      clearTimeout(kill);
      if (err.trim() !== "") console.log(`[${label} stderr] ${err.trim().slice(0, 2000)}`);
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !/^[[{]/.test(line)) reject(new Error(`${label} exited ${code}: ${out}${err}`));
      else resolve(JSON.parse(line));
    });
  });
}

/**
 * Starts the workers' run window together: waits until each of `nodes` has written
 * `<go>.<node>.ready` (booted, store initialised), then writes "<startAt> <stopAt>" to
 * `go` (atomically), from 1 s on for `runMs`. However slow the boots, the processes then
 * share the whole window. Rejects when a worker has not booted within `timeoutMs`.
 */
export async function startTogether(
  go: string,
  nodes: readonly string[],
  runMs: number,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiting = nodes.filter((node) => !existsSync(`${go}.${node}.ready`));
    if (waiting.length === 0) break;
    if (Date.now() > deadline) throw new Error(`not booted within ${timeoutMs} ms: ${waiting.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const startAt = Date.now() + 1_000;
  writeFileSync(`${go}.tmp`, `${startAt} ${startAt + runMs}\n`);
  renameSync(`${go}.tmp`, go);
}

/**
 * Runs `workers` (started already) through {@link startTogether} and resolves with their
 * results; a worker that fails before the window rejects at once, not after the boot timeout.
 */
export async function runTogether(
  workers: readonly Promise<WorkerResult>[],
  go: string,
  nodes: readonly string[],
  runMs: number,
): Promise<WorkerResult[]> {
  await Promise.race([startTogether(go, nodes, runMs), Promise.all(workers)]);
  return await Promise.all(workers);
}

/** The whole seconds every process was running for, after its first second. */
export function commonWindow(results: readonly WorkerResult[], min: number): number[] {
  const from = Math.max(...results.map((r) => r.started));
  const to = Math.min(...results.map((r) => r.stopped));
  const slots: number[] = [];
  for (let s = Math.floor(from / 1000) * 1000 + 1000; s <= to; s += 1000) slots.push(s);
  assert.ok(slots.length >= min, `common window too short: ${slots.length} s`);
  return slots;
}

/**
 * Counts and asserts: no slot ran twice (side log), every slot of `jobs` in `window`
 * has exactly one `ok` row and one side-log line, every line has its row, and more
 * than one process won slots. Logs the figures under `label`.
 */
export function assertExactlyOnce(
  label: string,
  input: {
    rows: readonly RunRecord[];
    log: string;
    jobs: readonly string[];
    window: readonly number[];
    results: readonly WorkerResult[];
  },
): void {
  const lines = readFileSync(input.log, "utf8").trim().split("\n").filter((l) => l !== "");
  const lineCount = new Map<string, number>();
  for (const line of lines) {
    const [job, slot] = line.split(" ");
    lineCount.set(`${job} ${slot}`, (lineCount.get(`${job} ${slot}`) ?? 0) + 1);
  }
  const okRows = new Map<string, number>();
  const statuses: Record<string, number> = {};
  for (const r of input.rows) {
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.status === "ok") okRows.set(`${r.job} ${r.slot}`, (okRows.get(`${r.job} ${r.slot}`) ?? 0) + 1);
  }
  const duplicates = [...lineCount.values()].filter((n) => n > 1).length;
  let lost = 0;
  let checked = 0;
  for (const job of input.jobs) {
    for (const slot of input.window) {
      checked++;
      if (okRows.get(`${job} ${slot}`) !== 1 || lineCount.get(`${job} ${slot}`) !== 1) lost++;
    }
  }
  const wins = Object.fromEntries(input.results.map((r) => [r.node, r.events["claimed"] ?? 0]));
  const lostClaims = input.results.reduce((n, r) => n + (r.events["lost"] ?? 0), 0);
  console.log(
    `${label}: window ${input.window.length} s x ${input.jobs.length} jobs = ${checked} slots; ` +
      `ok rows ${okRows.size}, side-log lines ${lines.length}, duplicates ${duplicates}, lost ${lost}; ` +
      `row statuses ${JSON.stringify(statuses)}; wins per process ${
        JSON.stringify(wins)
      }; claims lost to other processes ${lostClaims}`,
  );
  assert.equal(duplicates, 0, "a slot ran twice");
  assert.equal(lost, 0, "a slot in the common window has no single ok row and side-log line");
  assert.equal(lines.length, okRows.size, "every side-log line has its ok row");
  assert.ok(Object.values(wins).filter((n) => n > 0).length >= 2, "more than one process won slots");
}
