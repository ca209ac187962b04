#!/usr/bin/env bash
# A short tour of `small`: build it, run one agent session with the real commands
# (init, plan, progress, checkpoint, handoff, check), then break the log by hand, watch
# `small check --strict` point at the defect, and undo it with `git checkout -- .small/`.
#
#   scripts/demo.sh            (SMALL_SKIP_SETUP=1 to reuse an existing build/)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${SMALL_SKIP_SETUP:-0}" != "1" ]; then
  "$ROOT/scripts/setup.sh"
fi
SMALL="$ROOT/build/small"
[ -x "$SMALL" ] || { echo "demo: $SMALL not found (build failed?)" >&2; exit 1; }

WS="$(mktemp -d "${TMPDIR:-/tmp}/small-demo.XXXXXX")"
trap 'rm -rf "$WS"' EXIT
S="$WS/.small"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then B=$'\033[1m' N=$'\033[0m'; else B="" N=""; fi
step() { printf '\n%s== %s%s\n' "$B" "$*" "$N"; }
# Echo the command (arguments with spaces quoted), then run it.
run() {
  local a line='$ small'
  for a in "$@"; do case "$a" in *[[:space:]\;]*) line+=" \"$a\"" ;; *) line+=" $a" ;; esac; done
  printf '%s\n' "$line"
  "$SMALL" "$@"
}
# Echo a shell line, then run it.
sh_run() { printf '$ %s\n' "$1"; sh -c "$1"; }

step "An agent session in $WS"
cd "$WS"
run init --intent "Add a --version flag to the greeter CLI" --no-agents
printf '# The whole plan in one call (each flag repeats; one logged, all-or-nothing change).\n'
run plan --title task-1 "Review the repository layout" --add "Parse the --version flag" \
  --add "Print the version string" --depends task-3:task-2
run checkpoint --task task-1 --status completed --evidence "Repository layout reviewed"
run checkpoint --task task-2 --status in_progress --evidence "Started on flag parsing"
printf '$ small progress add --task task-22 ...   # a typo: refused, nothing written\n'
"$SMALL" progress add --task task-22 --status completed --evidence "typo" || echo "(exit code $?)"
run checkpoint --task task-2 --status completed --evidence "--version parsed" --test "ctest -R version"
run progress add --task task-3 --status in_progress --evidence "Printing wired up; tests still to write"
printf '# Mid-task: the handoff is written anyway and names task-3 (D13).\n'
run handoff --summary "Flag parsed; printing half done"
printf '# What the next session reads first: the primer, ending with the one step to take.\n'
run status --brief

step "Inspecting the workspace"
run check --strict
run verify --strict
run replay-id
printf '\nThe end of the progress log (append-only; entries carry the run replay id):\n'
tail -n 12 "$S/progress.small.yml"

step "Breaking the log by hand, and undoing it with git"
# What the README shows: commit .small/ first, so that git can put it back.
sh_run "git init -q && git add .small && git -c user.name=small-demo -c user.email=demo@example.invalid -c commit.gpgsign=false commit -qm 'The demo workspace'"
printf '# An entry loses its evidence (a hand edit: the log is append-only, small never does this).\n'
sh_run "sed -i '/evidence: \"Printing wired up/d' .small/progress.small.yml"
rc=0
printf '$ small check --strict\n'
out="$("$SMALL" check --strict 2>&1)" || rc=$?
printf '%s\n(exit code %s)\n' "$out" "$rc"
sh_run "git checkout -- .small/"
after=0
run check --strict || after=$?

step "Result"
if [ "$rc" -eq 1 ] && [ "$after" -eq 0 ]; then
  echo "small check --strict rejected the broken log, as expected, and passed once git restored it."
  if ! grep -qE 'progress\.small\.yml:[0-9]+:[0-9]+' <<<"$out"; then
    echo "note: the message did not name progress.small.yml:line:column" >&2
  fi
else
  echo "unexpected: small check --strict exited $rc on the broken log (expected 1) and $after after git checkout (expected 0)" >&2
  exit 1
fi
