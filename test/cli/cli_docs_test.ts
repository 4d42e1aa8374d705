// docs/cli.md's transcripts are run: each `$ npx edgecron …` (or `$ edgecron …`) line is
// given to the CLI and must print the lines below it ("…" in a line stands for any text).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runCli } from "../../cli/cli.ts";

/** The command lines of the doc's plain code blocks, each with the lines it prints. */
function transcripts(markdown: string): { line: number; argv: string[]; expected: string[] }[] {
  const found: { line: number; argv: string[]; expected: string[] }[] = [];
  let inBlock = false;
  let current: { line: number; argv: string[]; expected: string[] } | undefined;
  markdown.split("\n").forEach((text, i) => {
    if (text.startsWith("```")) {
      inBlock = !inBlock;
      current = undefined;
      return;
    }
    if (!inBlock) return;
    const command = /^\$ (?:npx )?edgecron(?: (.*))?$/.exec(text);
    if (command !== null) {
      current = { line: i + 1, argv: words(command[1] ?? ""), expected: [] };
      found.push(current);
    } else if (current !== undefined && text !== "") current.expected.push(text);
  });
  return found;
}

/** Splits a command line as a POSIX shell would for these examples: words, and "…" quoted as one. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const pattern = (line: string): RegExp =>
  new RegExp(`^${line.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);

describe("docs/cli.md", () => {
  const examples = transcripts(readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8"));

  it("holds transcripts to run", () => assert.ok(examples.length >= 10, `found ${examples.length}`));

  for (const example of examples) {
    it(`line ${example.line}: edgecron ${example.argv.join(" ")}`, () => {
      const printed: string[] = [];
      const write = (text: string) => printed.push(...text.split("\n"));
      runCli(example.argv, { out: write, err: write, now: Date.UTC(2026, 0, 1) });
      assert.equal(printed.length, example.expected.length, printed.join("\n"));
      printed.forEach((text, i) => assert.match(text, pattern(example.expected[i]!)));
    });
  }
});
