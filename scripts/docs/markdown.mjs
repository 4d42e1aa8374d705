// The docs as text: which files, their fenced blocks, the `edgecron/…` specifiers they
// name, and their relative links. Shared by scripts/docs.mjs and the tests.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CODE_LANGS = new Set(["ts", "typescript", "js", "javascript", "mjs", "tsx"]);

/** README.md and every docs/**\/*.md, repository-relative, sorted. */
export function docFiles(base = root) {
  const out = ["README.md"];
  const walk = (dir) => {
    for (const entry of readdirSync(join(base, dir)).sort()) {
      const path = `${dir}/${entry}`;
      if (statSync(join(base, path)).isDirectory()) walk(path);
      else if (entry.endsWith(".md")) out.push(path);
    }
  };
  if (existsSync(join(base, "docs"))) walk("docs");
  return out;
}

/**
 * The fenced blocks of a markdown text: `{ file, line, lang, code, fragment, run, output }`.
 * `fragment` is the reason given in `<!-- fragment: reason -->` on the line before.
 */
export function markdownBlocks(text, file) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j]); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === "") k--;
    const before = k >= 0 ? lines[k].trim() : "";
    const fragment = /^<!--\s*fragment:\s*(.*?)\s*-->$/.exec(before)?.[1];
    const run = /^<!--\s*run\s*-->$/.test(before);
    blocks.push({
      file,
      line: i + 1,
      lang: lang.toLowerCase(),
      code: body.join("\n"),
      fragment,
      run,
      output: undefined,
    });
    i = j;
  }
  for (let b = 0; b < blocks.length - 1; b++) {
    const next = blocks[b + 1];
    if (blocks[b].run && next.lang === "text") next.outputOf = blocks[b];
  }
  for (const block of blocks) if (block.outputOf) block.outputOf.output = block.code;
  return blocks;
}

/** The checkable code blocks (ts/js) of README.md and docs/. */
export function docBlocks(base = root, files = docFiles(base)) {
  return files.flatMap((file) => markdownBlocks(readFileSync(join(base, file), "utf8"), file))
    .filter((b) => CODE_LANGS.has(b.lang));
}

/** Every `edgecron` / `edgecron/…` specifier the docs name, with where. */
export function docSpecifiers(base = root, files = docFiles(base)) {
  const found = [];
  for (const file of files) {
    readFileSync(join(base, file), "utf8").split("\n").forEach((line, i) => {
      // Not part of a longer name: `@edgecron/edgecron/hono`, `node_modules/edgecron/…`, `.edgecron/`.
      // Nested subpaths too (`edgecron/cloudflare/postgres`), but not a file under one (`…/mod.ts`).
      for (const m of line.matchAll(/(?<![\w@./-])edgecron\/([a-z][\w-]*(?:\/[a-z][\w-]*)*)(?![\w/-]|\.\w)/g)) {
        found.push({ specifier: `edgecron/${m[1]}`, file, line: i + 1 });
      }
      for (const m of line.matchAll(/(?:from |import\(|require\()["']edgecron["']/g)) {
        found.push({ specifier: "edgecron", file, line: i + 1, at: m.index });
      }
    });
  }
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replace(/ /g, "-");

function headings(path) {
  const out = new Set();
  let fence = false;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : /^#+\s+(.*)$/.exec(line);
    if (m) out.add(anchorOf(m[1]));
  }
  return out;
}

/** Relative links (and their #anchors) in README.md and docs/ that lead nowhere. */
export function brokenLinks(base = root, files = [...docFiles(base), "CONTRIBUTING.md", "bench/README.md"]) {
  const broken = [];
  for (const file of files.filter((f) => existsSync(join(base, f)))) {
    readFileSync(join(base, file), "utf8").split("\n").forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1];
        if (/^[a-z]+:/.test(link)) continue;
        const [path, anchor] = link.split("#");
        const target = path === "" ? join(base, file) : join(base, dirname(file), path);
        if (!existsSync(target)) broken.push(`${file}:${i + 1}: ${link}: no such file`);
        else if (anchor && target.endsWith(".md") && !headings(target).has(anchor)) {
          broken.push(`${file}:${i + 1}: ${link}: no such heading`);
        }
      }
    });
  }
  return broken;
}

/** The subpath of a specifier: "edgecron" → ".", "edgecron/d1" → "./d1". */
export const subpathOf = (specifier) => (specifier === "edgecron" ? "." : `./${specifier.slice("edgecron/".length)}`);

/** `edgecron` specifier of a deno.json export key: "." → "edgecron", "./d1" → "edgecron/d1". */
export const specifierOf = (subpath) => (subpath === "." ? "edgecron" : `edgecron/${subpath.slice(2)}`);
