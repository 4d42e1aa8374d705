// A child process for the libSQL contention test: claims the same slots as its
// siblings on one file, one write transaction per slot, and prints what it won.
// Usage: <runtime> _claim_child.ts <db url> <node id> <slot count>
import { libsqlStore } from "../../src/store/libsql/mod.ts";

const argv = typeof Deno === "object" ? Deno.args : process.argv.slice(2);
const [url = "", node = "child", count = "100"] = argv;
const T0 = Date.UTC(2026, 0, 1);
// 450 write transactions race on one file (on a loaded machine): allow long lock waits.
const store = libsqlStore({ url, busyTimeout: 30_000 });
const won: number[] = [];
const errors: string[] = [];
await store.init();
await Promise.all(Array.from({ length: Number(count) }, async (_, i) => {
  const slot = T0 + i * 1000;
  try {
    const [result] = await store.claim([{
      job: "contended",
      slot,
      kind: "scheduled",
      status: "running",
      overlap: "allow",
      node,
      batch: `${node}-${i}`,
      now: slot,
      leaseUntil: slot + 60_000,
    }]);
    if (result?.outcome === "won") won.push(slot);
  } catch (error) {
    errors.push(String(error));
  }
}));
await store.close();
console.log(JSON.stringify({ node, won, errors }));

declare const Deno: { args: string[] };
