// serveNode() records each connection's peer address for the router, so the sign-in
// back-off is per client: wrong tokens from 127.0.0.2 do not lock out 127.0.0.3. Node
// only (a real loopback server; Linux routes all of 127/8 to the loopback interface).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { createScheduler } from "../../../src/engine/mod.ts";

const TOKEN = "peer-test-token-0123456789";
declare const Deno: unknown;
declare const Bun: unknown;
const onNode = typeof Deno === "undefined" && typeof Bun === "undefined";

function signIn(port: number, from: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = `token=${token}`;
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/ui/login",
      localAddress: from,
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) },
    }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe(
  "serveNode: the sign-in back-off per peer address",
  { skip: onNode ? false : "Node's http server only" },
  () => {
    it("one peer's wrong tokens lock out that peer only", async () => {
      const { serveNode } = await import("../../../adapters/node/mod.ts");
      const scheduler = createScheduler({ logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const server = await serveNode(scheduler, {
        token: TOKEN,
        hostname: "127.0.0.1",
        port: 0,
        timer: false,
        signals: [],
        exit: false,
      });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push(await signIn(server.port, "127.0.0.2", `guess${i}`));
        assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
        assert.equal(await signIn(server.port, "127.0.0.3", TOKEN), 303);
      } finally {
        await server.shutdown();
      }
    });
  },
);
