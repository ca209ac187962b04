#!/usr/bin/env bash
# Installs what `small` needs on Debian bookworm and builds it into build/.
#
#   scripts/setup.sh [extra cmake configure args...]
#
# By default only what building and running `small` needs is installed, and the build
# configures no test or benchmark targets (first contact: scripts/demo.sh). SMALL_SETUP_TESTS=1
# (scripts/test.sh sets it) also installs the test-only packages and the MCP SDK client, and
# builds the tests. Idempotent: packages already installed are skipped, and apt-get update runs only
# when something is missing, so a repeated run is fast and works offline.
# Environment: SMALL_SKIP_DEPS=1 skips the dependency step, SMALL_SETUP_DEPS_ONLY=1 stops after
# it; SMALL_BUILD_DIR (default build);
# SMALL_PRINT_PACKAGES=1 prints the Debian packages this run would need, one a line, and exits.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${SMALL_BUILD_DIR:-build}"

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

WITH_TESTS="${SMALL_SETUP_TESTS:-0}"

# Debian packages (valijson is handled separately below): building and running small.
PACKAGES=(g++ make cmake pkg-config libfyaml-dev nlohmann-json3-dev libcli11-dev nettle-dev
          libgit2-dev libxxhash-dev libcpp-httplib-dev git python3)
# Test-only: GoogleTest; bash-completion, zsh and fish (the completion tests load `small
# completion <shell>` in each); dpkg-dev (dpkg-shlibdeps for CPack's Depends), lintian,
# man-db and groff-base (the package.deb test builds the .deb, lints it and renders its
# manual pages); pre-commit and python3-yaml (tests/ci: the pre-commit hooks file under
# the real framework, action.yml's steps run as GitHub's runner would); tmux (the board
# on a real terminal); libgvc6 (Graphviz, which `graph --format svg` and the report load
# with dlopen: optional at run time, so not in the first list); chromium (the report in
# a real browser); neovim (`small lsp` in a real editor, tests/editor); debootstrap (the release archive run in a clean Debian root); curl
# (scripts/action-install.sh downloads the archive in the Action and pre-commit tests).
# tests/check_setup_packages.sh keeps them out of the first list.
TEST_PACKAGES=(libgtest-dev bash-completion zsh fish dpkg-dev lintian man-db groff-base pre-commit python3-yaml
               tmux libgvc6 chromium neovim debootstrap curl)
if [ "$WITH_TESTS" = "1" ]; then PACKAGES+=("${TEST_PACKAGES[@]}"); fi
if [ "${SMALL_PRINT_PACKAGES:-0}" = "1" ]; then printf '%s\n' "${PACKAGES[@]}"; exit 0; fi

TMP_DIR=""
trap '[ -z "$TMP_DIR" ] || rm -rf "$TMP_DIR"' EXIT

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
fi
export DEBIAN_FRONTEND=noninteractive

is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

APT_UPDATED=0
apt_update_once() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    "${SUDO[@]}" apt-get update -qq
    APT_UPDATED=1
  fi
}

install_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    log "dpkg not found: not a Debian system, skipping package installation"
    return
  fi
  local missing=()
  for p in "${PACKAGES[@]}"; do
    is_installed "$p" || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "packages: all present"
    return
  fi
  if [ "$(id -u)" -ne 0 ] && [ "${#SUDO[@]}" -eq 0 ]; then
    die "missing packages (${missing[*]}) and not root and no sudo: install them and rerun"
  fi
  apt_update_once
  log "apt-get install ${missing[*]}"
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# valijson is header-only; Debian's libvalijson-dev Depends on Qt, Poco and more, so
# instead of installing it we unpack its .deb into .deps/ (CMakeLists looks there).
install_valijson() {
  local dest="$ROOT/.deps"
  if [ -f "$dest/usr/include/valijson/validator.hpp" ]; then
    log "valijson: present in .deps/"
    return
  fi
  if [ -f /usr/include/valijson/validator.hpp ]; then
    log "valijson: present in /usr/include"
    return
  fi
  command -v dpkg-deb >/dev/null 2>&1 || die "valijson headers missing and dpkg-deb unavailable"
  local tmp deb="" f
  tmp="$(mktemp -d)"
  TMP_DIR="$tmp"
  for f in /var/cache/apt/archives/libvalijson-dev_*_all.deb; do if [ -f "$f" ]; then deb="$f"; fi; done
  if [ -z "$deb" ]; then
    log "valijson: apt-get download libvalijson-dev"
    if ! (cd "$tmp" && apt-get download libvalijson-dev >"$tmp/log" 2>&1); then
      apt_update_once
      (cd "$tmp" && apt-get download libvalijson-dev >"$tmp/log" 2>&1) ||
        { cat "$tmp/log" >&2; die "could not download libvalijson-dev"; }
    fi
    for f in "$tmp"/libvalijson-dev_*.deb; do if [ -f "$f" ]; then deb="$f"; fi; done
    [ -n "$deb" ] || die "apt-get download produced no libvalijson-dev .deb"
  else
    log "valijson: using cached $(basename "$deb")"
  fi
  mkdir -p "$tmp/x"
  dpkg-deb -x "$deb" "$tmp/x"
  [ -f "$tmp/x/usr/include/valijson/validator.hpp" ] || die "unexpected layout in $(basename "$deb")"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp -a "$tmp/x/usr" "$dest/"
  rm -rf "$tmp"
  TMP_DIR=""
  log "valijson: headers unpacked into .deps/usr/include"
}

