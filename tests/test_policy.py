"""Trained policies as bots: the shipped files, the engine's inference from Python
(`checkraise.policy`, the same reader and forward pass as the bot spec `policy`) against a numpy
oracle of the network, policy files of your own, and clear errors.

The same-action test plays random games of every game and asks, for every seat that may act,
the `policy` bot, `Policy.act` (which must agree exactly: one implementation) and the numpy
oracle (which must agree unless the two best legal logits are within float32 rounding of each
other: summation order differs between numpy's BLAS and the engine).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import checkraise as cr
from checkraise.policy import (
    FORMAT,
    PLAY,
    Policy,
    PolicyFileError,
    read_safetensors,
    write_safetensors,
)

GAMES = cr.game_names()


def decisions(game, seed, limit=60):
    """(state, seat) pairs of random play of `game`, every seat that may act."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    step = 0
    out = []
    while not state.is_terminal() and len(out) < limit:
        if state.is_chance_node():
            state.sample_chance(seed * 10_000 + step)
        elif state.is_simultaneous_node():
            joint = []
            for seat in range(game.num_players()):
                legal = state.legal_actions(seat)
                if legal:
                    out.append((state.clone(), seat))
                joint.append(int(rng.choice(legal)) if legal else 0)
            state.apply_actions(joint)
        else:
            seat = state.current_player()
            out.append((state.clone(), seat))
            state.apply_action(int(rng.choice(state.legal_actions(seat))))
        step += 1
    return out


def oracle_logits(policy, observation):
    """The network's logits by numpy, from its tensors as the file holds them (with the
    action-features link: its weight times the observation's per-action block)."""
    x = np.asarray(observation, np.float32)
    h = x
    for w, b in policy.layers:
        h = np.maximum(h @ w + b, np.float32(0))
    w, b = policy.head
    logits = h @ w + b
    if policy.action_features is not None:
        offset, weight = policy.action_features
        logits = logits + np.float32(weight) * x[offset : offset + policy.num_actions]
    return logits


def seen(policy, state, seat):
    """The observation the policy reads: the seat's own, or, for a policy trained with another
    `observation` parameter, the same history's in that variant (checked against a replay)."""
    if cr.make(policy.game).observation_size == state.get_game().observation_size:
        return state.observation(seat)
    variant = cr.make(policy.game).new_initial_state()
    for _player, action in state.full_history():
        variant.apply_action(action)
    np.testing.assert_array_equal(policy.net.observation(state, seat), variant.observation(seat))
    return variant.observation(seat)


def oracle_act(policy, state, seat):
    logits = oracle_logits(policy, seen(policy, state, seat))
    return int(np.where(state.action_mask(seat), logits, -np.inf).argmax())


def near_tie(policy, state, seat):
    logits = oracle_logits(policy, seen(policy, state, seat))
    legal = np.sort(logits[state.action_mask(seat)])
    return len(legal) > 1 and legal[-1] - legal[-2] <= 1e-4 * max(1.0, abs(legal[-1]))


def assert_same_actions(policy, game, bot_spec, want):
    """At least `want` decisions, from as many random games (seeds 0, 1, ...) as it takes."""
    checked = ties = 0
    for seed in range(500):
        if checked >= want:
            break
        for state, seat in decisions(game, seed, limit=20):
            mine = oracle_act(policy, state, seat)
            engine = cr.Bot(game, bot_spec, seed=seed).act(state, seat)
            assert policy.act(state, seat) == engine
            np.testing.assert_allclose(
                policy.logits(seen(policy, state, seat)),
                oracle_logits(policy, seen(policy, state, seat)),
                rtol=1e-4,
                atol=1e-4,
            )
            if mine != engine:
                assert near_tie(policy, state, seat), (str(game), seed, seat, mine, engine)
                ties += 1
            checked += 1
    assert checked >= want
    assert ties <= checked // 100


@pytest.mark.parametrize("name", GAMES)
def test_shipped_policy_fits_its_game(name):
    game = cr.make(name)
    policy = Policy.shipped(name)
    assert policy.metadata["format"] == FORMAT
    # Trained on the game's default rules, observed as the game's own observation or as a
    # variant's (Pokeros's `observation=lookahead`), which differs in nothing else.
    observed = cr.make(policy.game)
    assert observed.name == name
    differ = {k for k, v in observed.parameters.items() if game.parameters[k] != v}
    assert differ <= {"observation"}, differ
    assert policy.observation_size == observed.observation_size
    assert policy.num_actions == game.num_distinct_actions()
    policy.check_game(observed)
    data = cr._core.shipped_policy(name)
    # A few MB: the largest, Poker Chess's, is 4.7 MiB (its first layer reads the 4,207-entry
    # scores block, its head writes 4,207 logits).
    assert len(data) < 5 * 1024 * 1024, "a shipped policy stays a few MB"
    tensors, metadata = read_safetensors(data)
    assert metadata["game"] == str(observed) or cr.make(metadata["game"]) == observed
    assert all(t.dtype == np.float32 and np.isfinite(t).all() for t in tensors.values())
    assert cr.Bot(name, "policy").spec == "policy"


