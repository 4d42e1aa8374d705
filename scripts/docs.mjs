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
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { docBlocks, specifierOf } from "./docs/markdown.mjs";
import { exampleBlocks } from "./docs/examples.mjs";

export {
  brokenLinks,
  docBlocks,
  docFiles,
  docSpecifiers,
  markdownBlocks,
  specifierOf,
  subpathOf,
} from "./docs/markdown.mjs";
export { exampleBlocks, publicDeclarations } from "./docs/examples.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const denoExports = (base) => JSON.parse(readFileSync(join(base, "deno.json"), "utf8")).exports;

/** Problems that need no compiler: unmarked blocks without imports, fragments without reasons. */
export function blockProblems(blocks) {
  const problems = [];
  for (const b of blocks) {
    const where = `${b.file}:${b.line}${b.symbol ? ` (@example of ${b.symbol})` : ""}`;
    if (b.fragment !== undefined && b.fragment.trim() === "") problems.push(`${where}: a fragment needs a reason`);
    if (b.symbol && !b.fenced && b.fragment === undefined) {
      problems.push(
        `${where}: put the example in a \`\`\`ts fence (it is type-checked) or start it with // fragment: reason`,
      );
    }
  }
  return problems;
}

const tsName = (b, i) =>
  `${String(i).padStart(3, "0")}_${b.file.replace(/[^\w]+/g, "_")}_L${b.line}.${
    /^(js|javascript|mjs)$/.test(b.lang) ? "mjs" : "ts"
  }`;

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
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions, files: [...types, ...extraFiles, ...map.keys()] }, null, 2),
  );
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
    errors.push(
      b ? `${b.file}:${b.line + Number(m[2])}${b.symbol ? ` (@example of ${b.symbol})` : ""}: ${m[4]}` : line,
    );
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
    const res = spawnSync(join(base, "node_modules", ".bin", "deno"), ["types"], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
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
