#!/usr/bin/env node
// `npm test`: type check, portability check, then the same unit tests on Node, Deno
// and Bun, then the integration tests once. Stops at the first failing step and ends
// with one summary line. EDGECRON_TEST_RUNTIMES=node,deno limits the runtimes;
// EDGECRON_TEST_INTEGRATION=0 skips the integration tests (for quick local runs only).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { portabilityViolations } from "./portability.mjs";

const root = new URL("..", import.meta.url).pathname;
process.chdir(root);
const bin = (name) => join(root, "node_modules", ".bin", name);

function* walk(dir) {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (entry.endsWith("_test.ts")) yield path;
  }
}
const all = [...walk("test")];
const integration = all.filter((f) => f.startsWith("test/integration/"));
const unit = all.filter((f) => !integration.includes(f));

const totals = { passed: 0, failed: 0 };
const summary = [];

function run(label, cmd, args, parse, env = {}) {
  console.log(`\n=== ${label}: ${[cmd.replace(root, ""), ...args].join(" ")}`);
  const res = spawnSync(cmd, args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    // Miniflare would otherwise try to download Cloudflare's request.cf data (network).
    env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env, NO_COLOR: "1", ...env },
    maxBuffer: 256 * 1024 * 1024,
  });
  const out = `${res.stdout ?? ""}${res.stderr ?? ""}`;
  process.stdout.write(out);
  const counts = parse ? parse(out.replace(/\x1b\[[0-9;]*m/g, "")) : undefined;
  if (counts) {
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    summary.push(`${label}: ${counts.passed} passed, ${counts.failed} failed`);
    console.log(`--- ${label}: ${counts.passed} passed, ${counts.failed} failed`);
  }
  if (res.status !== 0 || (counts && counts.failed > 0) || (parse && !counts)) {
    console.log(`\n✗ ${label} failed (exit ${res.status}${res.error ? `, ${res.error.message}` : ""})`);
    finish(1);
  }
}

function finish(code) {
  console.log("\n=== summary");
  for (const line of summary) console.log(line);
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exit(code);
}

const num = (re, text) => {
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
};
const nodeCounts = (out) => {
  const passed = num(/^# pass (\d+)$/m, out);
  const failed = num(/^# fail (\d+)$/m, out);
  return passed === undefined || failed === undefined ? undefined : { passed, failed: failed + (num(/^# cancelled (\d+)$/m, out) ?? 0) };
};
// Deno counts a describe() as one test whose it()s are steps; count leaves (a test or
// step with no steps under it) so the three runtimes report comparable numbers.
const denoCounts = (out) => {
  if (!/(?:ok|FAILED) \| \d+ passed(?: \(\d+ steps?\))? \| \d+ failed/.test(out)) return undefined;
  const rows = [...out.matchAll(/^( *)\S.* \.\.\. (ok|FAILED|ignored)\b/gm)].map((m) => ({ depth: m[1].length, status: m[2] }));
  const counts = { passed: 0, failed: 0 };
  rows.forEach((row, i) => {
    const next = rows[i + 1];
    if (next && next.depth > row.depth) return;
    if (row.status === "ok") counts.passed++;
    else if (row.status === "FAILED") counts.failed++;
  });
  const m = /(?:ok|FAILED) \| \d+ passed(?: \(\d+ steps?\))? \| (\d+) failed/.exec(out);
  if (counts.failed === 0 && m && Number(m[1]) > 0) counts.failed = Number(m[1]);
  return counts;
};
const bunCounts = (out) => {
  const passed = num(/^\s*(\d+) pass$/m, out);
  const failed = num(/^\s*(\d+) fail$/m, out);
  return passed === undefined || failed === undefined ? undefined : { passed, failed };
};

const runtimes = (process.env.EDGECRON_TEST_RUNTIMES ?? "node,deno,bun").split(",");

run("typecheck", bin("tsc"), ["-p", "tsconfig.json"]);

console.log("\n=== portability: src/ names no runtime global");
const violations = portabilityViolations("src");
if (violations.length > 0) {
  console.log(violations.join("\n"));
  console.log("✗ portability failed");
  finish(1);
}
console.log("ok: src/ uses ECMAScript and Web-standard globals only");

if (runtimes.includes("node")) {
  run("node", process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...unit], nodeCounts);
}
if (runtimes.includes("deno")) {
  run("deno", bin("deno"), ["test", "-A", "--no-check", "--unstable-cron", "--unstable-kv", ...unit], denoCounts);
}
if (runtimes.includes("bun")) {
  run("bun", bin("bun"), ["test", ...unit.map((f) => `./${f}`)], bunCounts);
}
if (integration.length > 0 && process.env.EDGECRON_TEST_INTEGRATION !== "0") {
  run("integration (node)", process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...integration], nodeCounts);
}
finish(0);
