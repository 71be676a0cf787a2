"""checkraise.VectorEnv: batched stepping into numpy arrays, Gymnasium next-step auto-reset."""

import numpy as np
import pytest

import checkraise as cr

# A small board with one-card hands: games end within a few dozen steps.
QUICK = {"board_size": 3, "hand_size": 1}


def pick(masks, rng):
    """A uniformly random legal action per env, from the masks the env wrote (0 where the
    game just ended: that env ignores its action and starts a new game)."""
    return np.array(
        [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], dtype=np.int64
    )


def rollout(seed, steps, num_envs=6, **params):
    venv = cr.VectorEnv("pokeros", num_envs, seed=seed, **params)
    rng = np.random.default_rng(99)
    obs, info = venv.reset()
    trace = [(obs.copy(), info["action_mask"].copy(), info["current_player"].copy())]
    for _ in range(steps):
        obs, rewards, terminated, truncated, info = venv.step(pick(info["action_mask"], rng))
        trace.append(
            (
                obs.copy(),
                rewards.copy(),
                terminated.copy(),
                truncated.copy(),
                info["action_mask"].copy(),
                info["current_player"].copy(),
            )
        )
    return trace


def assert_traces_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)


def test_shapes_and_dtypes():
    game = cr.make("pokeros")
    venv = cr.VectorEnv(game, 8, seed=0)
    assert len(venv) == venv.num_envs == 8
    assert venv.num_players == 2 and venv.observer == "current"
    assert venv.action_shape == (8,)
    obs, info = venv.reset()
    assert obs.dtype == np.float32 and obs.shape == (8, *game.observation_shape())
    assert info["action_mask"].dtype == np.bool_
    assert info["action_mask"].shape == (8, game.num_distinct_actions())
    assert info["current_player"].dtype == np.int32
    _, rewards, terminated, truncated, _ = venv.step(
        pick(info["action_mask"], np.random.default_rng(0))
    )
    assert rewards.dtype == np.float32 and rewards.shape == (8, 2)
    assert terminated.dtype == np.bool_ and terminated.shape == (8,)
    assert truncated.dtype == np.bool_ and truncated.shape == (8,)
    # The arrays are the env's own, reused by every call.
    assert obs is venv.observations or np.shares_memory(obs, venv.observations)
    assert "VectorEnv 8 x pokeros(" in repr(venv)


def test_copy_true_returns_fresh_arrays():
    shared = cr.VectorEnv("pokeros", 3, seed=4)
    fresh = cr.VectorEnv("pokeros", 3, seed=4, copy=True)
    obs_shared, _ = shared.reset()
    obs_fresh, info_fresh = fresh.reset()
    np.testing.assert_array_equal(obs_shared, obs_fresh)
    assert np.shares_memory(obs_shared, shared.observations)
    assert not np.shares_memory(obs_fresh, fresh.observations)
    actions = pick(info_fresh["action_mask"], np.random.default_rng(0))
    kept = fresh.step(actions)
    after = fresh.step(pick(fresh.action_masks, np.random.default_rng(1)))
    for a, b in zip(kept[:4], after[:4], strict=True):
        assert not np.shares_memory(a, b)
    assert not np.shares_memory(kept[4]["action_mask"], after[4]["action_mask"])
    # The first step's arrays still hold the first step's results.
    stepped = shared.step(actions)
    for a, b in zip(kept[:4], stepped[:4], strict=True):
        np.testing.assert_array_equal(a, b)


def test_shared_arrays_are_read_only_and_masks_stay_exact():
    venv = cr.VectorEnv("poker_chess", 8, seed=2)
    obs, info = venv.reset()
    arrays = [obs, info["action_mask"], info["current_player"], venv.rewards]
    arrays += [venv.terminated, venv.truncated, venv.observations, venv.action_masks]
    for array in arrays:
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    # Masks rewritten entry by entry stay equal to the engine's over many steps and resets.
    rng = np.random.default_rng(5)
    for step in range(60):
        if step == 30:
            _, info = venv.reset(seed=9)
        else:
            *_, info = venv.step(pick(info["action_mask"], rng))
        for i in range(8):
            state = venv.state(i)
            seat = info["current_player"][i]
            if seat >= 0:
                np.testing.assert_array_equal(
                    info["action_mask"][i], state.legal_actions_mask(seat)
                )
            else:
                assert not info["action_mask"][i].any()
    # copy=True hands out writable copies; scribbling on them changes nothing in the env.
    fresh = cr.VectorEnv("poker_chess", 2, seed=2, copy=True)
    obs, info = fresh.reset()
    legal = info["action_mask"].copy()
    obs[:] = 7.0
    info["action_mask"][:] = True
    np.testing.assert_array_equal(fresh.action_masks, legal)
    *_, info = fresh.step(pick(legal, rng))
    for i in range(2):
        seat = info["current_player"][i]
        np.testing.assert_array_equal(
            info["action_mask"][i], fresh.state(i).legal_actions_mask(seat)
        )


