#!/usr/bin/env bash
# Installs small for the GitHub Action (action.yml) and the pre-commit hooks: the release archive
# of THIS source tree's version, verified by checksum, else a build from this tree.
#
#   scripts/action-install.sh cache-key     print the cache key of the install (for actions/cache)
#   scripts/action-install.sh install       install into SMALL_INSTALL_DIR (bin/small, share/...)
#
# install: 1. SMALL_INSTALL_DIR/bin/small already of this version (a restored cache) is kept;
# 2. else SMALL_RELEASE_URL/small-<version>-linux-<arch>.tar.gz is downloaded with its .sha256
#    beside it, checked against it (and against SMALL_ARCHIVE_SHA256 when set), then against the
#    SHA256SUMS inside, and unpacked; 3. else (no archive, HTTP error, checksum mismatch) a notice
#    says why and scripts/setup.sh builds it (SMALL_BUILD_COMMAND replaces that command: it runs
#    with SMALL_BUILD_DIR set and must leave SMALL_BUILD_DIR/small).
# SMALL_RELEASE_URL defaults to the action repository's GitHub release v<version>
# (SMALL_SERVER_URL/SMALL_ACTION_REPOSITORY, the repository read from the action's path when
# empty). Under GitHub Actions the way it went is written to GITHUB_OUTPUT (source=cache|release|
# build) and the bin folder to GITHUB_PATH. docs/ci.md describes it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="$(bash "$ROOT/scripts/version.sh")"
ARCH="$(uname -m)"
NAME="small-$VERSION-linux-$ARCH"

log() { printf '[small-install] %s\n' "$*" >&2; }
# A GitHub annotation under Actions, a plain line elsewhere; the text is ours or a URL we built.
notice() {
  if [ -n "${GITHUB_ACTIONS:-}" ]; then printf '::notice title=small install::%s\n' "$*"; else log "notice: $*"; fi
}
die() { printf '[small-install] error: %s\n' "$*" >&2; exit 1; }

# The OS image (runner.os, the hosted image's name and version, /etc/os-release), the machine,
# the version and a digest of the sources a fallback build compiles.
cache_key() {
  local os_release="" digest
  if [ -r /etc/os-release ]; then
    os_release="$(. /etc/os-release && printf '%s%s' "${ID:-}" "${VERSION_ID:-}")"
  fi
  # The sources, and where the install may come from: a new release-url or archive-sha256 pin
  # is a new key, so an install cached before a pin is never used under it.
  digest="$( { (cd "$ROOT" && find CMakeLists.txt cmake src include schemas scripts -type f 2>/dev/null |
                LC_ALL=C sort | xargs -d '\n' sha256sum)
              printf 'release-url=%s\narchive-sha256=%s\n' "${SMALL_RELEASE_URL:-}" "${SMALL_ARCHIVE_SHA256:-}"; } |
            sha256sum | cut -c1-16)"
  printf 'small-%s-%s-%s-%s-%s-v%s-%s\n' "${RUNNER_OS:-$(uname -s)}" "${ImageOS:-none}" \
    "${ImageVersion:-none}" "${os_release:-unknown}" "$ARCH" "$VERSION" "$digest" | tr -c 'A-Za-z0-9._\n-' '_'
}

# owner/name of the action's repository: given, or from the runner's _actions/OWNER/NAME/REF path.
action_repository() {
  if [ -n "${SMALL_ACTION_REPOSITORY:-}" ]; then printf '%s' "$SMALL_ACTION_REPOSITORY"; return; fi
  case "$ROOT" in
    */_actions/*/*/*) local rest="${ROOT#*/_actions/}"; printf '%s' "$(cut -d/ -f1-2 <<<"$rest")" ;;
  esac
}

release_url() {
  if [ -n "${SMALL_RELEASE_URL:-}" ]; then printf '%s' "${SMALL_RELEASE_URL%/}"; return; fi
  local repo
  repo="$(action_repository)"
  [ -n "$repo" ] || return 0
  printf '%s/%s/releases/download/v%s' "${SMALL_SERVER_URL:-https://github.com}" "$repo" "$VERSION"
}

# download URL FILE: 0, or 1 with the reason on stdout.
download() {
  local err
  if command -v curl >/dev/null 2>&1; then
    err="$(curl -fsSL --retry 2 --connect-timeout 20 --max-time 300 -o "$2" "$1" 2>&1)" && return 0
  elif command -v wget >/dev/null 2>&1; then
    err="$(wget -q -T 60 -O "$2" "$1" 2>&1)" && return 0
  else
    err="neither curl nor wget is installed"
  fi
  printf '%s' "${err:-download failed}" | tr '\n' ' ' | cut -c1-200
  return 1
}

