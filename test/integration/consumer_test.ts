// The package as a user gets it: `npm pack` (which builds, through prepack), the tarball
// installed into a temporary project OUTSIDE the repository, then that installed copy used
// from Node, tsc (NodeNext and bundler), Bun, Deno (node_modules and deno.json links) and
// a Cloudflare Worker bundled like wrangler bundles it, on workerd through Miniflare; every
// subpath imported, `require("edgecron")` from a CommonJS project, and every docs block
// type-checked against the installed copy (the README's first look is run).
// The project's files are in fixtures/consumer/. Sizes are printed for the release notes.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import {
  blockProblems,
  denoTypes,
  docBlocks,
  exampleBlocks,
  specifierOf,
  typeCheck,
  writeProject,
  // @ts-ignore: plain JS module shared with `node scripts/docs.mjs`
} from "../../scripts/docs.mjs";
import { Miniflare } from "miniflare";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fixtures = fileURLToPath(new URL("fixtures/consumer/", import.meta.url));
const bin = (name: string): string => join(root, "node_modules", ".bin", name);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, { types: string; default: string }>;
};

interface Result {
  status: number | null;
  stdout: string;
  /** stdout and stderr, for messages. */
  out: string;
}

/**
 * Runs a command to its end (killed after `timeout` ms: a guard against a hang, not a
 * speed limit, so it is generous; the checks of a describe share the machine). Asynchronous,
 * so that the independent checks of a describe below run side by side: most of them wait
 * on a child.
 */
function sh(cmd: string, args: string[], cwd: string, timeout = 300_000): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, timeout, env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (error) => resolve({ status: null, stdout, out: `${stdout}${stderr}${String(error)}` }));
    child.on("close", (status) => resolve({ status, stdout, out: `${stdout}${stderr}` }));
  });
}

/** Runs a command that must succeed and print one JSON line last. */
async function json(cmd: string, args: string[], cwd: string): Promise<Record<string, unknown>> {
  const res = await sh(cmd, args, cwd);
  assert.equal(res.status, 0, `${cmd} ${args.join(" ")}:\n${res.out}`);
  const last = res.stdout.trim().split("\n").filter((line) => line.startsWith("{")).at(-1) ?? "";
  return JSON.parse(last) as Record<string, unknown>;
}

interface PackInfo {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

let dir = "";
let app = "";
let packed: PackInfo;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgecron-consumer-"));
  // With EDGECRON_PREBUILT=1 the e2e tier has built dist/ already: prepack would rebuild
  // it while other e2e files run from it.
  const prebuilt = process.env.EDGECRON_PREBUILT === "1" ? ["--ignore-scripts"] : [];
  const pack = await sh("npm", ["pack", "--json", ...prebuilt, "--pack-destination", dir], root, 300_000);
  assert.equal(pack.status, 0, pack.out);
  // prepack's build prints first; npm's JSON report is the rest.
  packed = (JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m))) as PackInfo[])[0] as PackInfo;
  app = join(dir, "app");
  cpSync(fixtures, app, { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  // `postgres` is edgecron/postgres's optional peer: a user of that store installs it, as docs/stores.md says.
  const pg = `postgres@${
    (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> })
      .devDependencies["postgres"]
  }`;
  const install = await sh(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", join(dir, packed.filename), pg],
    app,
    300_000,
  );
  assert.equal(install.status, 0, install.out);
  console.log(
    `packed ${packed.filename}: ${packed.files.length} files, ${packed.size} B, unpacked ${packed.unpackedSize} B`,
  );
});
after(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("the packed tarball", { concurrency: true }, () => {
  it("holds compiled JS, declarations and both maps for every export, and no repository-only files", () => {
    const paths = new Set(packed.files.map((f) => f.path));
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      for (const file of [target.types, `${target.types}.map`, target.default, `${target.default}.map`]) {
        assert.ok(paths.has(file.slice(2)), `${subpath}: ${file} is not in the tarball`);
      }
    }
    for (const file of ["LICENSE", "CHANGELOG.md", "README.md", "deno.json", "bin/edgecron.mjs", "dist/cli/main.js"]) {
      assert.ok(paths.has(file), `${file} is not in the tarball`);
    }
    const stray = [...paths].filter((p) => /^(test|scripts|bench|examples|\.ci)\/|tsconfig|_test\.ts$/.test(p));
    assert.deepEqual(stray, []);
  });

  it("installs with no lifecycle script and only runtime dependencies", () => {
    const installed = JSON.parse(readFileSync(join(app, "node_modules/edgecron/package.json"), "utf8")) as Record<
      string,
      Record<string, string>
    >;
    const scripts = Object.keys(installed.scripts ?? {});
    assert.deepEqual(scripts.filter((s) => /^(pre|post)?install$|^prepare$/.test(s)), []);
    for (const dev of ["deno", "bun", "miniflare", "playwright-core", "wrangler", "tsx"]) {
      assert.equal(installed.dependencies?.[dev], undefined, dev);
    }
  });

  it("runs the published bin on plain Node", async () => {
    const res = await sh(join(app, "node_modules/.bin/edgecron"), ["--version"], app);
    assert.equal(res.status, 0, res.out);
    assert.equal(res.out.trim(), pkg.version);
  });
});