# The tests driven by test-only npm packages, each with its own lock file:
# tests/mcp-client runs `small mcp` under the official MCP TypeScript SDK, and
# tests/sarif validates `--format sarif` against the SARIF 2.1.0 schema.
# Node.js comes from Debian (nodejs/npm) when no node is on PATH. A folder
# whose node_modules already matches its lock file is skipped; when npm cannot
# reach the registry, an existing node_modules is kept. Under CI=true a
# missing package is an error (the tests must run there).
ensure_npm() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if command -v dpkg-query >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ "${#SUDO[@]}" -gt 0 ]; }; then
      apt_update_once
      log "apt-get install nodejs npm"
      "${SUDO[@]}" apt-get install -y -qq --no-install-recommends nodejs npm
    fi
  fi
}

# install_npm_client FOLDER PACKAGE: `npm ci` in tests/FOLDER, whose tests
# need node_modules/PACKAGE.
install_npm_client() {
  local name="$1" package="$2"
  local dir="$ROOT/tests/$name"
  if ! command -v npm >/dev/null 2>&1; then
    [ "${CI:-}" != "true" ] || die "npm not found: tests/$name needs Node.js >= 18 and npm"
    log "$name: npm not found; its test will be skipped"
    return
  fi
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    log "$name: node_modules up to date"
    return
  fi
  log "$name: npm ci in tests/$name"
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error); then
    if [ -d "$dir/node_modules/$package" ]; then
      log "$name: npm ci failed (offline?); keeping the existing node_modules"
    elif [ "${CI:-}" = "true" ]; then
      die "npm ci failed in tests/$name"
    else
      log "$name: npm ci failed; its test will be skipped"
    fi
  fi
}

install_npm_clients() {
  ensure_npm
  install_npm_client mcp-client @modelcontextprotocol/sdk
  install_npm_client sarif @microsoft/jest-sarif
  install_npm_client serve-browser playwright-core
}

if [ "${SMALL_SKIP_DEPS:-0}" != "1" ]; then
  install_packages
  install_valijson
  if [ "$WITH_TESTS" = "1" ]; then install_npm_clients; fi
fi
if [ "${SMALL_SETUP_DEPS_ONLY:-0}" = "1" ]; then log "dependencies done (SMALL_SETUP_DEPS_ONLY)"; exit 0; fi

JOBS="$(nproc 2>/dev/null || echo 2)"
log "cmake configure ($BUILD_DIR, Release)"
mkdir -p "$BUILD_DIR"
SCOPE=()  # without the tests, configure no test or benchmark targets (GoogleTest may be absent)
if [ "$WITH_TESTS" != "1" ]; then SCOPE=(-DSMALL_BUILD_TESTS=OFF -DSMALL_BUILD_BENCH=OFF); fi
# SMALL_LINK_STATIC: a portable binary that starts faster (the distribution build, CMake's
# default, links the system's shared libraries; the .deb is made from that one).
if ! cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DSMALL_LINK_STATIC=ON "${SCOPE[@]}" "$@" \
    >"$BUILD_DIR/configure.log" 2>&1; then
  cat "$BUILD_DIR/configure.log" >&2
  die "cmake configure failed (log: $BUILD_DIR/configure.log)"
fi
log "cmake build -j$JOBS"
cmake --build "$BUILD_DIR" -j"$JOBS"
log "done: $BUILD_DIR/small"
