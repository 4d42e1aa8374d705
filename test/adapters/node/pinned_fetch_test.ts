// pinnedFetch (Node and Bun adapters) connects to the given address while the request
// keeps the URL's host name: a name that does not resolve at all is delivered to the
// pinned loopback server, with its Host header, method, headers and body.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pinnedFetch } from "../../../adapters/node/pinned_fetch.ts";
import { runtime } from "../_runtime.ts";

const seen: { host: string | undefined; method: string | undefined; type: string | undefined; body: string }[] = [];
let server: Server;
let port = 0;

describe(
  "pinnedFetch",
  // The runtime from its version: the Deno adapter's tests put a stand-in `Deno` global up,
  // and this file, loaded beside them in one process, was skipped on Node now and then.
  { skip: runtime === "deno" ? "node:http's lookup option is Node's and Bun's" : false },
  () => {
    before(async () => {
      server = createServer((req, res) => {
        let body = "";
        req.on("data", (d: Buffer) => (body += d));
        req.on("end", () => {
          seen.push({ host: req.headers.host, method: req.method, type: req.headers["content-type"], body });
          res.writeHead(418, "Teapot", { "x-answer": "pinned" }).end("short and stout");
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => server.close());

    it("sends to the address, with the name as Host, and answers a Response", async () => {
      const url = new URL(`http://no-such-host.invalid:${port}/hook?x=1`);
      const res = await pinnedFetch("127.0.0.1", url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"a":1}',
        redirect: "manual",
      });
      assert.equal(res.status, 418);
      assert.equal(res.statusText, "Teapot");
      assert.equal(res.headers.get("x-answer"), "pinned");
      assert.equal(await res.text(), "short and stout");
      assert.deepEqual(seen, [{
        host: `no-such-host.invalid:${port}`,
        method: "POST",
        type: "application/json",
        body: '{"a":1}',
      }]);
    });

    it("rejects with the signal's reason when aborted", async () => {
      const controller = new AbortController();
      controller.abort(new Error("deadline"));
      await assert.rejects(
        pinnedFetch("127.0.0.1", new URL(`http://x.invalid:${port}/`), { method: "GET", signal: controller.signal }),
        /deadline|abort/i,
      );
    });
  },
);
