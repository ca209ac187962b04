#!/usr/bin/env bash
# The first-contact package list (scripts/setup.sh without SMALL_SETUP_TESTS, what
# scripts/demo.sh installs) holds no test-only package, and the test list holds them all.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
demo="$(SMALL_PRINT_PACKAGES=1 "$ROOT/scripts/setup.sh")"
tests="$(SMALL_PRINT_PACKAGES=1 SMALL_SETUP_TESTS=1 "$ROOT/scripts/setup.sh")"
status=0
for p in libgtest-dev googletest bash-completion zsh fish dpkg-dev lintian man-db groff-base nodejs npm pre-commit python3-yaml tmux libgvc6 chromium neovim debootstrap curl; do
  if grep -qx -- "$p" <<<"$demo"; then echo "test-only package $p is in the demo's list" >&2; status=1; fi
done
for p in $demo; do
  grep -qx -- "$p" <<<"$tests" || { echo "$p is in the demo's list but not the tests'" >&2; status=1; }
done
for p in libgtest-dev zsh fish lintian debootstrap; do
  grep -qx -- "$p" <<<"$tests" || { echo "the tests' list lacks $p" >&2; status=1; }
done
[ "$status" -ne 0 ] || echo "setup packages: demo $(wc -l <<<"$demo"), tests $(wc -l <<<"$tests")"
exit "$status"
