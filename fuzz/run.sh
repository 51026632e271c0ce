#!/bin/sh
# Run every fuzz target for SECONDS each, one after another, in one process each, growing
# the committed corpora in fuzz/corpus/<target>. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). Crashes land in fuzz/artifacts/<target>/.
#   fuzz/run.sh 300          # five minutes per target
#   fuzz/run.sh 0 replay     # replay the corpora only (what CI does)
set -eu
seconds=${1:?usage: fuzz/run.sh SECONDS [replay]}
mode=${2:-fuzz}
cd "$(dirname "$0")"
targets="cluster_network_load validate selector cidr post_render krm patch patch_installations codegen"
cargo +nightly fuzz build -O --sanitizer none
for target in $targets; do
    if [ "$mode" = replay ]; then
        cargo +nightly fuzz run -O --sanitizer none "$target" "corpus/$target" -- -runs=0
    else
        echo "== $target: $seconds s"
        cargo +nightly fuzz run -O --sanitizer none "$target" "corpus/$target" -- \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            -max_len=65536 -print_final_stats=1 2>&1 | grep -E '^(stat::number_of_executed_units|==|#[0-9]+ +DONE)|(panicked|ERROR|SUMMARY)' || true
    fi
done
