#!/usr/bin/env bash
# CTest `package.deb`: builds the Debian packages with CPack, checks their
# control fields, unpacks `small` with dpkg-deb -x and runs the packaged
# binary, renders every packaged manual page with man -l (no warnings), and
# runs lintian when it is installed (no errors or warnings; docs/install.md
# explains the informational tags that remain).
#   tests/package/deb_test.sh BUILD_DIR WORK_DIR
set -euo pipefail

BUILD_DIR="$1"
WORK="$2"
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK"
trap '[ -n "${SMALL_KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

# CPack writes its staging tree and the packages under -B, not into the build tree.
cpack -G DEB --config "$BUILD_DIR/CPackConfig.cmake" -B "$WORK/out" >"$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$WORK"/out/small_*.deb)
dev=$(ls "$WORK"/out/libsmall-dev_*.deb)
echo "built: $(basename "$deb") $(basename "$dev")"

field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$deb" Package)" = small ] || fail "package name"
[ "$(field "$deb" Section)" = devel ] || fail "section of small"
field "$deb" Depends | grep -q 'libc6' || fail "small does not declare libc6: $(field "$deb" Depends)"
# libgit2 is loaded with dlopen, so dpkg-shlibdeps cannot see it: it is declared by hand.
field "$deb" Depends | grep -q 'libgit2-' || fail "small does not declare libgit2: $(field "$deb" Depends)"
[ -n "$(field "$deb" Maintainer)" ] || fail "no maintainer"
[ "$(field "$dev" Package)" = libsmall-dev ] || fail "dev package name"
field "$dev" Depends | grep -q 'libfyaml-dev' || fail "libsmall-dev does not declare libfyaml-dev"
echo "small Depends: $(field "$deb" Depends)"

root="$WORK/root"
dpkg-deb -x "$deb" "$root"
small="$root/usr/bin/small"
"$small" --version | grep -q '^small v' || fail "packaged small --version"
ws="$WORK/ws"
mkdir -p "$ws"
"$small" --quiet init --dir "$ws" || fail "packaged small init"
"$small" check --dir "$ws" >"$WORK/check.log" 2>&1 || { cat "$WORK/check.log"; fail "packaged small check"; }

# One page per command, each rendered without a warning.
pages=("$root"/usr/share/man/man1/*.1.gz)
expected=$(( $("$small" __man --list | wc -l) + 2 ))  # + small(1) and git-merge-small(1)
[ "${#pages[@]}" -eq "$expected" ] || fail "${#pages[@]} manual pages packaged, $expected commands"
for page in "${pages[@]}"; do
  err=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
  [ -z "$err" ] || fail "man -l $(basename "$page"): $err"
done
echo "man pages: ${#pages[@]} rendered without warnings"

[ -x "$root/usr/bin/git-merge-small" ] || fail "not packaged: /usr/bin/git-merge-small"
sh -n "$root/usr/bin/git-merge-small" || fail "git-merge-small does not parse"
for f in usr/share/bash-completion/completions/small usr/share/zsh/vendor-completions/_small \
         usr/share/fish/vendor_completions.d/small.fish usr/share/doc/small/copyright \
         usr/share/doc/small/changelog.gz; do
  [ -s "$root/$f" ] || fail "not packaged: /$f"
done
bash -n "$root/usr/share/bash-completion/completions/small" || fail "bash completion does not parse"

if command -v lintian >/dev/null 2>&1; then
  if ! lintian --fail-on error,warning --tag-display-limit 0 "$deb" "$dev" >"$WORK/lintian.log" 2>&1; then
    cat "$WORK/lintian.log"
    fail "lintian"
  fi
  cat "$WORK/lintian.log"
  echo "lintian: no errors or warnings"
else
  echo "lintian not installed (scripts/setup.sh installs it): skipped"
fi
