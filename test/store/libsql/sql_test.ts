import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { bind, instantColumn, jobDef, updateStatement } from "../../../src/store/sql/statements.ts";
import type { Row } from "@libsql/client";
import { tallyOf } from "../../../src/store/sql/tally.ts";
import { type ClaimRequest, RUN_STATUSES } from "../../../src/store/types.ts";
import { claimOutcomes } from "../../../src/store/sql/claims.ts";
import { request } from "../contract.ts";

describe("bind", () => {
  it("numbers placeholders by first use and repeats the number for a repeated name", () => {
    const statement = bind("SELECT :b, :a, :b, :a_b", { a: 1, b: "x", a_b: null, unused: 9 });
    assert.deepEqual(statement, { sql: "SELECT ?1, ?2, ?1, ?3", args: ["x", 1, null] });
  });

  it("refuses a placeholder without a value", () => {
    assert.throws(() => bind("SELECT :missing", {}), /:missing/);
  });
});

describe("updateStatement", () => {
  it("sets only the patched columns, all bound, and matches the running attempt", () => {
    const statement = updateStatement({ job: "j'; DROP", slot: 5, attempt: 2, node: "n" }, {
      status: "ok",
      finishedAt: 9,
    });
    assert.ok(statement && typeof statement === "object");
    assert.match(statement.sql, /SET status = \?\d, finished_at = \?\d\s/);
    assert.doesNotMatch(statement.sql, /DROP/);
    assert.deepEqual(statement.args, ["ok", 9, "j'; DROP", 5, 2, "n"]);
    assert.equal(updateStatement({ job: "j", slot: 5, attempt: 2, node: "n" }, {}), null);
  });
});

describe("jobDef", () => {
  it("marks a stored spec that is not a JSON object broken, naming the row and the column, instead of throwing", () => {
    const row = { name: "hook", spec: "{nope", version: 1, updated_at: 0 } as unknown as Row;
    const def = jobDef(row);
    assert.deepEqual([def.name, def.spec, def.version], ["hook", {}, 1]);
    assert.match(def.broken ?? "", /^libsql: edgecron_defs row "hook": column spec is not valid JSON/);
    const array = jobDef({ ...row, spec: "[1]" } as unknown as Row);
    assert.match(array.broken ?? "", /column spec is not a JSON object/);
    assert.equal(jobDef({ ...row, spec: "{}" } as unknown as Row).broken, undefined);
  });
});

describe("instantColumn", () => {
  it("reads integers, bigints and integer text (drivers that return BIGINT as text); anything else is unreadable", () => {
    assert.deepEqual(
      [1_700_000_000_000, 5n, "1700000000000", "-3", "yesterday", "1.5", 1.5, null, undefined, "", "99999999999999999"]
        .map(instantColumn),
      [
        1_700_000_000_000,
        5,
        1_700_000_000_000,
        -3,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ],
    );
  });
});

describe("tallyOf", () => {
  const group = (
    name: string,
    status: string,
    n: number,
    slot: number | null = null,
  ) => [name, RUN_STATUSES.indexOf(status as never), n, 0, null, slot, slot, slot === null ? null : slot + 1];
  const row = (paused: string[], groups: unknown[]) => ({
    paused: JSON.stringify(paused),
    tally: JSON.stringify(groups),
  });

  it("finds each group's job whatever the order of the names and groups, a name asked twice once", () => {
    const names = ["c", "a", "b", "a", "d"];
    const tally = tallyOf(
      names,
      row(["a", "zz"], [
        group("a", "ok", 2, 200),
        group("b", "ok", 1, 100),
        group("zz", "ok", 9, 900),
        group("c", "error", 4, 300),
        group("a", "error", 1, 100),
        group("d", "ok", 5, 500),
        group("c", "ok", 3, 400),
        group("b", "error", 7, 50),
      ]),
    );
    assert.deepEqual(Object.keys(tally), ["c", "a", "b", "d"], "a paused job or a group not asked for is left out");
    assert.equal(tally.a?.paused, true);
    assert.equal(tally.c?.paused, false);
    assert.deepEqual([tally.a?.counts.ok, tally.a?.counts.error, tally.a?.last?.startedAt], [2, 1, 200]);
    assert.deepEqual([tally.b?.counts.ok, tally.b?.counts.error, tally.b?.last?.status], [1, 7, "ok"]);
    assert.deepEqual([tally.c?.counts.ok, tally.c?.counts.error, tally.c?.last?.startedAt], [3, 4, 400]);
    assert.deepEqual([tally.d?.counts.ok, tally.d?.last?.finishedAt], [5, 501]);
  });
});

describe("claimOutcomes", () => {
  const T0 = Date.UTC(2030, 0, 1);
  const req = (job: string, slot = T0, maxRuns?: number): ClaimRequest =>
    request(job, slot, maxRuns === undefined ? {} : { maxRuns });
  const row = (job: string, status = "running", slot: unknown = T0) => ({ job, slot, status });
  const outcomes = (requests: ClaimRequest[], inserted: object[], refused: object[] = []) =>
    claimOutcomes(requests, inserted as never, refused as never).map((r) => `${r.job}:${r.outcome}`);

  it("maps rows back to their requests, in request order or not", () => {
    const requests = [req("a"), req("b"), req("c"), req("d", T0, 3)];
    // In order, one lost between; the slot as a bigint or text, as drivers give it.
    assert.deepEqual(outcomes(requests, [row("a"), row("c", "missed", BigInt(T0))]), [
      "a:won",
      "b:lost",
      "c:missed",
      "d:lost",
    ]);
    // Out of order, and a refused one (maxRuns) is `limit`.
    assert.deepEqual(outcomes(requests, [row("c", "running", String(T0)), row("a")], [row("d")]), [
      "a:won",
      "b:lost",
      "c:won",
      "d:limit",
    ]);
    // A job's other slot is not this request's row.
    assert.deepEqual(outcomes([req("a"), req("a", T0 + 60_000)], [row("a", "running", T0 + 60_000)]), [
      "a:lost",
      "a:won",
    ]);
  });

  it("gives a repeated (job, slot) to its first request only, however the rows come back", () => {
    assert.deepEqual(outcomes([req("a"), req("a"), req("b")], [row("a"), row("b")]), ["a:won", "a:lost", "b:won"]);
    assert.deepEqual(outcomes([req("a"), req("a"), req("b")], [row("b"), row("a")]), ["a:won", "a:lost", "b:won"]);
  });
});
