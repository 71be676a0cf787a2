"""League training (`checkraise.league`, the `train` extra): a fixed-seed smoke run in which the
population grows, exploiters are trained and added, the meta-strategy's weights are finite and
sum to one with the anchored member at its share, and the policy that comes out is played by the
engine; the meta-strategy itself, anchored and not; and the information rule for every league
member played as a bot.

These check that the league runs and records what the docs say, not how well it learns (that is
measured in docs/training.md, "League").
"""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

import checkraise as cr
from checkraise.league import (
    LeagueConfig,
    _league_policy,
    _score,
    config_of,
    league,
    main,
    meta_strategy,
    parse_anchor,
)
from checkraise.policy import read_safetensors
from checkraise.train import Config, Evaluation

GAME = "detective_poker"
# The engine's bots, a search and a best-response search among them, as the population's start.
MEMBERS = [
    "heuristic",
    "random",
    "ismcts(iterations=20,rollout=random)",
    "br(target=heuristic,iterations=10)",
]
SMALL = {
    "num_envs": 8,
    "rollout": 16,
    "minibatch": 64,
    "epochs": 2,
    "hidden": (16,),
    "eval_games": 6,
    "snapshot_every": 2,
}
# The heuristic held at this share of the meta-strategy in the smoke run, and the exploiters
# together at this one.
ANCHOR = 0.3
EXPLOITER_SHARE = 0.2


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Two generations from a fresh network (seed 3), the heuristic anchored: the first main
    phase plays the bots alone, then an exploiter of the main, and a final exploiter of the
    last main."""
    out = tmp_path_factory.mktemp("league") / "run"
    lines: list[str] = []
    summary = league(_smoke(out, generations=2), log=lines.append)
    return out, summary, lines


def _smoke(out, generations):
    """The smoke run's settings, writing to ``out``."""
    return LeagueConfig(
        base=Config(game=GAME, seed=3, **SMALL),
        out=str(out),
        init=None,
        generations=generations,
        main_minutes=5,
        exploiter_minutes=5,
        main_steps=300,
        exploiter_steps=200,
        eval_games=6,
        exploiter_eval_games=6,
        members=MEMBERS,
        anchors={"heuristic": ANCHOR},
        exploiter_share=EXPLOITER_SHARE,
        final_opponents=["heuristic"],
        final_eval_games=6,
    )


