#!/usr/bin/env bash
# The start-up floor (issue 19): the binary links no libgit2 (base/git.cpp
# loads it with dlopen when a command first asks git something).
set -euo pipefail
deps="$(ldd "$1")" || { echo "ldd $1 failed" >&2; exit 1; }
if grep -q libgit2 <<<"$deps"; then
  echo "$1 links libgit2 at start-up:" >&2
  grep libgit2 <<<"$deps" >&2
  exit 1
fi
echo "no libgit2 among the $(wc -l <<<"$deps") libraries loaded at start-up"