@pytest.mark.parametrize("name", GAMES)
def test_the_engine_inference_matches_a_numpy_oracle(name):
    # Greedy play on both sides, whatever the file says (Prediction Chess's samples).
    tensors, metadata = read_safetensors(cr._core.shipped_policy(name))
    metadata.pop(PLAY, None)
    greedy = Policy(tensors, metadata)
    assert_same_actions(greedy, cr.make(name), "policy(play=greedy)", want=120)


def random_policy(game, hidden, seed):
    rng = np.random.default_rng(seed)
    sizes = [game.observation_size, *hidden]
    tensors = {}
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        tensors[f"layer{i}.weight"] = rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32)
        tensors[f"layer{i}.bias"] = rng.normal(0, 0.1, b).astype(np.float32)
    tensors["policy.weight"] = rng.normal(0, 1, (sizes[-1], game.num_distinct_actions())).astype(
        np.float32
    )
    tensors["policy.bias"] = np.zeros(game.num_distinct_actions(), np.float32)
    metadata = {
        "format": FORMAT,
        "game": str(game),
        "observation_size": str(game.observation_size),
        "num_actions": str(game.num_distinct_actions()),
    }
    return tensors, metadata


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("detective_poker(players=4)", (32,)),
        ("holdem_chess(players=3)", (16, 8)),
        ("prediction_chess", ()),
        ("pokeros(board_size=7)", (8, 8, 8)),
    ],
)
def test_a_policy_file_of_your_own_plays_the_same_in_both_languages(tmp_path, text, hidden):
    game = cr.make(text)
    tensors, metadata = random_policy(game, hidden, seed=len(text))
    path = tmp_path / "mine.safetensors"
    write_safetensors(path, tensors, metadata)
    policy = Policy.load(path)
    assert len(policy.layers) == len(hidden)
    spec = f"policy(path={path})"
    assert cr.Bot(game, spec).spec == spec
    assert_same_actions(policy, game, spec, want=60)
    # The engine's driver and arena play it too.
    driver = cr.Driver(game, [spec] * game.num_players(), seed=1)
    state = game.new_initial_state()
    assert driver.advance(state) == "over"
    report = cr.arena.run(game, [spec, "random"], deals=4, seed=2, bootstrap=0, progress=False)
    assert report.pairs[0].games > 0


def test_bad_policy_files_are_clear_errors(tmp_path):
    game = cr.make("detective_poker")
    missing = tmp_path / "nope.safetensors"
    with pytest.raises(cr.CheckraiseError, match="readable policy file"):
        cr.Bot(game, f"policy(path={missing})")
    with pytest.raises(PolicyFileError, match="cannot read"):
        Policy.load(missing)
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(cr.CheckraiseError, match="checkraise policy file"):
        cr.Bot(game, f"policy(path={junk})")
    with pytest.raises(PolicyFileError, match="not JSON"):
        Policy.load(junk)
    # A valid safetensors file that is not a policy.
    other = tmp_path / "other.safetensors"
    write_safetensors(other, {"x": np.zeros(3, np.float32)}, {"format": "something-else"})
    with pytest.raises(cr.CheckraiseError, match="not a checkraise policy"):
        cr.Bot(game, f"policy(path={other})")
    with pytest.raises(PolicyFileError, match="not a checkraise policy"):
        Policy.load(other)
    # Trained on other parameters: refused in both languages.
    tensors, metadata = random_policy(cr.make("detective_poker(players=4)"), (8,), 0)
    four = tmp_path / "four.safetensors"
    write_safetensors(four, tensors, metadata)
    with pytest.raises(cr.CheckraiseError, match="trained on"):
        cr.Bot(game, f"policy(path={four})")
    with pytest.raises(PolicyFileError, match="trained on"):
        Policy.load(four).check_game(game)
    with pytest.raises(cr.CheckraiseError, match="trained on"):
        cr.Bot("holdem_chess(players=3)", "policy")
    with pytest.raises(cr.CheckraiseError, match="trained on"):
        cr.Driver("pokeros(players=3)", ["policy", None, None])
    # A policy bot made for one parameter set does not play another's states.
    bot = cr.Bot("detective_poker", "policy")
    other_state = cr.Env("detective_poker(players=4)", seed=0).state()
    with pytest.raises(cr.CheckraiseError, match="plays"):
        bot.act(other_state)
    with pytest.raises(cr.CheckraiseError, match="'path'"):
        cr.Bot(game, "policy(path=)")
    with pytest.raises(cr.CheckraiseError, match="no setting 'depth'"):
        cr.Bot(game, "policy(depth=3)")


