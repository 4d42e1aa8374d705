import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EXIT, runCli, USAGE } from "../../cli/cli.ts";

const NOW = Date.UTC(2026, 2, 7, 12, 0, 0); // Sat 2026-03-07 12:00Z, the day before New York springs forward

function cli(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t), now: NOW });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

describe("edgecron next", () => {
  it("prints the next fires in the zone and in UTC, shifting a spring-forward gap by the gap", () => {
    const { code, out } = cli("next", "30 2 * * *", "--tz", "America/New_York", "-n", "3");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(out.split("\n"), [
      "next 3 fire times in America/New_York and UTC:",
      "  Sun 2026-03-08 03:30:00 -04:00   = 2026-03-08T07:30:00Z",
      "  Mon 2026-03-09 02:30:00 -04:00   = 2026-03-09T06:30:00Z",
      "  Tue 2026-03-10 02:30:00 -04:00   = 2026-03-10T06:30:00Z",
    ]);
  });

  it("defaults to 5 fires in UTC after now", () => {
    const { code, out } = cli("next", "0 */6 * * *");
    assert.equal(code, EXIT.ok);
    const lines = out.split("\n");
    assert.equal(lines[0], "next 5 fire times in UTC:");
    assert.deepEqual(lines.slice(1), [
      "  Sat 2026-03-07 18:00:00 +00:00",
      "  Sun 2026-03-08 00:00:00 +00:00",
      "  Sun 2026-03-08 06:00:00 +00:00",
      "  Sun 2026-03-08 12:00:00 +00:00",
      "  Sun 2026-03-08 18:00:00 +00:00",
    ]);
  });

  it("--json gives epoch ms, zoned and UTC text", () => {
    const { code, out } = cli("next", "0 9 * * MON-FRI", "--tz", "Europe/Berlin", "-n", "2", "--json");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(json(out), {
      ok: true,
      expression: "0 9 * * MON-FRI",
      timezone: "Europe/Berlin",
      next: [
        { epochMs: Date.UTC(2026, 2, 9, 8), local: "2026-03-09T09:00:00+01:00[Europe/Berlin]", utc: "2026-03-09T08:00:00Z", text: "Mon 2026-03-09 09:00:00 +01:00" },
        { epochMs: Date.UTC(2026, 2, 10, 8), local: "2026-03-10T09:00:00+01:00[Europe/Berlin]", utc: "2026-03-10T08:00:00Z", text: "Tue 2026-03-10 09:00:00 +01:00" },
      ],
    });
  });

  it("--from sets the starting instant, and 6-field expressions fire on seconds", () => {
    const { out } = cli("next", "*/20 * * * * *", "--from", "2030-01-01T00:00:00Z", "-n", "3", "--json");
    assert.deepEqual((json(out).next as { utc: string }[]).map((f) => f.utc), [
      "2030-01-01T00:00:20Z",
      "2030-01-01T00:00:40Z",
      "2030-01-01T00:01:00Z",
    ]);
  });
});

describe("edgecron validate", () => {
  it("accepts a valid expression and prints its normal form", () => {
    const { code, out } = cli("validate", "30 00 * * *");
    assert.equal(code, EXIT.ok);
    assert.match(out, /^valid: "30 00 \* \* \*"/);
  });

  it("exits 1 and points at the offending field", () => {
    const { code, out, err } = cli("validate", "61 * * * *");
    assert.equal(code, EXIT.invalid);
    assert.equal(out, "");
    const lines = err.split("\n");
    assert.match(lines[0] ?? "", /^invalid: invalid-cron: .*minute.*"61"/);
    assert.deepEqual(lines.slice(1), ["  61 * * * *", "  ^^ minute"]);
  });

  it("explains an expression that can never fire", () => {
    const { code, err } = cli("validate", "0 0 30 2 *");
    assert.equal(code, EXIT.invalid);
    assert.match(err, /day-of-month 30 never occurs in month 2/);
    assert.match(err, /\n {2}0 0 30 2 \*\n {6}\^\^ day-of-month$/);
  });

  it("--json reports code and message, and an unknown zone is invalid too", () => {
    const bad = cli("validate", "* * * *", "--json");
    assert.equal(bad.code, EXIT.invalid);
    const body = json(bad.out);
    assert.equal(body.ok, false);
    assert.equal(body.code, "invalid-cron");
    assert.match(String(body.message), /^invalid-cron: /);

    const zone = cli("validate", "0 9 * * *", "--tz", "Mars/Olympus", "--json");
    assert.equal(zone.code, EXIT.invalid);
    assert.equal(json(zone.out).code, "invalid-timezone");
    assert.match(String(json(zone.out).message), /Mars\/Olympus/);
  });
});

describe("edgecron explain", () => {
  it("says the expression in words, with the zone and the next fires", () => {
    const { code, out } = cli("explain", "0 9 * * MON-FRI", "--tz", "Europe/Berlin", "-n", "1");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(out.split("\n"), [
      "At 09:00, Monday through Friday (Europe/Berlin)",
      "next 1 fire time in Europe/Berlin and UTC:",
      "  Mon 2026-03-09 09:00:00 +01:00   = 2026-03-09T08:00:00Z",
    ]);
  });

  it("notes that restricted day-of-month and day-of-week combine with OR", () => {
    const { out } = cli("explain", "0 0 13 * 5", "--json", "-n", "2");
    const body = json(out);
    assert.match(String(body.description), /day 13 of the month/);
    assert.match(String(body.note), /EITHER/);
    // With AND the second fire would be Friday 13 November.
    assert.deepEqual((body.next as { utc: string }[]).map((f) => f.utc), ["2026-03-13T00:00:00Z", "2026-03-20T00:00:00Z"]);
  });
});

describe("edgecron usage errors", () => {
  const cases: [string, string[], RegExp][] = [
    ["no command", [], /missing command/],
    ["an unknown command", ["when", "* * * * *"], /unknown command "when"/],
    ["a missing expression", ["next"], /next needs a cron expression/],
    ["an unquoted expression", ["next", "0", "9", "*", "*", "*"], /quote the expression/],
    ["a bad -n", ["next", "* * * * *", "-n", "0"], /-n must be a whole number from 1 to 1000, got "0"/],
    ["a non-numeric -n", ["next", "* * * * *", "-n", "many"], /got "many"/],
    ["a missing --tz value", ["next", "* * * * *", "--tz"], /--tz needs a value/],
    ["a bad --from", ["next", "* * * * *", "--from", "yesterday"], /--from must be an ISO instant/],
    ["an unknown option", ["next", "* * * * *", "--utc"], /unknown option "--utc"/],
  ];
  for (const [what, argv, message] of cases) {
    it(`exits 2 on ${what}`, () => {
      const { code, out, err } = cli(...argv);
      assert.equal(code, EXIT.usage);
      assert.equal(out, "");
      assert.match(err, message);
      assert.ok(err.endsWith(USAGE), "prints the usage");
    });
  }

  it("prints a JSON usage error with --json", () => {
    const { code, out } = cli("next", "--json");
    assert.equal(code, EXIT.usage);
    assert.deepEqual(json(out), { ok: false, code: "usage", message: 'next needs a cron expression, e.g. edgecron next "*/5 * * * *"' });
  });

  it("--help prints the usage and exits 0", () => {
    const { code, out } = cli("--help");
    assert.equal(code, EXIT.ok);
    assert.equal(out, USAGE);
  });
});
