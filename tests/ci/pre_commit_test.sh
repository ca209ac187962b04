#!/usr/bin/env bash
# The repository's .pre-commit-hooks.yaml under the real pre-commit framework
# (Debian's pre-commit): `pre-commit try-repo` runs the small-check hook in a
# fresh repository, which passes on a clean workspace and fails, naming the
# finding, on a broken one; files outside .small/ do not run it.
# Usage: pre_commit_test.sh SOURCE_DIR SMALL_BINARY
set -euo pipefail
SOURCE="$1"
SMALL="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
command -v pre-commit >/dev/null 2>&1 || { echo "SKIP: pre-commit not found (scripts/setup.sh installs it with the tests)"; exit 77; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/bin"
mkdir -p "$BIN" "$TMP/repo"
ln -s "$SMALL" "$BIN/small"
export PATH="$BIN:$PATH" PRE_COMMIT_HOME="$TMP/cache" HOME="$TMP" GIT_CONFIG_NOSYSTEM=1
git config --global user.email t@example.com
git config --global user.name t
git config --global init.defaultBranch main

# try-repo clones the hooks repository: a commit of the source's hooks file.
HOOKS="$TMP/hooks"
mkdir -p "$HOOKS"
cp "$SOURCE/.pre-commit-hooks.yaml" "$HOOKS/"
git -C "$HOOKS" init -q && git -C "$HOOKS" add -A && git -C "$HOOKS" commit -q -m hooks

cd "$TMP/repo"
git init -q
small init --intent "pre-commit test" --no-agents >/dev/null
echo hello > README
git add -A

fail() { echo "FAIL: $*"; exit 1; }

out="$(pre-commit try-repo "$HOOKS" small-check --all-files 2>&1)" || fail "clean workspace failed:\n$out"
grep -q "small check --strict.*Passed" <<<"$out" || fail "hook did not pass:\n$out"

sed -i 's/owner: "agent"/owner: "human"/' .small/plan.small.yml
git add -A
if out="$(pre-commit try-repo "$HOOKS" small-check --all-files 2>&1)"; then fail "broken workspace passed:\n$out"; fi
grep -q "small check --strict.*Failed" <<<"$out" || fail "hook did not fail:\n$out"
grep -q "plan.small.yml:2:" <<<"$out" || fail "the finding is not named:\n$out"

out="$(pre-commit try-repo "$HOOKS" small-check --files README 2>&1)" || fail "README alone ran the hook:\n$out"
grep -q "small check --strict.*Skipped" <<<"$out" || fail "hook not skipped for README:\n$out"
echo "PASS: .pre-commit-hooks.yaml under pre-commit $(pre-commit --version | cut -d' ' -f2)"
