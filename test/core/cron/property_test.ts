// next/prev/between against a brute-force oracle: walk wall-clock minutes, map each
// matching one with Temporal ("compatible"; both copies of a repeated wall time when
// the hour field has all 24 hours) and compare. Expressions come from random field sets
// so the oracle matches sets, not our parser. Instants cluster near zone transitions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { cron } from "../../../src/core/cron/mod.ts";
import type { DayMatch } from "../../../src/core/types.ts";
import { Temporal } from "../../../src/core/temporal.ts";

// EDGECRON_PROPERTY_WIDE=1: every zone the runtime knows, transitions since 1880 (slow; run by hand).
const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
const WIDE = env.EDGECRON_PROPERTY_WIDE === "1";
const NAMED_ZONES = [
  "UTC",
  "America/New_York",
  "Europe/London",
  "Australia/Sydney",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "America/Santiago",
  "America/Havana",
  "Europe/Dublin",
  "Pacific/Chatham",
  "Antarctica/Troll",
  "America/Los_Angeles",
  "Pacific/Kiritimati",
  "Pacific/Apia",
];
const ZONES = WIDE ? Intl.supportedValuesOf("timeZone") : NAMED_ZONES;
const HOUR_MS = 3_600_000;
const MIN_MS = 60_000;
// Offsets stay within ±14 h, so walls within ±40 h of `t` cover every fire within ±24 h.
const WALK_MS = 40 * HOUR_MS;
const TRUST_MS = 24 * HOUR_MS;

interface Fields {
  seconds: number[];
  minutes: number[];
  hours: number[];
  doms: number[] | null;
  months: number[] | null;
  dows: number[] | null;
  dayMatch: DayMatch;
  sixFields: boolean;
}

function transitions(zone: string): number[] {
  const out: number[] = [];
  let z: ReturnType<typeof Temporal.Instant.prototype.toZonedDateTimeISO> | null = Temporal.Instant.from(
    WIDE ? "1880-01-01T00:00:00Z" : "2024-01-01T00:00:00Z",
  ).toZonedDateTimeISO(zone);
  const until = WIDE ? Date.UTC(2040, 0, 1) : Date.UTC(2029, 0, 1);
  while ((z = z.getTimeZoneTransition("next")) !== null && z.epochMilliseconds < until) {
    out.push(z.epochMilliseconds);
  }
  return out;
}
const TRANSITIONS = new Map(ZONES.map((z) => [z, transitions(z)]));

const sortedSet = (max: number, min: number, size: number): fc.Arbitrary<number[]> =>
  fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: size }).map((a) => a.sort((x, y) => x - y));

const fieldsArb: fc.Arbitrary<Fields> = fc.record({
  seconds: fc.oneof({ weight: 4, arbitrary: fc.constant<number[]>([0]) }, {
    weight: 1,
    arbitrary: sortedSet(59, 0, 2),
  }),
  minutes: fc.oneof(sortedSet(59, 0, 3), fc.constantFrom<number[]>([0, 15, 30, 45], [0, 30], [0, 20, 40])),
  hours: fc.oneof({ weight: 2, arbitrary: fc.constant<number[]>(Array.from({ length: 24 }, (_, h) => h)) }, {
    weight: 3,
    arbitrary: sortedSet(23, 0, 6),
  }),
  doms: fc.oneof({ weight: 3, arbitrary: fc.constant<number[] | null>(null) }, {
    weight: 1,
    arbitrary: sortedSet(31, 1, 8),
  }),
  months: fc.oneof({ weight: 4, arbitrary: fc.constant<number[] | null>(null) }, {
    weight: 1,
    arbitrary: sortedSet(12, 1, 6),
  }),
  dows: fc.oneof({ weight: 3, arbitrary: fc.constant<number[] | null>(null) }, {
    weight: 1,
    arbitrary: sortedSet(6, 0, 4),
  }),
  dayMatch: fc.constantFrom<DayMatch>("or", "and"),
  sixFields: fc.boolean(),
});

function render(f: Fields): string {
  const list = (v: number[] | null, full: number): string => (v === null || v.length === full ? "*" : v.join(","));
  const parts = [list(f.minutes, 60), list(f.hours, 24), list(f.doms, 31), list(f.months, 12), list(f.dows, 7)];
  return f.sixFields ? `${f.seconds.join(",")} ${parts.join(" ")}` : parts.join(" ");
}

