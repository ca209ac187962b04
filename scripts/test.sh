#!/usr/bin/env bash
# Builds `small` and its tests (scripts/setup.sh) and runs the whole ctest suite:
# GoogleTest unit and e2e tests and, when ../shared is beside the checkout, the
# conformance categories registered by tests/CMakeLists.txt.
#
#   scripts/test.sh [extra ctest args...]     (SMALL_SKIP_SETUP=1 to reuse build/)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "${SMALL_SKIP_SETUP:-0}" != "1" ]; then
  SMALL_SETUP_TESTS=1 scripts/setup.sh -DSMALL_BUILD_TESTS=ON -DSMALL_BUILD_BENCH=ON
fi
echo "[test] ctest --test-dir build --output-on-failure -j2 $*"
ctest --test-dir build --output-on-failure -j2 "$@"
