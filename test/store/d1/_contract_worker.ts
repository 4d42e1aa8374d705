// A module worker that runs the store contract suite (edgecron/store) INSIDE workerd on
// its D1 binding, one case per request: GET /cases lists the case names, GET
// /run?name=<case> runs one on an emptied database and answers { ok, error? }.
import { storeContract } from "../../../src/store/contract/mod.ts";
import { type D1DatabaseLike, d1Store } from "../../../src/store/d1/mod.ts";

interface Env {
  DB: D1DatabaseLike;
}

const TABLES = ["edgecron_runs", "edgecron_jobs", "edgecron_defs", "edgecron_schema_version", "edgecron_settings"];
const cases = new Map<string, () => Promise<void>>();
let current: Env | undefined;
let group = "";

storeContract({
  name: "d1 (inside workerd)",
  describe: (name, fn) => {
    group = name;
    fn();
  },
  it: (name, fn) => cases.set(`${group} > ${name}`, fn),
  async makeStore() {
    const db = current!.DB;
    await db.batch(TABLES.map((t) => db.prepare(`DROP TABLE IF EXISTS ${t}`)));
    return d1Store(db);
  },
});

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/cases") return Response.json([...cases.keys()]);
    const run = cases.get(url.searchParams.get("name") ?? "");
    if (run === undefined) return Response.json({ ok: false, error: "no such case" }, { status: 404 });
    current = env;
    try {
      await run();
      return Response.json({ ok: true });
    } catch (error) {
      return Response.json({
        ok: false,
        error: error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error),
      });
    }
  },
};
