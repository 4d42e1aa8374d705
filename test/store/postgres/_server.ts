// A real Postgres server for the tests: the Debian binaries (/usr/lib/postgresql/<v>/bin,
// or $EDGECRON_PG_BIN), a fresh data directory in the temp dir, a free port on 127.0.0.1,
// password (SCRAM) authentication so URLs carry a secret the errors must never show.
// One server per test process, started on first use and stopped when the process exits.
// No server binary: `skipReason` says so (and .ci/run installs one).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** The user and password every test URL carries. */
export const PG_USER = "edgecron_test";
export const PG_PASSWORD = "pw-Secret-7f3a";

function findBin(): string | undefined {
  const fromEnv = process.env["EDGECRON_PG_BIN"];
  if (fromEnv !== undefined && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) =>
    Number(b) - Number(a)
  );
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

const BIN = findBin();

/** Why the Postgres tests cannot run here, or false when they can. */
export const skipReason: string | false = BIN === undefined
  ? "no Postgres server binary (install the `postgresql` package or set EDGECRON_PG_BIN; .ci/run installs it)"
  : false;

/** A running test server. */
export interface PgServer {
  /** `postgres://user:password@127.0.0.1:port/postgres` */
  url: string;
  port: number;
  /** The server's binaries (pg_ctl, psql, …). */
  bin: string;
  /** Runs a pg_ctl command as the server's OS user (for pause/resume tests). */
  ctl(args: string[]): void;
  /** The postmaster's pid (SIGSTOP/SIGCONT in outage tests). */
  dataDir: string;
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function run(cmd: string, args: string[]): void {
  // initdb and pg_ctl refuse to run as root: run them as the `postgres` OS user.
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  const res = spawnSync(file, argv, { encoding: "utf8" });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${res.status}): ${res.stdout}${res.stderr}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

let started: Promise<PgServer> | undefined;

async function start(): Promise<PgServer> {
  if (BIN === undefined) throw new Error(String(skipReason));
  const bin = BIN;
  const dir = mkdtempSync(join(tmpdir(), "edgecron-pg-"));
  const dataDir = join(dir, "data");
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  chmodSync(dir, 0o755);
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  run(join(bin, "initdb"), [
    "-D",
    dataDir,
    "-U",
    PG_USER,
    `--pwfile=${pwfile}`,
    "--auth-host=scram-sha-256",
    "--auth-local=trust",
    "-E",
    "UTF8",
    "--no-sync",
    "--locale=C",
  ]);
  const port = await freePort();
  const ctl = (args: string[]): void => run(join(bin, "pg_ctl"), ["-D", dataDir, ...args]);
  // fsync off: a test server needs no durability across a machine crash, and fsync is
  // most of a commit's cost on a loaded machine.
  ctl([
    "-w",
    "-l",
    join(dir, "server.log"),
    "-o",
    `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c max_connections=300`,
    "start",
  ]);
  process.on("exit", () => {
    try {
      ctl(["-m", "immediate", "-w", "stop"]);
    } catch { /* already stopped */ }
    rmSync(dir, { recursive: true, force: true });
  });
  // A watchdog for a test process that dies without its exit handler (killed at a
  // timeout, SIGKILL, a runtime that skips it): stops the server once this pid is gone.
  const stop = [
    ...(asRoot ? ["runuser", "-u", "postgres", "--"] : []),
    join(bin, "pg_ctl"),
    "-D",
    dataDir,
    "-m",
    "immediate",
    "stop",
  ];
  const quoted = stop.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  spawn("sh", [
    "-c",
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${quoted} >/dev/null 2>&1; rm -rf '${dir}'`,
  ], {
    detached: true,
    stdio: "ignore",
  }).unref();
  return { url: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`, port, bin, ctl, dataDir };
}

function postgresIds(): { uid: number; gid: number } {
  const res = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gres = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  return { uid: Number(res.stdout.trim()), gid: Number(gres.stdout.trim()) };
}

/** The test process's server, started on first call. */
export function pgServer(): Promise<PgServer> {
  started ??= start();
  return started;
}

let schemas = 0;

/** A schema name no other test of this process uses (a fresh, empty store per case). */
export function freshSchema(prefix = "t"): string {
  schemas += 1;
  return `${prefix}_${process.pid}_${schemas}`;
}
