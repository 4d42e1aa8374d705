/** Text safety for rendering user-supplied strings (job descriptions, run errors). */

/** Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069). */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes bidi controls inert by writing them out as `[U+202E]`, so a description cannot
 * reverse or reorder the text around it. Apply before HTML escaping.
 *
 * @example inertBidi("invoice\u202Efdp.exe") // "invoice[U+202E]fdp.exe"
 */
export function inertBidi(text: string): string {
  return text.replace(BIDI, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase()}]`);
}
