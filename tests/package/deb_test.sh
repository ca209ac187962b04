#!/usr/bin/env bash
# CTest `package.deb`: configures and builds the distribution build (CMake's
# defaults: the system's shared libraries, as Debian policy asks), builds the
# Debian packages from it with CPack, checks their control fields, unpacks
# `small` with dpkg-deb -x and runs the packaged binary, renders every packaged
# manual page with man -l (no warnings), and runs lintian when it is installed
# (no errors or warnings; docs/install.md explains the informational tags that remain).
#   tests/package/deb_test.sh SOURCE_DIR WORK_DIR [COMPILER_LAUNCHER]
set -euo pipefail

SOURCE_DIR="$1"
WORK="$2"
LAUNCHER="${3:-}"
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK"
trap '[ -n "${SMALL_KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

BUILD_DIR="$WORK/build"
# As Debian's dh_auto_configure does: prefix /usr, so the library and small.pc go
# to the multiarch lib/<triplet>/.
configure=(cmake -S "$SOURCE_DIR" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
           -DSMALL_BUILD_TESTS=OFF -DSMALL_BUILD_BENCH=OFF)
[ -z "$LAUNCHER" ] || configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$LAUNCHER")
"${configure[@]}" >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "configure the distribution build"; }
grep -q '^SMALL_LINK_STATIC:BOOL=OFF' "$BUILD_DIR/CMakeCache.txt" || fail "the distribution build links statically"
cmake --build "$BUILD_DIR" -j"$(nproc 2>/dev/null || echo 2)" >"$WORK/build.log" 2>&1 ||
  { tail -50 "$WORK/build.log"; fail "build the distribution build"; }

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
# Built against the system's libraries, which the package therefore depends on.
for lib in libfyaml0 libnettle8 libstdc++6; do
  field "$deb" Depends | grep -q "$lib" || fail "small does not depend on $lib: $(field "$deb" Depends)"
done
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

# The `git merge -s small` strategy is small itself, under that name.
[ "$(readlink "$root/usr/bin/git-merge-small")" = small ] || fail "not packaged: /usr/bin/git-merge-small -> small"
strategy_rc=0
strategy_err=$("$root/usr/bin/git-merge-small" 2>&1 >/dev/null) || strategy_rc=$?
[ "$strategy_rc" -eq 2 ] && [ "$strategy_err" = "git-merge-small: expected BASE... -- HEAD REMOTE..." ] ||
  fail "git-merge-small does not answer as the strategy (exit $strategy_rc: $strategy_err)"
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