interface DocBlock {
  file: string;
  line: number;
  lang: string;
  code: string;
  fragment: string | undefined;
  run: boolean;
  output: string | undefined;
}

describe("every subpath and every documented block, from the installed copy", { concurrency: true }, () => {
  const specifiers = Object.keys(pkg.exports).map((subpath) => specifierOf(subpath) as string);

  it("node imports every subpath (ESM), and each has exports", async () => {
    const script = `const out = {}; for (const s of ${
      JSON.stringify(specifiers)
    }) out[s] = Object.keys(await import(s)).length; console.log(JSON.stringify(out));`;
    const out = await json(process.execPath, ["--input-type=module", "-e", script], app);
    assert.deepEqual(Object.keys(out), specifiers);
    for (const [specifier, count] of Object.entries(out)) {
      assert.ok((count as number) > 0, `${specifier} exports nothing`);
    }
  });

  it("tsc NodeNext resolves every subpath's types, and their declarations compile without skipLibCheck", async () => {
    // edgecron/deno's declarations name the Deno namespace, which only Deno's own types (not a
    // tsc lib) provide: its docs blocks are checked below with those types, and `deno check`
    // runs on it in "the installed copy, from each runtime".
    const portable = specifiers.filter((s) => s !== "edgecron/deno");
    const dir = join(app, "all-subpaths");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "all.ts"),
      portable.map((s, i) => `import * as m${i} from "${s}";\nconsole.log(Object.keys(m${i}));`).join("\n"),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          types: [],
          strict: true,
          noEmit: true,
        },
        files: ["all.ts"],
      }),
    );
    const res = await sh(bin("tsc"), ["-p", "tsconfig.json"], dir, 300_000);
    assert.equal(res.status, 0, res.out);
  });

  it('require("edgecron") works from a CommonJS project (npm init -y) on Node 20', async () => {
    const cjs = join(dir, "cjs");
    mkdirSync(cjs, { recursive: true });
    assert.equal((await sh("npm", ["init", "-y"], cjs)).status, 0);
    const type = (JSON.parse(readFileSync(join(cjs, "package.json"), "utf8")) as { type?: string }).type;
    assert.ok(type === undefined || type === "commonjs", `npm init -y makes a CommonJS project, got type ${type}`);
    // The tarball's installed tree, linked rather than installed a second time (the install
    // does not depend on the project's module type; what a CommonJS project changes is
    // how the package is loaded, checked below).
    symlinkSync(join(app, "node_modules"), join(cjs, "node_modules"), "dir");
    writeFileSync(
      join(cjs, "index.js"),
      [
        'const { cron, createScheduler } = require("edgecron");',
        'const { libsqlStore } = require("edgecron/libsql");',
        'const next = cron("0 8 * * *", { timezone: "Europe/Paris" }).next(Date.UTC(2026, 2, 1));',
        "console.log(JSON.stringify({ next: new Date(next).toISOString(), scheduler: typeof createScheduler, libsql: typeof libsqlStore, node: process.versions.node }));",
      ].join("\n"),
    );
    const out = await json(process.execPath, ["index.js"], cjs);
    assert.deepEqual({ ...out, node: String(out.node).split(".")[0] }, {
      next: "2026-03-01T07:00:00.000Z",
      scheduler: "function",
      libsql: "function",
      node: "20",
    });
  });

  it("every ts/js block of README.md and docs/**, and every public @example, type-checks against the installed package", async () => {
    const blocks = [...docBlocks(root), ...exampleBlocks(root)] as DocBlock[];
    assert.deepEqual(blockProblems(blocks), []);
    const docs = join(app, "docs-check");
    const map = writeProject(docs, blocks, {
      types: [denoTypes(root)],
      typeRoots: [join(root, "node_modules/@types")],
    });
    assert.ok(map.size > 40, `only ${map.size} blocks checked`);
    assert.deepEqual(typeCheck(docs, map, bin("tsc")), []);
  });

  // The scheduler's own log lines (edgecron: …) carry durations; the docs leave them out.
  const printed = (stdout: string): string =>
    stdout.split("\n").filter((l) => l !== "" && !l.startsWith("edgecron: ")).join("\n");
  const programs = (): DocBlock[] => (docBlocks(root) as DocBlock[]).filter((b) => b.run);
  /** A program in its own folder per runtime (programs write files such as edgecron.db there). */
  const programFile = (b: DocBlock, runtime: string): { file: string; cwd: string } => {
    const cwd = join(app, `run-${runtime}`);
    mkdirSync(cwd, { recursive: true });
    const file = join(cwd, `program_${b.file.replace(/[^\w]+/g, "_")}_L${b.line}.${b.lang === "ts" ? "ts" : "mjs"}`);
    writeFileSync(file, b.code);
    return { file, cwd };
  };

  it("runs the docs' whole programs (<!-- run -->) on Node and prints what the docs show", async () => {
    assert.ok(programs().some((b) => b.file === "README.md"), "the README's first look is marked <!-- run -->");
    for (const b of programs()) {
      const { file, cwd } = programFile(b, "node");
      const res = await sh(
        process.execPath,
        ["--import", join(root, "node_modules/tsx/dist/esm/index.mjs"), file],
        cwd,
      );
      assert.equal(res.status, 0, `${b.file}:${b.line}:\n${res.out}`);
      if (b.output !== undefined) assert.equal(printed(res.stdout), b.output.trim(), `${b.file}:${b.line}`);
    }
  });

  it("the programs with a shown output print the same on Bun and Deno (native Temporal)", async () => {
    const shown = programs().filter((b) => b.output !== undefined);
    assert.ok(shown.length >= 3);
    for (const b of shown) {
      for (const runtime of ["bun", "deno"] as const) {
        const { file, cwd } = programFile(b, runtime);
        const res = await sh(bin(runtime), runtime === "bun" ? [file] : ["run", "-A", file], cwd);
        assert.equal(res.status, 0, `${runtime} ${b.file}:${b.line}:\n${res.out}`);
        assert.equal(printed(res.stdout), b.output?.trim(), `${runtime} ${b.file}:${b.line}`);
      }
    }
  });
});

