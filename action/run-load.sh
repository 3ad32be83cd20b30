#!/usr/bin/env bash
# Step 3 of action.yml (when load is true or an slo is given): iari load with the action's load
# inputs (over INPUT_SCENARIO, a scenario file, when given); every non-empty line of INPUT_SLO is one --slo. Records exit-code like run-test.sh.
set -uo pipefail
: "${GITHUB_OUTPUT:?}"

dir="${INPUT_REPORT_DIR:-reports/iari}"
args=(load --report "$dir/load")
# A scenario file is the base; every input given here is a flag, which wins over it.
if [ -n "${INPUT_SCENARIO:-}" ]; then args+=(--scenario "$INPUT_SCENARIO"); fi
if [ -n "${INPUT_BASE_URL:-}" ]; then args+=(--base-url "$INPUT_BASE_URL"); fi
if [ -n "${INPUT_RATE:-}" ]; then
  args+=(--rate "$INPUT_RATE")
  if [ -n "${INPUT_ARRIVAL:-}" ]; then args+=(--arrival "$INPUT_ARRIVAL"); fi
elif [ -n "${INPUT_CONCURRENCY:-}" ]; then
  args+=(--concurrency "$INPUT_CONCURRENCY")
fi
if [ -n "${INPUT_DURATION:-}" ]; then args+=(--duration "$INPUT_DURATION")
elif [ -z "${INPUT_SCENARIO:-}" ]; then args+=(--duration 30s); fi
if [ -n "${INPUT_WARMUP:-}" ]; then args+=(--warmup "$INPUT_WARMUP"); fi
if [ -n "${INPUT_MAX_TOKENS:-}" ]; then args+=(--max-tokens "$INPUT_MAX_TOKENS"); fi
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  line="${line%"${line##*[![:space:]]}"}"
  if [ -n "$line" ]; then args+=(--slo "$line"); fi
done <<< "${INPUT_SLO:-}"

iari "${args[@]}"
code=$?
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
exit 0
