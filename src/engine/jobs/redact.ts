/** What reads show of a data-defined job: its definition without the secrets it may hold. */
import type { JobDef } from "../../store/types.ts";
import { REDACTED } from "./schema.ts";

/**
 * A definition as every read shows it: target header values replaced by `[redacted]`
 * (names kept) and credentials removed from the target URL. They may hold a partner's
 * secrets; only the delivery path sees the real values.
 *
 * @example redactDef(def).spec.target.headers // { Authorization: "[redacted]" }
 */
export function redactDef(def: JobDef): JobDef {
  const target = def.spec.target;
  if (typeof target !== "object" || target === null) return def;
  const { headers, url, ...rest } = target as { headers?: unknown; url?: unknown };
  const safe: Record<string, unknown> = { ...rest };
  if (typeof url === "string") safe.url = withoutCredentials(url);
  if (typeof headers === "object" && headers !== null) {
    safe.headers = Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
  }
  return { ...def, spec: { ...def.spec, target: safe } };
}

function withoutCredentials(text: string): string {
  try {
    const url = new URL(text);
    if (url.username === "" && url.password === "") return text;
    url.username = "";
    url.password = "";
    return url.href;
  } catch {
    return "[invalid URL]";
  }
}
