/** The Prometheus text format's building blocks: label sets and cumulative histograms. */

/** `{a="x",b="y"}` with values escaped as the text format requires. */
export function labels(set: Record<string, string>): string {
  const parts = Object.entries(set).map(([k, v]) => `${k}="${labelValue(v)}"`);
  return `{${parts.join(",")}}`;
}

/** A label value escaped as the text format requires (backslash, double quote, newline); most need nothing. */
export function labelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : value;
}

/** A histogram with fixed upper bounds, in seconds. */
export interface Histogram {
  observe(seconds: number): void;
  /** `_bucket{le}` (cumulative, ending with `+Inf`), `_sum` and `_count` lines. */
  lines(name: string): string[];
}

/** Creates a histogram over ascending `bounds`. */
export function createHistogram(bounds: readonly number[]): Histogram {
  const counts = new Array<number>(bounds.length).fill(0);
  let sum = 0;
  let count = 0;
  return {
    observe(seconds) {
      if (!Number.isFinite(seconds)) return;
      sum += seconds;
      count++;
      const i = bounds.findIndex((b) => seconds <= b);
      if (i >= 0) counts[i]!++;
    },
    lines(name) {
      const out: string[] = [];
      let running = 0;
      bounds.forEach((b, i) => {
        running += counts[i]!;
        out.push(`${name}_bucket${labels({ le: String(b) })} ${running}`);
      });
      out.push(`${name}_bucket${labels({ le: "+Inf" })} ${count}`, `${name}_sum ${sum}`, `${name}_count ${count}`);
      return out;
    },
  };
}
