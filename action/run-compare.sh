#!/usr/bin/env bash
# action.yml step after the runs: when the baseline input is a previous run's reports (a directory
# or a JSON file, not a *.yaml known-failures file), compares this run with it (iari report compare)
# under the fail-on gates, one per line. The exit code is recorded as the step's output exit-code
# (0, 1 a conformance gate failed, 3 a load gate failed, 4 a gate was inconclusive) and verdict.sh
# fails the job with it.
set -uo pipefail
: "${GITHUB_OUTPUT:?}"

dir="${INPUT_REPORT_DIR:-reports/iari}"
args=(report compare "$INPUT_BASELINE" "$dir" --report "$dir/compare")
while IFS= read -r gate; do
  gate="${gate#"${gate%%[![:space:]]*}"}"
  gate="${gate%"${gate##*[![:space:]]}"}"
  if [ -n "$gate" ]; then args+=(--fail-on "$gate"); fi
done <<< "${INPUT_FAIL_ON:-}"

iari "${args[@]}"
code=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$dir/compare/compare.json" ]; then
  {
    echo ""
    echo "### iari compare with the baseline"
    echo ""
    echo '```'
    iari report compare "$INPUT_BASELINE" "$dir" --report "$dir/compare" 2>/dev/null | head -60
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
fi
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
exit 0
