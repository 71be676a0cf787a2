"""End-to-end tests of the Envs service and the server's limits, from Python grpcio against the
real checkraise-server binary."""

from __future__ import annotations

import re
import time

import grpc
import numpy as np
import pytest

from grpc_util import Server

DTYPES = {1: np.float32, 2: np.int32, 3: np.bool_}
SMALL_POKEROS = {"board_size": 3, "hand_size": 1}  # games of 9 steps


@pytest.fixture(scope="module")
def envs(stubs, server):
    options = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
    with grpc.insecure_channel(server.address, options=options) as channel:
        yield stubs[1].EnvsStub(channel)


def array(tensor) -> np.ndarray:
    return np.frombuffer(
        tensor.data, dtype=np.dtype(DTYPES[tensor.dtype]).newbyteorder("<")
    ).reshape(tuple(tensor.shape))


def packed_actions(pb2, actions: np.ndarray):
    actions = np.ascontiguousarray(actions, dtype="<i4")
    return pb2.Tensor(dtype=pb2.DATA_TYPE_INT32, shape=list(actions.shape), data=actions.tobytes())


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a [..., num_actions] mask (-1 where none)."""
    flat = masks.reshape(-1, masks.shape[-1])
    out = np.full(flat.shape[0], -1, dtype=np.int32)
    for i, row in enumerate(flat):
        legal = np.flatnonzero(row)
        if legal.size:
            out[i] = rng.choice(legal)
    return out.reshape(masks.shape[:-1])


@pytest.mark.parametrize("mode", [None, "AUTORESET_MODE_NEXT_STEP", "AUTORESET_MODE_SAME_STEP"])
def test_envs_play_pokeros_to_the_end_with_auto_reset(stubs, envs, mode):
    pb2 = stubs[0]
    count = 8
    same_step = mode == "AUTORESET_MODE_SAME_STEP"
    created = envs.CreateEnvs(
        pb2.CreateEnvsRequest(
            game="pokeros",
            parameters={"board_size": "9"},
            num_envs=count,
            seed=5,
            # Unset is next-step (Gymnasium's default).
            **({} if mode is None else {"autoreset_mode": getattr(pb2, mode)}),
        )
    )
    sizes = created.sizes
    obs_size = sizes.observation_shape[0]
    batch = created.batch
    assert array(batch.observations).shape == (count, obs_size)
    assert array(batch.action_masks).shape == (count, sizes.num_distinct_actions)
    # The removed duplicates (fields 2 and 4) are reserved, not sent.
    assert not batch.HasField("observations") or batch.ByteSize() > 0
    assert {f.name for f, _ in batch.ListFields()}.isdisjoint({"legal_masks", "dones"})
    assert "legal_masks" not in type(batch).DESCRIPTOR.fields_by_name
    assert array(batch.current_players).tolist() == [0] * count
    rng = np.random.default_rng(0)
    finished = 0
    pending = np.zeros(count, dtype=bool)  # next-step: ended on the last step
    for _ in range(200):
        masks = array(batch.action_masks)
        # An env whose game just ended (next-step mode) has no legal action: -1 is ignored.
        assert (masks.any(axis=1) == ~pending).all()
        batch = envs.Step(
            pb2.StepRequest(
                envs_id=created.envs_id,
                actions=packed_actions(pb2, random_actions(masks, rng)),
            )
        )
        obs, rewards = array(batch.observations), array(batch.rewards)
        dones, finals = array(batch.terminated), array(batch.final_returns)
        assert not array(batch.truncated).any()  # no max_episode_steps
        current = array(batch.current_players)
        assert obs.shape == (count, obs_size) and np.isfinite(obs).all()
        assert rewards.shape == (count, 2) and dones.shape == (count,)
        assert batch.HasField("final_observations") == same_step
        for i in np.flatnonzero(dones):
            assert finals[i].sum() == pytest.approx(0.0) and set(finals[i]) <= {
                -1.0,
                0.0,
                1.0,
            }
            assert (rewards[i] == finals[i]).all()
            # same-step: the env starts over with seat 0 to act; next-step: it stays over
            assert current[i] == (0 if same_step else -4)
        for i in np.flatnonzero(pending):
            # next-step's reset step: a new game, no rewards, nothing ended
            assert current[i] == 0 and not dones[i] and not rewards[i].any()
        if same_step:
            final_obs = array(batch.final_observations)
            assert final_obs.shape == obs.shape
            assert not final_obs[~dones].any() and final_obs[dones].any(axis=1).all()
        assert (finals[~dones] == 0).all()
        finished += int(dones.sum())
        pending = dones & (not same_step)
    assert finished >= count  # 200 steps, games of 51 placements at most on a 9x9 board


def test_same_seed_same_batch_and_reset_reseeds(stubs, envs):
    pb2 = stubs[0]
    first = envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", num_envs=4, seed=42))
    second = envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", num_envs=4, seed=42))
    assert first.batch.observations.data == second.batch.observations.data
    other = envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", num_envs=4, seed=43))
    # env i of seed 42 is env i-1 of seed 43
    a, b = array(first.batch.observations), array(other.batch.observations)
    assert (a[1:] == b[:-1]).all()
    assert not (a[0] == a[1]).all()
    reset = envs.Reset(pb2.ResetRequest(envs_id=other.envs_id, seed=42))
    assert reset.observations.data == first.batch.observations.data
    for created in (first, second, other):
        envs.CloseEnvs(pb2.CloseEnvsRequest(envs_id=created.envs_id))


def test_all_seats_mode_gives_every_seat_its_observation(stubs, envs):
    pb2 = stubs[0]
    created = envs.CreateEnvs(
        pb2.CreateEnvsRequest(game="pokeros", num_envs=3, seed=1, all_seats=True)
    )
    batch = created.batch
    obs, masks = array(batch.observations), array(batch.action_masks)
    assert obs.shape[:2] == (3, 2) and masks.shape[:2] == (3, 2)
    assert masks[:, 0].any(axis=1).all() and not masks[:, 1].any()
    assert not (obs[:, 0] == obs[:, 1]).all()  # each seat sees its own hand
    actions = random_actions(masks, np.random.default_rng(1))
    assert (actions[:, 1] == -1).all()
    batch = envs.Step(
        pb2.StepRequest(envs_id=created.envs_id, actions=packed_actions(pb2, actions))
    )
    assert array(batch.current_players).tolist() == [1, 1, 1]
    masks = array(batch.action_masks)
    assert not masks[:, 0].any() and masks[:, 1].any(axis=1).all()


def test_bad_steps_change_nothing_and_say_why(stubs, envs):
    pb2 = stubs[0]
    created = envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", num_envs=4, seed=9))
    masks = array(created.batch.action_masks)
    actions = random_actions(masks, np.random.default_rng(2))
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(grpc.RpcError) as info:
        envs.Step(pb2.StepRequest(envs_id=created.envs_id, actions=packed_actions(pb2, bad)))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "env 2" in info.value.details() and "illegal action" in info.value.details()
    for wrong in (actions[:3], actions.reshape(2, 2), actions.astype(np.float32)):
        tensor = packed_actions(pb2, wrong)
        if wrong.dtype == np.float32:
            tensor = pb2.Tensor(dtype=pb2.DATA_TYPE_FLOAT32, shape=[4], data=wrong.tobytes())
        with pytest.raises(grpc.RpcError) as info:
            envs.Step(pb2.StepRequest(envs_id=created.envs_id, actions=tensor))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    short = pb2.Tensor(dtype=pb2.DATA_TYPE_INT32, shape=[4], data=b"\0" * 15)
    with pytest.raises(grpc.RpcError) as info:
        envs.Step(pb2.StepRequest(envs_id=created.envs_id, actions=short))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "bytes" in info.value.details()
    # the batch did not move: the good actions still apply
    batch = envs.Step(
        pb2.StepRequest(envs_id=created.envs_id, actions=packed_actions(pb2, actions))
    )
    assert array(batch.current_players).tolist() == [1] * 4


def test_env_errors(stubs, envs):
    pb2 = stubs[0]
    for request, code, words in [
        (
            pb2.CreateEnvsRequest(game="nope", num_envs=1),
            grpc.StatusCode.INVALID_ARGUMENT,
            "unknown game",
        ),
        (
            pb2.CreateEnvsRequest(game="pokeros", num_envs=0),
            grpc.StatusCode.INVALID_ARGUMENT,
            "num_envs must be at least 1",
        ),
        (
            pb2.CreateEnvsRequest(game="pokeros", num_envs=1, parameters={"deck": "tiny"}),
            grpc.StatusCode.INVALID_ARGUMENT,
            "deck",
        ),
    ]:
        with pytest.raises(grpc.RpcError) as info:
            envs.CreateEnvs(request)
        assert info.value.code() == code and words in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        envs.Reset(pb2.ResetRequest(envs_id="nope"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as info:
        envs.CloseEnvs(pb2.CloseEnvsRequest(envs_id="nope"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_limits_are_resource_exhausted_and_idle_things_expire(stubs):
    pb2, pb2_grpc = stubs
    srv = Server(
        "--max-matches",
        "1",
        "--max-envs",
        "10",
        # One client holds every env here: its share is the whole limit.
        "--max-envs-per-peer",
        "10",
        "--max-message-size",
        "200000",
        "--idle-expiry-secs",
        "1",
    )
    try:
        with grpc.insecure_channel(srv.address) as channel:
            envs = pb2_grpc.EnvsStub(channel)
            matches = pb2_grpc.MatchesStub(channel)
            first = matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros"))
            with pytest.raises(grpc.RpcError) as info:
                matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros"))
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            small = {"board_size": "5"}
            created = envs.CreateEnvs(
                pb2.CreateEnvsRequest(game="pokeros", parameters=small, num_envs=8)
            )
            with pytest.raises(grpc.RpcError) as info:
                envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", parameters=small, num_envs=3))
            assert (
                info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                and "limit of 10" in info.value.details()
            )
            envs.CloseEnvs(pb2.CloseEnvsRequest(envs_id=created.envs_id))
            kept = envs.CreateEnvs(
                pb2.CreateEnvsRequest(game="pokeros", parameters=small, num_envs=3)
            )
            # 20 envs of the default 15x15 board (about 17 kB each) make replies over 200000 bytes
            with pytest.raises(grpc.RpcError) as info:
                envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", num_envs=20))
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "message limit" in info.value.details()
            # a request larger than the limit is refused too
            huge = pb2.Tensor(dtype=pb2.DATA_TYPE_INT32, shape=[100000], data=b"\0" * 400000)
            with pytest.raises(grpc.RpcError) as info:
                envs.Step(pb2.StepRequest(envs_id=kept.envs_id, actions=huge))
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            time.sleep(1.8)
            with pytest.raises(grpc.RpcError) as info:
                matches.GetSpectatorView(pb2.GetSpectatorViewRequest(match_id=first.match_id))
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
            matches.CreateMatch(pb2.CreateMatchRequest(game="pokeros"))
            envs.CreateEnvs(pb2.CreateEnvsRequest(game="pokeros", parameters=small, num_envs=10))
            assert "expired" in srv.log()
    finally:
        assert srv.stop() == 0, srv.log()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize(
    ("game", "params", "cap"),
    [
        ("pokeros", {"board_size": 3, "hand_size": 1}, None),  # ends in 9 steps
        ("pokeros", {"board_size": 3, "hand_size": 1}, 5),  # truncated
        ("detective_poker", {"rounds": 1}, None),
    ],
)
def test_grpc_envs_and_python_vector_env_give_the_same_trajectories(
    client, mode, game, params, cap
):
    """The gRPC Envs service and checkraise.VectorEnv run one engine: for the same game, seed,
    mode and actions they report the same observations, masks, rewards, episode ends, final
    returns and (same-step) final observations at every step."""
    import checkraise as cr

    count, seed = 5, 21
    local = cr.VectorEnv(
        game, count, seed=seed, autoreset_mode=mode, max_episode_steps=cap, **params
    )
    assert local.autoreset_mode == mode
    with client.envs(
        game, count, seed=seed, autoreset_mode=mode, max_episode_steps=cap, **params
    ) as remote:
        assert remote.autoreset_mode == mode
        batch = remote.batch
        obs, info = local.reset()
        np.testing.assert_array_equal(batch.observations, obs)
        np.testing.assert_array_equal(batch.action_masks, info["action_mask"])
        rng = np.random.default_rng(3)
        ends = {"terminated": 0, "truncated": 0}
        for _ in range(60):
            actions = random_actions(info["action_mask"], rng)
            batch = remote.step(actions)
            obs, rewards, terminated, truncated, info = local.step(np.maximum(actions, 0))
            np.testing.assert_array_equal(batch.observations, obs)
            np.testing.assert_array_equal(batch.action_masks, info["action_mask"])
            np.testing.assert_array_equal(batch.current_players, info["current_player"])
            np.testing.assert_array_equal(batch.rewards, rewards)
            np.testing.assert_array_equal(batch.terminated, terminated)
            np.testing.assert_array_equal(batch.truncated, truncated)
            np.testing.assert_array_equal(batch.final_returns, info["final_returns"])
            if mode == "same_step":
                np.testing.assert_array_equal(batch.final_observations, info["final_obs"])
                np.testing.assert_array_equal(info["_final_obs"], terminated | truncated)
                assert (batch.current_players >= 0).all()  # never left at a terminal state
            else:
                assert batch.final_observations is None and "final_obs" not in info
                assert (batch.current_players[terminated] == -4).all()
            ended = terminated | truncated
            assert not batch.final_returns[~ended].any()
            ends["terminated"] += int(terminated.sum())
            ends["truncated"] += int(truncated.sum())
        assert ends["truncated" if cap else "terminated"] > 0, ends


@pytest.mark.parametrize(
    "game", ["pokeros", "prediction_chess", "poker_chess", "holdem_chess", "detective_poker"]
)
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_compact_envs_unpack_to_the_float32_ones_over_the_wire(client, game, mode):
    """With observation_encoding="compact" the server sends uint8 compact rows and packed
    masks (OBSERVATION_ENCODING_COMPACT) that unpack, with the layout CreateEnvs returns, to
    exactly what checkraise.VectorEnv writes in float32 for the same game, seed and actions,
    final observations included; every game, random play, every seat of the simultaneous one."""
    import checkraise as cr

    count, seed = 4, 9
    all_seats = game == "prediction_chess"
    observer = "all" if all_seats else "current"
    kwargs = {"autoreset_mode": mode, "max_episode_steps": 40}
    local = cr.VectorEnv(game, count, seed=seed, observer=observer, **kwargs)
    with client.envs(
        game, count, seed=seed, all_seats=all_seats, observation_encoding="compact", **kwargs
    ) as remote:
        assert remote.observation_encoding == "compact"
        layout = cr.make(game).compact_layout()
        assert remote.compact_layout.row_bytes == layout["row_bytes"]
        assert list(remote.compact_layout.scalar_indices) == layout["scalar_indices"]
        batch = remote.batch
        obs, info = local.reset()
        rng = np.random.default_rng(5)
        for _ in range(60):
            assert batch.observations.dtype == np.uint8
            assert batch.observations.shape[-1] == layout["row_bytes"]
            unpacked = remote.unpack_observations()
            np.testing.assert_array_equal(unpacked.view(np.uint32), obs.view(np.uint32))
            np.testing.assert_array_equal(
                cr.unpack_observations(game, batch.observations).view(np.uint32),
                obs.view(np.uint32),
            )
            np.testing.assert_array_equal(remote.unpack_action_masks(), info["action_mask"])
            if mode == "same_step":
                finals = remote.unpack_observations(batch.final_observations)
                np.testing.assert_array_equal(
                    finals.view(np.uint32), info["final_obs"].view(np.uint32)
                )
            else:
                assert batch.final_observations is None
            actions = random_actions(info["action_mask"], rng)
            batch = remote.step(actions)
            obs, rewards, terminated, truncated, info = local.step(np.maximum(actions, 0))
            np.testing.assert_array_equal(batch.rewards, rewards)
            np.testing.assert_array_equal(batch.terminated, terminated)
            np.testing.assert_array_equal(batch.truncated, truncated)
            np.testing.assert_array_equal(batch.current_players, info["current_player"])
            np.testing.assert_array_equal(batch.final_returns, info["final_returns"])
    with pytest.raises(ValueError, match="observation_encoding"):
        client.envs(game, 2, observation_encoding="float16")


def _shipped_policy_bytes(game: str, tmp_path) -> bytes:
    """The policy shipped for ``game`` as a policy file's bytes (what a trainer sends)."""
    from checkraise.policy import Policy, write_safetensors

    policy = Policy.shipped(game)
    tensors = {}
    for i, (w, b) in enumerate(policy.layers):
        tensors[f"layer{i}.weight"], tensors[f"layer{i}.bias"] = w, b
    tensors["policy.weight"], tensors["policy.bias"] = policy.head
    path = tmp_path / "policy.safetensors"
    write_safetensors(path, tensors, policy.metadata)
    return path.read_bytes()


