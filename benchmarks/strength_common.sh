# Sourced by benchmarks/strength_ladder.sh, strength_top.sh and strength_more.sh: builds the
# arena, then `timed_arena STEM ARG...` runs it with ARG... (game, deals, seed, bots), writes
# its result as JSON to STEM.json and, beside it, STEM.run.json: when it started, how long it
# took, the load after it and the machine (what strength_report.py prints with each table).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release -p checkraise-cli
arena=target/release/checkraise-arena
out=docs/strength
mkdir -p "$out"

timed_arena() {
  local stem=$1
  shift
  local start end
  start=$(date +%s)
  "$arena" --quiet --format json --out "$stem.json" "$@"
  end=$(date +%s)
  printf '{"name":"%s","started":"%s","seconds":%d,"load_after":"%s","cpus":%d,"cpu":"%s"}\n' \
    "$(basename "$stem")" "$(date -u -d @"$start" +%FT%TZ)" $((end - start)) \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" >"$stem.run.json"
  echo "   $((end - start)) s"
}
