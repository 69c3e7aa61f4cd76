#!/usr/bin/env bash
# Judges CANDIDATE against BASELINE and tells GitHub: the Markdown report (report.md, for the PR
# comment) also goes to the job summary, every regression becomes an `::error` annotation and
# every improvement a `::notice`; the exit code is 3 on a regression with FAIL_ON_REGRESSION=true.
#   BASELINE, CANDIDATE    selections, as for `perfhouse compare` (e.g. latest@base, latest@head)
#   OUT_DIR                where report.md and compare.json are written (default .)
#   THRESHOLD              noise threshold floor in % (default 2)
#   FAIL_ON_REGRESSION     true to fail the job on a regression (default false)
#   SITE_URL               where the site is published (run names link there)
set -euo pipefail
out=${OUT_DIR:-.}
mkdir -p "$out"
args=(--baseline "${BASELINE:?}" --candidate "${CANDIDATE:?}" --threshold "${THRESHOLD:-2}")
site=()
if [ -n "${SITE_URL:-}" ]; then
  site=(--site-url "$SITE_URL")
fi
perfhouse report "${args[@]}" "${site[@]}" --format md -o "$out/report.md"
perfhouse compare "${args[@]}" --format json > "$out/compare.json"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$out/report.md" >> "$GITHUB_STEP_SUMMARY"
fi
jq -r '.rows[] | select(.verdict == "regressed" or .verdict == "improved")
  | (if .verdict == "regressed" then "::error" else "::notice" end)
    + " title=perfhouse " + .verdict + "::" + .metric + " (" + .arm + ") "
    + ((((.ratio // 1) - 1) * 1000 | round) / 10 | tostring) + "%: " + .reason' "$out/compare.json"
regressed=$(jq '[.rows[] | select(.verdict == "regressed")] | length' "$out/compare.json")
echo "perfhouse: $regressed regression(s); report in $out/report.md"
if [ "${FAIL_ON_REGRESSION:-false}" = true ] && [ "$regressed" -gt 0 ]; then
  exit 3
fi
