#!/usr/bin/env bash
# Prints the version of the small source tree this script is in, from CMakeLists.txt's
# project(small VERSION x.y.z): the release archive's name, the version the Action and the
# pre-commit hooks install (scripts/action-install.sh, scripts/pre-commit-hook.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$(sed -n 's/^project(small VERSION \([0-9][0-9.]*\)[ )].*/\1/p' "$ROOT/CMakeLists.txt" | head -1)"
[ -n "$version" ] || { echo "no project(small VERSION ...) in $ROOT/CMakeLists.txt" >&2; exit 1; }
printf '%s\n' "$version"
