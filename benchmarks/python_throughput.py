#!/usr/bin/env python3
"""Env-steps per second of checkraise's VectorEnv beside OpenSpiel, PettingZoo and Pgx.

Every library plays uniformly random legal actions and produces, at every step, the
observation of the seat to act and its legal-action mask:

- checkraise: ``checkraise.VectorEnv(game, num_envs=N, seed=0)``; actions are drawn from the
  masks the env wrote with vectorized numpy (no per-env Python loop). The time spent inside
  ``step()`` and the time spent drawing actions are reported separately, and together.
  Prediction Chess has simultaneous moves, so its env uses ``observer="all"`` (every seat's
  observation and mask) and takes a joint action per env (``action_shape == (N, 2)``).
- OpenSpiel (pyspiel): N states stepped in a Python loop; each decision writes the observation
  into a numpy buffer (``open_spiel.python.observation``, the fast path; ``--openspiel-list-obs``
  calls ``state.observation_tensor()`` instead) and calls ``state.legal_actions_mask()``.
  Chance nodes (card deals) are sampled inside a step and are not counted as steps.
- PettingZoo: N AEC envs stepped in a Python loop; ``env.last()`` returns the observation with
  its ``action_mask``; a finished game is reset (the reset is not counted as a step).
- Pgx (chess, CPU): ``jax.jit(jax.vmap(auto_reset(env.step, env.init)))`` with the random legal
  action drawn inside the same jitted function; compile time is reported separately and
  excluded from the throughput.

A step is one decision in one env (a joint action at a simultaneous node); for checkraise a
``step()`` of N envs counts N env-steps, including the steps that auto-reset a finished game.
A library that cannot be imported is reported as ``not installable: <reason>``; one that fails
while running is reported as ``failed: <reason>``. checkraise itself failing is an error (the
script exits non-zero), so tests can run ``--quick --only-checkraise`` to keep it working.

Usage::

    PYTHONPATH=python python benchmarks/python_throughput.py --markdown
    PYTHONPATH=python python benchmarks/python_throughput.py --quick --only-checkraise
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib
import importlib.metadata
import os
import platform
import random
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

LIBRARIES = ("checkraise", "openspiel", "pettingzoo", "pgx")
DEFAULT_ENVS = (1, 64, 1024)
QUICK_ENVS = (1, 4)

# OpenSpiel's heads-up no-limit Texas Hold'em (ACPC-style, 50/100 blinds, 200 big blinds deep).
HUNL_PARAMS: dict[str, Any] = {
    "betting": "nolimit",
    "numPlayers": 2,
    "numRounds": 4,
    "blind": "100 50",
    "firstPlayer": "2 1 1 1",
    "numSuits": 4,
    "numRanks": 13,
    "numHoleCards": 2,
    "numBoardCards": "0 3 1 1",
    "stack": "20000 20000",
    "bettingAbstraction": "fullgame",
}


@dataclasses.dataclass
class Result:
    """One measurement: a library's game at a number of envs."""

    library: str
    game: str
    envs: int
    steps: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    step_s: float | None = None
    sample_s: float | None = None
    load1: float | None = None
    note: str = ""

    @property
    def steps_per_s(self) -> float | None:
        """Env-steps per second, everything included (None when not measured)."""
        return self.steps / self.wall_s if self.steps and self.wall_s > 0 else None

    @property
    def step_only_per_s(self) -> float | None:
        """Env-steps per second counting only the time inside the library's step."""
        return self.steps / self.step_s if self.steps and self.step_s else None

    @property
    def sample_only_per_s(self) -> float | None:
        """Env-steps per second counting only the time spent drawing actions."""
        return self.steps / self.sample_s if self.steps and self.sample_s else None


