/**
 * The memory store's runs table: rows keyed by `(job, slot)`, with the two indexes a
 * tick needs kept up to date on every write (running rows per job, newest scheduled
 * slot per job), so planning never scans a job's whole history.
 */
import { isOpenStatus } from "../_overlap.ts";
import type { RunRecord } from "../types.ts";

/** A row plus the claim batch that wrote it (the overlap check needs it; callers never see it). */
export type Row = RunRecord & { batch: string };

/** A row as callers see it: a copy without the batch id. */
export const publicRecord = ({ batch: _batch, ...record }: Row): RunRecord => record;

/** The table. Rows are replaced whole (never changed in place), so handed-out rows stay stable. */
export interface RunTable {
  get(job: string, slot: number): Row | undefined;
  /** Inserts or replaces the row at `(row.job, row.slot)`. */
  put(row: Row): void;
  /** A job's rows, in no particular order. */
  rows(job: string): Iterable<Row>;
  /** Every open row (running, cancelling, buffered) of every job. */
  running(): Row[];
  /** A job's open rows (running, cancelling, buffered). */
  runningOf(job: string): Iterable<Row>;
  /** The newest `scheduled` slot of a job, or undefined. */
  watermark(job: string): number | undefined;
  /** Deletes finished rows with slot < before; returns how many. `gone` sees each deleted row. */
  prune(before: number, gone?: (row: Row) => void): number;
  /** Deletes a job's finished rows beyond its newest `keep`, never its watermark row; returns how many. */
  pruneRows(job: string, keep: number, gone?: (row: Row) => void): number;
  /** Deletes a job's finished rows and its watermark; its open rows stay until they end. */
  drop(job: string): void;
}

/** Creates an empty table. */
export function createRunTable(): RunTable {
  const byJob = new Map<string, Map<number, Row>>();
  const runningByJob = new Map<string, Map<number, Row>>();
  const watermarks = new Map<string, number>();

  const inner = (map: Map<string, Map<number, Row>>, job: string): Map<number, Row> => {
    let rows = map.get(job);
    if (rows === undefined) {
      rows = new Map();
      map.set(job, rows);
    }
    return rows;
  };

  return {
    get: (job, slot) => byJob.get(job)?.get(slot),

    put(row): void {
      inner(byJob, row.job).set(row.slot, row);
      if (isOpenStatus(row.status)) inner(runningByJob, row.job).set(row.slot, row);
      else {
        // A job without open rows leaves the index, so running() walks open rows only.
        const open = runningByJob.get(row.job);
        if (open?.delete(row.slot) === true && open.size === 0) runningByJob.delete(row.job);
      }
      const mark = watermarks.get(row.job);
      if (row.kind === "scheduled" && (mark === undefined || row.slot > mark)) watermarks.set(row.job, row.slot);
    },

    rows: (job) => byJob.get(job)?.values() ?? [],

    running: () => [...runningByJob.values()].flatMap((rows) => [...rows.values()]),

    runningOf: (job) => runningByJob.get(job)?.values() ?? [],

    watermark: (job) => watermarks.get(job),

    drop(job): void {
      const open = runningByJob.get(job);
      if (open === undefined) byJob.delete(job);
      else byJob.set(job, new Map(open));
      watermarks.delete(job);
    },

    pruneRows(job, keep, gone): number {
      const rows = byJob.get(job);
      if (rows === undefined) return 0;
      // Open rows (running, cancelling, buffered) are never pruned: they have no outcome yet.
      const finished = [...rows.values()].filter((r) => !isOpenStatus(r.status)).sort((a, b) => b.slot - a.slot);
      const mark = watermarks.get(job);
      let removed = 0;
      for (const row of finished.slice(keep)) {
        if (row.slot === mark && row.kind === "scheduled") continue;
        rows.delete(row.slot);
        gone?.(row);
        removed++;
      }
      return removed;
    },

    prune(before, gone): number {
      let removed = 0;
      for (const [job, rows] of byJob) {
        let touched = false;
        for (const row of [...rows.values()]) {
          if (!isOpenStatus(row.status) && row.slot < before) {
            rows.delete(row.slot);
            gone?.(row);
            removed += 1;
            touched = true;
          }
        }
        if (!touched) continue;
        // The newest scheduled row may be gone: recompute, as MAX(slot) would in SQL.
        let mark: number | undefined;
        for (const row of rows.values()) {
          if (row.kind === "scheduled" && (mark === undefined || row.slot > mark)) mark = row.slot;
        }
        if (mark === undefined) watermarks.delete(job);
        else watermarks.set(job, mark);
      }
      return removed;
    },
  };
}
