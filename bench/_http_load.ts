// Helpers for HTTP load runs: the server process, autocannon, RSS and the heartbeat's record.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

const here = new URL("..", import.meta.url).pathname;

/** A load server process. */
export interface LoadServer {
  url: string;
  token: string;
  child: ChildProcess;
  /** Resident set size of the server process in MiB (Linux /proc). */
  rssMiB(): number;
  stop(): Promise<void>;
  output(): string;
  /** The event loop's delay (ms) since the previous call, as the server measured it. */
  loopDelay(): Promise<{ p50: number; p99: number; max: number; n: number }>;
}

/** Starts bench/http_server.ts with `jobs` jobs on `db`, running the code in `root`. */
export async function startLoadServer(options: { db: string; root?: string; jobs?: number }): Promise<LoadServer> {
  const token = "bench-token-0123456789";
  const child = spawn(process.execPath, ["--import", "tsx", `${here}bench/http_server.ts`], {
    cwd: here,
    env: {
      ...process.env,
      EDGECRON_DB: options.db,
      EDGECRON_TOKEN: token,
      JOBS: String(options.jobs ?? 1000),
      ...(options.root ? { EDGECRON_ROOT: options.root } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout!.on("data", (b: Buffer) => (text += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (text += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${text}`)), 60_000);
    const check = (): void => {
      const m = /listening (http:\/\/\S+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", () => reject(new Error(`server exited:\n${text}`)));
  });
  return {
    url,
    token,
    child,
    output: () => text,
    async loopDelay() {
      const seen = text.length;
      child.kill("SIGUSR2");
      for (let i = 0; i < 200; i++) {
        const m = /loop-delay p50=(\S+) p99=(\S+) max=(\S+) n=(\d+)/.exec(text.slice(seen));
        if (m) return { p50: Number(m[1]), p99: Number(m[2]), max: Number(m[3]), n: Number(m[4]) };
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no loop-delay line from the server:\n${text.slice(seen)}`);
    },
    rssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** What one autocannon run measured. */
export interface LoadResult {
  path: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytesPerRequest: number;
}

/**
 * Runs autocannon against `path` for `seconds` with `connections`, asking for gzip like a
 * browser; a request unanswered after `timeoutSeconds` (default 10) counts as an error.
 */
export async function load(
  server: LoadServer,
  path: string,
  seconds: number,
  connections = 50,
  timeoutSeconds = 10,
): Promise<LoadResult> {
  const result = await autocannon({
    url: `${server.url}${path}`,
    connections,
    duration: seconds,
    timeout: timeoutSeconds,
    headers: { authorization: `Bearer ${server.token}`, "accept-encoding": "gzip" },
  });
  return {
    path,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytesPerRequest: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
  };
}

/** The heartbeat's rows with slot in [from, to]: how many, how many `missed`, and the seconds without a row. */
export async function heartbeatRecord(
  server: LoadServer,
  from: number,
  to: number,
): Promise<{ rows: number; missed: number; gaps: number; statuses: Record<string, number> }> {
  const rows: { slot: number; status: string }[] = [];
  let before = to + 1;
  for (let page = 0; page < 50; page++) {
    const res = await fetch(`${server.url}/jobs/heartbeat/runs?limit=100&before=${before}`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    const body = await res.json() as { runs: { slot: number; status: string }[] };
    const inRange = body.runs.filter((r) => r.slot >= from);
    rows.push(...inRange);
    if (inRange.length < body.runs.length || body.runs.length < 100) break;
    before = body.runs.at(-1)!.slot;
  }
  const statuses: Record<string, number> = {};
  for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const first = Math.ceil(from / 1000) * 1000;
  const slots = new Set(rows.map((r) => r.slot));
  let gaps = 0;
  for (let t = first; t <= to; t += 1000) if (!slots.has(t)) gaps++;
  return { rows: rows.length, missed: statuses.missed ?? 0, gaps, statuses };
}
