#!/bin/sh
# install.pip_offline: the analysis package installs with pip on a machine without network, as
# the README says: a venv that sees Debian's numpy, matplotlib and setuptools
# (--system-site-packages), then `pip install --no-index --no-build-isolation` of a copy of the
# checkout's pyproject.toml and analysis/ (a copy, so that setuptools' build/ and *.egg-info
# land in a temporary directory, not in the checkout or its CMake build/). --no-index makes any
# attempt to reach an index fail, so this passes only if nothing has to be downloaded.
# Checks: the console script fdsim-analysis runs from the venv, and the package it imports is
# the installed copy (not the checkout). Exit 77 (skipped) without the venv module.
# Usage: pip_offline.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install.pip_offline: $*" >&2; exit 1; }

if ! "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1; then
  echo "install.pip_offline: skipped: $py -m venv failed (Debian: apt-get install python3-venv)" >&2
  cat "$tmp/venv.log" >&2
  exit 77
fi
mkdir "$tmp/src"
cp "$src/pyproject.toml" "$tmp/src/"
cp -R "$src/analysis" "$tmp/src/analysis"
cd "$tmp/src"
env -u PYTHONPATH PIP_CONFIG_FILE=/dev/null "$tmp/venv/bin/pip" install --no-index \
  --no-build-isolation --no-cache-dir . >"$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log" >&2; fail "pip install --no-index --no-build-isolation . failed"; }
cd "$tmp"
env -u PYTHONPATH "$tmp/venv/bin/fdsim-analysis" --help | grep -q "^usage: fdsim-analysis" ||
  fail "the venv's fdsim-analysis --help"
where=$(env -u PYTHONPATH "$tmp/venv/bin/python" -c \
  'import fdsim_analysis, os; print(os.path.dirname(fdsim_analysis.__file__))')
case "$where" in
  "$tmp/venv/"*) ;;
  *) fail "fdsim_analysis imported from $where, not from the venv" ;;
esac
echo "install.pip_offline: ok"