def test_the_population_grows_with_exploiters_and_past_mains(run):
    out, summary, _ = run
    sizes = [len(h["population"]) for h in summary["history"]]
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
    kinds = [m["kind"] for m in summary["population"]]
    assert kinds.count("bot") == len(MEMBERS)
    assert kinds.count("exploiter") >= 1 and kinds.count("main") >= 2
    for member in summary["population"]:
        if member["kind"] != "bot":
            assert (out / "members" / f"{member['name']}.safetensors").is_file()
    # Every generation after the first trains an exploiter of its main, and the final main
    # gets one too; each records its value with an interval.
    assert [r["target"] for r in summary["exploiters"]] == ["main1", "main2"]
    assert summary["final_exploiter"]["target"] == "main2"
    for row in summary["exploiters"]:
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
        assert row["exploiter_env_steps"] >= 200
    with open(out / "exploiters.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    for name in ("league.png", "league.json", "final.csv", "league_config.json"):
        assert (out / name).is_file()
    assert json.loads((out / "league.json").read_text())["main_env_steps"] >= 600


def test_the_meta_strategy_weights_are_finite_and_sum_to_one(run):
    out, summary, _ = run
    for h in summary["history"]:
        weights = h["weights"]
        assert len(weights) == len(h["population"])
        assert all(math.isfinite(w) and w > 0 for w in weights)
        assert math.isclose(sum(weights), 1.0, abs_tol=1e-9)
    with open(out / "league.csv") as f:
        rows = list(csv.DictReader(f))
    for generation in {r["generation"] for r in rows}:
        mine = [float(r["weight"]) for r in rows if r["generation"] == generation]
        assert math.isclose(sum(mine), 1.0, abs_tol=1e-6)
        # The anchored heuristic keeps its share whatever its score, and the exploiters
        # theirs, split evenly; the rest is PFSP's.
        mine = [r for r in rows if r["generation"] == generation]
        exploiters = [r for r in mine if r["kind"] == "exploiter"]
        for r in mine:
            assert r["anchored"] == str(r["member"] == "heuristic" or r["kind"] == "exploiter")
            if r["member"] == "heuristic":
                assert float(r["weight"]) == ANCHOR
            if r["kind"] == "exploiter":
                assert float(r["weight"]) == pytest.approx(EXPLOITER_SHARE / len(exploiters))
    for h in summary["history"]:
        assert h["weights"][h["population"].index("heuristic")] == ANCHOR
    # The main phases' pools are the weights (times the share left to `self`) and `self`.
    for generation in (0, 1):
        config = json.loads((out / f"gen{generation}" / "main" / "config.json").read_text())
        assert math.isclose(sum(w for _, w in config["pool"]), 1.0, abs_tol=1e-9)
        assert ["self", 0.2] in config["pool"]
        assert [w for spec, w in config["pool"] if spec == "heuristic"] == [
            pytest.approx(ANCHOR * 0.8)
        ]
    assert summary["anchors"] == {"heuristic": ANCHOR}
    assert summary["exploiter_share"] == EXPLOITER_SHARE
    # The second generation has an exploiter to hold at the share; the first had none.
    assert any(r["kind"] == "exploiter" for r in rows)


def test_the_league_policy_is_played_by_the_engine(run):
    out, _, _ = run
    game = cr.make(GAME)
    spec = f"policy(path={out / 'policy.safetensors'})"
    played = cr.Match(game, [spec, "heuristic", "random"], 7)
    played.start()
    played.advance()
    assert played.is_terminal()
    assert len(played.returns()) == game.num_players()
    # The final main's weights, with metadata that says the league made it.
    tensors, metadata = read_safetensors((out / "policy.safetensors").read_bytes())
    main, main_metadata = read_safetensors((out / "members" / "main2.safetensors").read_bytes())
    assert sorted(tensors) == sorted(main)
    for name, array in main.items():
        np.testing.assert_array_equal(tensors[name], array)
    assert metadata["trainer"] == "checkraise.league (PPO)"
    assert metadata["generations"] == "2" and "updates" not in metadata
    summary = json.loads((out / "league.json").read_text())
    assert metadata["env_steps"] == metadata["league_env_steps"] == str(summary["main_env_steps"])
    assert {k: v for k, v in metadata.items() if k not in LEAGUE_KEYS} == {
        k: v for k, v in main_metadata.items() if k not in LEAGUE_KEYS
    }


def test_a_resumed_league_ends_where_one_run_straight_through_does(run, tmp_path, capsys):
    """One generation, then resumed to two: the final exploiter of the first run is the second
    generation's (not trained again), and with step limits everything the league decides comes
    out as in the smoke run's two generations straight through."""
    straight, summary, _ = run
    out = tmp_path / "resumed"
    league(_smoke(out, generations=1), log=lambda _: None)
    lines: list[str] = []
    resumed = league(config_of(out, 2), log=lines.append, resume=True)
    assert any("resumed after 1 generations" in line for line in lines)
    assert any("the resumed run's final exploiter" in line for line in lines)
    assert sum("[gen1/exploiter]" in line for line in lines) == 0
    assert [m["name"] for m in resumed["population"]] == [m["name"] for m in summary["population"]]
    for key in ("main_env_steps", "generations"):
        assert resumed[key] == summary[key]
    for mine, theirs in zip(resumed["history"], summary["history"], strict=True):
        assert mine["population"] == theirs["population"]
        assert mine["weights"] == pytest.approx(theirs["weights"])
    assert [r["value"] for r in resumed["exploiters"]] == [
        r["value"] for r in summary["exploiters"]
    ]
    assert resumed["seconds"] > resumed["exploiters"][0]["league_seconds"]
    for name in ("policy.safetensors", "members/main2.safetensors"):
        mine, _ = read_safetensors((out / name).read_bytes())
        theirs, _ = read_safetensors((straight / name).read_bytes())
        for key, array in theirs.items():
            np.testing.assert_array_equal(mine[key], array)
    _, metadata = read_safetensors((out / "policy.safetensors").read_bytes())
    assert metadata["generations"] == "2"
    with open(out / "league.csv") as f:
        rows = list(csv.DictReader(f))
    with open(straight / "league.csv") as f:
        assert [r["member"] for r in rows] == [r["member"] for r in csv.DictReader(f)]
    # Resuming further needs more generations, the same settings, and a finished run.
    with pytest.raises(cr.CheckraiseError, match="needs more"):
        league(config_of(out, 2), resume=True)
    changed = _smoke(out, generations=3)
    changed.eval_games = 7
    changed.base.lr = 1e-3
    with pytest.raises(cr.CheckraiseError, match=r"eval_games, base\.lr"):
        league(changed, resume=True)
    with pytest.raises(cr.CheckraiseError, match="no finished league"):
        league(_smoke(tmp_path / "nothing", generations=2), resume=True)
    # The command line: only --generations (and --out) with --resume.
    assert main([GAME, "--out", str(out), "--resume", "--generations", "3", "--lr", "1"]) == 2
    assert "drop --lr" in capsys.readouterr().err
    assert main(["pokeros", "--out", str(out), "--resume", "--generations", "3"]) == 2
    assert "plays 'detective_poker'" in capsys.readouterr().err
    assert main([GAME, "--out", str(tmp_path / "none"), "--resume"]) == 2
    assert "no league settings" in capsys.readouterr().err


LEAGUE_KEYS = {
    "trainer", "env_steps", "league_env_steps", "seconds", "league_seconds",
    "generations", "seed", "updates",
}  # fmt: skip


def test_the_meta_strategy():
    """Prioritized fictitious self-play: a member the main loses to outweighs one it beats,
    none falls below the floor's share, and bad scores cannot break the weights."""
    weights = meta_strategy([0.0, 0.5, 1.0], power=2.0, floor=0.02)
    assert weights[0] > weights[1] > weights[2] > 0
    assert math.isclose(sum(weights), 1.0)
    assert math.isclose(weights[2], 0.02 / (1.02 + 0.27 + 0.02))
    for scores in ([math.nan, 2.0, -1.0], [1.0, 1.0], [0.3]):
        for floor in (0.0, 0.02):
            w = meta_strategy(scores, power=2.0, floor=floor)
            assert all(math.isfinite(x) and x >= 0 for x in w)
            assert math.isclose(sum(w), 1.0)
    with pytest.raises(ValueError):
        meta_strategy([], power=2.0, floor=0.02)


def test_the_anchored_meta_strategy():
    """An anchored member keeps its share whatever its score (one the main beats outright
    included), the others share the rest by their prioritized weights, and bad anchors are
    errors, never weights that do not sum to one."""
    scores = [1.0, 0.5, 0.0]
    free = meta_strategy(scores[1:], power=2.0, floor=0.02)
    weights = meta_strategy(scores, power=2.0, floor=0.02, anchors={0: 0.3})
    assert weights[0] == 0.3
    assert weights[1:] == pytest.approx([0.7 * w for w in free])
    assert math.isclose(sum(weights), 1.0)
    # Without the anchor, the member the main beats outright would get the floor alone.
    assert meta_strategy(scores, power=2.0, floor=0.02)[0] < 0.02
    two = meta_strategy([0.2, 0.9, math.nan, 0.4], power=2.0, floor=0.0, anchors={1: 0.25, 3: 0.5})
    assert two[1] == 0.25 and two[3] == 0.5
    assert all(math.isfinite(x) and x >= 0 for x in two) and math.isclose(sum(two), 1.0)
    # A zero anchor takes the member out of the mixture.
    assert meta_strategy(scores, power=2.0, floor=0.02, anchors={2: 0.0})[2] == 0.0
    for bad in ({0: 1.0}, {0: -0.1}, {0: math.nan}, {0: 0.5, 1: 0.5}, {3: 0.1}, {-1: 0.1}):
        with pytest.raises(ValueError):
            meta_strategy(scores, power=2.0, floor=0.02, anchors=bad)
    with pytest.raises(ValueError, match="every member"):
        meta_strategy([0.5, 0.5], power=2.0, floor=0.02, anchors={0: 0.3, 1: 0.3})
    assert parse_anchor("heuristic:0.3") == ("heuristic", 0.3)
    assert parse_anchor("policy(path=C:/x.safetensors):0.1") == (
        "policy(path=C:/x.safetensors)",
        0.1,
    )
    for text in ("heuristic", ":0.3", "heuristic:", "heuristic:lots"):
        with pytest.raises(cr.CheckraiseError):
            parse_anchor(text)


@pytest.mark.parametrize(
    ("anchors", "init", "message"),
    [
        ({"ismcts": 0.3}, "shipped", "not a member at the start"),
        ({"exploiter0": 0.3}, "shipped", "not a member at the start"),
        ({"main0": 0.3}, None, "not a member at the start"),
        ({"heuristic": 1.0}, "shipped", r"in \[0, 1\)"),
        ({"heuristic": -0.2}, "shipped", r"in \[0, 1\)"),
        ({"heuristic": 0.6, "main0": 0.4}, "shipped", "sum to 1.0"),
        ({"heuristic": 0.5, "random": 0.2}, None, "every member"),
    ],
)
def test_bad_anchors_are_errors_before_the_league_starts(tmp_path, anchors, init, message):
    config = LeagueConfig(
        base=Config(game=GAME, **SMALL),
        out=str(tmp_path / "run"),
        init=init,
        anchors=anchors,
    )
    with pytest.raises(cr.CheckraiseError, match=message):
        league(config, log=lambda _: None)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("share", "anchors", "message"),
    [
        (1.0, {}, r"exploiters' share must be in \[0, 1\)"),
        (-0.1, {}, r"exploiters' share must be in \[0, 1\)"),
        (math.nan, {}, r"exploiters' share must be in \[0, 1\)"),
        (0.5, {"heuristic": 0.5}, "sum to 1.0"),
    ],
)
def test_a_bad_exploiter_share_is_an_error_before_the_league_starts(
    tmp_path, share, anchors, message
):
    config = LeagueConfig(
        base=Config(game=GAME, **SMALL),
        out=str(tmp_path / "run"),
        anchors=anchors,
        exploiter_share=share,
    )
    with pytest.raises(cr.CheckraiseError, match=message):
        league(config, log=lambda _: None)
    assert not (tmp_path / "run").exists()


