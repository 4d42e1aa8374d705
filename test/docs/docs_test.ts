// Docs that run: every ts/js block of README.md and docs/**, and every public @example,
// type-checked by scripts/docs.mjs against the sources in one tsc run (the fast variant;
// test/integration/consumer_test.ts checks them against the packed tarball).
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// @ts-ignore: plain JS module shared with `node scripts/docs.mjs`
import { brokenLinks, checkDocs, docBlocks, exampleBlocks, markdownBlocks } from "../../scripts/docs.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fixtures = fileURLToPath(new URL("../fixtures/docs/", import.meta.url));
const dirs: string[] = [];
const scratch = (name: string): string => {
  const dir = join(root, ".tmp", `${name}-${process.pid}`);
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Block {
  file: string;
  line: number;
  lang: string;
  code: string;
  fragment: string | undefined;
  run: boolean;
  output: string | undefined;
}

// One tsc run over every block takes seconds (more on a loaded machine): past Bun's 5 s default.
const TSC = { timeout: 180_000 };

describe("docs that run", () => {
  it(
    "every ts/js block in README.md and docs/, and every public @example, type-checks as a strict consumer's",
    TSC,
    () => {
      assert.deepEqual(checkDocs({ dir: scratch("docs-check") }), []);
    },
  );

  it("finds blocks in the README, in docs/ and in the JSDoc of public exports", () => {
    const blocks = docBlocks() as Block[];
    assert.ok(
      blocks.some((b) => b.file === "README.md" && b.run && b.output !== undefined),
      "the README's first look runs",
    );
    assert.ok(blocks.some((b) => b.file.startsWith("docs/getting-started/")));
    const examples = exampleBlocks() as (Block & { symbol: string })[];
    for (const symbol of ["createScheduler", "d1Store", "edgecronRouter", "verifySignature", "cloudflareWorker"]) {
      assert.ok(examples.some((b) => b.symbol === symbol), `@example of ${symbol}`);
    }
  });

  it("fails on a broken block, naming the file and line; a fragment needs a reason", TSC, () => {
    const problems = checkDocs({
      base: fixtures,
      files: ["broken.md"],
      examples: false,
      dir: scratch("docs-broken"),
    }) as string[];
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(
      problems.find((p) => p.includes("error TS")) ?? "",
      /^broken\.md:16: error TS2322: .*'number \| null'/,
    );
    assert.match(problems.find((p) => !p.includes("error TS")) ?? "", /^broken\.md:26: a fragment needs a reason/);
  });

  it("every relative link and #anchor in README.md, docs/, CONTRIBUTING.md and bench/README.md leads somewhere", () => {
    assert.deepEqual(brokenLinks(), []);
    assert.deepEqual(brokenLinks(fixtures, ["links.md"]), [
      "links.md:3: broken.md#no-such-heading: no such heading",
      "links.md:4: missing.md: no such file",
    ]);
  });

  it("reads fences, fragment reasons, run marks and expected output", () => {
    const md = [
      "<!-- fragment: a handler body -->",
      "```ts",
      "return 1;",
      "```",
      "",
      "<!-- run -->",
      "```js",
      "console.log(1);",
      "```",
      "",
      "```text",
      "1",
      "```",
      "  ```ts",
      "  const indented = true;",
      "  ```",
    ].join("\n");
    const blocks = markdownBlocks(md, "x.md") as Block[];
    assert.deepEqual(
      blocks.map((b) => [b.line, b.lang, b.code, b.fragment ?? null, b.run, b.output ?? null]),
      [
        [2, "ts", "return 1;", "a handler body", false, null],
        [7, "js", "console.log(1);", null, true, "1"],
        [11, "text", "1", null, false, null],
        [14, "ts", "const indented = true;", null, false, null],
      ],
    );
  });
});
