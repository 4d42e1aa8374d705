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
  const path = overflowAt(value, "");
  if (path !== undefined) {
    // JSON.parse reads 1e999 as Infinity, which every message then quoted as "Infinity": quote the text sent.
    const sent = text.match(/"(?:\\.|[^"\\])*"|-?\d[\d.eE+-]*/g)?.find((t) => t[0] !== '"' && !Number.isFinite(+t));
    throw new HttpError(
      400,
      "invalid-request",
      `${path}: expected a finite number, got ${quote(sent)} (out of range)`,
      path,
    );
  }
  return value;
}

/** The dot path of the first number in `value` too large for a double (parsed as ±Infinity), if any. */
function overflowAt(value: unknown, path: string): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : path;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = overflowAt(inner, path === "" ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Reads an `application/x-www-form-urlencoded` body (dashboard forms). */
export async function readForm(request: Request, max: number): Promise<URLSearchParams> {
  return new URLSearchParams(await readText(request, max));
}
