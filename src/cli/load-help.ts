// iari load --help, from the flag table (src/load/plan/load-flag-table.ts): every flag of `iari
// load` is a row there, the connection rows are iari test's too (connection-options.ts), and the
// SLO metrics are listed from the metric tables (slo.ts).
import { renderSections, type FlagSection } from '../flag-help.ts';
import { connectionHelpSection } from '../client/connection-options.ts';
import { sloHelp } from '../load/results/slo.ts';
import { helpSectionsOf as sectionsOf } from '../flag-table.ts';
import { LOAD_FLAGS, LOAD_SECTIONS, type LoadFlag } from '../load/plan/load-flag-table.ts';

/** The help's sections: the table's rows in its order, section by section. */
export const LOAD_HELP_SECTIONS: readonly FlagSection[] = helpSectionsOf(LOAD_FLAGS);

/** Help rows from flag rows (a row documents its flag and the one that negates it). */
export function helpSectionsOf(rows: readonly LoadFlag[]): FlagSection[] {
  return sectionsOf(rows, LOAD_SECTIONS, { connection: connectionHelpSection });
}

export const LOAD_HELP = `Usage: iari load [options]

Streaming load test with honest clocks: TTFT, per-token inter-token latency, tokens/s,
goodput against SLOs. Without --base-url it starts the bundled mock in-process.

${renderSections(LOAD_HELP_SECTIONS)}
SLO metrics:
${sloHelp()}

Examples:
  # a real deployment: https with a private CA, token and a gateway header from the environment,
  # synthetic prompts of 512±64 tokens and answers of 128±16 (exact where ignore_eos works)
  export IARI_TOKEN=... ORG_ID=...
  iari load --base-url https://llm.internal.example:8443/v1 --ca-file private-ca.pem \\
    --header 'OpenAI-Organization: env:ORG_ID' \\
    --input-tokens 512,64 --output-tokens 128,16 --extra-body '{"ignore_eos":true}' \\
    --rate 4 --arrival poisson --duration 2m --slo 'ttft.p95<800ms'
  # a ShareGPT dataset (vLLM's format), 500 conversations sampled with --seed
  iari load --base-url https://llm.internal.example:8443/v1 \\
    --dataset ShareGPT_V3_unfiltered_cleaned_split.json --dataset-size 500 --concurrency 16 --duration 5m

Exit codes: 0 thresholds met, 2 usage or configuration error or the server cannot be reached, 3 a threshold was breached, 130 interrupted.
`;
