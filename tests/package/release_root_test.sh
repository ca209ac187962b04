#!/usr/bin/env bash
# CTest `package.release_root`: the release archive (scripts/release.sh) made from the built
# static binary, verified by its checksums, installed into a CLEAN Debian bookworm root
# (debootstrap --variant=minbase: none of the build packages) and run there with chroot:
# version, init, plan --add, check --strict, the manual page, the bash completion.
#   tests/package/release_root_test.sh SOURCE_DIR SMALL_BINARY WORK_DIR CACHE_DIR
# The root is made once and kept as CACHE_DIR/bookworm-minbase.tar.gz (the build folder: one
# debootstrap per CI run); each run unpacks a fresh copy. Needs root, debootstrap and the Debian
# mirror: without them it is skipped (77), and fails under CI=true.
set -euo pipefail

SOURCE_DIR="$1"
SMALL="$2"
WORK="$3"
CACHE="$4"
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
skip() {
  [ "${CI:-}" != "true" ] || fail "$* (under CI=true this test must run: scripts/setup.sh installs debootstrap)"
  echo "SKIP: $*"; exit 77
}
[ "$(id -u)" -eq 0 ] || skip "not root (debootstrap and chroot need root)"
command -v debootstrap >/dev/null 2>&1 || skip "debootstrap not found (SMALL_SETUP_TESTS=1 scripts/setup.sh installs it)"

root="$WORK/root"
# A /proc left mounted by an interrupted run must not be deleted through.
if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
rm -rf "$WORK"
mkdir -p "$WORK" "$CACHE"
cleanup() {
  if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
  [ -n "${SMALL_KEEP_WORK:-}" ] || rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

bash "$SOURCE_DIR/scripts/release.sh" "$SMALL" "$WORK/out" >"$WORK/release.log" 2>&1 ||
  { cat "$WORK/release.log"; fail "scripts/release.sh"; }
VERSION="$(bash "$SOURCE_DIR/scripts/version.sh")"
NAME="small-$VERSION-linux-$(uname -m)"
(cd "$WORK/out" && sha256sum --quiet -c "$NAME.tar.gz.sha256") || fail "the archive does not match its .sha256"
mkdir -p "$WORK/x"
tar -xzf "$WORK/out/$NAME.tar.gz" -C "$WORK/x"
(cd "$WORK/x/$NAME" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS inside the archive does not match"
for f in bin/small share/man/man1/small.1.gz share/man/man1/small-check.1.gz \
         share/bash-completion/completions/small share/zsh/vendor-completions/_small \
         share/fish/vendor_completions.d/small.fish README.md; do
  [ -s "$WORK/x/$NAME/$f" ] || fail "not in the archive: $f"
  grep -q "  $f\$" "$WORK/x/$NAME/SHA256SUMS" || fail "no checksum for $f in SHA256SUMS"
done
[ "$(readlink "$WORK/x/$NAME/bin/git-merge-small")" = small ] || fail "bin/git-merge-small is not a link to small"
listing="$(tar -tvzf "$WORK/out/$NAME.tar.gz")"
if grep -v ' 0/0 ' <<<"$listing" | grep -q .; then fail "entries not owned by 0/0:\n$listing"; fi

# The clean root, made once per cache folder (flock: the CTest runs may overlap).
tarball="$CACHE/bookworm-minbase.tar.gz"
(
  flock 9
  if [ ! -s "$tarball" ]; then
    start=$(date +%s)
    rm -rf "$CACHE/root.tmp"
    if ! debootstrap --variant=minbase bookworm "$CACHE/root.tmp" ${SMALL_DEBIAN_MIRROR:-} >"$CACHE/debootstrap.log" 2>&1; then
      tail -20 "$CACHE/debootstrap.log"
      rm -rf "$CACHE/root.tmp"
      exit 3
    fi
    tar --numeric-owner -C "$CACHE/root.tmp" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$CACHE/root.tmp"
    echo "debootstrap --variant=minbase bookworm: $(( $(date +%s) - start )) s (kept as $tarball)"
  fi
) 9>"$CACHE/root.lock" || { rc=$?; [ "$rc" -eq 3 ] && skip "debootstrap failed (no Debian mirror?)"; fail "making the root ($rc)"; }

mkdir -p "$root"
tar --numeric-owner -xpzf "$tarball" -C "$root"
for p in g++ cmake libfyaml0 libfyaml-dev libgit2-1.5 libgit2-dev nettle-dev; do
  if chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    fail "the root is not clean: $p is installed"
  fi
done
cp "$WORK/out/$NAME.tar.gz" "$root/tmp/"
# bash's process substitution (the completion script) needs /dev/fd, that is /proc.
mount -t proc proc "$root/proc"

# As a person would: unpack into /usr/local, then use it.
cat >"$root/tmp/try.sh" <<EOF
set -euo pipefail
tar -xzf /tmp/$NAME.tar.gz -C /usr/local --strip-components=1
command -v small
small --version | grep -qx 'small v$VERSION'
small version
mkdir -p /tmp/ws && cd /tmp/ws
small init --intent "A clean root" --no-agents
small plan --add "Run in a clean root"
small check --strict
small plan show | grep -q 'Run in a clean root'
zcat /usr/local/share/man/man1/small-check.1.gz | grep -q '^\.TH'
source /usr/local/share/bash-completion/completions/small
complete -p small
COMP_LINE="small pl" COMP_POINT=8 _small_completion
printf 'completion of "small pl": %s\n' "\${COMPREPLY[*]}"
[[ " \${COMPREPLY[*]} " == *" plan "* ]]
EOF
if ! chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
     /bin/bash /tmp/try.sh >"$WORK/chroot.log" 2>&1; then
  cat "$WORK/chroot.log"
  fail "the archive's small in a clean Debian root"
fi
cat "$WORK/chroot.log"
echo "PASS: $NAME.tar.gz verified, installed and run in a clean bookworm root"
