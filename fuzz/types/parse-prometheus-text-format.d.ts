// The package ships no types: what fuzz/targets/prom-text.ts reads of it.
declare module 'parse-prometheus-text-format' {
  interface Family {
    name: string;
    help: string;
    type: string;
    metrics: { labels?: Record<string, string>; value?: string; [part: string]: unknown }[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
