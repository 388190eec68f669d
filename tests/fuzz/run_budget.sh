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
           -type f \( -name '*.json' -o -name '*.jsonl' -o -name 'case-*' \) \
           ! -name case-huge-node-ranges.json -print0)
# case-huge-node-ranges.json (10 million nodes in node groups) is left out of the seeds: under
# ASan one run of it takes 10 to 60 s (building and freeing the resolved config that echoes
# every expanded node index), which would spend the whole budget on it and its mutants. It
# still runs on every build in fuzz.regressions.
cd "$work"
# -timeout=120 per input: a valid scenario of millions of nodes (a mutant may reach 10 million)
# is slow under ASan without hanging; a real hang still fails.
exec "$fuzz" -max_total_time="${FDSIM_FUZZ_SECONDS:-45}" -seed=1 -max_len=65536 \
  -rss_limit_mb=4096 -timeout=120 -print_final_stats=1 corpus seeds