class LegalSampler:
    """Draws a uniformly random legal action per row of a stack of boolean masks, vectorized.

    ``sample(masks)`` takes masks of shape ``(..., num_actions)`` and returns int64 actions of
    shape ``masks.shape[:-1]``; a row with no legal action (a finished game, or a seat that does
    not act) gets 0, which the env ignores. One pass over the masks finds the legal entries
    (``np.flatnonzero``), ``np.searchsorted`` finds each row's run of them, and one uniform
    draw per row picks inside its run (``random() < 1``, so the pick stays inside).
    """

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self._rows = -1
        self._width = -1
        self._row_starts = np.empty(0, np.intp)

    def sample(self, masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        """One uniformly random legal action per mask row (0 for a row with none)."""
        if masks.dtype != np.bool_ or masks.ndim < 1:
            raise ValueError(f"masks must be a boolean array, got {masks.dtype} {masks.shape}")
        width = masks.shape[-1]
        lead = masks.shape[:-1]
        rows = int(np.prod(lead)) if lead else 1
        if rows != self._rows or width != self._width:
            self._rows, self._width = rows, width
            self._row_starts = np.arange(rows + 1, dtype=np.intp) * width
        # The flat indices of the legal entries, then a sentinel past the end so that every
        # row's run (even an empty last one) starts at a valid index.
        legal = np.append(np.flatnonzero(masks), rows * width)
        bounds = np.searchsorted(legal, self._row_starts)
        counts = np.diff(bounds)
        pick = bounds[:-1] + (self.rng.random(rows) * counts).astype(np.intp)
        actions = legal[pick] - self._row_starts[:-1]
        actions[counts == 0] = 0
        return actions.astype(np.int64, copy=False).reshape(lead)


def load1() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def timed_loop(seconds: float, min_iters: int, body: Callable[[], int]) -> tuple[int, float, float]:
    """Runs ``body`` (which returns the env-steps it made) until ``seconds`` have passed and at
    least ``min_iters`` calls were made; returns (steps, wall seconds, CPU seconds)."""
    steps = 0
    iters = 0
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while iters < min_iters or time.perf_counter() < deadline:
        steps += body()
        iters += 1
    wall = time.perf_counter() - t0
    return steps, wall, time.process_time() - cpu0


# --------------------------------------------------------------------------- checkraise


def bench_checkraise(
    game: str,
    num_envs: int,
    seconds: float,
    warmup: int,
    sampler_kind: str = "rust",
    encoding: str = "float32",
) -> Result:
    """checkraise.VectorEnv with random legal actions, drawn in Rust by
    ``venv.sample_actions()`` (``sampler_kind="rust"``) or from the masks with vectorized numpy
    (``"numpy"``); step() and sampling timed apart."""
    import checkraise

    info = checkraise.make(game).info
    simultaneous = info["dynamics"] == "simultaneous"
    observer = "all" if simultaneous else None
    venv = checkraise.VectorEnv(
        game, num_envs=num_envs, seed=0, observer=observer, observation_encoding=encoding
    )
    venv.reset()
    numpy_sampler = LegalSampler(0)

    def draw() -> Any:
        if sampler_kind == "rust":
            return venv.sample_actions()
        masks = venv.action_masks
        if encoding == "compact":
            masks = checkraise.unpack_action_masks(venv.game, masks)
        return numpy_sampler.sample(masks)

    if tuple(venv.action_masks.shape[:-1]) != tuple(venv.action_shape):
        raise RuntimeError(
            f"{game}: masks {venv.action_masks.shape} do not match actions {venv.action_shape}"
        )
    for _ in range(warmup):
        venv.step(draw())

    step_time = 0.0
    sample_time = 0.0
    clock = time.perf_counter

    def body() -> int:
        nonlocal step_time, sample_time
        t0 = clock()
        actions = draw()
        t1 = clock()
        venv.step(actions)
        t2 = clock()
        sample_time += t1 - t0
        step_time += t2 - t1
        return num_envs

    steps, wall, cpu = timed_loop(seconds, 2, body)
    note = f"sampler={sampler_kind}" + (f", observer={observer}" if observer else "")
    if encoding != "float32":
        note += f", observation_encoding={encoding}"
    return Result(
        "checkraise",
        game,
        num_envs,
        steps,
        wall,
        cpu,
        step_time,
        sample_time,
        load1(),
        note,
    )


# --------------------------------------------------------------------------- OpenSpiel


def bench_openspiel(
    label: str,
    game_string: str,
    params: dict[str, Any],
    num_envs: int,
    seconds: float,
    warmup: int,
    list_obs: bool,
) -> Result:
    """N pyspiel states stepped in a Python loop, observation and mask at every decision."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(game_string, params)
    observation = make_observation(game)
    rnd = random.Random(0)
    states = [game.new_initial_state() for _ in range(num_envs)]

    def one(i: int) -> None:
        state = states[i]
        while True:  # deal cards and start new games until a seat has a decision
            if state.is_terminal():
                state = states[i] = game.new_initial_state()
            elif state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rnd.choices(outcomes, probs)[0])
            else:
                break
        player = state.current_player()
        if list_obs:
            state.observation_tensor(player)
        else:
            observation.set_from(state, player)
        state.legal_actions_mask(player)
        legal = state.legal_actions(player)
        state.apply_action(legal[rnd.randrange(len(legal))])

    def body() -> int:
        for i in range(num_envs):
            one(i)
        return num_envs

    for _ in range(warmup):
        body()
    steps, wall, cpu = timed_loop(seconds, 1, body)
    size = game.num_distinct_actions()
    note = f"{size} actions" + (", observation_tensor() lists" if list_obs else "")
    return Result("openspiel", label, num_envs, steps, wall, cpu, None, None, load1(), note)


# --------------------------------------------------------------------------- PettingZoo


def bench_pettingzoo(module: str, num_envs: int, seconds: float, warmup: int) -> Result:
    """N PettingZoo AEC envs stepped in a Python loop with random actions from action_mask."""
    mod = importlib.import_module(f"pettingzoo.classic.{module}")
    envs = [mod.env() for _ in range(num_envs)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    rng = np.random.default_rng(0)
    resets = [0] * num_envs

    def one(i: int) -> int:
        env = envs[i]
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            resets[i] += 1
            env.reset(seed=i + resets[i] * num_envs)
            obs, _reward, terminated, truncated, _info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        return 1

    def body() -> int:
        return sum(one(i) for i in range(num_envs))

    for _ in range(warmup):
        body()
    steps, wall, cpu = timed_loop(seconds, 1, body)
    return Result(
        "pettingzoo",
        module,
        num_envs,
        steps,
        wall,
        cpu,
        None,
        None,
        load1(),
        "AEC env()",
    )


# --------------------------------------------------------------------------- Pgx


def bench_pgx(num_envs: int, seconds: float, warmup: int) -> Result:
    """Pgx chess on CPU: jit(vmap(auto_reset(step))) with the random legal action drawn inside
    the jitted function; compile time reported apart."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("chess")
    step_one = auto_reset(env.step, env.init)

    def act_and_step(state: Any, key: Any) -> Any:
        k_act, k_step = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits)
        return step_one(state, action, k_step)

    @jax.jit
    def batch_step(state: Any, key: Any) -> tuple[Any, Any]:
        key, sub = jax.random.split(key)
        return jax.vmap(act_and_step)(state, jax.random.split(sub, num_envs)), key

    init = jax.jit(jax.vmap(env.init))
    key = jax.random.PRNGKey(0)
    t0 = time.perf_counter()
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, num_envs))
    state, key = batch_step(state, key)
    jax.block_until_ready(state)
    compile_s = time.perf_counter() - t0
    for _ in range(warmup):
        state, key = batch_step(state, key)
    jax.block_until_ready(state)

    holder = [state, key]

    def body() -> int:
        s, k = batch_step(holder[0], holder[1])
        jax.block_until_ready(s.observation)
        holder[0], holder[1] = s, k
        return num_envs

    steps, wall, cpu = timed_loop(seconds, 2, body)
    obs_shape = tuple(holder[0].observation.shape[1:])
    note = f"compile {compile_s:.1f} s (excluded); obs {obs_shape}, jax {jax.default_backend()}"
    return Result("pgx", "chess", num_envs, steps, wall, cpu, None, None, load1(), note)


