/**
 * Request bodies read with a hard byte limit. The limit counts the bytes actually
 * streamed, so a missing or lying `Content-Length` cannot get a larger body through.
 */
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
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
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

/**
 * Reads a JSON object body. An empty body is `{}` (so `POST /jobs/x/pause` needs none);
 * malformed JSON and anything but an object are a 400.
 */
export async function readJson(request: Request, max: number): Promise<unknown> {
  const text = await readText(request, max);
  if (text.trim().length === 0) return {};
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
  return value;
}

/** Reads an `application/x-www-form-urlencoded` body (dashboard forms). */
export async function readForm(request: Request, max: number): Promise<URLSearchParams> {
  return new URLSearchParams(await readText(request, max));
}
