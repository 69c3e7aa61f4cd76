#!/usr/bin/env bash
# The PR job's last step. A pull request from this repository comments directly (its token can
# write). One from a fork cannot and must not get a write token: the report and the PR number
# are left in ARTIFACT_DIR for the action's upload step, and the `workflow_run` workflow
# (.github/workflows/perfhouse-comment.yml) posts them with write permission.
#   IS_FORK       true for a fork's pull request
#   ARTIFACT_DIR  where report.md and pr-number are written (default perfhouse-report)
#   PR_NUMBER, and for a direct comment what comment.sh needs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=${1:?the report file}
dir=${ARTIFACT_DIR:-perfhouse-report}
mkdir -p "$dir"
cp "$report" "$dir/report.md"
echo "${PR_NUMBER:?}" > "$dir/pr-number"
if [ "${IS_FORK:-false}" = true ]; then
  echo "perfhouse: a fork's pull request: the report is left in $dir for the comment workflow"
else
  bash "$here/comment.sh" "$report"
fi
