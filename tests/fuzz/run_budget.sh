#!/usr/bin/env bash
# run_budget.sh FUZZ_READERS REPO WORK: fuzzes the readers for FDSIM_FUZZ_SECONDS (default 60)
# from a fresh working corpus seeded with every shipped scenario, the bad-input corpus and the
# regression corpus. A crash leaves crash-* files in WORK (copy them into tests/fuzz/corpus/);
# the exit code is libFuzzer's (0: nothing found).
set -euo pipefail
fuzz=$1 repo=$2 work=$3
rm -rf "$work"
mkdir -p "$work/corpus" "$work/seeds"
i=0
while IFS= read -r -d '' f; do
  cp "$f" "$work/seeds/$i.json"
  i=$((i + 1))
done < <(find "$repo/scenarios" "$repo/tests/cli/bad_input" "$repo/tests/fuzz/corpus" \
           -type f \( -name '*.json' -o -name '*.jsonl' -o -name 'case-*' \) -print0)
cd "$work"
exec "$fuzz" -max_total_time="${FDSIM_FUZZ_SECONDS:-60}" -seed=1 -max_len=65536 \
  -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 corpus seeds
