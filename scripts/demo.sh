#!/usr/bin/env bash
# A short tour of `small`: build it, write a valid SMALL workspace by hand, inspect it,
# then break it and watch `small check --strict` point at the defect.
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
mkdir -p "$S"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then B=$'\033[1m' N=$'\033[0m'; else B="" N=""; fi
step() { printf '\n%s== %s%s\n' "$B" "$*" "$N"; }
run() { printf '$ small %s\n' "$*"; "$SMALL" "$@"; }

step "Writing a workspace in $WS"

cat >"$S/intent.small.yml" <<'EOF'
small_version: "1.0.0"
owner: "human"
intent: "Add a --version flag to the greeter CLI"
scope:
  include:
    - "src/**"
    - "tests/**"
  exclude:
    - "vendor/**"
success_criteria:
  - "greeter --version prints the version and exits 0"
  - "unit tests pass"
EOF

cat >"$S/constraints.small.yml" <<'EOF'
small_version: "1.0.0"
owner: "human"
constraints:
  - id: "no-secrets"
    rule: "No secrets in .small artifacts"
    severity: "error"
  - id: "tests-green"
    rule: "Every completed task is backed by a passing test run"
    severity: "warn"
EOF

cat >"$S/plan.small.yml" <<'EOF'
small_version: "1.0.0"
owner: "agent"
tasks:
  - id: "task-1"
    title: "Parse the --version flag"
    status: "completed"
    acceptance:
      - "flag is recognised"
  - id: "task-2"
    title: "Print the version string"
    status: "in_progress"
    depends_on: ["task-1"]
EOF

cat >"$S/workspace.small.yml" <<'EOF'
small_version: "1.0.0"
owner: "agent"
kind: "repo-root"
created_at: "2025-06-01T10:00:00.000000000Z"
EOF

step "Computing the replay id of intent + constraints + plan"
RID="$("$SMALL" replay-id --dir "$WS" | grep -oE '[0-9a-fA-F]{64}' | head -n 1 || true)"
[ -n "$RID" ] || { echo "demo: small replay-id printed no id" >&2; exit 1; }
echo "replay id: $RID"

cat >"$S/workspace.small.yml" <<EOF
small_version: "1.0.0"
owner: "agent"
kind: "repo-root"
created_at: "2025-06-01T10:00:00.000000000Z"
updated_at: "2025-06-01T10:20:00.000000000Z"
run:
  replay_id: "$RID"
EOF

cat >"$S/progress.small.yml" <<EOF
small_version: "1.0.0"
owner: "agent"
entries:
  - timestamp: "2025-06-01T10:00:00.100000000Z"
    task_id: "meta/init"
    status: "completed"
    evidence: "Initialized .small workspace"
    command: "small init"
  - timestamp: "2025-06-01T10:05:00.250000000Z"
    task_id: "task-1"
    status: "in_progress"
    evidence: "Started on flag parsing"
    replayId: "$RID"
  - timestamp: "2025-06-01T10:15:00.500000000Z"
    task_id: "task-1"
    status: "completed"
    evidence: "--version parsed; unit tests pass"
    test: "ctest -R version"
    commit: "3f2a9c1"
    replayId: "$RID"
  - timestamp: "2025-06-01T10:16:00.000000001Z"
    task_id: "task-2"
    status: "in_progress"
    evidence: "Version string wired to SMALL_VERSION"
    replayId: "$RID"
EOF

cat >"$S/handoff.small.yml" <<EOF
small_version: "1.0.0"
owner: "agent"
summary: "Flag parsing done; printing the version is in progress."
resume:
  current_task_id: "task-2"
  next_steps:
    - "Print the version and add a test"
links:
  - url: "https://example.com/greeter/issues/12"
    description: "Feature request"
replayId:
  value: "$RID"
  source: "auto"
EOF

(cd "$WS" && find .small -type f | sort)

step "Inspecting the valid workspace"
run validate --dir "$WS"
run lint --strict --dir "$WS"
run replay-id --dir "$WS"
run check --strict --dir "$WS"

step "Introducing a defect: a progress timestamp without fractional seconds"
cat >>"$S/progress.small.yml" <<EOF
  - timestamp: "2025-06-01T10:20:00Z"
    task_id: "task-2"
    status: "in_progress"
    evidence: "Added a test for --version"
    replayId: "$RID"
EOF
tail -n 5 "$S/progress.small.yml"
echo
rc=0
printf '$ small check --strict --dir %s\n' "$WS"
out="$("$SMALL" check --strict --dir "$WS" 2>&1)" || rc=$?
printf '%s\n(exit code %s)\n' "$out" "$rc"

step "Result"
if [ "$rc" -eq 1 ]; then
  echo "small check --strict rejected the broken workspace, as expected."
  if ! grep -qE 'progress\.small\.yml:[0-9]+:[0-9]+' <<<"$out"; then
    echo "note: the message did not name progress.small.yml:line:column" >&2
  fi
else
  echo "unexpected: small check --strict exited $rc on the broken workspace (expected 1)" >&2
  exit 1
fi
