#!/usr/bin/env bash
# Regenerates docs/performance.md from one run on this machine: builds the
# release binary, names the machine (lscpu: model, CPUs, caches, ISA), then
# pastes the Markdown tables that the program's own `bench` prints (and
# `render-bench`'s, under xvfb-run when it is installed).
#
#   scripts/performance.sh [--out FILE] [--bin PATH] [--quick]
#
# --out FILE  where the page goes (default: docs/performance.md)
# --bin PATH  run this binary instead of building the release one
# --quick     tiny sizes, to try the script in seconds (the page it writes
#             is not one to commit)
#
# About 3 to 5 minutes on a 2-core machine once the release build is
# current. Run it on a quiet machine: another build beside it slows every row.
set -euo pipefail
cd "$(dirname "$0")/.."

out=docs/performance.md
bin=""
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) shift; out="${1:?--out needs a file}" ;;
        --out=*) out="${1#--out=}" ;;
        --bin) shift; bin="${1:?--bin needs a path}" ;;
        --bin=*) bin="${1#--bin=}" ;;
        --quick) quick=1 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "performance.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

if [ -z "$bin" ]; then
    cargo build --release
    bin="${CARGO_TARGET_DIR:-target}/release/spatial-query-lab"
fi
[ -x "$bin" ] || { echo "performance.sh: no executable at $bin" >&2; exit 1; }

start=$SECONDS
tables=$(mktemp)
page=$(mktemp)
trap 'rm -f "$tables" "$page"' EXIT

# --- The machine -----------------------------------------------------------
lscpu_field() { # the value of one `lscpu` line, or "unknown"
    local v
    v=$(LC_ALL=C lscpu 2>/dev/null | sed -n "s/^$1:[[:space:]]*//p" | head -1)
    echo "${v:-unknown}"
}
model=$(lscpu_field 'Model name')
cpus=$(lscpu_field 'CPU(s)')
arch=$(lscpu_field 'Architecture')
l1d=$(lscpu_field 'L1d cache')
l2=$(lscpu_field 'L2 cache')
l3=$(lscpu_field 'L3 cache')
hypervisor=$(lscpu_field 'Hypervisor vendor')
flags=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Flags:[[:space:]]*//p' | head -1)
has() { case " $flags " in *" $1 "*) echo yes ;; *) echo no ;; esac; }
if [ "$arch" = aarch64 ]; then
    isa="AArch64; NEON (asimd): $(has asimd)"
else
    isa="$arch; SSE2: $(has sse2), AVX2: $(has avx2), AVX-512F: $(has avx512f)"
fi
day=$(date -u +%Y-%m-%d)
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
rustc_version=$(rustc --version 2>/dev/null || echo "rustc unknown")

# The caches as the program itself reads them (per core, from sysfs), as every
# bench row's `machine` names them.
program_view=$("$bin" bench --units 100 --frames 1 --warmup 0 --strategies naive --kernels scalar 2>&1 >/dev/null |
    sed -n 's/^bench: machine: //p' | head -1)
echo "performance.sh: $model, $cpus CPUs, L1d $l1d, L2 $l2, L3 $l3; $isa" >&2

# --- The runs ---------------------------------------------------------------
if [ "$quick" = 1 ]; then
    small=1000 large=3000 huge=10000 frames=3 big_frames=2 rounds=3
    large_label=3,000 huge_label=10,000 render_units=1000,3000
else
    small=10000 large=100000 huge=1000000 frames=30 big_frames=10 rounds=3
    large_label=100,000 huge_label=1,000,000 render_units=10000,200000,1000000
fi

# One section: a heading, a sentence, the command as run, then what it printed.
section() {
    local title=$1 text=$2
    shift 2
    echo "performance.sh: $title" >&2
    {
        printf '\n## %s\n\n%s\n\n```sh\nspatial-query-lab %s\n```\n\n' "$title" "$text" "$*"
        "$bin" "$@"
    } >>"$tables"
}

for workload in uniform clustered; do
    section "Strategies and kernels, \`$workload\`, 1 thread" \
"Naive, Grid and SortedGrid with the scalar kernel and the widest this CPU runs (\`best\`); the speedup columns are verdicts against the Naive/Scalar row. Grid reads each candidate through the layout and calls no kernel (kernel \`–\`). A Naive row estimated above 2 s per frame is skipped with its estimate." \
        bench --workload "$workload" --units "$small,$large" --strategies naive,grid,sorted-grid \
        --kernels scalar,best --frames "$frames" --rounds "$rounds" --skip-above 2
done

