// A process killed with SIGKILL in the middle of a run leaves a `running` claim; another
// process records it `abandoned` once the lease (timeout 2 s + grace 1 s) has ended and
// re-runs the slot, because the job has a retry left.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/types.ts";
import type { SchedulerEvent } from "../../src/engine/types.ts";
import type { Backend } from "./_backends.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/crash_worker.ts");

/** Registers the crash case on `backend`. */
export function crashCases(backend: Backend): void {
  describe(`crash recovery on ${backend.label}`, { timeout: 180_000 }, () => {
    it(
      "a SIGKILLed run is recorded abandoned after its lease by another process and re-run",
      { skip: backend.skip },
      async () => {
        const shared = await backend.fresh("crash");
        const db = shared.target;
        try {
          // The worker picks its slot once booted (the job must be registered before its
          // slot, and a boot on a loaded machine can take many seconds).
          const crashed = spawn(process.execPath, ["--import", "tsx", WORKER, "crash", db, "auto"], {
            cwd: ROOT,
          });
          let stderr = "";
          let stdout = "";
          let slot = NaN;
          crashed.stderr.on("data", (d: Buffer) => (stderr += d));
          const killedAt = await new Promise<number>((resolve, reject) => {
            const guard = setTimeout(
              () => reject(new Error(`crash worker never started its run: ${stdout}${stderr}`)),
              120_000,
            );
            crashed.stdout.on("data", (d: Buffer) => {
              stdout += d;
              slot = Number(/^slot (\d+)$/m.exec(stdout)?.[1]);
              if (stdout.includes(`running ${slot} 1`)) {
                clearTimeout(guard);
                crashed.kill("SIGKILL");
                resolve(Date.now());
              }
            });
          });
          await new Promise((resolve) => crashed.on("close", resolve));

          const store = shared.open();
          const left = await store.getRun("fragile", slot);
          await store.close();
          assert.equal(left?.status, "running");
          assert.equal(left?.node, "crash");

          const recovered = await new Promise<{ events: SchedulerEvent[]; row: RunRecord }>((resolve, reject) => {
            const child = spawn(process.execPath, ["--import", "tsx", WORKER, "recover", db, String(slot)], {
              cwd: ROOT,
            });
            let out = "";
            let err = "";
            child.stdout.on("data", (d: Buffer) => (out += d));
            child.stderr.on("data", (d: Buffer) => (err += d));
            child.on("close", (code) => {
              if (code !== 0) reject(new Error(`recover exited ${code}: ${err}`));
              else resolve(JSON.parse(out.trim().split("\n").at(-1)!));
            });
          });
          const abandoned = recovered.events.filter((e) => e.type === "abandoned");
          console.log(
            `crash (${backend.label}): killed ${killedAt - slot} ms after the slot; lease ended ${
              left!.leaseUntil! - slot
            } ms after it; ` +
              `recovered row ${
                JSON.stringify({
                  status: recovered.row.status,
                  attempt: recovered.row.attempt,
                  node: recovered.row.node,
                })
              }, ` +
              `re-run started ${recovered.row.startedAt - slot} ms after the slot`,
          );
          assert.deepEqual(abandoned, [{
            type: "abandoned",
            job: "fragile",
            slot,
            attempt: 1,
            node: "crash",
            willRetry: true,
          }]);
          assert.equal(recovered.row.status, "ok");
          assert.equal(recovered.row.attempt, 2);
          assert.equal(recovered.row.node, "recover");
          assert.ok(recovered.row.startedAt >= left!.leaseUntil!, "re-run only after the lease ended");
        } finally {
          shared.cleanup();
        }
      },
    );
  });
}
