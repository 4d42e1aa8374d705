// Text for log lines and errors: shared by every room of the engine.

/** Quotes a job name for a log line: `job "nightly"`. */
export function jobLabel(name: string): string {
  return `job ${JSON.stringify(name)}`;
}

/** The readable text of anything thrown; never throws itself. */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    return safeJson(error);
  } catch {
    // A value whose getters or conversions throw must not turn a failed run into a crash.
    return "unprintable thrown value";
  }
}

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
