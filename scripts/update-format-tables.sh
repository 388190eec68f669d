#!/usr/bin/env bash
# Regenerates what is derived from the scenario and sweep readers, sim/scenario/field_docs.cpp
# and sim/sweep/sweep_field_docs.cpp:
#   - the field tables of docs/scenario-format.md (each between "<!-- generated table: ID"
#     and "<!-- end of generated table -->"; the text around them is kept;
#     scripts/fill_format_tables.py),
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
/usr/bin/python3 scripts/fill_format_tables.py "$tables" docs/scenario-format.md
echo "updated docs/scenario-format.md and docs/schema/*.schema.json"
