#!/usr/bin/env bash
# cache-report.sh: simulated D1 and last-level (LL) cache misses per query of
# the headless bench, per data layout and strategy, next to the native query
# time. Prints one Markdown table on stdout; progress goes to stderr.
#
# Usage: scripts/cache-report.sh [--quick] [--layouts a,b,...] [--pass p,...] [--reorder MODE]
#                                [--host-caches] [--out-dir DIR] [--bin PATH]
#   --quick        small sizes (naive 1,000 units; grids 10,000) to test the script
#   --layouts      layouts to run (default: aos-pointers,aos,soa,hot-cold)
#   --pass LIST    passes to run, comma-separated: fused, collect
#                  (default: the bench's default pass, fused); one row per
#                  layout x pass x strategy, the pass in its own column
#   --reorder MODE unit memory order: off (spawn order), cells (default) or morton
#   --host-caches  let valgrind take the cache geometry from this CPU instead
#                  of the fixed one below (results then differ between machines)
#   --out-dir DIR  keep the raw valgrind/bench outputs in DIR (default: a
#                  temporary directory, removed at exit)
#   --bin PATH     the binary to run (default: $CARGO_TARGET_DIR or target, then
#                  release/spatial-query-lab,
#                  built with `cargo build --release` if missing)
# Environment: QUERY_FN (default query_phase, in src/engine/sim/step.rs) names the
# function that holds the query phase; NATIVE_FRAMES (default 20) the counted
# frames of the native run.
#
# Runs (threads 1, seed 42, uniform workload, kernel avx2 when /proc/cpuinfo
# lists it, else scalar; valgrind cannot run AVX-512): for each layout, naive at
# 10,000 units and grid and sorted-grid at 100,000 units, in each pass. About
# 5 minutes per pass on a 2-core AMD EPYC virtual machine without AVX-512
# (2026-12-01; --quick: about a
# minute); most of it is naive with aos-pointers and aos under valgrind. A combination the bench skips (natively,
# or under valgrind because its time estimate grows with valgrind's slowdown)
# is a "skipped" row with the bench's reason.
#
# Method.
# - Simulator: valgrind's cache simulator, run through callgrind
#   (`--tool=callgrind --cache-sim=yes`, the same simulator and events as
#   `--tool=cachegrind --cache-sim=yes`). Cachegrind 3.19 (Debian bookworm)
#   has no start/stop requests and only per-function *self* costs; the query
#   phase is `spatial_query_lab::engine::sim::step::query_phase` (src/engine/sim/step.rs: never
#   inlined, not generic, called once per frame by every strategy and pass,
#   between the start and the end of the bench's query clock), which calls
#   into the strategy's traversal, the layout's position reads and the
#   kernels, so self costs of "query function + kernels" would miss the grid
#   and layout reads, which are most of what a layout changes (measured: with
#   the kernels inlined into the grid's traversal, those self costs were 26
#   D1 misses in 30,000 queries, against 53,532 counted inclusively).
#   Callgrind's `--collect-atstart=no --toggle-collect='*::query_phase'`
#   collects events only while inside query_phase, callees included (on the
#   calling thread only: hence 1 thread), while the simulated caches run for
#   the whole program (so every frame starts with the cache state the
#   move/rebuild phases left). The collected totals are the `summary:` line of
#   the callgrind output. (Without toggling, callgrind's and cachegrind's
#   whole-run totals for the same command agree to 0.3% on D1 misses and 1%
#   on LL misses.)
# - Cache geometry (unless --host-caches): I1 and D1 32 KiB 8-way, LL 8 MiB
#   16-way, 64-byte lines: a common desktop core, and the same on every
#   machine (valgrind's auto-detection reads the host, which on some virtual
#   machines reports e.g. a 256 MiB direct-mapped LL).
# - Misses: D1 = D1mr + D1mw, LL = DLmr + DLmw (data reads plus writes; the
#   writes include filling the collect pass's neighbor lists or the fused
#   passes' per-unit aggregates). Instruction-cache misses are not counted.
# - Divisor: valgrind sees every frame, warm-up included. With
#   `--skip-above 1000000` the bench estimates nothing, so it runs no naive
#   cost calibration (whose naive frames of 2,000 units, about 150,000 D1
#   misses varying by 40,000 with where the environment put the stack, once
#   drowned the 1,000-unit naive row). Each run is still paired with a
#   baseline run of the same command at `--units 1 --frames 1 --warmup 0`, for
#   any query phase outside the counted frames; the report uses (run - baseline) for both the
#   events and the number of query_phase calls. A frame makes exactly one
#   query_phase call, so the frames seen = calls(run) - calls(baseline) + 1
#   (the baseline's one frame), and queries = frames seen x
#   units; the script warns if that differs from --warmup + --frames. Warm-up
#   is 1 and frames 2: then the bench's slow-combination path (one warm-up,
#   at most 3 counted frames, earlier frames fast-forwarded with another
#   strategy) runs the same frames, so valgrind's slowdown cannot change what
#   is counted. The baseline's own 1-unit query is included in the
#   subtraction (negligible).
# - Query ms (native): the bench's median query time, from a separate run
#   without valgrind, same arguments, NATIVE_FRAMES counted frames.
set -euo pipefail