section "SortedGrid at $large_label and $huge_label units: threads and passes" \
"The fastest path at scale, on 1 and 2 threads, with the default fused pass (the kernel sums what steering needs) against the collect pass (neighbor id lists written, then read back). After the table, the roofline: this machine's copy bandwidth and the fused kernel's cost per candidate test, measured on the spot, against each phase's bytes and tests." \
    bench --units "$large,$huge" --strategies sorted-grid --kernels best --threads 1,2 \
    --pass collect,fused --frames "$big_frames" --rounds "$rounds" --roofline

section "Data layouts and unit order, $large_label units" \
"Every layout in spawn order (\`off\`) and in cell order; Grid reads every candidate through the layout, SortedGrid queries its own packed copy of the positions (see the guide's [data layouts](guide.md#data-layouts-key-l-the-data-oriented-design-lesson))." \
    bench --units "$large" --strategies grid,sorted-grid --kernels best \
    --layouts aos-pointers,aos,soa,hot-cold --reorder off,cells --frames "$big_frames" --rounds "$rounds"

if command -v xvfb-run >/dev/null; then
    echo "performance.sh: render-bench under xvfb-run" >&2
    {
        printf '\n## The renderer, under Xvfb\n\n%s\n\n```sh\n%s\n```\n\n' \
"Whole frames (clear, ground, units, buffer swap) at the window's default camera, per unit count and vertex layout ([rendering](rendering.md)). Under Xvfb the drawing is Mesa's software rasterizer on these same cores: the times follow vertices shaded, not the bytes the compressed layout saves on a GPU." \
            "xvfb-run -a -s \"-screen 0 1280x800x24\" spatial-query-lab render-bench --units $render_units --frames 20"
        xvfb-run -a -s "-screen 0 1280x800x24" "$bin" render-bench --units "$render_units" --frames 20
    } >>"$tables"
else
    printf '\n## The renderer\n\nNot measured: `xvfb-run` was not installed on this machine.\n' >>"$tables"
fi

elapsed=$((SECONDS - start))
if [ "$hypervisor" = unknown ]; then machine_kind=""; else machine_kind=", a virtual machine ($hypervisor)"; fi

# --- The page ---------------------------------------------------------------
{
    cat <<'EOF'
# Performance

Current numbers of this build, from one run of `scripts/performance.sh` on the machine named below.
The script builds the release binary, reads the machine's facts from `lscpu`, and pastes the Markdown
tables that the program's own `bench` and `render-bench` print; nothing here is edited by hand. To
regenerate the page on your machine, run `scripts/performance.sh` (it rewrites this file).

How to read the tables: a frame is move → rebuild → one query per unit → apply, on a standard
workload of [workloads.md](workloads.md) (radius 10, cell = radius, 16 neighbors per unit on average,
seed 42, steering off). Times are milliseconds per frame phase: the median of the rounds' medians,
with the rounds' range in brackets; the rows of one table were measured in interleaved rounds (each
row once per round, in turn), so compare rows within a table rather than across tables, machines or
days. Within a table, every row of a unit count finds the same neighbors (the tables count
different frames, so their totals differ). For your own settings use `bench`
([usage](usage.md#headless-modes)), the compare panel or a lesson ([how the lab measures](measuring.md)).

EOF
    cat <<EOF
## Machine

| | |
|---|---|
| CPU | $model, $cpus CPUs$machine_kind |
| caches (lscpu, all cores) | L1d $l1d, L2 $l2, L3 $l3 |
| as the program reads it | ${program_view:-unknown} |
| instruction sets | $isa |
| date | $day (UTC) |
| build | \`$commit\`, $rustc_version, release profile |
| run time | $((elapsed / 60)) min $((elapsed % 60)) s for the tables below (build not included) |
EOF
    cat "$tables"
    cat <<'EOF'

## Against other crates

`cargo bench --bench peers` times one neighbor job (build an index from the positions, then one
query of radius 10 per unit collecting ids, 1 thread, units in spawn order) with our SortedGrid and
Grid and with kiddo (k-d tree: per query, batch and self-join), rstar (R*-tree) and flat_spatial
(grid), each first checked to return exactly our neighbor sets. It runs `uniform` at 10,000 and
100,000 units and `clustered` at 100,000 in a minute or two; criterion prints the times and keeps
its reports under `target/criterion/`. `cargo bench --bench frame` times whole frames per strategy,
kernel and thread count ([usage](usage.md#benchmarks)).
EOF
} >"$page"

# The page is written in place only once everything ran.
mkdir -p "$(dirname "$out")"
cp "$page" "$out"
echo "performance.sh: wrote $out in $((elapsed / 60)) min $((elapsed % 60)) s" >&2
