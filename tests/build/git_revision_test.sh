#!/bin/sh
# build.git_revision: scripts/git_revision.cmake on a throw-away git repository. A clean tree
# gives the 12 hex digits of HEAD; an edit of a tracked file gives HEAD+dirty.<12 hex>; a
# different edit a different digest; an untracked file alone makes the tree dirty too; the same
# text is not rewritten (the timestamp stays, so nothing recompiles); outside git, "unknown".
# Usage: git_revision_test.sh SOURCE_DIR [CMAKE]
set -eu
src=$(cd "$1" && pwd)
cmake=${2:-cmake}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "build.git_revision: $*" >&2; exit 1; }

printf '#define REV "@FDSIM_GIT_REVISION@" /* @PROJECT_VERSION@ */\n' >"$tmp/template.in"
rev_of() {  # rev_of DIR -> the revision the script writes for DIR
  "$cmake" -DSOURCE_DIR="$1" -DTEMPLATE="$tmp/template.in" -DOUTPUT="$tmp/out.h" \
    -DPROJECT_VERSION=9.9.9 -P "$src/scripts/git_revision.cmake" >/dev/null
  sed -n 's/^#define REV "\([^"]*\)".*/\1/p' "$tmp/out.h"
}

mkdir "$tmp/nogit"
[ "$(rev_of "$tmp/nogit")" = unknown ] || fail "outside git: expected unknown, got $(rev_of "$tmp/nogit")"

repo=$tmp/repo
mkdir "$repo"
git -C "$repo" init -q
git -C "$repo" config user.email t@example.org
git -C "$repo" config user.name t
echo one >"$repo/a.txt"
git -C "$repo" add a.txt
git -C "$repo" commit -qm one
head=$(git -C "$repo" rev-parse --short=12 HEAD)

clean=$(rev_of "$repo")
[ "$clean" = "$head" ] || fail "clean tree: expected $head, got $clean"
grep -q '9.9.9' "$tmp/out.h" || fail "PROJECT_VERSION not substituted"

touch -d '2000-01-01' "$tmp/out.h"
before=$(stat -c %Y "$tmp/out.h")
[ "$(rev_of "$repo")" = "$head" ] || fail "second run on the clean tree changed the revision"
[ "$(stat -c %Y "$tmp/out.h")" = "$before" ] || fail "unchanged text was rewritten"

echo two >"$repo/a.txt"
edit1=$(rev_of "$repo")
case "$edit1" in
  "$head"+dirty.????????????) ;;
  *) fail "edited tree: expected $head+dirty.<12 hex>, got $edit1" ;;
esac
echo three >"$repo/a.txt"
edit2=$(rev_of "$repo")
[ "$edit2" != "$edit1" ] || fail "two different edits gave the same revision $edit1"
echo two >"$repo/a.txt"
[ "$(rev_of "$repo")" = "$edit1" ] || fail "the same edit gave another revision"

git -C "$repo" checkout -q a.txt
echo new >"$repo/b.txt"
untracked=$(rev_of "$repo")
case "$untracked" in
  "$head"+dirty.*) ;;
  *) fail "untracked file: expected $head+dirty.<digest>, got $untracked" ;;
esac
echo "build.git_revision: ok ($clean, $edit1, $edit2, $untracked)"