@pytest.mark.parametrize(
    ("game", "params", "opponent", "seat", "mode", "cap"),
    [
        ("pokeros", SMALL_POKEROS, {"heuristic": 3, "random": 1}, "random", "next_step", None),
        ("pokeros", SMALL_POKEROS, ["random", ("heuristic", 2.0)], 1, "same_step", 2),
        ("detective_poker", {}, "policy-bytes", "random", "next_step", None),
        ("prediction_chess", {}, "random", 1, "next_step", 3),
    ],
)
def test_grpc_envs_with_opponents_are_the_python_vector_env_with_opponents(
    client, tmp_path, game, params, opponent, seat, mode, cap
):
    """With opponent= the server plays every seat but the learner's, exactly as
    checkraise.VectorEnv(..., opponent=, seat=) does: for the same game, seed, pool, seat and
    learner actions, the same learner-only observations, masks, rewards ([n, 1]), episode ends,
    final returns and learner seats at every step."""
    import checkraise as cr

    if opponent == "policy-bytes":
        opponent = [_shipped_policy_bytes(game, tmp_path), "heuristic"]
    count, seed = 3, 13
    kwargs = {"autoreset_mode": mode, "max_episode_steps": cap, "opponent": opponent, "seat": seat}
    local = cr.VectorEnv(game, count, seed=seed, **kwargs, **params)
    with client.envs(game, count, seed=seed, **kwargs, **params) as remote:
        assert remote.has_opponents and remote.seat == seat
        assert remote.action_shape == (count,)
        batch = remote.batch
        obs, info = local.reset()
        rng = np.random.default_rng(4)
        seats, ended = set(), 0
        for _ in range(25):
            assert batch.observations.shape == (count, *remote.observation_shape)
            np.testing.assert_array_equal(batch.observations, obs)
            np.testing.assert_array_equal(batch.action_masks, info["action_mask"])
            np.testing.assert_array_equal(batch.learner_seats, local.learner_seats)
            np.testing.assert_array_equal(remote.learner_seats, batch.learner_seats)
            seats.update(batch.learner_seats.tolist())
            actions = random_actions(info["action_mask"], rng)
            batch = remote.step(actions)
            obs, rewards, terminated, truncated, info = local.step(np.maximum(actions, 0))
            assert batch.rewards.shape == batch.final_returns.shape == (count, 1)
            np.testing.assert_array_equal(batch.rewards, rewards)
            np.testing.assert_array_equal(batch.terminated, terminated)
            np.testing.assert_array_equal(batch.truncated, truncated)
            np.testing.assert_array_equal(batch.current_players, info["current_player"])
            np.testing.assert_array_equal(batch.final_returns, info["final_returns"])
            ended += int((terminated | truncated).sum())
        assert ended > 0
        assert len(seats) > 1 if seat == "random" else seats == {seat}


