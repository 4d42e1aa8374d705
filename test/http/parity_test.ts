// One job schema: `scheduler.define()` from code and `POST /jobs` refuse the same bad
// inputs with the same error codes (one table of cases for both).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { errorOf, json, setup } from "./_setup.ts";

const URL_OK = "https://hooks.example/run";
const base = { schedule: "*/5 * * * *", target: { url: URL_OK } };
const headers = (h: Record<string, string>) => ({ ...base, target: { url: URL_OK, headers: h } });
const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, "v"]));

/** [case, job name, spec, expected code] */
const CASES: [string, string, Record<string, unknown>, string][] = [
  ["name .", ".", base, "invalid-name"],
  ["name ..", "..", base, "invalid-name"],
  ["name with a space", "a b", base, "invalid-name"],
  ["empty name", "", base, "invalid-name"],
  ["name with NUL", "a\u0000", base, "invalid-name"],
  ["unknown field", "x", { ...base, owner: "me" }, "invalid-spec"],
  ["no target", "x", { schedule: "* * * * *" }, "invalid-spec"],
  ["non-http URL", "x", { ...base, target: { url: "ftp://h.example/x" } }, "invalid-spec"],
  ["credentials in URL", "x", { ...base, target: { url: "https://u:p@h.example/x" } }, "invalid-spec"],
  ["loopback target", "x", { ...base, target: { url: "http://127.0.0.1:8080/x" } }, "invalid-spec"],
  ["decimal loopback", "x", { ...base, target: { url: "http://2130706433/x" } }, "invalid-spec"],
  ["metadata target", "x", { ...base, target: { url: "http://169.254.169.254/" } }, "invalid-spec"],
  ["Host header", "x", headers({ Host: "internal" }), "invalid-spec"],
  ["Edgecron-Signature header", "x", headers({ "Edgecron-Signature": "t=1,v1=00" }), "invalid-spec"],
  ["Edgecron-Job header", "x", headers({ "Edgecron-Job": "other" }), "invalid-spec"],
  ["Content-Length header", "x", headers({ "Content-Length": "1" }), "invalid-spec"],
  ["51 headers", "x", headers(many), "invalid-spec"],
  ["CRLF in a header", "x", headers({ "X-A": "a\r\nInjected: 1" }), "invalid-spec"],
  ["bad header name", "x", headers({ "X A": "1" }), "invalid-spec"],
  ["body over 32 768", "x", { ...base, target: { url: URL_OK, body: "x".repeat(32_769) } }, "invalid-spec"],
  ["bad method", "x", { ...base, target: { url: URL_OK, method: "TRACE" } }, "invalid-spec"],
  ["bad timeout", "x", { ...base, timeout: "soon" }, "invalid-spec"],
  ["too many retries", "x", { ...base, retries: { attempts: 101 } }, "invalid-spec"],
  ["bad cron", "x", { ...base, schedule: "61 * * * *" }, "invalid-spec"],
  ["unknown schedule field", "x", { ...base, schedule: { cron: "* * * * *", tz: "UTC" } }, "invalid-spec"],
  ["schedule of no known shape", "x", { ...base, schedule: { weekly: true } }, "invalid-spec"],
  ["unknown zone", "x", { ...base, timezone: "Mars/Olympus" }, "invalid-spec"],
  ["control character in description", "x", { ...base, description: "ring\u0007" }, "invalid-spec"],
  ["description too long", "x", { ...base, description: "d".repeat(1001) }, "invalid-spec"],
];

describe("define() and POST /jobs share one schema", () => {
  for (const [label, name, spec, code] of CASES) {
    it(`refuse ${label} with ${code}`, async () => {
      const f = setup();
      let fromCode: unknown;
      try {
        await f.scheduler.define(name, spec as never);
      } catch (e) {
        fromCode = e;
      }
      assert.ok(fromCode instanceof SchedulerError, `define() accepted ${label}`);
      assert.equal(fromCode.code, code);
      const res = await f.call("POST", "/jobs", json({ name, ...spec }));
      assert.equal(res.status, 400);
      assert.equal((await errorOf(res)).code, code);
      assert.equal((await f.call("GET", "/jobs")).status, 200);
      assert.equal((await f.scheduler.list()).filter((j) => j.source === "data").length, 0, "nothing stored");
    });
  }

  it("accept the same good input (the table's cases are one fault away from it)", async () => {
    const f = setup();
    await f.scheduler.define("from-code", base);
    assert.equal((await f.call("POST", "/jobs", json({ name: "from-http", ...base }))).status, 201);
  });
});
