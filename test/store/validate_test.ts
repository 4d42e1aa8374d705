// The input checks every store shares (src/store/_validate.ts): a bad item of a batch is
// named by its place in the batch and its field.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { checkClaims, checkNames, checkRenewals, checkSlotKeys } from "../../src/store/_validate.ts";
import { request } from "./contract.ts";

const T0 = Date.UTC(2030, 0, 1);
const good = request("j", T0);

/** Asserts `fn` throws a SchedulerError with `code`, `path`, and a message starting with the path. */
function throwsAt(fn: () => void, code: string, path: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SchedulerError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.path, path);
    assert.ok(e.message.startsWith(`${code}: ${path}: expected `), e.message);
    return true;
  });
}

describe("store input checks", () => {
  it("name the bad item of a batch by its place and field", () => {
    checkClaims([good, { ...good, job: "k" }]);
    throwsAt(() => checkClaims([good, good, { ...good, slot: 1.5 }]), "invalid-instant", "claim[2].slot");
    throwsAt(() => checkClaims([good, { ...good, kind: "cron" as never }]), "invalid-spec", "claim[1].kind");
    throwsAt(() => checkClaims([null as never]), "invalid-spec", "claim[0].job");
    throwsAt(
      () => checkRenewals([{ job: "j", slot: T0, attempt: 1, node: "", leaseUntil: T0 }], T0),
      "invalid-spec",
      "renew[0].node",
    );
    throwsAt(
      () => checkSlotKeys([{ job: "j", slot: T0 }, { job: "j", slot: "x" as never }]),
      "invalid-instant",
      "recorded[1].slot",
    );
    throwsAt(() => checkNames(["a", "b", ""], "snapshot.names"), "invalid-spec", "snapshot.names[2]");
  });
});
