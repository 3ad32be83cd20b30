#!/usr/bin/env bash
# Step 2 of action.yml: iari test with the action's inputs. The exit code is recorded as the step's
# output exit-code and the step itself succeeds, so the reports are uploaded before verdict.sh fails
# the job. The token arrives only as $IARI_TOKEN (iari's default --token-env); no input is ever
# spliced into this script's text.
set -uo pipefail
: "${GITHUB_OUTPUT:?}"

dir="${INPUT_REPORT_DIR:-reports/iari}"
args=(test --report "$dir/conformance")
if [ -n "${INPUT_BASE_URL:-}" ]; then
  args+=(--base-url "$INPUT_BASE_URL")
  if [ "${INPUT_NO_TOKEN:-false}" = true ]; then
    args+=(--no-token)
  elif [ -z "${IARI_TOKEN:-}" ]; then
    # iari test then sends no token and exits 4 (auth not tested): a missing secret is never a pass.
    echo "::error title=iari::base-url is set but the token input is empty (pass token: \${{ secrets.YOUR_TOKEN }}, or no-token: true for a server without auth); auth is not tested and iari test exits 4"
  fi
fi
if [ -n "${INPUT_GRADE:-}" ]; then args+=(--grade "$INPUT_GRADE"); fi
if [ -n "${INPUT_INCLUDE:-}" ]; then args+=(--include "$INPUT_INCLUDE"); fi
if [ -n "${INPUT_EXPECT:-}" ]; then args+=(--expect "$INPUT_EXPECT"); fi
# A baseline ending in .yaml/.yml is a known-failures file; anything else is a previous run's
# reports, compared by compare.sh after the runs.
case "${INPUT_BASELINE:-}" in
  *.yaml | *.yml) args+=(--baseline "$INPUT_BASELINE") ;;
esac

iari "${args[@]}"
code=$?
{
  echo "exit-code=$code"
  echo "report-dir=$dir"
} >> "$GITHUB_OUTPUT"
exit 0
