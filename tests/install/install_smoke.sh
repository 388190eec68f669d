#!/bin/sh
# install.smoke: `cmake --install` into a temporary prefix, then the installed commands run from
# a directory that is neither the source nor the build tree:
#   P/bin/fdsim --help; P/bin/fdsim validate on the installed scenarios and sweeps; a short
#   P/bin/fdsim run; P/bin/fdsim-analysis --help and a summary of that run, through the package
#   installed under P/share/fdsim/python (the prefix holds no analysis/ folder, so the launcher
#   cannot reach the source tree); the docs are in P/share/doc/fdsim.
# Usage: install_smoke.sh BUILD_DIR [CMAKE]
set -eu
build=$(cd "$1" && pwd)
cmake=${2:-cmake}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
"$cmake" --install "$build" --prefix "$P" >"$tmp/install.log"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
fail() { echo "install.smoke: $*" >&2; exit 1; }

for f in bin/fdsim bin/fdsim-analysis share/fdsim/python/fdsim_analysis/__init__.py \
         share/doc/fdsim/README.md share/doc/fdsim/docs/metrics.md \
         share/doc/fdsim/docs/models/README.md share/doc/fdsim/models/geode/README.md \
         share/fdsim/scenarios/examples/geode-ring.json; do
  [ -e "$P/$f" ] || fail "missing $P/$f"
done

"$P/bin/fdsim" --help | grep -q "validate" || fail "fdsim --help does not list validate"
"$P/bin/fdsim" validate "$P/share/fdsim/scenarios/examples/geode-ring.json" \
  "$P"/share/fdsim/scenarios/examples/*.json "$P"/share/fdsim/scenarios/sweeps/*.json \
  >/dev/null || fail "fdsim validate of the installed scenarios failed"

env -u PYTHONPATH "$P/bin/fdsim-analysis" --help | grep -q "^usage: fdsim-analysis" ||
  fail "fdsim-analysis --help"
"$P/bin/fdsim" run "$P/share/fdsim/scenarios/examples/load-sharing.json" --replications 1 \
  --out run --quiet || fail "fdsim run of an installed example failed"
env -u PYTHONPATH "$P/bin/fdsim-analysis" summary run >summary.md ||
  fail "fdsim-analysis summary of an installed run failed"
grep -q "^| " summary.md || fail "summary has no table"
echo "install.smoke: ok ($P)"
