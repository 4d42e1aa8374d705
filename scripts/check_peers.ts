// Tally of the outside facts in test/fixtures/ (the tests themselves are
// test/core/peer_vectors_test.ts and test/core/real_world_test.ts).
// Run: npx tsx scripts/check_peers.ts
import {
  agreeingVectors,
  caseLabel,
  failures,
  realWorldCases,
  runCase,
  runVector,
  vectorLabel,
} from "../test/fixtures/check.ts";

function report(title: string, total: number, failed: string[]): number {
  console.log(`${title}: ${total - failed.length}/${total} pass, ${failed.length} fail`);
  for (const f of failed.slice(0, 15)) console.log(`  ${f}`);
  return failed.length;
}

const vectors = agreeingVectors();
const cases = realWorldCases();
const refused = cases.filter((c) => c.expected === "error").length;
const failed = report("peer vectors (agreeing)", vectors.length, failures(vectors, runVector, vectorLabel)) +
  report(`real-world cases (${refused} refused)`, cases.length, failures(cases, runCase, caseLabel));
process.exitCode = failed === 0 ? 0 : 1;
