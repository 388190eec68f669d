#!/usr/bin/env bash
# Regenerates what is derived from the scenario and sweep readers, sim/scenario/field_docs.cpp
# and sim/sweep/sweep_field_docs.cpp:
#   - the field tables of docs/scenario-format.md (each between "<!-- generated table: ID"
#     and "<!-- end of generated table -->"; the text around them is kept),
#   - docs/schema/scenario.schema.json and docs/schema/sweep.schema.json.
# tests/cli/schema_test.cpp fails when any of them differs from what the binary generates.
# Environment: FDSIM_BUILD (build directory, default build).
# Exit codes: 0 ok, 2 no fdsim binary, other: the failing command's code.
set -euo pipefail
cd "$(dirname "$0")/.."
fdsim="${FDSIM_BUILD:-build}/fdsim"
if [[ ! -x "$fdsim" ]]; then
  echo "update-format-tables.sh: no $fdsim (build it first)" >&2
  exit 2
fi
mkdir -p docs/schema
"$fdsim" schema scenario > docs/schema/scenario.schema.json
"$fdsim" schema sweep > docs/schema/sweep.schema.json
tables="$(mktemp)"
trap 'rm -f "$tables"' EXIT
"$fdsim" schema scenario --markdown > "$tables"
/usr/bin/python3 - "$tables" docs/scenario-format.md <<'PY'
import re, sys
generated = open(sys.argv[1], encoding="utf-8").read()
doc_path = sys.argv[2]
doc = open(doc_path, encoding="utf-8").read()
block = re.compile(r"<!-- generated table: (\S+) .*?<!-- end of generated table -->\n", re.S)
new = {m.group(1): m.group(0) for m in block.finditer(generated)}
seen = set()
def repl(m):
    seen.add(m.group(1))
    if m.group(1) not in new:
        sys.exit(f"{doc_path}: table {m.group(1)} is no longer generated; remove it by hand")
    return new[m.group(1)]
doc = block.sub(repl, doc)
missing = sorted(set(new) - seen)
if missing:
    sys.exit(f"{doc_path}: add a placeholder block for the new table(s) {', '.join(missing)}")
open(doc_path, "w", encoding="utf-8").write(doc)
PY
echo "updated docs/scenario-format.md and docs/schema/*.schema.json"