die() {
    echo "cache-report.sh: $*" >&2
    exit 1
}

QUICK=0
HOST_CACHES=0
OUT_DIR=""
BIN=""
LAYOUTS="aos-pointers,aos,soa,hot-cold"
# Empty: the bench's default pass (no --pass argument).
PASSES=""
QUERY_FN="${QUERY_FN:-query_phase}"
NATIVE_FRAMES="${NATIVE_FRAMES:-20}"
WARMUP=1
FRAMES=2
SEED=42
# shellcheck disable=SC2054 # commas are part of valgrind's size,assoc,line values
CACHE_ARGS=(--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64)
REORDER=cells

while [[ $# -gt 0 ]]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --host-caches) HOST_CACHES=1 ;;
    --layouts)
        [[ $# -ge 2 ]] || die "--layouts needs a comma-separated list"
        LAYOUTS="$2"
        shift
        ;;
    --pass)
        [[ $# -ge 2 ]] || die "--pass needs a comma-separated list of fused, collect"
        [[ "$2" =~ ^(fused|collect)(,(fused|collect))*$ ]] ||
            die "--pass must be a comma-separated list of fused and collect, not '$2'"
        PASSES="$2"
        shift
        ;;
    --reorder)
        [[ $# -ge 2 ]] || die "--reorder needs off, cells or morton"
        [[ "$2" =~ ^(off|cells|morton)$ ]] || die "--reorder must be off, cells or morton, not '$2'"
        REORDER="$2"
        shift
        ;;
    --out-dir)
        [[ $# -ge 2 ]] || die "--out-dir needs a directory"
        OUT_DIR="$2"
        shift
        ;;
    --bin)
        [[ $# -ge 2 ]] || die "--bin needs a path"
        BIN="$2"
        shift
        ;;
    -h | --help)
        sed -n '2,/^# frames of the native run/p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
[[ "$NATIVE_FRAMES" =~ ^[1-9][0-9]*$ ]] || die "NATIVE_FRAMES must be a positive whole number, not '$NATIVE_FRAMES'"
[[ "$QUERY_FN" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "QUERY_FN must be a plain function name, not '$QUERY_FN'"
[[ $HOST_CACHES -eq 1 ]] && CACHE_ARGS=()

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -n "$BIN" ]]; then
    [[ -x "$BIN" ]] || die "--bin $BIN: no such executable"
else
    BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/spatial-query-lab"
fi

command -v valgrind >/dev/null 2>&1 ||
    die "valgrind not found; install it (Debian/Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)"
valgrind --tool=callgrind --help >/dev/null 2>&1 || die "this valgrind has no callgrind tool"

if [[ ! -x "$BIN" ]]; then
    command -v cargo >/dev/null 2>&1 || die "$BIN is missing and cargo is not installed to build it"
    echo "cache-report.sh: building the release binary (cargo build --release)" >&2
    (cd "$ROOT" && cargo build --release --bin spatial-query-lab) >&2 || die "cargo build --release failed"
    [[ -x "$BIN" ]] || die "cargo build --release did not produce $BIN"
fi

HELP="$("$BIN" bench --help 2>&1)" || die "'$BIN bench --help' failed: $HELP"
grep -q -- '--skip-above' <<<"$HELP" ||
    die "$BIN bench has no --skip-above flag (an older build); rebuild: cargo build --release"
grep -q -- '--layouts' <<<"$HELP" ||
    die "$BIN bench has no --layouts flag (this build predates the data layouts); rebuild from a tree that has it: cargo build --release"
[[ -z "$PASSES" ]] || grep -q -- '--pass' <<<"$HELP" ||
    die "$BIN bench has no --pass flag; rebuild: cargo build --release"

if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then KERNEL=avx2; else KERNEL=scalar; fi

if [[ $QUICK -eq 1 ]]; then
    NAIVE_UNITS=1000
    GRID_UNITS=10000
else
    NAIVE_UNITS=10000
    GRID_UNITS=100000
fi

if [[ -n "$OUT_DIR" ]]; then
    mkdir -p "$OUT_DIR" || die "cannot create $OUT_DIR"
    WORK="$(cd "$OUT_DIR" && pwd)"
else
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/cache-report.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
fi

# The bench's JSON (one row expected), flattened to one line.
json_flat() {
    tr -d '\n\r' <"$1"
}

# field FILE KEY: the first scalar value of "KEY" (number or string, unquoted).
json_field() {
    json_flat "$1" | grep -oE "\"$2\"[[:space:]]*:[[:space:]]*(\"[^\"]*\"|[-0-9.eE+]+)" | head -n 1 |
        sed -E 's/^[^:]*:[[:space:]]*//; s/^"//; s/"$//' || true
}

# query_ms FILE: the median query ms (key "median_ms"; "ms" is accepted too).
query_ms() {
    json_flat "$1" | grep -oE '"(ms|median_ms)"[[:space:]]*:[[:space:]]*\{[^}]*\}' | head -n 1 |
        grep -oE '"query"[[:space:]]*:[[:space:]]*[-0-9.eE+]+' | sed -E 's/^[^:]*:[[:space:]]*//' || true
}

# skip_reason FILE: why the bench skipped the row in FILE (empty if it ran).
skip_reason() {
    json_field "$1" skipped
}

# check_row FILE WHAT: fails unless FILE holds a query time.
check_row() {
    [[ -n "$(query_ms "$1")" ]] || die "$2: no query time in the bench's JSON ($1)"
}

# cg_totals FILE: "<calls> <D1> <LL>" from a callgrind output: calls into
# functions named *::$QUERY_FN, and the collected D1mr+D1mw and DLmr+DLmw.
cg_totals() {
    awk -v fn="$QUERY_FN" '
        function name_of(s,   id, rest) {
            # "(12) name" defines id 12; "(12)" refers to it.
            if (match(s, /^\([0-9]+\)/)) {
                id = substr(s, 2, RLENGTH - 2)
                rest = substr(s, RLENGTH + 1)
                sub(/^ /, "", rest)
                if (rest != "") names[id] = rest
                return names[id]
            }
            return s
        }
        /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
        /^summary:/ { for (i = 2; i <= NF; i++) tot[i - 1] = $i; have = 1 }
        /^c?fn=/ {
            s = $0; sub(/^c?fn=/, "", s); n = name_of(s)
            if ($0 ~ /^cfn=/) callee = n
            next
        }
        /^calls=/ {
            if (callee ~ ("::" fn "$") || callee == fn) { split($0, a, /[= ]/); calls += a[2] }
            next
        }
        END {
            if (!have) { print "none"; exit }
            d1 = tot[col["D1mr"]] + tot[col["D1mw"]]
            ll = tot[col["DLmr"]] + tot[col["DLmw"]]
            if (!("D1mr" in col) || !("DLmr" in col)) { print "none"; exit }
            printf "%d %.0f %.0f\n", calls, d1, ll
        }' "$1"
}

# run_cg TAG ARGS...: the bench under callgrind (with the bench's skip limit
# raised: valgrind's slowdown multiplies its time estimates); echoes "<calls> <D1> <LL>",
# or "skipped <reason>" when the bench skipped the combination.
run_cg() {
    local tag="$1"
    shift
    local out="$WORK/$tag.callgrind" json="$WORK/$tag.json" log="$WORK/$tag.log"
    if ! valgrind --tool=callgrind --cache-sim=yes ${CACHE_ARGS[@]+"${CACHE_ARGS[@]}"} \
        --collect-atstart=no "--toggle-collect=*::$QUERY_FN" \
        --callgrind-out-file="$out" "$BIN" bench "$@" --skip-above 1000000 --format json >"$json" 2>"$log"; then
        tail -n 20 "$log" >&2
        die "valgrind run '$tag' failed (log above; arguments: bench $*)"
    fi
    local why
    why="$(skip_reason "$json")"
    if [[ -n "$why" ]]; then
        echo "skipped $why"
        return 0
    fi
    check_row "$json" "valgrind run '$tag'"
    local t
    t="$(cg_totals "$out")"
    [[ "$t" != none ]] || die "no cache totals in $out (did --cache-sim=yes work?)"
    echo "$t"
}

# Describe the simulated caches once (from the first callgrind output).
CACHE_DESC=""

ROWS=()
IFS=',' read -r -a LAYOUT_LIST <<<"$LAYOUTS"
# One empty entry: the bench's default pass.
PASS_LIST=("")
[[ -z "$PASSES" ]] || IFS=',' read -r -a PASS_LIST <<<"$PASSES"
START=$SECONDS
for layout in "${LAYOUT_LIST[@]}"; do
    for pass in "${PASS_LIST[@]}"; do
        for spec in "naive:$NAIVE_UNITS" "grid:$GRID_UNITS" "sorted-grid:$GRID_UNITS"; do
            strategy="${spec%%:*}"
            units="${spec##*:}"
            tag="$layout-${pass:-default}-$strategy-$units"
            common=(--strategies "$strategy" --kernels "$KERNEL" --layouts "$layout" --threads 1 --seed "$SEED" --reorder "$REORDER")
            [[ -z "$pass" ]] || common+=(--pass "$pass")
            echo "cache-report.sh: $tag ($KERNEL): native run, valgrind run, baseline [$((SECONDS - START)) s]" >&2

            native="$WORK/$tag.native.json"
            "$BIN" bench "${common[@]}" --units "$units" --frames "$NATIVE_FRAMES" --warmup "$WARMUP" \
                --format json >"$native" 2>"$WORK/$tag.native.log" ||
                die "native run $tag failed: $(tail -n 5 "$WORK/$tag.native.log")"
            # The pass the bench ran (its default when --pass was not given).
            ran="$(json_field "$native" pass)"
            ran="${ran:-${pass:-default}}"
            why="$(skip_reason "$native")"
            if [[ -n "$why" ]]; then
                echo "cache-report.sh: $tag: the bench skipped it: $why" >&2
                ROWS+=("| $layout | $ran | $strategy | $units | skipped: $why | | |")
                continue
            fi
            check_row "$native" "native run '$tag'"
            ms="$(query_ms "$native")"

            main="$(run_cg "$tag" "${common[@]}" --units "$units" --frames "$FRAMES" --warmup "$WARMUP")"
            if [[ "$main" == skipped* ]]; then
                # The bench's time estimate under valgrind's slowdown can exceed its limit.
                echo "cache-report.sh: $tag: under valgrind the bench ${main}" >&2
                ROWS+=("$(awk -v l="$layout" -v p="$ran" -v s="$strategy" -v u="$units" -v ms="$ms" -v why="${main#skipped }" \
                    'BEGIN { printf "| %s | %s | %s | %d | %.3f | skipped under valgrind: %s | |", l, p, s, u, ms, why }')")
                continue
            fi
            base="$(run_cg "$tag-baseline" "${common[@]}" --units 1 --frames 1 --warmup 0)"
            [[ "$base" != skipped* ]] || die "$tag: the bench skipped the 1-unit baseline: ${base#skipped }"
            read -r calls d1 ll <<<"$main"
            read -r bcalls bd1 bll <<<"$base"
            [[ -n "$CACHE_DESC" ]] ||
                CACHE_DESC="$(grep -E '^desc: (D1|LL) cache:' "$WORK/$tag.callgrind" | sed 's/^desc: //' | paste -sd ';' - | sed 's/;/; /g')"

            if [[ $calls -eq 0 ]]; then
                die "$tag: no calls to a function named $QUERY_FN were seen; if the query phase moved (src/engine/sim/step.rs: query_phase), set QUERY_FN"
            fi
            seen=$((calls - bcalls + 1))
            expected=$((WARMUP + FRAMES))
            if [[ $seen -ne $expected ]]; then
                echo "cache-report.sh: warning: $tag: $seen frames seen by valgrind, expected $expected (warm-up + frames); dividing by the frames seen" >&2
            fi
            [[ $seen -gt 0 ]] || die "$tag: valgrind saw no query frames (calls $calls, baseline $bcalls)"
            queries=$((seen * units))

            ROWS+=("$(awk -v l="$layout" -v p="$ran" -v s="$strategy" -v u="$units" -v ms="$ms" \
                -v d1="$d1" -v bd1="$bd1" -v ll="$ll" -v bll="$bll" -v q="$queries" 'BEGIN {
                    printf "| %s | %s | %s | %d | %.3f | %.2f | %.3f |", l, p, s, u, ms, (d1 - bd1) / q, (ll - bll) / q
                }')")
        done
    done
done

echo "cache-report.sh: done in $((SECONDS - START)) s" >&2
echo "Simulated caches ($([[ $HOST_CACHES -eq 1 ]] && echo "valgrind's host detection" || echo fixed)): ${CACHE_DESC:-${CACHE_ARGS[*]:-as detected}}."
echo "Kernel $KERNEL, 1 thread, seed $SEED, unit order $REORDER; misses counted inside $QUERY_FN (callees included) over $WARMUP warm-up + $FRAMES frames, per query; query ms is the native median over $NATIVE_FRAMES frames."
echo
echo "| layout | pass | strategy | units | query ms (native) | D1 misses/query (rd+wr) | LL misses/query (rd+wr) |"
echo "|---|---|---|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
