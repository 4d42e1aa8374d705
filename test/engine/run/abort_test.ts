import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lazyAbort } from "../../../src/engine/run/abort.ts";

describe("lazyAbort", () => {
  it("an abort before the signal exists is applied, with its reason, when the signal is made", () => {
    const c = lazyAbort();
    const why = new Error("lease ended");
    c.abort(why);
    assert.equal(c.aborted, true);
    assert.equal(c.signal.aborted, true);
    assert.equal(c.signal.reason, why);
  });

  it("a signal made first hears the abort, once, with the first reason", () => {
    const c = lazyAbort();
    const signal = c.signal;
    assert.equal(signal.aborted, false);
    assert.equal(c.signal, signal, "the same signal every time");
    const heard: unknown[] = [];
    signal.addEventListener("abort", () => heard.push(signal.reason));
    c.abort("first");
    c.abort("second");
    assert.deepEqual(heard, ["first"]);
    assert.equal(signal.reason, "first");
  });

  it("is not aborted until asked", () => {
    const c = lazyAbort();
    assert.equal(c.aborted, false);
    assert.equal(c.signal.aborted, false);
  });
});
