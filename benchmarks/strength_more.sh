#!/usr/bin/env bash
# The rows of docs/strength.md beyond the ladder's round robin: the shipped trained policy and
# the belief-weighted search (IS-MCTS reading the other seats' actions with the heuristic as
# their model), each against the heuristic alone, on the ladder's deals (seed 2026: deal d is
# the same chance seed in every pair, so these rows face the deals the ladder's rows faced).
# Results in docs/strength/<name>_policy.json and <name>_belief.json; then
# `python3 benchmarks/strength_report.py` adds them to each game's tables.
# Usage: benchmarks/strength_more.sh [name ...] (default: all; a name is a game's ladder name,
# or NAME_policy / NAME_belief for one of its two runs).
set -euo pipefail
source "$(dirname "$0")/strength_common.sh"

# name | game string | deals | the belief search. Each search is the ladder's better rollout
# at 1,000 iterations with a belief added, so that its row reads beside the same search
# without one. Six-seat Hold'em Poker Chess has neither run: no policy is trained for it, and
# its searches already beat the heuristic from 100 iterations.
runs=(
  "pokeros|pokeros|10|ismcts(iterations=1000,rollout=random,belief=heuristic)"
  "prediction_chess|prediction_chess|6|ismcts(iterations=1000,rollout=heuristic,belief=heuristic)"
  "poker_chess|poker_chess|10|ismcts(iterations=1000,rollout=heuristic,belief=heuristic)"
  "holdem_chess|holdem_chess|40|ismcts(iterations=1000,rollout=heuristic,belief=heuristic)"
  "detective_poker|detective_poker|6|ismcts(iterations=1000,rollout=random,belief=heuristic)"
)
for run in "${runs[@]}"; do
  IFS='|' read -r name game deals belief <<<"$run"
  for kind in policy belief; do
    if [ $# -gt 0 ] && [[ ! " $* " == *" $name "* ]] && [[ ! " $* " == *" ${name}_$kind "* ]]; then
      continue
    fi
    bot=policy
    [ "$kind" = belief ] && bot="$belief"
    echo "== $name ($kind): $game, $deals deals, $bot ($(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
    timed_arena "$out/${name}_$kind" --game "$game" --deals "$deals" --seed 2026 heuristic "$bot"
  done
done