def test_returned_arrays_outlive_the_env():
    """The buffers are allocated by Rust and handed to numpy: arrays a caller keeps stay valid
    (and unchanged) after the env is gone and its memory could be reused."""
    import gc

    venv = cr.VectorEnv("prediction_chess", 8, seed=4, observer="all")
    obs, info = venv.reset()
    *_, info = venv.step(venv.sample_actions())
    obs, masks = venv.observations, info["action_mask"]
    expected = (obs.copy(), masks.copy(), info["current_player"].copy())
    del venv, info
    gc.collect()
    # Allocate and step other envs, which would reuse freed memory.
    for _ in range(4):
        other = cr.VectorEnv("prediction_chess", 8, seed=5, observer="all")
        other.step(other.sample_actions())
    np.testing.assert_array_equal(obs, expected[0])
    np.testing.assert_array_equal(masks, expected[1])
    assert obs.shape == (8, 2, cr.make("prediction_chess").observation_size)
    assert masks.any()


def test_outputs_match_the_states():
    venv = cr.VectorEnv("pokeros", 4, seed=3, players=3)
    _, info = venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(5):
        obs, _, _, _, info = venv.step(pick(info["action_mask"], rng))
        for i in range(4):
            state = venv.state(i)
            seat = state.current_player()
            assert info["current_player"][i] == seat
            np.testing.assert_array_equal(obs[i], state.observation(seat))
            np.testing.assert_array_equal(info["action_mask"][i], state.legal_actions_mask(seat))


def test_same_seed_same_trajectories():
    first = rollout(seed=5, steps=40, **QUICK)
    assert_traces_equal(first, rollout(seed=5, steps=40, **QUICK))
    other = rollout(seed=6, steps=40, **QUICK)
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first, other, strict=True))
    # Games ended and restarted along the way.
    assert any(step[2].any() for step in first[1:])


def test_env_i_plays_like_env_seeded_with_seed_plus_i():
    """Each env is `Env(game, seed + i)`; after a game ends, the next step resets it."""
    game = cr.make("pokeros", **QUICK)
    num_envs, seed = 3, 40
    venv = cr.VectorEnv(game, num_envs, seed=seed)
    envs = [cr.Env(game, seed=seed + i) for i in range(num_envs)]
    rng = np.random.default_rng(2)
    obs, info = venv.reset()
    needs_reset = [False] * num_envs
    resets = 0
    for _ in range(60):
        actions = pick(info["action_mask"], rng)
        obs, rewards, terminated, _, info = venv.step(actions)
        for i, env in enumerate(envs):
            if needs_reset[i]:
                env.reset()
                expected_rewards = [0.0, 0.0]
                resets += 1
            else:
                expected_rewards = env.step(int(actions[i]))
            np.testing.assert_array_equal(rewards[i], np.float32(expected_rewards))
            assert terminated[i] == env.is_terminal()
            needs_reset[i] = env.is_terminal()
            if not env.is_terminal():
                np.testing.assert_array_equal(obs[i], env.observation())
                np.testing.assert_array_equal(info["action_mask"][i], env.action_mask())
            else:
                assert info["current_player"][i] == -4
                assert not info["action_mask"][i].any()
                assert rewards[i].sum() == 0.0
    assert resets > 0


def test_reset_with_seed_reproduces_a_new_batch():
    venv = cr.VectorEnv("pokeros", 3, seed=0)
    _, info = venv.reset()
    venv.step(pick(info["action_mask"], np.random.default_rng(0)))
    obs, _ = venv.reset(seed=77)
    fresh_obs, _ = cr.VectorEnv("pokeros", 3, seed=77).reset()
    np.testing.assert_array_equal(obs, fresh_obs)
    for i in range(3):
        assert venv.state(i).serialize() == cr.Env("pokeros", seed=77 + i).state().serialize()


