#!/usr/bin/env bash
# Last step of action.yml: adds the outcome to the job summary (iari test and iari load wrote their
# own tables above it) and fails the job with iari's exit code: conformance first, then load.
set -uo pipefail

test_code="${TEST_CODE:-}"
load_code="${LOAD_CODE:-}"
compare_code="${COMPARE_CODE:-}"
describe() {
  case "$1" in
    0) echo "passed" ;;
    1) echo "a requirement failed" ;;
    2) echo "usage or configuration error" ;;
    3) echo "an SLO was breached" ;;
    4) echo "not passed: nothing failed, but some requirements were undecided or not tested (no token)" ;;
    130) echo "interrupted" ;;
    '') echo "did not run" ;;
    *) echo "exit $1" ;;
  esac
}
describe_compare() {
  case "$1" in
    0) echo "no gate failed" ;;
    1) echo "a conformance gate failed" ;;
    3) echo "a load gate failed" ;;
    4) echo "a gate was inconclusive (see the compare table for what would decide it)" ;;
    *) describe "$1" ;;
  esac
}
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo ""
    echo "**iari action**: conformance $(describe "$test_code")${load_code:+, load $(describe "$load_code")}${compare_code:+, compare with the baseline $(describe_compare "$compare_code")}; the reports are in the workflow run's artifacts."
  } >> "$GITHUB_STEP_SUMMARY"
fi
if [ -z "$test_code" ]; then
  echo "::error title=iari::iari test did not run (see the install step)"
  exit 2
fi
if [ "$test_code" != 0 ]; then exit "$test_code"; fi
if [ -n "$load_code" ] && [ "$load_code" != 0 ]; then exit "$load_code"; fi
if [ -n "$compare_code" ] && [ "$compare_code" != 0 ]; then exit "$compare_code"; fi
exit 0