def test_the_score_is_the_mapped_return_or_the_share_of_games_won(tmp_path):
    """``return`` maps the mean by the game's return range, where a chip game's few chips a hand
    all score about 0.5; ``win`` is the share of games won. Any other is an error before the
    league starts."""
    holdem = cr.make("holdem_chess")  # returns in [-200, 200] chips
    e = Evaluation(opponent="x", games=10, mean=-5.0, ci=(-7.0, -3.0), win_rate=0.2)
    assert _score(e, holdem, "return") == pytest.approx(195 / 400)
    assert _score(e, holdem, "win") == 0.2
    assert _score(Evaluation("x", 10, 1.0, (0.0, 2.0), math.nan), holdem, "win") == 0.5
    config = LeagueConfig(base=Config(game=GAME, **SMALL), out=str(tmp_path / "run"), score="wins")
    with pytest.raises(cr.CheckraiseError, match="must be one of return, win"):
        league(config, log=lambda _: None)
    assert not (tmp_path / "run").exists()


def _decisions(game, count, seed=5):
    """(state, seat) at decisions of random play, fixed seed."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    out = []
    while len(out) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.sample_chance(int(rng.integers(2**31)))
        else:
            seat = state.current_player()
            out.append((state.clone(), seat))
            state.apply_action(int(rng.choice(state.legal_actions(seat))))
    return out


def test_every_league_member_played_as_a_bot_keeps_the_information_rule(run):
    """Each member, played as a bot by its spec, chooses the same action at a state and at
    states resampled from the deciding seat's information (other seats' hidden cards
    redrawn): its choice depends on what its seat may see and nothing else."""
    _, summary, _ = run
    game = cr.make(GAME)
    differed = False
    for member in summary["population"]:
        for state, seat in _decisions(game, 12):
            action = cr.Bot(game, member["spec"], seed=1).act(state, seat)
            for s in range(3):
                other = state.resample_from_infostate(seat, s)
                differed |= any(
                    other.information_state_string(o) != state.information_state_string(o)
                    for o in range(game.num_players())
                    if o != seat
                )
                assert cr.Bot(game, member["spec"], seed=1).act(other, seat) == action, (
                    member["name"],
                    state.history(),
                )
    assert differed, "the resamples never changed another seat's information"


def test_the_command_line(tmp_path, capsys):
    out = tmp_path / "cli"
    args = [GAME, "--init", "none", "--out", str(out), "--seed", "4", "--generations", "1"]
    small = ["--main-steps", "100", "--exploiter-steps", "100", "--hidden", "8", "--num-envs", "4"]
    evals = ["--eval-games", "3", "--exploiter-eval-games", "3", "--final-eval-games", "3"]
    finals = ["--final-opponent", "random", "--member", "random", "--no-final-exploiter"]
    assert main([*args, *small, *evals, *finals, "--exploiter-share", "0.25"]) == 0
    assert '"main_env_steps"' in capsys.readouterr().out
    summary = json.loads((out / "league.json").read_text())
    assert summary["exploiter_share"] == 0.25
    assert [m["name"] for m in summary["population"]] == ["random", "main1"]
    assert summary["final"][0]["opponent"] == "random"
    assert main([GAME, "--member", "alphazero", "--out", str(tmp_path / "x")]) == 2
    for anchor in ("nobody:0.3", "heuristic", "heuristic:1.2", "heuristic:x"):
        assert main([GAME, "--anchor", anchor, "--out", str(tmp_path / "x")]) == 2
    assert main([GAME, "--exploiter-share", "1", "--out", str(tmp_path / "x")]) == 2
    assert "exploiters' share" in capsys.readouterr().err
    twice = ["--anchor", "heuristic:0.1", "--anchor", "heuristic:0.2"]
    assert main([GAME, *twice, "--out", str(tmp_path / "x")]) == 2
    assert "anchored twice" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_league_started_from_a_policy_counts_its_steps_and_names_its_trainer(tmp_path):
    shipped = bytes(cr._core.shipped_policy(GAME))
    _, before = read_safetensors(shipped)
    config = LeagueConfig(base=Config(game=GAME, seed=5), out=str(tmp_path), init="shipped")
    data = _league_policy(shipped, shipped, config, main_steps=1000, seconds=12.4)
    tensors, metadata = read_safetensors(data)
    main, _ = read_safetensors(shipped)
    assert all(np.array_equal(tensors[k], main[k]) for k in main) and sorted(tensors) == sorted(
        main
    )
    assert (
        metadata["trainer"]
        == f"checkraise.league (PPO), started from shipped ({before['trainer']})"
    )
    assert metadata["env_steps"] == str(int(before["env_steps"]) + 1000)
    assert metadata["league_env_steps"] == "1000" and metadata["league_seconds"] == "12"
    assert metadata["seconds"] == f"{float(before['seconds']) + 12.4:.0f}"
    assert metadata["seed"] == "5" and metadata["game"] == before["game"]
    # The engine plays it as it plays the main it came from.
    path = tmp_path / "p.safetensors"
    path.write_bytes(data)
    state = cr.Env(GAME, seed=0).state()
    seat = state.current_player()
    assert cr.Bot(GAME, f"policy(path={path})").act(state, seat) == cr.Bot(GAME, "policy").act(
        state, seat
    )


def test_a_sampling_league_plays_its_mains_as_mixed_strategies(tmp_path):
    """With ``--play sample`` every main's file (the start's included) says ``play=sample``,
    so the engine plays it by sampling as a member, as an exploiter's target and as the
    league's policy; the exploiters, best responses, stay greedy."""
    out = tmp_path / "sampled"
    odds = "detective_poker(observation=odds)"  # the game the shipped policy is trained on
    args = [odds, "--init", "shipped", "--out", str(out), "--seed", "4", "--generations", "1"]
    small = ["--main-steps", "100", "--exploiter-steps", "100", "--num-envs", "4"]
    evals = ["--eval-games", "3", "--exploiter-eval-games", "3", "--final-eval-games", "3"]
    finals = ["--final-opponent", "random", "--member", "random", "--no-final-exploiter"]
    assert main([*args, *small, *evals, *finals, "--play", "sample"]) == 0
    plays = {
        p.stem: read_safetensors(p.read_bytes())[1].get("play")
        for p in (out / "members").glob("*.safetensors")
    }
    assert plays == {"main0": "sample", "exploiter0": None, "main1": "sample"}
    assert read_safetensors((out / "policy.safetensors").read_bytes())[1]["play"] == "sample"
    path = out / "policy.safetensors"
    bot = cr.Bot(GAME, f"policy(path={path})", seed=1)
    assert bot.spec == f"policy(path={path})"
    greedy = cr.Bot(GAME, f"policy(path={path},play=greedy)")
    # Somewhere in a few games the sampling bot leaves its network's mode.
    differed = False
    for seed in range(30):
        env = cr.Env(GAME, seed=seed)
        state = env.state()
        seat = state.current_player()
        if any(bot.act(state, seat) != greedy.act(state, seat) for _ in range(20)):
            differed = True
            break
    assert differed
    with pytest.raises(SystemExit):
        main([GAME, "--play", "mixed", "--out", str(tmp_path / "x")])
    bad = LeagueConfig(base=Config(game=GAME, play="mixed"), out=str(tmp_path / "y"))
    with pytest.raises(cr.CheckraiseError, match="--play 'mixed'"):
        league(bad)
