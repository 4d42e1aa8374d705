// The curl examples of docs/http.md ("Try it with curl"), run as written against the demo server (`npm start`'s
// examples/node-server/main.ts) on a free port, so that they cannot drift from the API.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Example, freePort, startExample } from "../adapters/_process.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const TOKEN = "readme-curl-token-0123456789";

/** The curl commands of docs/http.md's "Try it with curl" section, continuation lines joined. */
function readmeCurls(): string[] {
  const page = readFileSync(`${root}docs/http.md`, "utf8");
  const start = page.indexOf("## Try it with curl");
  assert.ok(start >= 0, 'docs/http.md has no "## Try it with curl" section');
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.flatMap((b) => b.replace(/\\\n\s*/g, "").split("\n")).map((l) => l.trim()).filter((l) =>
    l.startsWith("curl ")
  );
}

let dir = "";
let port = 0;
let demo: Example;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgecron-readme-"));
  port = await freePort();
  demo = startExample(process.execPath, ["--import", "tsx", "examples/node-server/main.ts"], {
    cwd: root,
    env: { EDGECRON_TOKEN: TOKEN, EDGECRON_DB: `file:${dir}/demo.db`, PORT: String(port), HEARTBEAT: "5s" },
  });
  await demo.waitFor(/dashboard and API on http:\/\/\S+/, 30_000);
});

after(() => {
  demo?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe("docs/http.md curl examples against the demo server", () => {
  it("finds the examples: create a webhook job, run it, list jobs and runs, scrape metrics", () => {
    const curls = readmeCurls();
    assert.ok(curls.length >= 5, curls.join("\n"));
    assert.ok(curls.some((c) => c.includes("/run")) && curls.some((c) => c.includes("/metrics")));
  });

  it("runs each one as written: every command succeeds and the webhook run is ok", async () => {
    const outputs = readmeCurls().map((command) => {
      const local = command.replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`);
      try {
        return execFileSync("bash", ["-c", local], {
          env: { ...process.env, TOKEN },
          encoding: "utf8",
          timeout: 30_000,
        });
      } catch (e) {
        const err = e as { status: number; stdout: string; stderr: string };
        assert.fail(`${command}\nexit ${err.status}: ${err.stdout}${err.stderr}\n${demo.output()}`);
      }
    });
    const created = JSON.parse(outputs[0]!) as { name: string; nextIso: string[] };
    assert.equal(created.name, "ping-receiver");
    const run = JSON.parse(outputs[1]!) as { outcome: string; slotIso: string };
    assert.equal(run.outcome, "ok", `the webhook reached the demo's receiver: ${outputs[1]}`);
    await demo.waitFor(/demo receiver: verified delivery job=ping-receiver/, 10_000);
    // The manual run; 2 when the test crosses a */5 minute: the new job also runs that slot
    // (a full run at 19:55 scraped 2).
    assert.match(outputs.at(-1)!, /edgecron_runs_total\{job="ping-receiver",outcome="ok"\} [12]\n/);
  });

  it("answers docs/http.md's error example for a bad cron, word for word", async () => {
    const page = readFileSync(`${root}docs/http.md`, "utf8");
    const shown = /```json\n(\{ *"error": *\{ *"code": *"invalid-spec"[^\n]*)\n```/.exec(page)?.[1];
    assert.ok(shown, "docs/http.md shows the bad-cron error");
    const res = await fetch(`http://127.0.0.1:${port}/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "bad",
        schedule: "61 * * * *",
        target: { url: `http://127.0.0.1:${port}/demo/webhook` },
      }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), JSON.parse(shown));
  });
});
