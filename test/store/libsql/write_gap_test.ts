// Writers on one libSQL file take turns: a connection that met a lock leaves a window of
// WRITE_GAP_MS after each write, so another process can take the lock (without it, one
// node of four claimed 41% of a large minute under load); alone, it never waits.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "@libsql/client";
import { CONTENDED_MS, libsqlConnection, WRITE_GAP_MS, writeGap } from "../../../src/store/libsql/connection.ts";

describe("writeGap", () => {
  it("is 0 for a connection that never met a lock, however close its writes", () => {
    assert.equal(writeGap(1_000, 999, -Infinity), 0);
    assert.equal(writeGap(1_000, 1_000, -Infinity), 0);
  });

  it("waits out the rest of the gap after a lock, and nothing once the gap has passed", () => {
    assert.equal(writeGap(1_000, 1_000, 990), WRITE_GAP_MS);
    assert.equal(writeGap(1_004, 1_000, 990), WRITE_GAP_MS - 4);
    assert.equal(writeGap(1_000 + WRITE_GAP_MS, 1_000, 990), 0);
  });

  it("stops waiting CONTENDED_MS after the last lock", () => {
    assert.equal(writeGap(1_000 + CONTENDED_MS - 1, 1_000 + CONTENDED_MS - 1, 1_000), WRITE_GAP_MS);
    assert.equal(writeGap(1_000 + CONTENDED_MS, 1_000 + CONTENDED_MS, 1_000), 0);
  });
});

describe("libsqlConnection writes after a lock", () => {
  it("starts each write at least WRITE_GAP_MS after the previous one ended", async () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    let fail = 1;
    const starts: number[] = [];
    const ends: number[] = [];
    const client = {
      closed: false,
      batch: async () => {
        starts.push(Date.now());
        if (fail > 0) {
          fail--;
          throw busy;
        }
        ends.push(Date.now());
        return [];
      },
      close() {},
    } as unknown as Client;
    const connection = libsqlConnection({ open: async () => client, owned: false, busyTimeout: 5_000 });
    await connection.write("claim", (c) => c.batch([], "write"));
    for (let i = 0; i < 3; i++) await connection.write("claim", (c) => c.batch([], "write"));
    assert.equal(ends.length, 4);
    // Timers never fire early; Date.now() is whole milliseconds, hence the 1 ms slack.
    for (let i = 1; i < ends.length; i++) {
      assert.ok(
        starts[i + 1]! - ends[i - 1]! >= WRITE_GAP_MS - 1,
        `write ${i} began ${starts[i + 1]! - ends[i - 1]!} ms after the last`,
      );
    }
    await connection.close();
  });
});
