#!/usr/bin/env bash
# The entry of the pre-commit framework's hooks (.pre-commit-hooks.yaml, language: script):
#
#   scripts/pre-commit-hook.sh SMALL_ARGS...
#
# runs `small SMALL_ARGS...` with the small of this hook repository's version: the one on PATH
# when it is that version, else one installed once into this clone (.small-hook/, the
# framework's own copy of the repository): the release archive verified by checksum, or a
# build when there is none (scripts/action-install.sh). The release host is SMALL_RELEASE_URL,
# else the GitHub release v<version> of the repository this clone came from. docs/ci.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="$(bash "$ROOT/scripts/version.sh")"

if command -v small >/dev/null 2>&1 && [ "$(small --version 2>/dev/null | head -1)" = "small v$VERSION" ]; then
  exec small "$@"
fi

DEST="$ROOT/.small-hook"
# owner/name of a GitHub clone (https or ssh origin), for the default release host.
github_repository() {
  local url
  url="$(git -C "$ROOT" remote get-url origin 2>/dev/null)" || return 0
  case "$url" in
    https://github.com/*|git@github.com:*|ssh://git@github.com/*)
      url="${url#https://github.com/}"; url="${url#git@github.com:}"; url="${url#ssh://git@github.com/}"
      printf '%s' "${url%.git}" ;;
  esac
}

if ! [ -x "$DEST/install/bin/small" ] || [ "$("$DEST/install/bin/small" --version 2>/dev/null | head -1)" != "small v$VERSION" ]; then
  mkdir -p "$DEST"
  # One install at a time (two hooks may start together); the installer keeps a finished one.
  exec 9>"$DEST/lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  # Not a GitHub Action here, even inside one: no step outputs or PATH of the job are touched.
  env -u GITHUB_OUTPUT -u GITHUB_PATH \
      SMALL_INSTALL_DIR="$DEST/install" SMALL_BUILD_DIR="$DEST/build" \
      SMALL_ACTION_REPOSITORY="${SMALL_ACTION_REPOSITORY:-$(github_repository)}" \
      bash "$ROOT/scripts/action-install.sh" install
  exec 9>&-
fi
exec "$DEST/install/bin/small" "$@"