installed_version_ok() {
  [ -x "$1/bin/small" ] && [ "$("$1/bin/small" --version 2>/dev/null | head -1)" = "small v$VERSION" ]
}

# try_release DEST: the verified archive unpacked into DEST, or 1 with a notice saying why not.
try_release() {
  local dest="$1" url tmp why expected actual
  url="$(release_url)"
  if [ -z "$url" ]; then
    notice "no release host known (no release-url, SMALL_RELEASE_URL or GitHub repository): building small v$VERSION from source"
    return 1
  fi
  tmp="$(mktemp -d)"
  if ! why="$(download "$url/$NAME.tar.gz" "$tmp/$NAME.tar.gz")" ||
     ! why="$(download "$url/$NAME.tar.gz.sha256" "$tmp/sum")"; then
    notice "no release archive $NAME.tar.gz at $url ($why): building small v$VERSION from source"
    rm -rf "$tmp"; return 1
  fi
  expected="$(head -c 64 "$tmp/sum" | tr 'A-F' 'a-f')"
  actual="$(sha256sum "$tmp/$NAME.tar.gz" | cut -d' ' -f1)"
  if [ "$expected" != "$actual" ] || { [ -n "${SMALL_ARCHIVE_SHA256:-}" ] && [ "$SMALL_ARCHIVE_SHA256" != "$actual" ]; }; then
    notice "checksum mismatch for $url/$NAME.tar.gz (sha256 $actual): refusing it, building small v$VERSION from source"
    rm -rf "$tmp"; return 1
  fi
  # Every entry inside the one folder, no link or name leaving it.
  if tar -tzf "$tmp/$NAME.tar.gz" | grep -v -e "^$NAME/" -e '^$' | grep -q . ||
     tar -tzf "$tmp/$NAME.tar.gz" | grep -q -e '\.\./' -e '/\.\.$'; then
    notice "$NAME.tar.gz has entries outside $NAME/: refusing it, building small v$VERSION from source"
    rm -rf "$tmp"; return 1
  fi
  mkdir -p "$tmp/x"
  if ! tar -xzf "$tmp/$NAME.tar.gz" -C "$tmp/x" --no-same-owner ||
     ! (cd "$tmp/x/$NAME" && sha256sum --quiet --strict -c SHA256SUMS >/dev/null 2>&1) ||
     ! installed_version_ok "$tmp/x/$NAME"; then
    notice "$NAME.tar.gz does not match its SHA256SUMS or does not run here: building small v$VERSION from source"
    rm -rf "$tmp"; return 1
  fi
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  mv "$tmp/x/$NAME" "$dest"
  rm -rf "$tmp"
  log "installed $NAME from $url (sha256 $actual)"
}

build_from_source() {
  local dest="$1"
  local build_dir="${SMALL_BUILD_DIR:-$dest.build}"
  log "building small v$VERSION from $ROOT into $build_dir"
  if [ -n "${SMALL_BUILD_COMMAND:-}" ]; then
    SMALL_BUILD_DIR="$build_dir" bash -c "$SMALL_BUILD_COMMAND" >&2
  else
    SMALL_BUILD_DIR="$build_dir" bash "$ROOT/scripts/setup.sh" >&2
  fi
  [ -x "$build_dir/small" ] || die "the build left no $build_dir/small"
  rm -rf "$dest"
  mkdir -p "$dest/bin"
  cp "$build_dir/small" "$dest/bin/small"
  ln -s small "$dest/bin/git-merge-small"
  installed_version_ok "$dest" || die "the built small is not v$VERSION"
}

install() {
  local dest="${SMALL_INSTALL_DIR:?SMALL_INSTALL_DIR names the install folder}" source
  if installed_version_ok "$dest"; then
    source=cache
    log "small v$VERSION already in $dest"
  elif try_release "$dest"; then
    source=release
  else
    build_from_source "$dest"
    source=build
  fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "source=$source" >> "$GITHUB_OUTPUT"; fi
  if [ -n "${GITHUB_PATH:-}" ]; then echo "$dest/bin" >> "$GITHUB_PATH"; fi
  log "small v$VERSION ($source): $dest/bin/small"
}

case "${1:-}" in
  cache-key)
    key="$(cache_key)"
    if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "key=$key" >> "$GITHUB_OUTPUT"; fi
    printf '%s\n' "$key" ;;
  install) install ;;
  *) die "usage: scripts/action-install.sh cache-key|install" ;;
esac