def test_grpc_envs_opponent_arguments_are_checked_by_name(client, tmp_path):
    """Bad opponent= and seat= arguments are refused naming the argument: types and shapes by
    the client (TypeError, or InvalidArgumentError, a ValueError), pools, weights and seats by
    the server with the engine's message naming the entry; a policy file is never read on a
    client's word; without opponents, batches have no learner seats."""
    from checkraise.client import InvalidArgumentError

    with client.envs("pokeros", 2, **SMALL_POKEROS) as plain:
        assert not plain.has_opponents and plain.seat is None and plain.learner_seats is None
    for kwargs, error, words in [
        ({"opponent": 3}, TypeError, "opponent must be a bot spec"),
        ({"opponent": [3]}, TypeError, "opponent entry 0 must be a bot spec"),
        ({"opponent": {"random": True}}, TypeError, "weight of opponent entry 0"),
        ({"opponent": [("random", "heavy")]}, TypeError, "weight of opponent entry 0"),
        ({"opponent": []}, InvalidArgumentError, "opponent is an empty pool"),
        ({"opponent": "random", "seat": True}, TypeError, "seat must be"),
        ({"opponent": "random", "seat": 1.0}, TypeError, "seat must be"),
        ({"opponent": "random", "seat": "left"}, InvalidArgumentError, "seat must be"),
        ({"opponent": "random", "seat": -1}, InvalidArgumentError, "seat must be"),
        ({"seat": 1}, InvalidArgumentError, "give opponent too"),
        # The server's refusals.
        ({"opponent": "random", "seat": 2}, InvalidArgumentError, "'learner seat'"),
        ({"opponent": "nobody"}, InvalidArgumentError, "'opponent 0' cannot be 'nobody'"),
        (
            {"opponent": ["random", "policy(path=/etc/passwd)"]},
            InvalidArgumentError,
            "opponent 1: setting 'path' of bot 'policy'",
        ),
        ({"opponent": [("heuristic", 1), ("random", 0)]}, InvalidArgumentError, "opponent 1"),
        ({"opponent": b"not a policy file"}, InvalidArgumentError, "policy bytes #0"),
        ({"opponent": "random", "all_seats": True}, InvalidArgumentError, "all_seats"),
    ]:
        with pytest.raises(error, match=re.escape(words)):
            client.envs("pokeros", 2, **kwargs, **SMALL_POKEROS)
    # A policy trained on other parameters is refused; a Bot plays as its spec.
    data = _shipped_policy_bytes("pokeros", tmp_path)
    with pytest.raises(InvalidArgumentError, match="opponent 0"):
        client.envs("pokeros", 2, opponent=data, **SMALL_POKEROS)
    import checkraise as cr

    bot = cr.Bot(cr.make("pokeros", **SMALL_POKEROS), "heuristic")
    with client.envs("pokeros", 2, opponent=bot, seat=np.int64(1), **SMALL_POKEROS) as env:
        assert env.seat == 1 and env.learner_seats.tolist() == [1, 1]
