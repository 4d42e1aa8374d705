// The JSDoc `@example` blocks of the public API: every name each deno.json export
// re-exports, followed to the file that declares it. Shared by scripts/docs.mjs and the tests.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const denoExports = (base) => JSON.parse(readFileSync(join(base, "deno.json"), "utf8")).exports;

/**
 * Where each exported name of each subpath is declared: follows `export { a as b } from`
 * and `export *` through the sources. Returns [{ subpath, name, file, local }].
 */
export function publicDeclarations(base = root) {
  const out = [];
  const seen = new Set();
  const follow = (subpath, file, names) => {
    const text = readFileSync(join(base, file), "utf8");
    for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
      const target = join(dirname(file), m[2]);
      for (const part of m[1].split(",").map((p) => p.trim().replace(/^type\s+/, "")).filter(Boolean)) {
        const [local, exported = local] = part.split(/\s+as\s+/);
        if (names === undefined || names.has(exported)) follow(subpath, target, new Set([local]));
      }
    }
    for (const m of text.matchAll(/export\s*\*\s*from\s*"([^"]+)"/g)) follow(subpath, join(dirname(file), m[1]), names);
    for (
      const m of text.matchAll(
        /export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+(\w+)/g,
      )
    ) {
      if (names !== undefined && !names.has(m[1])) continue;
      const key = `${file}#${m[1]}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ subpath, name: m[1], file, local: m[1] });
    }
  };
  for (const [subpath, source] of Object.entries(denoExports(base))) follow(subpath, source.slice(2), undefined);
  return out;
}

/** The JSDoc comment right before `export … name` in `text`, or undefined. */
function jsdocBefore(text, name) {
  const decl = new RegExp(
    `\\n(export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|class|const|let|interface|type|enum)\\s+${name}\\b)`,
  );
  const m = decl.exec(text);
  if (!m) return undefined;
  const head = text.slice(0, m.index);
  const end = head.lastIndexOf("*/");
  if (end < 0 || head.slice(end + 2).trim() !== "") return undefined;
  const start = head.lastIndexOf("/**", end);
  return { comment: head.slice(start, end + 2), line: head.slice(0, start).split("\n").length };
}

/** The `@example` blocks of every public export: `{ file, line, lang, code, fragment, symbol }`. */
export function exampleBlocks(base = root) {
  const blocks = [];
  const done = new Set();
  for (const { name, file } of publicDeclarations(base)) {
    if (done.has(`${file}#${name}`)) continue;
    done.add(`${file}#${name}`);
    const doc = jsdocBefore(readFileSync(join(base, file), "utf8"), name);
    if (!doc) continue;
    const lines = doc.comment.split("\n").map((l) => l.replace(/^\s*\/?\*+\/?\s?/, "").replace(/\s*\*\/$/, ""));
    for (let i = 0; i < lines.length; i++) {
      if (!/^@example\b/.test(lines[i])) continue;
      const body = [lines[i].replace(/^@example\s*/, "")].filter((l) => l !== "");
      let j = i + 1;
      for (; j < lines.length && !/^@\w/.test(lines[j]); j++) body.push(lines[j]);
      let code = body.join("\n").trim();
      const fenced = /```\w*\n([\s\S]*?)```/.exec(code);
      if (fenced) code = fenced[1];
      const fragment = /^\/\/\s*fragment:\s*(.+)$/m.exec(code.split("\n")[0] ?? "")?.[1];
      blocks.push({ file, line: doc.line + i, lang: "ts", code, fragment, symbol: name, fenced: Boolean(fenced) });
      i = j - 1;
    }
  }
  return blocks;
}