def test_illegal_action_names_the_env_and_changes_nothing():
    venv = cr.VectorEnv("pokeros", 4, seed=1)
    _, info = venv.reset()
    actions = pick(info["action_mask"], np.random.default_rng(0))
    venv.step(actions)
    before = [venv.state(i).serialize() for i in range(4)]
    arrays = [venv.observations.copy(), venv.action_masks.copy(), venv.rewards.copy()]
    actions = pick(venv.action_masks, np.random.default_rng(1))
    actions[2] = 0  # a corner cell, next to no card
    with pytest.raises(cr.IllegalActionError, match=r"^env 2: illegal action 0 \(.*\) for seat \d"):
        venv.step(actions)
    actions[2] = 10**6
    with pytest.raises(cr.IllegalActionError, match=r"^env 2: illegal action 1000000"):
        venv.step(actions)
    actions[2] = -3
    with pytest.raises(cr.IllegalActionError, match=r"^env 2: illegal action -3"):
        venv.step(actions)
    assert [venv.state(i).serialize() for i in range(4)] == before
    for saved, now in zip(
        arrays, [venv.observations, venv.action_masks, venv.rewards], strict=True
    ):
        np.testing.assert_array_equal(saved, now)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (
            np.zeros(4, dtype=np.float32),
            r"actions must be an integer array, not dtype float32",
        ),
        (np.zeros(4, dtype=bool), r"actions must be an integer array, not dtype bool"),
        (["a", "b", "c", "d"], r"actions must be an integer array"),
        (np.zeros(3, dtype=np.int64), r"actions must have shape \(4,\), not \(3,\)"),
        (
            np.zeros((4, 2), dtype=np.int64),
            r"actions must have shape \(4,\), not \(4, 2\)",
        ),
        (np.int64(0), r"actions must have shape \(4,\), not \(\)"),
    ],
)
def test_wrong_dtype_or_shape_is_a_value_error(actions, message):
    venv = cr.VectorEnv("pokeros", 4, seed=0)
    venv.reset()
    before = [venv.state(i).serialize() for i in range(4)]
    with pytest.raises(ValueError, match=message):
        venv.step(actions)
    assert [venv.state(i).serialize() for i in range(4)] == before


def test_actions_may_be_any_integer_dtype_or_a_list():
    venv = cr.VectorEnv("pokeros", 2, seed=0)
    _, info = venv.reset()
    actions = pick(info["action_mask"], np.random.default_rng(0))
    twin = cr.VectorEnv("pokeros", 2, seed=0)
    twin.reset()
    venv.step(actions.astype(np.uint16))
    twin.step([int(a) for a in actions])
    np.testing.assert_array_equal(venv.observations, twin.observations)


def test_observer_all_and_fixed_seat():
    game = cr.make("pokeros", players=3)
    every = cr.VectorEnv(game, 2, seed=9, observer="all")
    fixed = cr.VectorEnv(game, 2, seed=9, observer=2)
    assert every.observer == "all" and fixed.observer == 2
    obs_all, info_all = every.reset()
    obs_two, info_two = fixed.reset()
    assert obs_all.shape == (2, 3, *game.observation_shape())
    assert info_all["action_mask"].shape == (2, 3, game.num_distinct_actions())
    assert obs_two.shape == (2, *game.observation_shape())
    np.testing.assert_array_equal(obs_all[:, 2], obs_two)
    np.testing.assert_array_equal(info_all["action_mask"][:, 2], info_two["action_mask"])
    for i in range(2):
        state = every.state(i)
        for seat in range(3):
            np.testing.assert_array_equal(obs_all[i, seat], state.observation(seat))
            np.testing.assert_array_equal(
                info_all["action_mask"][i, seat], state.legal_actions_mask(seat)
            )


def test_truncation_after_max_episode_steps():
    venv = cr.VectorEnv("pokeros", 2, seed=0, max_episode_steps=3)
    _, info = venv.reset()
    first = venv.state(0).move_number()
    rng = np.random.default_rng(0)
    for step in range(1, 5):
        _, rewards, terminated, truncated, info = venv.step(pick(info["action_mask"], rng))
        assert not terminated.any()
        assert truncated.all() == (step == 3)
    # The step after the truncation started new games.
    assert venv.state(0).move_number() == first
    assert not rewards.any()


