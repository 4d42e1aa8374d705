// Types for the untyped Prometheus text parser the metrics test reads /metrics with.
declare module "parse-prometheus-text-format" {
  /** Parses the text exposition format into metric families. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
