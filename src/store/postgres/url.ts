/**
 * The Postgres URL: read as postgres.js reads it, and its secrets (the password in the
 * user info or a `password` parameter) named so no message shows them.
 */
import { quote, SchedulerError } from "../../core/errors.ts";

/** `postgres://user:secret@host/db` with its password blanked: safe for a message. */
export function redactUrl(url: string): string {
  // User info runs to the authority's LAST "@", as URL parsers read it: a password with a raw "@" is all of it.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, (_, scheme: string, info: string) => {
    const user = info.split(":")[0] ?? "";
    return `${scheme}${info.includes(":") ? `${user}:***` : user}@`;
  }).replace(/([?&]password=)[^&#]*/gi, "$1***");
}

/** The secret parts of a URL's user info: the password (as written and decoded) and `user:password`. */
function secretsOf(url: string): string[] {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url);
  const info = match?.[1];
  if (info === undefined || info === "") return [];
  // A user name alone is no secret (and blanking it would mangle every message naming it).
  const colon = info.indexOf(":");
  const password = colon < 0 ? "" : info.slice(colon + 1);
  if (password === "") return [];
  const secrets = [info, password];
  try {
    secrets.push(decodeURIComponent(password));
  } catch { /* a malformed escape stays as written */ }
  return secrets;
}

/** Every secret of a URL: its user info and password, and a `?password=` parameter. */
export function allSecretsOf(url: string): string[] {
  const secrets = secretsOf(url);
  const value = /[?&]password=([^&#]*)/i.exec(url)?.[1];
  if (value !== undefined && value !== "") {
    secrets.push(value);
    try {
      secrets.push(decodeURIComponent(value));
    } catch { /* a malformed escape stays as written */ }
  }
  return secrets.filter((s) => s.length > 0);
}

/**
 * Reads the URL as postgres.js will (its first host when it lists several, the host
 * part %-decoded), so a URL it cannot read is refused now, not at every call as a
 * `store-error` whose cause (Node's `ERR_INVALID_URL`) carries the whole URL, password
 * and all, in its `input` field.
 */
export function checkReadable(url: string): void {
  try {
    const authority = url.slice(url.indexOf("://") + 3).split(/[?/]/)[0] ?? "";
    const hosts = decodeURIComponent(authority.slice(authority.indexOf("@") + 1));
    new URL(url.replace(hosts, hosts.split(",")[0] ?? ""));
  } catch {
    throw new SchedulerError(
      "invalid-spec",
      `postgresStore.url: not a URL the driver can read (a host, a port from 0 to 65535, a password with @ : / escaped as %40 %3A %2F), got ${
        quote(redactUrl(url))
      }`,
      { path: "url" },
    );
  }
}
