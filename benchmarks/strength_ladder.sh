#!/usr/bin/env bash
# The strength ladder of docs/strength.md: one arena run per game (default parameters, plus
# six-seat Hold'em Poker Chess), every bot against every other with duplicate deals, results
# as JSON in docs/strength/. Then `python3 benchmarks/strength_report.py` writes the tables
# and the picture. Usage: benchmarks/strength_ladder.sh [game-name ...] (default: all).
set -euo pipefail
source "$(dirname "$0")/strength_common.sh"

# name | game string | deals per pair (sized so that every run takes minutes on two cores;
# Prediction Chess games against weak bots last up to 200 turns, so it is the dearest)
runs=(
  "holdem_chess|holdem_chess|40"
  "poker_chess|poker_chess|10"
  "pokeros|pokeros|10"
  "detective_poker|detective_poker|6"
  "holdem_chess_6|holdem_chess(players=6)|6"
  "prediction_chess|prediction_chess|6"
)
bots=(
  random
  heuristic
  "ismcts(iterations=100,rollout=random)"
  "ismcts(iterations=1000,rollout=random)"
  "ismcts(iterations=10000,rollout=random)"
  "ismcts(iterations=100,rollout=heuristic)"
  "ismcts(iterations=1000,rollout=heuristic)"
)
for run in "${runs[@]}"; do
  IFS='|' read -r name game deals <<<"$run"
  if [ $# -gt 0 ] && [[ ! " $* " == *" $name "* ]]; then continue; fi
  echo "== $name: $game, $deals deals per pair ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
  timed_arena "$out/$name" --game "$game" --deals "$deals" --seed 2026 "${bots[@]}"
done