# --------------------------------------------------------------------------- driver


def version_of(dist: str) -> str:
    """The installed version of a distribution, or 'absent'."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def importable(modules: Sequence[str]) -> str | None:
    """None when every module imports, else the first failure as text."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - any import failure means "not installable"
            return f"{type(exc).__name__}: {exc}".splitlines()[0]
    return None


def fmt_rate(value: float | None) -> str:
    """Steps per second as text: '1.23 M', '456 k', '789'."""
    if value is None:
        return "-"
    if value >= 1e6:
        return f"{value / 1e6:.2f} M"
    if value >= 1e3:
        return f"{value / 1e3:.1f} k"
    return f"{value:.0f}"


COLUMNS = (
    "library",
    "game",
    "envs",
    "steps/s",
    "step() only",
    "sampling only",
    "steps/CPU-s",
    "cpu/wall",
    "load",
    "note",
)


def row(result: Result) -> list[str]:
    """A result as the table's cells."""
    return [
        result.library,
        result.game,
        str(result.envs),
        fmt_rate(result.steps_per_s),
        fmt_rate(result.step_only_per_s),
        fmt_rate(result.sample_only_per_s),
        fmt_rate(result.steps / result.cpu_s if result.steps and result.cpu_s > 0 else None),
        f"{result.cpu_s / result.wall_s:.2f}" if result.wall_s > 0 else "-",
        f"{result.load1:.2f}" if result.load1 is not None else "-",
        result.note,
    ]


