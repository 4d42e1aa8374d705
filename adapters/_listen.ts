/** What the long-lived adapters share about listening: the default host, the start-up line, a busy port. Private to `adapters/`. */
import { quote, SchedulerError } from "../src/core/errors.ts";
import type { Scheduler } from "../src/engine/types.ts";

/**
 * The host every adapter binds by default: loopback, as the examples do, so a first run
 * never exposes the API to the network. In a container pass `hostname: "0.0.0.0"`.
 * (On Deno Deploy the platform binds; `serveDeno` passes no host there.)
 */
export const DEFAULT_HOSTNAME = "127.0.0.1";

/** The one start-up line, through the scheduler's logger (a silent logger silences it). */
export function announce(scheduler: Scheduler, url: string): void {
  scheduler.log.info(`listening on ${url} (dashboard and API)`);
}

/** The URL a browser can open for a bound host (a wildcard host is reached as localhost). */
export function listenUrl(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0" || hostname === "::" || hostname === "" ? "localhost" : hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** True for the "address in use" error of Node (`EADDRINUSE`), Bun and Deno (`AddrInUse`). */
export function isAddressInUse(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  return code === "EADDRINUSE" || name === "AddrInUse" ||
    (typeof message === "string" && /EADDRINUSE|address already in use|port \d+ in use/i.test(message));
}

/**
 * A busy port as an error that says what to do; any other error unchanged. The
 * original is the `cause`, and `code` stays `EADDRINUSE` for code that checks it.
 */
export function listenError(error: unknown, port: number, hostname: string, serve: string): unknown {
  if (!isAddressInUse(error)) return error;
  const other = port === 65_535 ? 8788 : port + 1;
  const message =
    `edgecron: port ${port} on ${hostname} is already in use (another server, perhaps another edgecron, listens there). ` +
    `Choose another with the \`port\` option: ${serve}(scheduler, { port: ${other} }), or port: 0 for any free port ` +
    `(the examples read PORT: PORT=${other}).`;
  return Object.assign(new Error(message, { cause: error }), { code: "EADDRINUSE" });
}

/**
 * The `port` option, checked before the store opens: a whole number from 0 to 65535, or
 * its decimal text (`process.env.PORT` from plain JavaScript), as a number.
 *
 * @throws {SchedulerError} `invalid-spec` naming `port` otherwise. Node read a string such as
 * `process.env.PORT` = "abc" as a pipe path: it listened on a socket file named abc and said
 * `listening on http://127.0.0.1:undefined`.
 */
export function checkPort(port: unknown, serve: string): number {
  const n = typeof port === "string" && /^\d{1,5}$/.test(port) ? Number(port) : port;
  if (typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 65_535) return n;
  throw new SchedulerError(
    "invalid-spec",
    `${serve}: port must be a whole number from 0 to 65535 (0 for any free port), got ${quote(port)}`,
    { path: "port" },
  );
}