def test_policy_bots_pickle_and_are_listed():
    import pickle

    bot = cr.Bot("poker_chess", "policy", seed=3)
    again = pickle.loads(pickle.dumps(bot))
    assert again.spec == "policy"
    state = cr.Env("poker_chess", seed=5).state()
    assert again.act(state) == bot.act(state)
    kinds = {entry["kind"] for entry in cr.bots()}
    assert "policy" in kinds


def test_grpc_bot_seats_play_the_shipped_policies_and_never_read_a_client_file(client):
    from checkraise.client import InvalidArgumentError

    seats = ["policy", "heuristic", "policy"]
    match = client.create_match("detective_poker", seed=3, seats=seats)
    assert [s.kind for s in match.seats] == seats
    assert match.spectate().is_terminal  # an all-bot match plays to its end at once
    match = client.create_match("prediction_chess", seed=4, seats=["human", "policy"])
    view = match.join(0).view()
    assert view.may_act
    with pytest.raises(InvalidArgumentError, match="not served"):
        client.create_match("pokeros", seats=["human", "policy(path=/etc/passwd)"])
    with pytest.raises(InvalidArgumentError, match="trained on"):
        client.create_match("pokeros", seats=["human", "policy"], board_size=9)


# The Detective Poker policy shipped from 2026-11-29 to 2026-12-06, which the league's replaced.
REPLACED_DETECTIVE_POKER = Path(__file__).parent / "data" / "detective_poker_2026-11-29.safetensors"
# The Prediction Chess policy shipped from 2026-11-25 to 2026-12-07, which a league's replaced.
REPLACED_PREDICTION_CHESS = (
    Path(__file__).parent / "data" / "prediction_chess_2026-11-25.safetensors"
)
# The Pokeros policy shipped from 2026-11-29 to 2026-12-07, which a league's replaced.
REPLACED_POKEROS = Path(__file__).parent / "data" / "pokeros_2026-11-29.safetensors"

# What docs/training.md reports each shipped policy beating (2,000 games per opponent there).
BEATS = {
    # And the policy it replaced, head to head.
    "pokeros": ["random", "heuristic", f"policy(path={REPLACED_POKEROS})"],
    # And the policy it replaced, head to head (played greedily, as it was shipped).
    "prediction_chess": ["random", "heuristic", f"policy(path={REPLACED_PREDICTION_CHESS})"],
    "poker_chess": ["random", "heuristic"],
    # And the search docs/training.md measures it against (strength, not a heuristic exploit).
    "holdem_chess": ["random", "heuristic", "ismcts(iterations=1000,rollout=heuristic)"],
    # And search, and the policy it replaced, head to head.
    "detective_poker": [
        "random",
        "heuristic",
        "ismcts(iterations=1000,rollout=random)",
        f"policy(path={REPLACED_DETECTIVE_POKER})",
    ],
}

# A search's moves cost milliseconds where the bots' cost microseconds: about 200 games
# (the arena plays every seating of a deal: 2 at two seats, 6 at three).
SEARCH_DEALS = {"holdem_chess": 100, "detective_poker": 34}
# The Pokeros league's policy beats the one it replaced by +0.045 a game (20,000 games in
# docs/training.md), where one game's return spreads over ±1: an interval that small needs
# about 1,700 games, so 2,000 deals (4,000 games, about 30 s) rather than 150.
REPLACED_DEALS = {f"policy(path={REPLACED_POKEROS})": 2000}


@pytest.mark.parametrize("name", GAMES)
def test_shipped_policies_beat_what_the_docs_say_they_beat(name):
    """Measured by the arena (the engine's inference, fixed seeds, seats rotated), on deals
    other than the training run's evaluation: the 95% interval of the mean return is above 0."""
    assert set(BEATS) == set(GAMES)
    for opponent in BEATS[name]:
        deals = SEARCH_DEALS[name] if opponent.startswith("ismcts") else 150
        deals = REPLACED_DEALS.get(opponent, deals)
        result = cr.arena.run(name, ["policy", opponent], deals=deals, seed=11, progress=False)
        pair = next(p for p in result.pairs if p.bot == "policy")
        assert pair.mean_ci[0] > 0, (name, opponent, pair)


