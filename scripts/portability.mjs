// Finds runtime-specific names in src/: the portable core may use ECMAScript and
// Web-standard globals only (docs/architecture.md, "Layers"). Shared by `npm test` and test/portability_test.ts.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const RULES = [
  { name: "Deno", pattern: /\bDeno\b/ },
  { name: "Bun", pattern: /\bBun\b/ },
  { name: "process", pattern: /\bprocess\b/ },
  { name: "require(", pattern: /\brequire\s*\(/ },
  { name: "node:*", pattern: /["']node:[a-z_/]+["']/ },
  { name: "__dirname", pattern: /\b__(?:dirname|filename)\b/ },
];

function* files(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(?:ts|tsx|js|mjs)$/.test(entry)) yield path;
  }
}

/** Returns `file:line: names X` strings for every violation under `dir`. */
export function portabilityViolations(dir) {
  const found = [];
  for (const file of files(dir)) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      // Prose in comments may name runtimes; code may not.
      const trimmed = line.trim();
      if (/^(?:\/\/|\/\*|\*)/.test(trimmed)) return;
      const code = line.replace(/\s\/\/.*$/, "");
      for (const rule of RULES) {
        if (rule.pattern.test(code)) {
          found.push(`${relative(process.cwd(), file)}:${i + 1}: names ${rule.name}: ${line.trim()}`);
          break;
        }
      }
    });
  }
  return found;
}
