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
    assert.match(bad.err, /startAt: .*got "2027-02-30"/);
    const badEx = cli("next", "0 9 * * 1-5", "--except", "* * 32 * *");
    assert.equal(badEx.code, EXIT.invalid);
    assert.match(badEx.err, /except\[0\]: invalid-cron: day-of-month/);
    assert.equal(cli("next", "0 9 * * *", "--except").code, EXIT.usage);
  });
});
