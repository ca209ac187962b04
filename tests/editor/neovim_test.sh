#!/usr/bin/env bash
# `small lsp` in a real editor: Debian's Neovim, headless, with the
# configuration docs/editors.md shows (tests/editor/small_lsp.lua, held
# equal to the docs here), opens a plan, breaks it without saving, and
# checks the diagnostic, a hover, a definition jump, a completion and the
# quick fix (tests/editor/neovim_test.lua). The buffer and its diagnostic as
# text are kept in OUT_DIR/neovim-diagnostics.txt; with tmux, the same edit
# is made in Neovim on a terminal and the screen kept in
# OUT_DIR/neovim-screen.txt (docs/editors.md shows one).
# Usage: neovim_test.sh SMALL_BINARY OUT_DIR
set -euo pipefail
SMALL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
OUT="$2"
HERE="$(cd "$(dirname "$0")" && pwd)"
NVIM="$(command -v nvim || true)"
if [ -z "$NVIM" ]; then
  [ "${CI:-}" != "true" ] || { echo "FAIL: nvim not found (scripts/setup.sh installs neovim with the tests)"; exit 1; }
  echo "SKIP: nvim not found"; exit 77
fi
# The docs show the configuration this test runs.
python3 - "$HERE/small_lsp.lua" "$HERE/../../docs/editors.md" <<'PY' || { echo "FAIL: docs/editors.md does not show tests/editor/small_lsp.lua"; exit 1; }
import sys
config, docs = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
sys.exit(0 if "```lua\n" + config + "```" in docs else 1)
PY
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT" "$TMP/ws" "$TMP/home"
cd "$TMP/ws"
"$SMALL" init --intent "Ship the greeter" --no-agents >/dev/null
"$SMALL" plan --title task-1 "Parse the flags" --add "Print the greeting" >/dev/null
"$SMALL" plan --depends task-2:task-1 >/dev/null
"$SMALL" checkpoint --task task-1 --status in_progress --evidence "unit tests pass" >/dev/null
"$SMALL" handoff >/dev/null
"$SMALL" check --strict >/dev/null
cp .small/plan.small.yml "$TMP/plan.before"
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" XDG_DATA_HOME="$TMP/home/.local/share" \
       XDG_STATE_HOME="$TMP/home/.local/state" XDG_CACHE_HOME="$TMP/home/.cache"
export SMALL_PLAN="$TMP/ws/.small/plan.small.yml" SMALL_SCREEN="$OUT/neovim-diagnostics.txt"
status=0
timeout 60 "$NVIM" --headless -u NONE -i NONE -n --cmd "let g:small_binary = '$SMALL'" \
  -c "luafile $HERE/small_lsp.lua" -c "luafile $HERE/neovim_test.lua" >"$TMP/nvim.out" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$TMP/nvim.out"
  echo "FAIL: neovim exited $status"
  exit 1
fi
cmp -s "$SMALL_PLAN" "$TMP/plan.before" || { echo "FAIL: the plan on disk changed; the edits were never saved"; exit 1; }
grep -q 'INV-P8' "$SMALL_SCREEN" || { echo "FAIL: no diagnostic in $SMALL_SCREEN"; exit 1; }

# The screen a user sees: Neovim on a terminal (tmux), the plan edited without saving, the
# diagnostic shown beside its line.
if command -v tmux >/dev/null; then
  SOCKET="small-lsp-test-$$"
  trap 'tmux -L "$SOCKET" kill-server 2>/dev/null || true; rm -rf "$TMP"' EXIT
  tmux -L "$SOCKET" -f /dev/null new-session -d -x 100 -y 16 \
    "$NVIM -u NONE -i NONE -n --cmd \"let g:small_binary = '$SMALL'\" -c 'luafile $HERE/small_lsp.lua' -c 'edit .small/plan.small.yml'"
  shown=""
  for _ in $(seq 1 150); do
    shown="$(tmux -L "$SOCKET" capture-pane -p 2>/dev/null || true)"
    grep -q 'plan.small.yml' <<<"$shown" && break
    sleep 0.1
  done
  tmux -L "$SOCKET" send-keys ':%s/"pending"/"pendng"/' Enter
  for _ in $(seq 1 150); do
    shown="$(tmux -L "$SOCKET" capture-pane -p 2>/dev/null || true)"
    grep -q 'is not a plan status' <<<"$shown" && break
    sleep 0.1
  done
  grep -q 'is not a plan status' <<<"$shown" || { echo "$shown"; echo "FAIL: Neovim on a terminal shows no diagnostic"; exit 1; }
  printf '%s\n' "$shown" > "$OUT/neovim-screen.txt"
  cat "$OUT/neovim-screen.txt"
elif [ "${CI:-}" = "true" ]; then
  echo "FAIL: tmux not found (scripts/setup.sh installs it with the tests)"; exit 1
fi
echo "neovim: diagnostics, hover, definition, completion and the quick fix pass"