def test_bad_construction():
    with pytest.raises(cr.UnknownGameError):
        cr.VectorEnv("nope", 2)
    with pytest.raises(
        cr.ParameterError, match="parameter 'players' of game 'pokeros' cannot be '7'"
    ):
        cr.VectorEnv("pokeros", 2, players=7)
    with pytest.raises(cr.ParameterError, match="num_envs"):
        cr.VectorEnv("pokeros", 0)
    with pytest.raises(
        cr.InvalidSeatError, match=r"seat 2 does not exist; this game has seats 0 to 1"
    ):
        cr.VectorEnv("pokeros", 2, observer=2)
    with pytest.raises(cr.InvalidSeatError, match=r"seat -1 does not exist"):
        cr.VectorEnv("pokeros", 2, observer=-1)
    with pytest.raises(ValueError, match="observer must be 'current', 'all' or a seat number"):
        cr.VectorEnv("pokeros", 2, observer="nobody")
    with pytest.raises(ValueError, match="this Game already has its parameters"):
        cr.VectorEnv(cr.make("pokeros"), 2, players=3)
    venv = cr.VectorEnv("pokeros", 2)
    with pytest.raises(ValueError, match=r"env 5 does not exist; this batch has envs 0 to 1"):
        venv.state(5)


@pytest.mark.parametrize("name", cr.game_names())
def test_sample_actions_are_legal_and_seeded(name):
    observer = "all" if name == "prediction_chess" else None
    a = cr.VectorEnv(name, 5, seed=8, observer=observer)
    b = cr.VectorEnv(name, 5, seed=8, observer=observer)
    a.reset()
    b.reset()
    for _ in range(40):
        actions = a.sample_actions()
        assert actions.shape == a.action_shape and actions.dtype == np.int64
        np.testing.assert_array_equal(actions, b.sample_actions())
        a.step(actions)  # an illegal action would raise
        b.step(actions)
    np.testing.assert_array_equal(a.observations, b.observations)


def test_a_closed_env_refuses_every_call():
    with cr.VectorEnv("pokeros", 2, seed=1) as venv:
        obs, _ = venv.reset()
        assert not venv.closed
    assert venv.closed
    for call in (
        lambda: venv.reset(),
        lambda: venv.step(np.zeros(2, dtype=np.int64)),
        lambda: venv.sample_actions(),
        lambda: venv.state(0),
    ):
        with pytest.raises(cr.CheckraiseError, match="closed"):
            call()
    venv.close()  # closing twice is fine
    assert obs.shape == (2, *venv.game.observation_shape())  # returned arrays stay readable


def test_the_mask_has_one_name():
    venv = cr.VectorEnv("pokeros", 2)
    _, info = venv.reset()
    assert "legal_mask" not in info
    np.testing.assert_array_equal(info["action_mask"], venv.action_masks)
    assert not hasattr(venv, "legal_masks")


def test_the_default_observer_fits_the_game():
    simultaneous = cr.VectorEnv("prediction_chess", 3)
    assert simultaneous.observer == "all" and simultaneous.action_shape == (3, 2)
    sequential = cr.VectorEnv("pokeros", 3)
    assert sequential.observer == "current" and sequential.action_shape == (3,)


