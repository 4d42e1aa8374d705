/**
 * Yielding to the event loop. A store that answers from memory resolves in the same
 * turn, so a large tick would otherwise run to its end as one chain of microtasks,
 * starving timers (heartbeats, fences) and I/O (HTTP reads) for seconds.
 */

/** Resolves in a later turn of the event loop, after pending timers and I/O: the stores' own yield. */
export { nextTurn } from "../../store/_turn.ts";

/** Jobs planned between two yields: well under 50 ms of planning on a loaded machine. */
export const PLAN_CHUNK = 5_000;
/** Runs started between two yields of the run queue. */
export const STARTS_PER_TURN = 256;
/** Won jobs queued between two yields after a round's claims. */
export const QUEUE_CHUNK = 2_000;
