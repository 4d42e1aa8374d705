/** Helpers for tests that run an example as a real process and talk to it over HTTP. */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A free TCP port on localhost. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A spawned example: its output so far, and ways to wait on it. */
export interface Example {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name) once the process ended. */
  exited: Promise<number | string>;
  /** SIGKILLs the process if it is still running. */
  kill(): void;
}

/** Starts `command args` in `cwd` with extra env, collecting its output. */
export function startExample(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Example {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer): void => {
    text += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      for (const listener of listeners) listener();
      resolve(code ?? signal ?? "unknown");
    });
  });
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(text);
          if (match) {
            done();
            resolve(match);
          } else if (child.exitCode !== null) {
            done();
            reject(new Error(`process exited (${child.exitCode}) before ${pattern}; output:\n${text}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${text}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** GETs `url` with the bearer token and parses the JSON answer. */
export async function getJson<T>(url: string, token: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() as T };
}