describe("the installed copy, from each runtime", { concurrency: true }, () => {
  it("node index.mjs: a schedule, libsqlStore on a file: database, edgecronRouter answering", async () => {
    const out = await json(process.execPath, ["index.mjs"], app);
    // The first tick (06:59) registers the job and runs that slot; the next runs 07:00.
    assert.deepEqual(out, {
      digest: "2026-03-02T07:00:00.000Z",
      ran: ["2026-03-01T06:59:00.000Z", "2026-03-01T07:00:00.000Z"],
      rows: ["ok", "ok"],
      status: 200,
      ok: 2,
    });
  });

  it("tsc --noEmit with NodeNext and with bundler resolution: index.ts is clean, bad.ts's misspelt option fails", async () => {
    for (const config of ["tsconfig.nodenext.json", "tsconfig.bundler.json"]) {
      const res = await sh(bin("tsc"), ["-p", config], app);
      const errors = res.out.split("\n").filter((line) => line.includes("error TS"));
      assert.equal(errors.length, 1, `${config}: exactly one error expected:\n${res.out}`);
      assert.match(
        errors[0] ?? "",
        /^bad\.ts\(4,\d+\): error TS2561: .*'timezon' does not exist in type 'JobSpec'/,
        config,
      );
      assert.notEqual(res.status, 0);
    }
  });

  // Two ticks on the grid: the registering one runs its slot too.
  const expected = { paris: "2026-03-01T07:00:00.000Z", ok: true, ran: 2, verified: true, code: "invalid-cron" };

  it("bun index.ts", async () => {
    assert.deepEqual(await json(bin("bun"), ["index.ts"], app), expected);
  });

  it("deno run and deno check through node_modules (nodeModulesDir)", async () => {
    assert.deepEqual(await json(bin("deno"), ["run", "-A", "index.ts"], app), expected);
    const check = await sh(bin("deno"), ["check", "index.ts"], app);
    assert.equal(check.status, 0, check.out);
  });

  it("deno run and deno check through the package's deno.json (links, no import map)", async () => {
    const denoApp = join(app, "deno-app");
    assert.deepEqual(await json(bin("deno"), ["run", "-A", "main.ts"], denoApp), {
      ok: true,
      status: 200,
      tokyo: "2026-03-02T00:00:00.000Z",
    });
    const check = await sh(bin("deno"), ["check", "main.ts"], denoApp);
    assert.equal(check.status, 0, check.out);
  });

  it("a Worker importing edgecron/cloudflare, bundled like wrangler, records a scheduled event on workerd", async () => {
    const outfile = join(dir, "worker.mjs");
    await build({
      absWorkingDir: app,
      entryPoints: ["worker.ts"],
      outfile,
      bundle: true,
      format: "esm",
      minify: true,
      target: "es2022",
      platform: "neutral",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["browser", "module", "main"],
      logLevel: "warning",
    });
    const code = readFileSync(outfile);
    console.log(
      `worker bundle from the installed package: ${code.length} B minified, ${
        gzipSync(code, { level: 9 }).length
      } B gzipped`,
    );
    const mf = new Miniflare({
      modules: true,
      modulesRoot: dir,
      scriptPath: outfile,
      cf: false,
      compatibilityDate: "2025-09-01",
      bindings: { EDGECRON_TOKEN: "t" },
    });
    try {
      const worker = await mf.getWorker() as unknown as {
        scheduled(o: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
      };
      // The first event registers the job and runs its minute; the same event again runs nothing more.
      const minute = Math.floor(Date.now() / 60_000) * 60_000;
      for (const time of [minute - 60_000, minute - 60_000]) {
        assert.equal((await worker.scheduled({ scheduledTime: new Date(time), cron: "* * * * *" })).outcome, "ok");
      }
      const res = await mf.dispatchFetch("http://worker.test/jobs/minutely/runs", {
        headers: { authorization: "Bearer t" },
      });
      const body = await res.json() as { runs: { slot: number; status: string }[] };
      assert.deepEqual(body.runs.map((r) => [r.slot, r.status]), [[minute - 60_000, "ok"]]);
    } finally {
      await mf.dispose();
    }
  });
});
