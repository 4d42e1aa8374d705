// The server `npm run bench:http` and the load integration test put under load: the
// real Node adapter on a libSQL file with JOBS jobs and a 1-second heartbeat, in its own
// process. EDGECRON_ROOT picks the code under test (default: this checkout), so the
// same load runs against another checkout (main) for a before/after comparison.
import process from "node:process";
import { monitorEventLoopDelay } from "node:perf_hooks";

const root = process.env.EDGECRON_ROOT ?? new URL("..", import.meta.url).pathname;
const jobs = Number(process.env.JOBS ?? 1000);
const { createScheduler } = await import(`${root}/src/mod.ts`);
const { libsqlStore } = await import(`${root}/src/store/libsql/mod.ts`);
const { serveNode } = await import(`${root}/adapters/node/mod.ts`);

const scheduler = createScheduler({
  store: libsqlStore({ url: process.env.EDGECRON_DB ?? "file:.edgecron/bench-http.db" }),
  logger: { debug() {}, info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f ?? "") },
});
// Default catch-up ("latest"): a tick that comes more than a second late records the
// older heartbeat slot `missed`, which is what the load must never cause.
scheduler.job("heartbeat", { schedule: { every: "1s" }, run: () => {} });
const shapes = ["*/15 * * * *", "0 * * * *", "30 2 * * *", "0 9 * * MON-FRI", "*/5 * * * *"];
for (let i = 0; i < jobs - 1; i++) {
  const zone = ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo"][i % 4];
  scheduler.job(`job-${String(i).padStart(4, "0")}`, {
    schedule: shapes[i % shapes.length],
    timezone: zone,
    description: `Bench job ${i}`,
    run: () => {},
  });
}
// SIGUSR2 prints the event loop's delay since the last SIGUSR2 (or start) and starts
// afresh: how long the loop was blocked is what the server's code controls, unlike how
// fast a loaded machine answers.
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.on("SIGUSR2", () => {
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  console.log(
    `loop-delay p50=${ms(delay.percentile(50))} p99=${ms(delay.percentile(99))} max=${ms(delay.max)} n=${delay.count}`,
  );
  delay.reset();
});
await serveNode(scheduler, {
  token: process.env.EDGECRON_TOKEN ?? "bench-token",
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  onListen: ({ url }: { url: string }) => console.log(`listening ${url} pid ${process.pid}`),
});
