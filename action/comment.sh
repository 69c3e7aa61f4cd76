#!/usr/bin/env bash
# Posts a report as the one perfhouse comment of a pull request, or updates that comment in
# place (found by its marker), through GitHub's REST API.
#   $1                 the report (Markdown)
#   PR_NUMBER          the pull request
#   GITHUB_REPOSITORY  owner/name; GITHUB_TOKEN with pull-requests: write
#   GITHUB_API_URL     the API (GitHub sets it; a local stand-in in tests)
set -euo pipefail
report=${1:?the report file}
marker='<!-- perfhouse-report -->'
api="${GITHUB_API_URL:-https://api.github.com}/repos/${GITHUB_REPOSITORY:?}"
auth=(-H "Authorization: Bearer ${GITHUB_TOKEN:?}" -H "Accept: application/vnd.github+json"
  -H "X-GitHub-Api-Version: 2022-11-28")
body=$(jq -Rs --arg m "$marker" '{body: (. + "\n" + $m + "\n")}' < "$report")
id=""
page=1
while :; do
  list=$(curl -fsS "${auth[@]}" "$api/issues/${PR_NUMBER:?}/comments?per_page=100&page=$page")
  id=$(jq -r --arg m "$marker" '[.[] | select(.body | contains($m)) | .id][0] // empty' <<< "$list")
  if [ -n "$id" ] || [ "$(jq length <<< "$list")" -lt 100 ]; then
    break
  fi
  page=$((page + 1))
done
if [ -n "$id" ]; then
  curl -fsS -X PATCH "${auth[@]}" "$api/issues/comments/$id" -d "$body" > /dev/null
  echo "perfhouse: updated comment $id on #$PR_NUMBER"
else
  curl -fsS -X POST "${auth[@]}" "$api/issues/$PR_NUMBER/comments" -d "$body" > /dev/null
  echo "perfhouse: commented on #$PR_NUMBER"
fi
