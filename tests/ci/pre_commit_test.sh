#!/usr/bin/env bash
# The repository's .pre-commit-hooks.yaml under the real pre-commit framework
# (Debian's pre-commit), with NO small on PATH: a .pre-commit-config.yaml naming
# a local clone of the hooks runs the small-check hook in a fresh repository
# (`pre-commit run`; try-repo would keep no install); the hook installs small of the hook
# repository's version into the framework's clone from the release archive
# (scripts/release.sh's, served by python3 -m http.server on 127.0.0.1 as the
# release host, verified by checksum), then passes on a clean workspace and
# fails, naming the finding, on a broken one; files outside .small/ do not run
# it. A small of that version on PATH is used instead; one of another version is not.
# Usage: pre_commit_test.sh SOURCE_DIR SMALL_BINARY
set -euo pipefail
SOURCE="$1"
SMALL="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
skip() {
  [ "${CI:-}" != "true" ] || { echo "FAIL: $* (scripts/setup.sh installs it with the tests)"; exit 1; }
  echo "SKIP: $* (scripts/setup.sh installs it with the tests)"; exit 77
}
command -v pre-commit >/dev/null 2>&1 || skip "pre-commit not found"
command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || skip "neither curl nor wget found"

TMP="$(mktemp -d)"
SERVER=""
trap '[ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null; rm -rf "$TMP"' EXIT
fail() { printf 'FAIL: %b\n' "$*"; exit 1; }

# The release host: the real archive of the built binary.
bash "$SOURCE/scripts/release.sh" "$SMALL" "$TMP/host" >"$TMP/release.log" 2>&1 || { cat "$TMP/release.log"; fail "scripts/release.sh"; }
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server --bind 127.0.0.1 --directory "$TMP/host" "$PORT" >"$TMP/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null && break
  sleep 0.1
done

BIN="$TMP/bin"
mkdir -p "$BIN" "$TMP/repo"
export PATH="$BIN:/usr/bin:/bin" HOME="$TMP" GIT_CONFIG_NOSYSTEM=1 SMALL_RELEASE_URL="http://127.0.0.1:$PORT"
export PRE_COMMIT_HOME="$TMP/cache"
if command -v small >/dev/null 2>&1; then fail "small is on PATH: $(command -v small)"; fi
git config --global user.email t@example.com
git config --global user.name t
git config --global init.defaultBranch main

# The framework clones the hooks repository: a commit of the hooks file and the scripts it runs.
HOOKS="$TMP/hooks"
mkdir -p "$HOOKS"
cp -r "$SOURCE/.pre-commit-hooks.yaml" "$SOURCE/CMakeLists.txt" "$SOURCE/scripts" "$HOOKS/"
git -C "$HOOKS" init -q && git -C "$HOOKS" add -A && git -C "$HOOKS" commit -q -m hooks

cd "$TMP/repo"
git init -q
"$SMALL" init --intent "pre-commit test" --no-agents >/dev/null
echo hello > README
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $HOOKS
    rev: $(git -C "$HOOKS" rev-parse HEAD)
    hooks:
      - id: small-check
YAML
git add -A

out="$(pre-commit run small-check --all-files 2>&1)" || fail "clean workspace failed:\n$out"
grep -q "small check --strict.*Passed" <<<"$out" || fail "hook did not pass:\n$out"
installed="$(find "$PRE_COMMIT_HOME" -path '*/.small-hook/install/bin/small' | head -1)"
[ -n "$installed" ] || fail "the hook installed no small into the framework's clone"
[ ! -e "$(dirname "$installed")/../../build" ] || fail "the hook built small instead of installing the archive"
cmp -s "$installed" <(tar -xzOf "$TMP"/host/small-*.tar.gz --wildcards '*/bin/small') ||
  fail "the installed small is not the archive's"

sed -i 's/owner: "agent"/owner: "human"/' .small/plan.small.yml
git add -A
if out="$(pre-commit run small-check --all-files 2>&1)"; then fail "broken workspace passed:\n$out"; fi
grep -q "small check --strict.*Failed" <<<"$out" || fail "hook did not fail:\n$out"
grep -q "plan.small.yml:2:" <<<"$out" || fail "the finding is not named:\n$out"

out="$(pre-commit run small-check --files README 2>&1)" || fail "README alone ran the hook:\n$out"
grep -q "small check --strict.*Skipped" <<<"$out" || fail "hook not skipped for README:\n$out"

# A small of the hook's version on PATH is used as it is; another version is not.
export PRE_COMMIT_HOME="$TMP/cache2"
printf '#!/bin/sh\ntouch "%s/used"\nexec "%s" "$@"\n' "$TMP" "$SMALL" > "$BIN/small"
chmod +x "$BIN/small"
if out="$(pre-commit run small-check --all-files 2>&1)"; then fail "broken workspace passed (small on PATH):\n$out"; fi
[ -e "$TMP/used" ] || fail "the small on PATH was not used:\n$out"
[ -z "$(find "$PRE_COMMIT_HOME" -path '*/.small-hook/install/bin/small')" ] || fail "installed although small is on PATH"
rm -f "$TMP/used"
printf '#!/bin/sh\ntouch "%s/used"\necho "small v0.0.1"\n' "$TMP" > "$BIN/small"
if out="$(pre-commit run small-check --all-files 2>&1)"; then fail "broken workspace passed (old small on PATH):\n$out"; fi
grep -q "plan.small.yml:2:" <<<"$out" || fail "an old small on PATH was used:\n$out"
[ -n "$(find "$PRE_COMMIT_HOME" -path '*/.small-hook/install/bin/small')" ] || fail "no install beside an old small on PATH"
echo "PASS: .pre-commit-hooks.yaml under pre-commit $(pre-commit --version | cut -d' ' -f2), small installed from the release archive"
