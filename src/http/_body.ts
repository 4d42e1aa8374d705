/**
 * Request bodies read with a hard byte limit. The limit counts the bytes actually
 * streamed, so a missing or lying `Content-Length` cannot get a larger body through.
 */
import { quote } from "../core/errors.ts";
import { HttpError } from "./_errors.ts";

function tooLarge(max: number): HttpError {
  return new HttpError(413, "payload-too-large", `body: larger than the limit of ${max} bytes`);
}

/**
 * Reads the body as UTF-8 text, refusing more than `max` bytes with a 413 and invalid
 * UTF-8 with a 400.
 */
export async function readText(request: Request, max: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > max) throw tooLarge(max);
  if (request.body === null) return "";
  // A compressed body read as text was "not valid UTF-8", which sent the client looking at its JSON.
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
    throw new HttpError(
      400,
      "invalid-request",
      `body: Content-Encoding ${quote(encoding)} is not accepted; send it uncompressed`,
    );
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A client gone mid-upload is no server failure to log (a 500 with a stack, unauthenticated on /ui/login).
    const { done, value } = await reader.read().catch(() => {
      throw new HttpError(400, "invalid-request", "body: broke off before its end");
    });
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, "invalid-request", "body: not valid UTF-8");
  }
}

/** How deeply a JSON body may nest (objects and arrays). */
export const MAX_BODY_DEPTH = 32;

/**
 * The nesting depth of JSON `text`, counted without parsing (brackets inside strings are
 * skipped), stopping as soon as it passes `limit`. Deep payloads would otherwise reach
 * recursive code (validation, `JSON.stringify`) and overflow the stack.
 */
export function jsonDepth(text: string, limit: number = MAX_BODY_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Reads a JSON object body. An empty body is `{}` (so `POST /jobs/x/pause` needs none);
 * malformed JSON, nesting deeper than 32 levels and anything but an object are a 400.
 */
export async function readJson(request: Request, max: number): Promise<unknown> {
  const text = await readText(request, max);
  if (text.trim().length === 0) return {};
  if (jsonDepth(text) > MAX_BODY_DEPTH) {
    throw new HttpError(400, "invalid-request", `body: JSON nested deeper than ${MAX_BODY_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message.slice(0, 120)}` : "";
    throw new HttpError(400, "invalid-request", `body: malformed JSON${detail}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "invalid-request", "body: expected a JSON object");
  }
  // Only a number with an exponent or 309+ digits can read as ±Infinity or 0 from nonzero digits.
  const bad = MAYBE_UNREADABLE.test(text) ? unreadableNumber(text) : undefined;
  if (bad !== undefined) {
    // JSON.parse reads 1e999 as Infinity and 1e-999 as 0, which every message then quoted: quote the text sent.
    const rule = bad.tooLarge ? "expected a finite number" : "expected 0 or a number no closer to 0 than 5e-324";
    throw new HttpError(
      400,
      "invalid-request",
      `${bad.path}: ${rule}, got ${quote(bad.sent)} (out of range)`,
      bad.path,
    );
  }
  return value;
}

const MAYBE_UNREADABLE = /\d[eE]|\d{309}/;
const JSON_TOKEN = /"(?:\\.|[^"\\])*"|-?\d[\d.eE+-]*|[{}[\],:]/g;

/**
 * The first number of valid JSON `text` that a double cannot hold, as sent, with its dot
 * path: one too large (parsed as ±Infinity) or too small (parsed as 0 from nonzero digits).
 * The path is read from the text, so it names the number quoted whatever the key order.
 */
function unreadableNumber(text: string): { path: string; sent: string; tooLarge: boolean } | undefined {
  // Per open object or array: its current key or index, and whether a string now is a key.
  const keys: (string | number)[] = [];
  let keyNext = false;
  for (const [token] of text.matchAll(JSON_TOKEN)) {
    const c = token[0];
    if (c === "{" || c === "[") {
      keys.push(c === "{" ? "" : 0);
      keyNext = c === "{";
    } else if (c === "}" || c === "]") keys.pop();
    else if (c === ",") {
      const top = keys.at(-1);
      if (typeof top === "number") keys[keys.length - 1] = top + 1;
      else keyNext = true;
    } else if (c === '"') {
      if (keyNext) keys[keys.length - 1] = JSON.parse(token) as string;
      keyNext = false;
    } else if (c !== ":") {
      const n = Number(token);
      const tooLarge = !Number.isFinite(n);
      if (tooLarge || (n === 0 && /[1-9]/.test(token.split(/e/i)[0]!))) {
        return { path: keys.join("."), sent: token, tooLarge };
      }
    }
  }
  return undefined;
}

/** Reads an `application/x-www-form-urlencoded` body (dashboard forms). */
export async function readForm(request: Request, max: number): Promise<URLSearchParams> {
  return new URLSearchParams(await readText(request, max));
}
