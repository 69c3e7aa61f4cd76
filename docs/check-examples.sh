#!/usr/bin/env bash
# Checks the CLI examples of the book (docs/src/*.md) and README.md against the binary's help,
# so they cannot rot: every line that starts with `perfhouse ` (or `$ perfhouse `) inside a
# ```sh or ```console block must name a subcommand that `perfhouse --help` lists, and every
# `--flag` it uses must appear in `perfhouse SUB --help` (global options included).
# Commands chained with &&, ||, | or ; are checked one by one; quoted arguments and trailing
# `# comments` are ignored.
#
# Usage: docs/check-examples.sh PATH/TO/perfhouse     (exit 0: all good, 1: a bad example)
set -euo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 PATH/TO/perfhouse" >&2
  exit 2
fi
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)

top_help=$("$bin" --help)

# Subcommands: the first word of each line under "Commands:", up to the next blank line.
declare -A is_sub=()
while read -r sub; do
  [[ -n $sub ]] && is_sub[$sub]=1
done < <(printf '%s\n' "$top_help" | awk '/^Commands:/ { on = 1; next } on && /^[[:space:]]*$/ { exit } on { print $1 }')
if [[ ${#is_sub[@]} -eq 0 ]]; then
  echo "$0: no subcommands found in \`$bin --help\`" >&2
  exit 1
fi

# Global options that take a value (`-w, --warehouse <DIR|URL>`), so that the word after
# them is not taken for the subcommand.
declare -A takes_value=()
while read -r opt; do
  [[ -n $opt ]] && takes_value[$opt]=1
done < <(printf '%s\n' "$top_help" | awk '/^[[:space:]]*-/ && /</ {
    head = substr($0, 1, index($0, "<") - 1)
    n = split(head, w, /[ ,]+/)
    for (i = 1; i <= n; i++) if (w[i] ~ /^-/) print w[i]
  }')

# has_flag HELP FLAG: FLAG appears in HELP as a whole option name.
has_flag() {
  # A here-string, not a pipe: `grep -q` stops at the first match, and under pipefail the
  # writer's SIGPIPE would turn a found flag into a failure.
  grep -qE -- "(^|[[:space:],\[])$2([][[:space:],=<]|$)" <<<"$1"
}

declare -A sub_help=()
checked=0
failures=0

fail() {
  echo "$1: $2" >&2
  failures=$((failures + 1))
}

# Every example line, as FILE:LINE:TEXT.
examples() {
  awk '
    /^[[:space:]]*```/ {
      if (inblk) { inblk = 0; next }
      lang = $0
      sub(/^[[:space:]]*```[[:space:]]*/, "", lang)
      sub(/[[:space:]].*$/, "", lang)
      inblk = 1
      ok = (lang == "sh" || lang == "console")
      next
    }
    inblk && ok {
      line = $0
      sub(/^[[:space:]]*([$][[:space:]]+)?/, "", line)
      if (line ~ /^perfhouse[[:space:]]/) printf "%s:%d:%s\n", FILENAME, FNR, line
    }
  ' "$@"
}

cd "$root"
while IFS= read -r example; do
  where=${example%%:*}
  rest=${example#*:}
  where="$where:${rest%%:*}"
  text=${rest#*:}
  # Quoted arguments are data (SQL, notes), not options; `  # …` is a comment.
  text=$(printf '%s\n' "$text" | sed -E "s/\"[^\"]*\"/ARG/g; s/'[^']*'/ARG/g; s/[[:space:]]+#.*$//")
  while IFS= read -r segment; do
    read -ra words <<<"$segment"
    [[ ${#words[@]} -gt 0 && ${words[0]} == perfhouse ]] || continue
    checked=$((checked + 1))
    i=1
    while [[ $i -lt ${#words[@]} && ${words[i]} == -* ]]; do
      opt=${words[i]%%=*}
      if ! has_flag "$top_help" "$opt"; then
        fail "$where" "\`$opt\` is not a global option of perfhouse"
      fi
      if [[ ${words[i]} != *=* && -n ${takes_value[$opt]:-} ]]; then
        i=$((i + 2))
      else
        i=$((i + 1))
      fi
    done
    if [[ $i -ge ${#words[@]} ]]; then
      fail "$where" "no subcommand in \`$segment\`"
      continue
    fi
    sub=${words[i]}
    if [[ -z ${is_sub[$sub]:-} ]]; then
      fail "$where" "\`perfhouse $sub\` is not a subcommand (perfhouse --help)"
      continue
    fi
    if [[ -z ${sub_help[$sub]:-} ]]; then
      sub_help[$sub]=$("$bin" "$sub" --help)
    fi
    for ((j = i + 1; j < ${#words[@]}; j++)); do
      word=${words[j]}
      [[ $word == --?* ]] || continue
      flag=${word%%=*}
      if ! has_flag "${sub_help[$sub]}" "$flag"; then
        fail "$where" "\`perfhouse $sub\` has no option \`$flag\` (perfhouse $sub --help)"
      fi
    done
  done < <(printf '%s\n' "$text" | sed -E 's/[[:space:]]*(&&|\|\||[|;])[[:space:]]*/\n/g')
done < <(examples docs/src/*.md README.md)

if [[ $checked -eq 0 ]]; then
  echo "$0: no examples found in docs/src/*.md and README.md" >&2
  exit 1
fi
echo "$0: $checked examples checked, $failures problems"
[[ $failures -eq 0 ]]
