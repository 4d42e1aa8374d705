import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EXIT, runCli } from "../../cli/cli.ts";

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

function cli(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t), now: NOW });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("edgecron next with --except, --start, --end", () => {
  it("skips the excluded days and keeps inside the local start and end dates", () => {
    const { code, out } = cli(
      "next",
      "0 9 * * 1-5",
      "--tz",
      "Europe/Berlin",
      "--except",
      "* * 24-26 12 *",
      "--except",
      "2027-01-01",
      "--start",
      "2026-12-23",
      "--end",
      "2026-12-31",
      "-n",
      "10",
      "--json",
    );
    assert.equal(code, EXIT.ok);
    const next = (JSON.parse(out) as { next: { utc: string }[] }).next.map((f) => f.utc);
    // The 24th-25th are excluded, the 26th-27th a weekend; the end date is included, the 1st is past it anyway.
    assert.deepEqual(next, [
      "2026-12-23T08:00:00Z",
      "2026-12-28T08:00:00Z",
      "2026-12-29T08:00:00Z",
      "2026-12-30T08:00:00Z",
      "2026-12-31T08:00:00Z",
    ]);
  });

  it("a start date is local midnight in the schedule's zone", () => {
    const { out } = cli("next", "0 * * * *", "--tz", "America/New_York", "--start", "2027-01-01", "-n", "1", "--json");
    assert.equal((JSON.parse(out) as { next: { utc: string }[] }).next[0]!.utc, "2027-01-01T05:00:00Z");
  });

  it("refuses an exclusion that removes every slot, and a start that is no date, naming the field", () => {
    const all = cli("next", "0 9 * * 1-5", "--except", "* * * * 1-5");
    assert.equal(all.code, EXIT.invalid);
    assert.match(all.err, /every fire time is excluded \("\* \* \* \* 1-5"\)/);
    const bad = cli("next", "0 9 * * 1-5", "--start", "2027-02-30");
    assert.equal(bad.code, EXIT.invalid);
    assert.match(bad.err, /--start: "2027-02-30" is not a calendar date/);
    const badEx = cli("next", "0 9 * * 1-5", "--except", "* * 32 * *");
    assert.equal(badEx.code, EXIT.invalid);
    assert.match(badEx.err, /except\[0\]: invalid-cron: day-of-month/);
    assert.equal(cli("next", "0 9 * * *", "--except").code, EXIT.usage);
  });

  it("an --except error points into that exclusion, not the schedule; other modifier errors get no pointer and no hint about the schedule", () => {
    // It drew the caret under the schedule: `  0 * * * *` / `  ^ minute`.
    const first = cli("next", "0 * * * *", "--except", "61 * * * *");
    assert.equal(first.code, EXIT.invalid);
    assert.deepEqual(first.err.split("\n"), [
      'invalid: invalid-spec: except[0]: invalid-cron: minute must be 0-59, got "61"',
      "  61 * * * *",
      "  ^^ minute",
    ]);
    const second = cli("next", "0 * * * *", "--except", "0 0 * * *", "--except", "0 0 32 * *");
    assert.deepEqual(second.err.split("\n").slice(1), ["  0 0 32 * *", "      ^^ day-of-month"]);
    const date = cli("next", "0 9 * * 1-5", "--except", "2027-02-30");
    assert.equal(date.err.split("\n").length, 1);
    const end = cli("next", "0 0 12 * * *", "--start", "2030-01-01", "--end", "2029-01-01");
    assert.equal(end.code, EXIT.invalid);
    assert.equal(end.err.split("\n").length, 1);
  });

  it("an end before the start is named as typed; an end on the start day keeps that day", () => {
    // It said `endAt: must be after startAt ("2030-01-01T00:00:00.000Z"), got "2029-01-02T00:00:00.000Z"`.
    const bad = cli("next", "0 9 * * *", "--start", "2030-01-01", "--end", "2029-01-01");
    assert.equal(bad.code, EXIT.invalid);
    assert.match(bad.err, /--end "2029-01-01" is not after --start "2030-01-01"/);
    const instants = cli("next", "0 9 * * *", "--start", "2030-01-01T09:00:00Z", "--end", "2030-01-01T09:00:00Z");
    assert.match(instants.err, /--end "2030-01-01T09:00:00Z" is not after --start/);
    const { code, out } = cli("next", "0 9 * * *", "--start", "2030-01-01", "--end", "2030-01-01", "--json");
    assert.equal(code, EXIT.ok);
    assert.deepEqual((JSON.parse(out) as { next: { utc: string }[] }).next.map((f) => f.utc), ["2030-01-01T09:00:00Z"]);
    const negative = cli("next", "0 0 * * *", "--start", "-86400000", "--from", "-172800000", "-n", "1", "--json");
    assert.equal((JSON.parse(negative.out) as { next: { utc: string }[] }).next[0]!.utc, "1969-12-31T00:00:00Z");
  });

  it("an --end that is no calendar date is refused by name, like --start", () => {
    // It rolled 2026-02-30 over to 2026-03-02 and printed fire times through 1 March.
    for (const date of ["2026-02-30", "2026-13-45", "2026-00-10", "2026-04-31"]) {
      const { code, out, err } = cli("next", "0 9 * * *", "--from", "2026-02-25T00:00:00Z", "--end", date, "-n", "10");
      assert.equal(code, EXIT.invalid, date);
      assert.equal(out, "");
      assert.equal(err, `invalid: invalid-spec: --end: "${date}" is not a calendar date`);
    }
    const leap = cli("next", "0 9 * * *", "--from", "2028-02-28T00:00:00Z", "--end", "2028-02-29", "--json");
    assert.deepEqual((JSON.parse(leap.out) as { next: { utc: string }[] }).next.map((f) => f.utc), [
      "2028-02-28T09:00:00Z",
      "2028-02-29T09:00:00Z",
    ]);
  });
});
