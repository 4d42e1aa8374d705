#!/usr/bin/env node
// Docs that run. Finds every fenced ts/js block in README.md and docs/**/*.md, and the
// JSDoc `@example` of every public export (followed from deno.json `exports`), and
// type-checks them the way a strict consumer would: one tsc run over all of them, with
// strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess and NodeNext.
//
//   node scripts/docs.mjs            checks against the sources (tsconfig `paths` maps
//                                    `edgecron/*` to deno.json's exports): the fast check
//   node scripts/docs.mjs --list     prints every block and whether it is checked
//
// test/integration/consumer_test.ts runs the same check against the installed tarball.
//
// A block that cannot stand alone says so in the line before it, with a reason:
//   <!-- fragment: the body of a Hono handler -->
// (in an @example: a first line `// fragment: reason`). `<!-- run -->` before a block marks a
// whole program the consumer test runs; a ```text block right after it is its expected output.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
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
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), code: body.join("\n"), fragment, run, output: undefined });
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
      for (const m of line.matchAll(/(?<![\w@./-])edgecron\/([a-z][\w-]*)/g)) {
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
        else if (anchor && target.endsWith(".md") && !headings(target).has(anchor)) broken.push(`${file}:${i + 1}: ${link}: no such heading`);
      }
    });
  }
  return broken;
}

/** The subpath of a specifier: "edgecron" → ".", "edgecron/d1" → "./d1". */
export const subpathOf = (specifier) => (specifier === "edgecron" ? "." : `./${specifier.slice("edgecron/".length)}`);

/** `edgecron` specifier of a deno.json export key: "." → "edgecron", "./d1" → "edgecron/d1". */
export const specifierOf = (subpath) => (subpath === "." ? "edgecron" : `edgecron/${subpath.slice(2)}`);

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
    for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+(\w+)/g)) {
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
  const decl = new RegExp(`\\n(export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|class|const|let|interface|type|enum)\\s+${name}\\b)`);
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

/** Problems that need no compiler: unmarked blocks without imports, fragments without reasons. */
export function blockProblems(blocks) {
  const problems = [];
  for (const b of blocks) {
    const where = `${b.file}:${b.line}${b.symbol ? ` (@example of ${b.symbol})` : ""}`;
    if (b.fragment !== undefined && b.fragment.trim() === "") problems.push(`${where}: a fragment needs a reason`);
    if (b.symbol && !b.fenced && b.fragment === undefined) {
      problems.push(`${where}: put the example in a \`\`\`ts fence (it is type-checked) or start it with // fragment: reason`);
    }
  }
  return problems;
}

const tsName = (b, i) =>
  `${String(i).padStart(3, "0")}_${b.file.replace(/[^\w]+/g, "_")}_L${b.line}.${/^(js|javascript|mjs)$/.test(b.lang) ? "mjs" : "ts"}`;

/**
 * Writes the checkable blocks into `dir` as one tsc project and returns the map file → block.
 * `paths` (optional) maps `edgecron` specifiers to sources (the fast check); without it the
 * specifiers resolve as a consumer's do (node_modules). `typeRoots`: where `@types/node` is.
 */
export function writeProject(dir, blocks, { paths, types = [], extraFiles = [], typeRoots } = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "snippets"), { recursive: true });
  const map = new Map();
  blocks.forEach((b, i) => {
    if (b.fragment !== undefined) return;
    const name = `snippets/${tsName(b, i)}`;
    // Each block is its own module (top-level await, no name clashes between blocks).
    const module = /^\s*(import|export)\s/m.test(b.code) ? "" : "\nexport {};";
    writeFileSync(join(dir, name), `${b.code}${module}\n`);
    map.set(name, b);
  });
  const compilerOptions = {
    target: "ES2022",
    lib: ["ES2023", "DOM", "DOM.Iterable"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  };
  if (paths) Object.assign(compilerOptions, { paths, allowImportingTsExtensions: true });
  if (typeRoots) compilerOptions.typeRoots = typeRoots;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "docs-snippets", private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: [...types, ...extraFiles, ...map.keys()] }, null, 2));
  return map;
}

/** Runs tsc in `dir` and maps its errors back to the docs: `file:line: message` lines. */
export function typeCheck(dir, map, tsc = join(root, "node_modules", ".bin", "tsc")) {
  const res = spawnSync(tsc, ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const out = `${res.stdout ?? ""}${res.stderr ?? ""}`;
  const errors = [];
  for (const line of out.split("\n")) {
    const m = /^(snippets\/[^(]+)\((\d+),(\d+)\): (error TS\d+: .*)$/.exec(line);
    if (!m) {
      if (/error TS/.test(line)) errors.push(line);
      continue;
    }
    const b = map.get(m[1]);
    errors.push(b ? `${b.file}:${b.line + Number(m[2])}${b.symbol ? ` (@example of ${b.symbol})` : ""}: ${m[4]}` : line);
  }
  if (res.status !== 0 && errors.length === 0) errors.push(`tsc failed: ${out || res.error}`);
  return errors;
}

/** tsconfig `paths` mapping every exported specifier to its source, per deno.json `exports`. */
export function sourcePaths(base = root, from) {
  const paths = {};
  for (const [subpath, source] of Object.entries(denoExports(base))) {
    paths[specifierOf(subpath)] = [relative(from, join(base, source))];
  }
  return paths;
}

/** Deno's global types, written once to .tmp/deno.d.ts (as scripts/build.mjs does). */
export function denoTypes(base = root) {
  const file = join(base, ".tmp", "deno.d.ts");
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const res = spawnSync(join(base, "node_modules", ".bin", "deno"), ["types"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (res.status !== 0) throw new Error(`deno types failed: ${res.stderr}`);
    writeFileSync(file, res.stdout);
  }
  return file;
}

/** The fast check: every doc block and @example against the sources. Returns problem lines. */
export function checkDocs({ base = root, files, dir = join(root, ".tmp", "docs-check"), examples = true } = {}) {
  const blocks = [...docBlocks(base, files), ...(examples ? exampleBlocks(base) : [])];
  const problems = blockProblems(blocks);
  const map = writeProject(dir, blocks, { paths: sourcePaths(root, dir), types: [relative(dir, denoTypes())] });
  return [...problems, ...typeCheck(dir, map)];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--list")) {
    for (const b of [...docBlocks(), ...exampleBlocks()]) {
      const state = b.fragment !== undefined ? `fragment: ${b.fragment}` : b.run ? "checked, run" : "checked";
      console.log(`${b.file}:${b.line}${b.symbol ? ` @example ${b.symbol}` : ""}  ${state}`);
    }
    process.exit(0);
  }
  const problems = checkDocs();
  for (const line of problems) console.error(line);
  console.log(problems.length === 0 ? "docs: every block type-checks" : `docs: ${problems.length} problem(s)`);
  process.exit(problems.length === 0 ? 0 : 1);
}