def print_row(result: Result, markdown: bool, widths: Sequence[int]) -> None:
    """Prints one row as soon as it is measured."""
    cells = row(result)
    if markdown:
        print("| " + " | ".join(cells) + " |", flush=True)
    else:
        print(
            "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip(), flush=True
        )


def parse_int_list(text: str) -> list[int]:
    """'1,64,1024' -> [1, 64, 1024]; every entry a positive integer."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from exc
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"env counts must be positive integers, got {text!r}")
    return values


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        default=None,
        help="comma-separated checkraise games (default: every registered game)",
    )
    parser.add_argument(
        "--envs",
        type=parse_int_list,
        default=None,
        help="comma-separated env counts (default 1,64,1024; --quick: 1,4)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="seconds per measurement (default 3; --quick: 0.05)",
    )
    parser.add_argument(
        "--libraries",
        default=",".join(LIBRARIES),
        help=f"comma-separated libraries to run (default {','.join(LIBRARIES)})",
    )
    parser.add_argument("--only-checkraise", action="store_true", help="run checkraise only")
    parser.add_argument("--quick", action="store_true", help="a tiny smoke run")
    parser.add_argument(
        "--sampler",
        choices=("rust", "numpy"),
        default="rust",
        help="checkraise's random legal actions: venv.sample_actions() (rust, default) or a "
        "vectorized numpy pass over the masks",
    )
    parser.add_argument(
        "--observation-encoding",
        choices=("float32", "compact"),
        default="float32",
        help="checkraise's observation_encoding: float32 rows (default) or compact uint8 rows "
        "and packed masks",
    )
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument(
        "--openspiel-list-obs",
        action="store_true",
        help="OpenSpiel: call state.observation_tensor() (a list) instead of the numpy observer",
    )
    args = parser.parse_args(argv)
    if args.envs is None:
        args.envs = list(QUICK_ENVS if args.quick else DEFAULT_ENVS)
    if args.seconds is None:
        args.seconds = 0.05 if args.quick else 3.0
    if args.seconds <= 0:
        parser.error(f"--seconds must be positive, got {args.seconds}")
    libraries = [lib.strip() for lib in args.libraries.split(",") if lib.strip()]
    unknown = sorted(set(libraries) - set(LIBRARIES))
    if unknown:
        parser.error(f"unknown libraries {unknown}; choose from {list(LIBRARIES)}")
    args.libraries = ["checkraise"] if args.only_checkraise else libraries
    args.warmup = 1 if args.quick else 3
    return args


def jobs(args: argparse.Namespace) -> list[tuple[str, str, int, Callable[[], Result]]]:
    """Every measurement to run, as (library, game, envs, thunk)."""
    out: list[tuple[str, str, int, Callable[[], Result]]] = []
    s, w = args.seconds, args.warmup
    if "checkraise" in args.libraries:
        import checkraise

        names = checkraise.game_names()
        games = names if args.games is None else [g.strip() for g in args.games.split(",")]
        for game in games:
            checkraise.make(game)  # UnknownGameError, naming the game, before any measurement
            for n in args.envs:
                out.append(
                    (
                        "checkraise",
                        game,
                        n,
                        lambda g=game, n=n: bench_checkraise(
                            g, n, s, w, args.sampler, args.observation_encoding
                        ),
                    )
                )
    if "openspiel" in args.libraries:
        lo = args.openspiel_list_obs
        variants = [
            ("chess", "chess", {}),
            ("universal_poker(HUNL fullgame)", "universal_poker", HUNL_PARAMS),
            (
                "universal_poker(HUNL fcpa)",
                "universal_poker",
                dict(HUNL_PARAMS, bettingAbstraction="fcpa"),
            ),
        ]
        for label, name, params in variants:
            for n in args.envs:
                out.append(
                    (
                        "openspiel",
                        label,
                        n,
                        lambda lb=label, nm=name, p=params, n=n: bench_openspiel(
                            lb, nm, p, n, s, w, lo
                        ),
                    )
                )
    if "pettingzoo" in args.libraries:
        for module in ("chess_v6", "texas_holdem_no_limit_v6"):
            for n in args.envs:
                out.append(
                    (
                        "pettingzoo",
                        module,
                        n,
                        lambda m=module, n=n: bench_pettingzoo(m, n, s, w),
                    )
                )
    if "pgx" in args.libraries:
        for n in args.envs:
            out.append(("pgx", "chess", n, lambda n=n: bench_pgx(n, s, w)))
    return out


REQUIRED_MODULES = {
    "checkraise": ("checkraise",),
    "openspiel": ("pyspiel", "open_spiel.python.observation"),
    "pettingzoo": (
        "pettingzoo.classic.chess_v6",
        "pettingzoo.classic.texas_holdem_no_limit_v6",
    ),
    "pgx": ("jax", "pgx"),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the benchmark and prints the table; returns the exit status."""
    args = parse_args(argv)
    if "pgx" in args.libraries:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    missing = {lib: importable(REQUIRED_MODULES[lib]) for lib in args.libraries}
    if missing.get("checkraise"):
        print(f"checkraise does not import: {missing['checkraise']}", file=sys.stderr)
        return 2

    versions = {
        "checkraise": getattr(importlib.import_module("checkraise"), "__version__", "?"),
        "numpy": np.__version__,
        "open-spiel": version_of("open-spiel"),
        "pettingzoo": version_of("pettingzoo"),
        "pgx": version_of("pgx"),
        "jax": version_of("jax"),
    }
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    header = [
        f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        f"command: {' '.join([os.path.basename(sys.executable), *sys.argv])}",
        f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}",
        "versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()),
        "load average at start: " + (" ".join(f"{x:.2f}" for x in load) if load else "n/a"),
        f"seconds per measurement: {args.seconds}; envs: {','.join(map(str, args.envs))}",
    ]
    prefix = "" if not args.markdown else "- "
    for line in header:
        print(prefix + line)
    print()
    widths = [10, 30, 5, 9, 11, 13, 11, 8, 5, 0]
    if args.markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "|".join(["---"] * 2 + ["---:"] * (len(COLUMNS) - 3) + ["---"]) + "|")
    else:
        print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths, strict=True)).rstrip())
    sys.stdout.flush()

    reported_missing: set[str] = set()
    for library, game, n, thunk in jobs(args):
        if missing.get(library):
            if library not in reported_missing:
                reported_missing.add(library)
                print_row(
                    Result(library, "*", 0, note=f"not installable: {missing[library]}"),
                    args.markdown,
                    widths,
                )
            continue
        try:
            result = thunk()
        except Exception as exc:  # a peer library failing is reported, not fatal
            if library == "checkraise":
                raise
            traceback.print_exc(file=sys.stderr)
            msg = f"{type(exc).__name__}: {exc}".splitlines()[0]
            result = Result(library, game, n, load1=load1(), note=f"failed: {msg}")
        print_row(result, args.markdown, widths)
    return 0


if __name__ == "__main__":
    sys.exit(main())
