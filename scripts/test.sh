#!/usr/bin/env bash
# Builds `small` and its tests (scripts/setup.sh) and runs the whole ctest suite:
# GoogleTest unit and e2e tests and, when ../shared is beside the checkout, the
# conformance categories registered by tests/CMakeLists.txt.
#
#   scripts/test.sh [extra ctest args...]     (SMALL_SKIP_SETUP=1 to reuse build/)
#   scripts/test.sh --sanitize                the library, the CLI and the unit suite built
#                                             file by file (no unity batches) with AddressSanitizer
#                                             and UndefinedBehaviorSanitizer, warnings as errors, in
#                                             build-sanitize/, then the unit suite run; run it before
#                                             resolving an issue (docs/install.md, "Checks")
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [ "${1:-}" = "--sanitize" ]; then
  shift
  if [ "${SMALL_SKIP_SETUP:-0}" != "1" ]; then
    SMALL_SETUP_TESTS=1 SMALL_SETUP_DEPS_ONLY=1 scripts/setup.sh
  fi
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DSMALL_BUILD_TESTS=ON -DSMALL_BUILD_BENCH=OFF \
    -DSMALL_BUILD_DOCS=OFF -DSMALL_LAYER_LINK_CHECK=OFF -DSMALL_UNITY_BUILD=OFF -DSMALL_WERROR=ON \
    -DSMALL_SANITIZE=address,undefined
  start=$SECONDS
  cmake --build build-sanitize -j"$(nproc)" --target small small_unit_tests
  echo "[test] sanitize build: $((SECONDS - start)) s"
  start=$SECONDS
  # detect_leaks: the library keeps nothing it does not free, so a leak is a finding too
  # (tests/lsan.supp names the third-party libraries that keep caches until exit).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp" \
    UBSAN_OPTIONS=print_stacktrace=1 \
    build-sanitize/tests/small_unit_tests --gtest_brief=1 "$@"
  echo "[test] sanitize unit suite: $((SECONDS - start)) s"
  exit 0
fi

if [ "${SMALL_SKIP_SETUP:-0}" != "1" ]; then
  SMALL_SETUP_TESTS=1 scripts/setup.sh -DSMALL_BUILD_TESTS=ON -DSMALL_BUILD_BENCH=ON
fi
echo "[test] ctest --test-dir build --output-on-failure -j2 $*"
ctest --test-dir build --output-on-failure -j2 "$@"
