// A Node server (serveNode, real signals) whose one job runs every 5 s, claimed 3 s ahead
// with no retries: `stop_lead_test.ts` sends it SIGTERM in the lead.
import { createScheduler } from "../../src/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { serveNode } from "../../adapters/node/mod.ts";

const url = process.argv[2]!;
const scheduler = createScheduler({ store: libsqlStore({ url }), node: "lead", claimAhead: "3s" })
  .job("five", {
    schedule: "*/5 * * * * *",
    run: ({ slot }) => console.log(`ran slot=${slot} at=${Date.now()}`),
  });
await serveNode(scheduler, { port: 0, router: { public: true } });
console.log("serving");
