#!/bin/sh
# install.smoke: `cmake --install` into a temporary prefix, then the installed commands run from
# a directory that is neither the source nor the build tree:
#   P/bin/fdsim --help; P/bin/fdsim validate on the installed scenarios and sweeps; a short
#   P/bin/fdsim run; P/bin/fdsim-analysis --help and a summary of that run, through the package
#   installed under P/share/fdsim/python (the prefix holds no analysis/ folder, so the launcher
#   cannot reach the source tree); the docs are in P/share/doc/fdsim; with "python" (a build
#   with FDSIM_PYTHON), the installed module P/lib/python3/dist-packages/fdsim imports from
#   there (not from the build tree), validates an installed example and runs it to the same
#   metrics as the installed fdsim run.
# Usage: install_smoke.sh BUILD_DIR [CMAKE] [python|no-python]
set -eu
build=$(cd "$1" && pwd)
cmake=${2:-cmake}
with_python=${3:-no-python}
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

# Every "$schema" of an installed scenario or sweep leads to an installed schema file.
/usr/bin/python3 -B - "$P/share/fdsim/scenarios" <<'PY' || fail "an installed \$schema path is broken"
import json, os, sys
bad, seen = [], 0
for root, _, files in os.walk(sys.argv[1]):
    for name in sorted(files):
        if not name.endswith(".json"):
            continue
        path = os.path.join(root, name)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except ValueError:
            continue
        ref = doc.get("$schema") if isinstance(doc, dict) else None
        if isinstance(ref, str) and not ref.startswith(("http:", "https:")):
            seen += 1
            if not os.path.isfile(os.path.join(root, ref)):
                bad.append(f"{path}: $schema {ref} does not exist")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad or seen == 0 else 0)
PY
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

if [ "$with_python" = python ]; then
  moddir=$P/lib/python3/dist-packages
  ls "$moddir"/fdsim*.so >/dev/null 2>&1 || fail "no Python module fdsim*.so in $moddir"
  # The run file written above: its metrics must be what the installed module computes.
  env PYTHONPATH="$moddir" /usr/bin/python3 -B - "$moddir" \
      "$P/share/fdsim/scenarios/examples/load-sharing.json" run <<'PY' ||
import glob, json, os, sys
import fdsim
moddir, scenario, run_dir = sys.argv[1:4]
if not os.path.realpath(fdsim.__file__).startswith(os.path.realpath(moddir)):
    sys.exit(f"fdsim imported from {fdsim.__file__}, not from {moddir}")
fdsim.validate(scenario)
files = sorted(glob.glob(os.path.join(run_dir, "*.json")))
if len(files) != 1:
    sys.exit(f"expected one run file in {run_dir}, found {files}")
with open(files[0]) as f:
    cli = json.load(f)
res = fdsim.run(scenario, replications=1)
res = res[0] if isinstance(res, list) else res
if res["metrics"] != cli["metrics"]:
    sys.exit("the installed module's metrics differ from the installed fdsim run's")
PY
    fail "the installed Python module"
fi
echo "install.smoke: ok ($P)"