def test_safetensors_files_round_trip_through_the_engine(tmp_path):
    tensors = {
        "a": np.arange(6, dtype=np.float32).reshape(2, 3),
        "b": np.array([1.5, -2.25], np.float64),
        "c": np.arange(4, dtype=np.int64).reshape(2, 1, 2),
        # Not contiguous: written as the values it shows.
        "d": np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2],
    }
    path = tmp_path / "t.safetensors"
    write_safetensors(path, tensors, {"k": "v"})
    again, metadata = read_safetensors(path.read_bytes())
    assert metadata == {"k": "v"}
    assert sorted(again) == sorted(tensors)
    for name, array in tensors.items():
        assert again[name].dtype == array.dtype
        np.testing.assert_array_equal(again[name], array)
    with pytest.raises(PolicyFileError, match="dtype int32; use float32"):
        write_safetensors(path, {"x": np.zeros(2, np.int32)})
    with pytest.raises(PolicyFileError, match="shorter than its 8-byte header"):
        read_safetensors(b"\x01")
    with pytest.raises(PolicyFileError, match=r"header length .* out of range"):
        read_safetensors(b"\xff" * 16)
    assert issubclass(PolicyFileError, cr.CheckraiseError)


def test_a_policy_whose_file_says_sample_draws_from_its_softmax():
    """``play=sample`` in a file's metadata: :meth:`Policy.actions` draws each row's action from
    the softmax of its legal logits (frequencies within five standard errors, never an illegal
    action, the same draws from the same generator); without the entry it is greedy."""
    shipped = bytes(cr._core.shipped_policy("prediction_chess"))
    tensors, metadata = read_safetensors(shipped)
    sampling = Policy(tensors, {**metadata, PLAY: "sample"})
    greedy = Policy(tensors, {k: v for k, v in metadata.items() if k != PLAY})
    assert (sampling.play, greedy.play) == ("sample", "greedy")
    # A decision of a random game (fixed seed) at which the policy mixes.
    state, rng = cr.make("prediction_chess").new_initial_state(), np.random.default_rng(3)
    while True:
        assert not state.is_terminal(), "the test needs a position where the policy mixes"
        obs, mask = state.observation(0), state.action_mask(0)
        logits = greedy.logits(obs).astype(np.float64)
        p = np.where(mask, np.exp(logits - logits[mask].max()), 0.0)
        p /= p.sum()
        if p.max() < 0.9:
            break
        state.apply_actions([int(rng.choice(state.legal_actions(s))) for s in range(2)])
    n = 4000
    draws = sampling.actions(np.repeat(obs[None], n, 0), np.repeat(mask[None], n, 0))
    assert mask[draws].all()
    counts = np.bincount(draws, minlength=len(p)) / n
    assert np.all(np.abs(counts - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9)
    a = sampling.actions(
        obs[None].repeat(50, 0), mask[None].repeat(50, 0), np.random.default_rng(3)
    )
    b = sampling.actions(
        obs[None].repeat(50, 0), mask[None].repeat(50, 0), np.random.default_rng(3)
    )
    np.testing.assert_array_equal(a, b)
    assert greedy.actions(obs, mask) == int(np.argmax(np.where(mask, logits, -np.inf)))
    with pytest.raises(PolicyFileError, match="no legal action"):
        sampling.actions(obs[None], np.zeros_like(mask)[None])
    with pytest.raises(PolicyFileError, match="metadata play"):
        Policy(tensors, {**metadata, PLAY: "mixed"})


def test_policy_batches_of_any_shape_and_bad_batches():
    policy = Policy.shipped("detective_poker")
    game = cr.make(policy.game)  # the variant it observes (observation=odds)
    pairs = decisions(game, 3, limit=6)
    obs = np.stack([st.observation(seat) for st, seat in pairs])
    masks = np.stack([st.action_mask(seat) for st, seat in pairs])
    flat = policy.logits(obs)
    assert flat.shape == (6, game.num_distinct_actions())
    np.testing.assert_array_equal(policy.logits(obs.reshape(2, 3, -1)), flat.reshape(2, 3, -1))
    np.testing.assert_array_equal(
        policy.actions(obs.reshape(3, 2, -1), masks.reshape(3, 2, -1)).ravel(),
        policy.actions(obs, masks),
    )
    with pytest.raises(PolicyFileError, match="reads"):
        policy.logits(obs[:, :-1])
    with pytest.raises(PolicyFileError, match="masks have shape"):
        policy.actions(obs, masks[:-1])
    with pytest.raises(PolicyFileError, match="no legal action"):
        policy.actions(obs, np.zeros_like(masks))
    assert "detective_poker" in repr(policy.net)
