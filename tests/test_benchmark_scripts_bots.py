"""The bot benchmark and report scripts keep running: benchmarks/ismcts_openspiel.py times both
searches on every sequential game, and benchmarks/strength_report.py turns the committed arena
results into tables and pictures."""

import json
import re
import shutil
from pathlib import Path

from run_util import run_python

ROOT = Path(__file__).resolve().parent.parent


def run(script, *args, cwd=ROOT):
    return run_python(script, *args, timeout=300, cwd=cwd)


def test_ismcts_openspiel_quick_run_prints_every_sequential_game():
    proc = run(ROOT / "benchmarks" / "ismcts_openspiel.py", "--quick", "--markdown")
    assert proc.returncode == 0, proc.stderr
    row = r"^\| (\w+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+)× \|$"
    rows = re.findall(row, proc.stdout, re.MULTILINE)
    assert [r[0] for r in rows] == ["pokeros", "poker_chess", "holdem_chess", "detective_poker"]
    for _, ours, theirs, _ in rows:
        assert int(ours.replace(",", "")) > 0 and int(theirs.replace(",", "")) > 0


def test_strength_report_renders_the_committed_results(tmp_path):
    # A copy of the script and the results, so the committed pictures are not rewritten.
    (tmp_path / "benchmarks").mkdir()
    shutil.copy(ROOT / "benchmarks" / "strength_report.py", tmp_path / "benchmarks")
    shutil.copytree(ROOT / "docs" / "strength", tmp_path / "docs" / "strength")
    proc = run(tmp_path / "benchmarks" / "strength_report.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for game in (
        "pokeros",
        "prediction_chess",
        "poker_chess",
        "holdem_chess",
        "holdem_chess(players=6)",
        "detective_poker",
    ):
        assert f"### {game}\n" in proc.stdout
    assert "| `random` | 0 | 0 to 0 | +0.000 | +0.000 to +0.000 |" in proc.stdout
    for picture in ("ladder_elo.svg", "ladder_return.svg"):
        svg = (tmp_path / "docs" / "strength" / picture).read_text()
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        # The committed picture is the one the committed results give.
        assert svg == (ROOT / "docs" / "strength" / picture).read_text()
    # The tables in docs/strength.md are the ones the results give.
    doc = (ROOT / "docs" / "strength.md").read_text()
    assert proc.stdout.strip() in doc


def test_policy_actions_counts_the_policys_bets_by_street(tmp_path):
    out = tmp_path / "actions.json"
    proc = run(ROOT / "benchmarks" / "policy_actions.py", "--games", "6", "random", "--json", out)
    assert proc.returncode == 0, proc.stderr
    assert "against random:" in proc.stdout and "| preflop |" in proc.stdout
    (result,) = json.loads(out.read_text())
    assert result["games"] == 6 and result["ci"][0] <= result["mean"] <= result["ci"][1]
    kinds = {k for counts in result["by_street"].values() for k in counts}
    assert kinds <= {"fold", "check", "call", "raise", "all-in"}
    assert sum(result["by_street"]["preflop"].values()) >= 3  # one decision a game, at least
    # Every game has one preflop line, and the lines' means add up to the mean.
    lines = result["by_line"]
    assert sum(row["games"] for row in lines.values()) == 6
    total = sum(row["games"] * row["mean"] for row in lines.values())
    assert abs(total / 6 - result["mean"]) < 1e-9
    assert all(line.startswith(("P ", "O ")) for line in lines)
    assert "| preflop line |" in proc.stdout
    bad = run(ROOT / "benchmarks" / "policy_actions.py", "--game", "pokeros", "random")
    assert bad.returncode == 2 and "Hold'em Poker Chess" in bad.stderr


def test_raise_fold_plays_the_strategy_against_the_shipped_rock(tmp_path):
    """The shipped Hold'em Poker Chess policy folds most hands, so raise-then-fold takes chips
    from it (docs/training.md: 0.878 a hand over 4,000); the same seed gives the same result."""
    out = tmp_path / "raise_fold.json"
    proc = run(ROOT / "benchmarks" / "raise_fold.py", "--games", "1000", "--json", out)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["games"] == 1000 and result["policy"] == "shipped"
    assert result["ci"][0] <= result["mean"] <= result["ci"][1] < 0
    assert result["policy_folded_in"] > 0.5
    again = run(ROOT / "benchmarks" / "raise_fold.py", "--games", "1000")
    assert json.loads(again.stdout)["mean"] == result["mean"]
    bad = run(ROOT / "benchmarks" / "raise_fold.py", "--game", "pokeros")
    assert bad.returncode == 2 and "holdem_chess" in bad.stderr


def test_block_policy_plays_the_largest_entry_of_the_block(tmp_path):
    import numpy as np

    import checkraise as cr

    game_string = "pokeros(board_size=7,observation=lookahead)"
    out = tmp_path / "block.safetensors"
    proc = run(ROOT / "benchmarks" / "block_policy.py", game_string, out)
    assert proc.returncode == 0, proc.stderr
    game = cr.make(game_string)
    bot = cr.Bot(game, f"policy(path={out})")
    at = game.action_features()
    state, decisions = game.new_initial_state(), 0
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice(state.legal_actions())))
            continue
        seat = state.current_player()
        block = state.observation_tensor(seat)[at : at + game.num_distinct_actions()]
        legal = state.legal_actions()
        best = max(block[a] for a in legal)
        action = bot.act(state)
        assert block[action] == best, (decisions, action)
        decisions += 1
        state.apply_action(int(rng.choice(legal)))
    assert decisions > 10
    bad = run(ROOT / "benchmarks" / "block_policy.py", "pokeros", tmp_path / "none.safetensors")
    assert bad.returncode == 2 and "no per-action observation block" in bad.stderr