def test_same_step_mode_resets_within_the_ending_step():
    """autoreset_mode="same_step" (Gymnasium's SAME_STEP): the step that ends a game reports
    terminated with its rewards and final returns, the new game's first observation, and the
    final observation in info["final_obs"]; it plays the same games as next-step mode."""
    same = cr.VectorEnv("pokeros", 3, seed=4, autoreset_mode="same_step", **QUICK)
    nxt = cr.VectorEnv("pokeros", 3, seed=4, **QUICK)
    assert nxt.autoreset_mode == "next_step" and nxt.final_observations is None
    assert same.autoreset_mode == "same_step"
    same.reset()
    nxt.reset()
    for _ in range(20):  # these games last at most 9 steps
        actions = same.sample_actions()
        obs, rewards, terminated, truncated, info = same.step(actions)
        n_obs, n_rewards, n_terminated, _, n_info = nxt.step(actions)
        np.testing.assert_array_equal(rewards, n_rewards)
        np.testing.assert_array_equal(terminated, n_terminated)
        np.testing.assert_array_equal(info["final_returns"], n_info["final_returns"])
        np.testing.assert_array_equal(info["_final_obs"], terminated)
        going = ~terminated
        np.testing.assert_array_equal(obs[going], n_obs[going])
        assert not info["final_obs"][going].any() and not info["final_returns"][going].any()
        if terminated.any():
            break
    ended = terminated
    assert ended.any() and not truncated.any()
    assert (info["final_returns"][ended].sum(axis=1) == 0).all()
    # The final observations are next-step's observations of that step; the new games started.
    np.testing.assert_array_equal(info["final_obs"][ended], n_obs[ended])
    assert (info["current_player"][ended] == 0).all()
    assert (n_info["current_player"][ended] == -4).all()
    n_obs, *_ = nxt.step(nxt.sample_actions())  # next-step's reset step for the ended envs
    np.testing.assert_array_equal(obs[ended], n_obs[ended])
    assert same.final_observations is not None
    # Gymnasium's enum is accepted too; unknown modes are refused.
    mode = pytest.importorskip("gymnasium.vector").AutoresetMode.SAME_STEP
    assert cr.VectorEnv("pokeros", 1, autoreset_mode=mode).autoreset_mode == "same_step"
    with pytest.raises(cr.CheckraiseError, match="autoreset_mode"):
        cr.VectorEnv("pokeros", 1, autoreset_mode="disabled")


def test_same_step_mode_pickles_with_its_final_arrays():
    import pickle

    venv = cr.VectorEnv("pokeros", 2, seed=1, autoreset_mode="same_step", **QUICK)
    venv.reset()
    for _ in range(9):
        venv.step(venv.sample_actions())
    copy = pickle.loads(pickle.dumps(venv))
    assert copy.autoreset_mode == "same_step"
    np.testing.assert_array_equal(copy.final_observations, venv.final_observations)
    np.testing.assert_array_equal(copy.final_returns, venv.final_returns)
    actions = venv.sample_actions()
    np.testing.assert_array_equal(copy.step(actions)[0], venv.step(actions)[0])


@pytest.mark.parametrize("name", cr.game_names())
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_compact_observations_unpack_to_the_float32_ones(name, mode):
    """Random play of every game, every seat (observer="all"): the compact encoding's uint8
    rows unpack to exactly the float32 observations (bit for bit), the packed masks to the
    masks, final observations included, and everything else is the same."""
    kwargs = {"observer": "all", "autoreset_mode": mode, "max_episode_steps": 50}
    dense = cr.VectorEnv(name, 8, seed=5, **kwargs)
    compact = cr.VectorEnv(name, 8, seed=5, observation_encoding="compact", **kwargs)
    layout = compact.game.compact_layout()
    assert compact.observation_encoding == "compact"
    assert dense.observation_encoding == "float32"
    obs_f, info_f = dense.reset()
    obs_c, info_c = compact.reset()
    assert obs_c.dtype == np.uint8
    assert obs_c.shape == (8, dense.num_players, layout["row_bytes"])
    assert info_c["action_mask"].shape == (8, dense.num_players, layout["mask_bytes"])
    for _ in range(150):
        unpacked = cr.unpack_observations(name, obs_c)
        assert unpacked.dtype == np.float32
        np.testing.assert_array_equal(unpacked.view(np.uint32), obs_f.view(np.uint32))
        np.testing.assert_array_equal(
            cr.unpack_action_masks(compact.game, info_c["action_mask"]), info_f["action_mask"]
        )
        if mode == "same_step":
            np.testing.assert_array_equal(
                cr.unpack_observations(name, info_c["final_obs"]).view(np.uint32),
                info_f["final_obs"].view(np.uint32),
            )
        actions = dense.sample_actions()
        obs_f, rew_f, term_f, trunc_f, info_f = dense.step(actions)
        obs_c, rew_c, term_c, trunc_c, info_c = compact.step(actions)
        np.testing.assert_array_equal(rew_c, rew_f)
        np.testing.assert_array_equal(term_c, term_f)
        np.testing.assert_array_equal(trunc_c, trunc_f)
        np.testing.assert_array_equal(info_c["current_player"], info_f["current_player"])
        np.testing.assert_array_equal(info_c["final_returns"], info_f["final_returns"])


