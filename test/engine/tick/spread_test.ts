import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ownerOf, spreadOrder } from "../../../src/engine/tick/spread.ts";

const names = Array.from({ length: 4_000 }, (_, i) => `job-${String(i).padStart(4, "0")}`);
const id = (n: string): string => n;

describe("spreadOrder()", () => {
  it("alone, rotates the list by the offset and keeps every item once", () => {
    assert.deepEqual(spreadOrder(["a", "b", "c", "d"], id, { node: "n1", nodes: [], offset: 6 }), ["c", "d", "a", "b"]);
    assert.deepEqual(spreadOrder(["a", "b"], id, { node: "n1", nodes: ["n1", "n1"], offset: 1 }), ["b", "a"]);
    assert.deepEqual(spreadOrder([], id, { node: "n1", nodes: ["n2"], offset: 1 }), []);
  });

  it("with four live nodes, each node's own share comes first and holds 20-30% of a large minute", () => {
    const nodes = ["n1", "n2", "n3", "n4"];
    const firsts = new Set<string>();
    for (const node of nodes) {
      const order = spreadOrder(names, id, { node, nodes, offset: 0 });
      assert.equal(new Set(order).size, names.length, "every job once");
      const share = order.findIndex((n) => ownerOf(n, nodes) !== node);
      assert.ok(share > 0.2 * names.length && share < 0.3 * names.length, `${node}: share ${share}`);
      assert.ok(
        order.slice(share).every((n) => ownerOf(n, nodes) !== node),
        `${node}: its share is contiguous at the front`,
      );
      for (const n of order.slice(0, share)) firsts.add(n);
    }
    assert.equal(firsts.size, names.length, "the shares cover every job, none twice");
  });

  it("helps with the other shares from their ends, where their owners reach last", () => {
    const nodes = ["n1", "n2"];
    const order = spreadOrder(names, id, { node: "n1", nodes, offset: 0 });
    const theirs = spreadOrder(names, id, { node: "n2", nodes, offset: 0 });
    const share2 = theirs.findIndex((n) => ownerOf(n, nodes) !== "n2");
    const helping = order.filter((n) => ownerOf(n, nodes) === "n2");
    assert.deepEqual(helping, theirs.slice(0, share2).reverse());
  });
});

describe("ownerOf()", () => {
  it("is the same whatever the order the nodes are listed in", () => {
    for (const name of names.slice(0, 200)) {
      assert.equal(ownerOf(name, ["a", "b", "c"]), ownerOf(name, ["c", "a", "b"].sort()));
    }
  });

  it("moves only the leaving node's jobs when a node leaves", () => {
    const before = ["n1", "n2", "n3", "n4"];
    const after = ["n1", "n2", "n4"];
    for (const name of names) {
      const was = ownerOf(name, before);
      if (was !== "n3") assert.equal(ownerOf(name, after), was, name);
    }
  });
});
