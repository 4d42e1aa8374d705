/**
 * Hidden classes kept alive for objects made once a tick.
 *
 * V8 gives each object literal and class instance a hidden class (a map), reached from the
 * empty object's by one transition per property, and holds those transitions weakly. A map
 * no live object has is freed at the next full collection, and every function optimised
 * for it is thrown away with it ("deoptimizing ... reason: weak objects"). An object made
 * once a tick (the tick's plan, its snapshot, its report) dies between two minutes, so
 * every minute compiled the functions that read it again: a tenth of a busy node's CPU
 * (bench/README.md, twenty-sixth pass; `test/integration/warm_test.ts`). One object of
 * each such shape, made by the same code and kept here, keeps its map and that code alive.
 */
const kept: object[] = [];

/**
 * Keeps `o` for the life of the module, so its hidden class stays: made at module load by
 * the same function as the tick's objects, with values of the same kinds (a number where
 * the tick has a number, an object where it has an object).
 *
 * @example const KEPT = keepShape(newPlan(...))
 */
export function keepShape<T extends object>(o: T): T {
  kept.push(o);
  return o;
}