function matchesDay(f: Fields, y: number, m: number, d: number): boolean {
  if (f.months !== null && !f.months.includes(m)) return false;
  const dow = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  const domOk = f.doms === null || f.doms.includes(d);
  const dowOk = f.dows === null || f.dows.includes(dow);
  if (f.doms === null || f.dows === null) return domOk && dowOk;
  return f.dayMatch === "and" ? domOk && dowOk : domOk || dowOk;
}

const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Every date falls on every weekday in some year, so only day-of-month vs month can starve.
function canFire(f: Fields): boolean {
  if (f.doms === null || (f.dows !== null && f.dayMatch === "or")) return true;
  const months = f.months ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  return months.some((m) => f.doms!.some((d) => d <= MAX_DAYS[m]!));
}

/** Every fire in [t - TRUST_MS, t + TRUST_MS], ascending, by brute force. */
function oracle(f: Fields, zone: string, t: number): number[] {
  const allHours = f.hours.length === 24;
  const seconds = f.sixFields ? f.seconds : [0];
  const fires = new Set<number>();
  const start = Math.floor((t - WALK_MS) / MIN_MS) * MIN_MS;
  for (let wall = start; wall <= t + WALK_MS; wall += MIN_MS) {
    const w = new Date(wall);
    if (!f.minutes.includes(w.getUTCMinutes()) || !f.hours.includes(w.getUTCHours())) continue;
    if (!matchesDay(f, w.getUTCFullYear(), w.getUTCMonth() + 1, w.getUTCDate())) continue;
    for (const s of seconds) {
      const pdt = Temporal.PlainDateTime.from({
        year: w.getUTCFullYear(),
        month: w.getUTCMonth() + 1,
        day: w.getUTCDate(),
        hour: w.getUTCHours(),
        minute: w.getUTCMinutes(),
        second: s,
      });
      const compatible = pdt.toZonedDateTime(zone, { disambiguation: "compatible" });
      fires.add(compatible.epochMilliseconds);
      if (allHours) {
        const later = pdt.toZonedDateTime(zone, { disambiguation: "later" });
        // Both copies of a repeated wall time carry that wall time; a gap's "later" does not.
        if (later.toPlainDateTime().equals(pdt)) fires.add(later.epochMilliseconds);
      }
    }
  }
  return [...fires].filter((x) => Math.abs(x - t) <= TRUST_MS).sort((a, b) => a - b);
}

const caseArb = fc.record({
  fields: fieldsArb,
  zone: fc.constantFrom(...ZONES),
  pick: fc.nat(),
  near: fc.integer({ min: -30 * HOUR_MS, max: 30 * HOUR_MS }),
  far: fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }),
  useFar: fc.boolean(),
  ms: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 59_999 })),
});

const NUM_RUNS = Number(env.EDGECRON_PROPERTY_RUNS ?? 200);

describe("cron() against a brute-force oracle", () => {
  it("next, prev and between equal the oracle's fires near transitions", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const list = TRANSITIONS.get(c.zone)!;
        const base = c.useFar || list.length === 0 ? c.far : list[c.pick % list.length]! + c.near;
        const t = Math.floor(base / MIN_MS) * MIN_MS + c.ms;
        const expression = render(c.fields);
        if (!canFire(c.fields)) {
          assert.throws(
            () => cron(expression, { timezone: c.zone, dayMatch: c.fields.dayMatch }),
            /invalid-cron: day-of-month/,
          );
          return;
        }
        const s = cron(expression, { timezone: c.zone, dayMatch: c.fields.dayMatch });
        const fires = oracle(c.fields, c.zone, t);
        const low = t - TRUST_MS;
        const high = t + TRUST_MS;
        const after = fires.filter((x) => x > t);
        const next = s.next(t);
        if (after.length > 0) {
          assert.equal(next, after[0], `next ${expression} in ${c.zone} after ${new Date(t).toISOString()}`);
        } else assert.ok(next === null || next > high, `next ${expression} in ${c.zone}: ${next} inside the window`);
        const before = fires.filter((x) => x < t);
        const prev = s.prev(t);
        if (before.length > 0) {
          assert.equal(
            prev,
            before[before.length - 1],
            `prev ${expression} in ${c.zone} before ${new Date(t).toISOString()}`,
          );
        } else assert.ok(prev === null || prev < low, `prev ${expression} in ${c.zone}: ${prev} inside the window`);
        assert.deepEqual([...s.between(low, high)], fires.filter((x) => x > low), `between ${expression} in ${c.zone}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