def test_compact_batches_pickle_and_refuse_unknown_encodings():
    import pickle

    venv = cr.VectorEnv("pokeros", 3, seed=1, observation_encoding="compact", **QUICK)
    venv.reset()
    venv.step(venv.sample_actions())
    copy = pickle.loads(pickle.dumps(venv))
    assert copy.observation_encoding == "compact"
    np.testing.assert_array_equal(copy.observations, venv.observations)
    np.testing.assert_array_equal(copy.action_masks, venv.action_masks)
    actions = venv.sample_actions()
    np.testing.assert_array_equal(copy.step(actions)[0], venv.step(actions)[0])
    with pytest.raises(cr.CheckraiseError, match="observation_encoding"):
        cr.VectorEnv("pokeros", 2, observation_encoding="float16")
    with pytest.raises(ValueError, match="bytes"):
        cr.unpack_observations("pokeros", np.zeros((2, 7), np.uint8))


def test_the_documented_torch_unpacking_is_exact():
    """The torch snippet of docs/observations.md unpacks compact rows and packed masks to
    exactly the float32 observations and bool masks (skipped without torch)."""
    import pathlib
    import re

    torch = pytest.importorskip("torch")
    doc = pathlib.Path(__file__).resolve().parent.parent / "docs" / "observations.md"
    snippet = re.search(r"```python torch\n(.*?)```", doc.read_text(), re.DOTALL).group(1)
    scope: dict = {}
    exec(snippet, scope)
    for name in cr.game_names():
        dense = cr.VectorEnv(name, 4, seed=2, observer="all")
        compact = cr.VectorEnv(name, 4, seed=2, observer="all", observation_encoding="compact")
        obs, info = dense.reset()
        packed, packed_info = compact.reset()
        layout = compact.game.compact_layout()
        for _ in range(40):
            out = scope["unpack_torch"](torch.from_numpy(packed.copy()), layout)
            np.testing.assert_array_equal(out.numpy().view(np.uint32), obs.view(np.uint32))
            masks = scope["unpack_masks_torch"](
                torch.from_numpy(packed_info["action_mask"].copy()),
                dense.game.num_distinct_actions(),
            )
            np.testing.assert_array_equal(masks.numpy(), info["action_mask"])
            actions = dense.sample_actions()
            obs, _, _, _, info = dense.step(actions)
            packed, _, _, _, packed_info = compact.step(actions)


@pytest.mark.parametrize("name", cr.game_names())
def test_single_envs_and_adapters_give_compact_rows(name):
    """State/Env.observation_compact and the adapters' observation_type="compact" give uint8
    rows that unpack to exactly the float32 observation, on random play of every seat."""
    pettingzoo = pytest.importorskip("checkraise.pettingzoo")
    game = cr.make(name)
    env = cr.Env(game, 3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if env.is_terminal():
            env.reset()
        for seat in range(game.num_players()):
            row = env.observation_compact(seat)
            assert row.dtype == np.uint8 and row.shape == (game.compact_layout()["row_bytes"],)
            np.testing.assert_array_equal(
                cr.unpack_observations(game, row).view(np.uint32),
                env.observation(seat).view(np.uint32),
            )
            np.testing.assert_array_equal(row, env.state().observation_compact(seat))
        if env.current_player() == -2:
            env.step_joint([rng.choice(env.legal_actions(s)) for s in range(game.num_players())])
        else:
            env.step(int(rng.choice(env.legal_actions())))
    aec = pettingzoo.env(name, observation_type="compact")
    aec.reset(seed=1)
    agent = aec.agents[0]
    obs = aec.observe(agent)["observation"]
    assert aec.observation_space(agent)["observation"].contains(obs)
    seat = aec.agents.index(agent)
    np.testing.assert_array_equal(
        cr.unpack_observations(game, obs), aec.engine_state().observation(seat)
    )
    gym = pytest.importorskip("checkraise.gymnasium")
    single = gym.CheckraiseEnv(name, observation_type="compact")
    obs, _ = single.reset(seed=0)
    assert single.observation_space.contains(obs)
    np.testing.assert_array_equal(
        cr.unpack_observations(game, obs), single.engine_state().observation(single.seat)
    )
