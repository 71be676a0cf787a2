"""League training: a population that grows as it trains (PSRO / fictitious self-play in spirit).

``python -m checkraise.league GAME --init shipped --generations 3 --out runs/league`` runs, per
generation ``g``:

1. **An exploiter of the current main policy**: a learned best response (``checkraise.train``
   with ``best_response_to`` the main policy, started from the main's weights, as the
   exploitability bounds of docs/strength.md were found), trained for ``--exploiter-minutes``
   and added to the population as a frozen member. Its final mean return against the main
   (seats rotated, 95% interval) is the generation's **exploiter value**: a lower bound on the
   main's exploitability, measured at the same budget every generation, so the values over the
   generations are the exploitability curve of the league's main policy.
2. **The meta-strategy**: the main is evaluated against every member (the engine's bots by
   spec, its own past versions, the exploiters), and each member's weight is prioritized
   fictitious self-play's: ``floor + (1 - score)^power``, normalized to sum to one, where
   ``score`` is the main's result against the member mapped to [0, 1] (the game's return
   range: 0 loses every game, 1 wins every game; or, with ``--score win``, its share of the
   games won). Members the main still loses to are played
   most; members it beats keep the floor, so none is forgotten. An **anchor**
   (``--anchor heuristic:0.3``, repeatable) holds a member of the start at a fixed share of
   the mixture whatever its score, and the prioritized weights share the rest. With
   ``--exploiter-share 0.4`` the exploiters together are held at 0.4, split evenly among those
   so far, so that each main phase answers every exploiter at once, not mostly the newest.
3. **The main trains** for ``--main-minutes`` (``checkraise.train``, started from the main's
   weights and value head) against that mixture, plus its own snapshots of the generation
   (``self``, a fixed share). The main before this phase joins the population as a frozen
   member.

Everything is on the engine's fast path: members are handed to the engine's vector env as
policy files' bytes (held in memory) or bot specs, and the engine plays them on its worker
threads from their own seat's information (the ``policy`` bot and every other bot decide on
states resampled from what their seat may see). Each member's bytes are also written to
``members/`` so that the engine plays it as the bot spec ``policy(path=...)`` (the
evaluations, and anyone after the run).

Writes to ``--out``: ``policy.safetensors`` (the final main's weights, with metadata naming
the league as its ``trainer``, its ``env_steps`` and ``seconds`` counting those of the policy it
started from, and ``league_env_steps``, ``league_seconds`` and ``generations``), ``members/``
(every member's file), ``league.csv`` (per generation and member: its kind, weight, whether it
is anchored, the main's result against it with its interval), ``exploiters.csv`` (per
generation: the exploiter's value with its interval and the time and steps the league had
run), ``final.csv`` (the final main against the ``--final-opponent`` bots,
``--final-eval-games`` games each), ``league.json`` (all of it), ``league.png`` (the curves)
and each phase's own ``checkraise.train`` directory under ``gen*/``.

``--resume`` goes on with the finished league in ``--out`` to ``--generations``, with the
settings it ran with (:func:`config_of`, ``league(..., resume=True)``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from checkraise import _core
from checkraise._optional import requires
from checkraise.policy import PLAY, Policy, read_safetensors, safetensors_bytes
from checkraise.train import SELF, Config, Evaluation, _write_csv, evaluate, train
from checkraise.train.ppo import PLAYS


@dataclass
class LeagueConfig:
    """A league run's settings (``python -m checkraise.league --help`` explains each). ``base``
    holds the PPO settings every phase shares (its ``game``, ``seed`` and ``train_reward``
    are the league's; ``minutes``, ``max_steps``, ``pool``, ``init``, ``out``, evaluation
    and ``best_response_to`` are set per phase)."""

    base: Config
    out: str = "runs/league"
    init: str | None = "shipped"
    generations: int = 3
    main_minutes: float = 8.0
    exploiter_minutes: float = 4.0
    main_steps: int | None = None
    exploiter_steps: int | None = None
    members: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    anchors: dict[str, float] = field(default_factory=dict)
    # The exploiters' fixed share of the meta-strategy, split evenly among those so far (0: they
    # are weighted by their scores like the other members).
    exploiter_share: float = 0.0
    self_share: float = 0.2
    power: float = 2.0
    floor: float = 0.02
    score: str = "return"  # "return" or "win": what the main's score against a member is
    eval_games: int = 300
    exploiter_eval_games: int = 1000
    final_opponents: list[str] = field(default_factory=lambda: ["heuristic", "random", "policy"])
    final_eval_games: int = 2000
    final_exploiter: bool = True


@dataclass
class Member:
    """One member of the population: a bot spec, or a frozen policy (its file's bytes)."""

    name: str
    kind: str  # "bot", "main" (a past main) or "exploiter"
    spec: str  # the bot spec the engine plays it by (``policy(path=...)`` for policies)
    generation: int
    data: bytes | None = None  # a policy's file, handed to the vector env as bytes

    @property
    def entry(self) -> str | bytes:
        """Its vector-env pool entry."""
        return self.data if self.data is not None else self.spec


def meta_strategy(
    scores: Sequence[float],
    power: float,
    floor: float,
    anchors: Mapping[int, float] | None = None,
) -> list[float]:
    """Prioritized fictitious self-play's weights from the main's score against each member
    (in [0, 1], 1: the main wins every game): ``floor + (1 - score)^power``, normalized. Finite,
    non-negative and summing to one for any scores (a non-finite score counts as 0.5).

    ``anchors`` maps a member's index to its fixed weight, whatever its score; the members
    not anchored share what the anchors leave (``1 - sum``) by their prioritized weights. A
    ValueError for an index out of range or a share outside [0, 1), for shares summing to 1 or
    more, or for anchors on every member (nobody left to take the rest)."""
    if not scores:
        raise ValueError("a meta-strategy needs at least one member")
    anchors = dict(anchors or {})
    for index, share in anchors.items():
        if not 0 <= index < len(scores):
            raise ValueError(f"anchor on member {index}, but there are {len(scores)} members")
        if not (math.isfinite(share) and 0 <= share < 1):
            raise ValueError(f"an anchor's share must be in [0, 1), got {share}")
    rest = 1.0 - sum(anchors.values())
    if not rest > 0:
        raise ValueError(
            f"the anchors' shares sum to {sum(anchors.values())}, leaving nothing for the "
            "prioritized weights (they must sum to less than 1)"
        )
    free = [i for i in range(len(scores)) if i not in anchors]
    if not free:
        raise ValueError("every member is anchored: none is left to take the rest")
    raw = []
    for i in free:
        s = scores[i]
        s = 0.5 if not math.isfinite(s) else min(1.0, max(0.0, s))
        raw.append(max(floor, 0.0) + (1.0 - s) ** power)
    total = sum(raw)
    shares = [1.0 / len(raw)] * len(raw) if not total > 0 else [r / total for r in raw]
    weights = [0.0] * len(scores)
    for i, share in anchors.items():
        weights[i] = share
    for i, share in zip(free, shares, strict=True):
        weights[i] = share * rest
    return weights


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME:SHARE`` (``heuristic:0.3``) as ``(name, share)``; the name is everything before
    the last colon. A CheckraiseError for text without a share or a share that is not a
    number."""
    name, sep, share = text.rpartition(":")
    if not sep or not name:
        raise _core.CheckraiseError(f"an anchor is NAME:SHARE (e.g. heuristic:0.3), got {text!r}")
    try:
        value = float(share)
    except ValueError:
        raise _core.CheckraiseError(f"the anchor {text!r}: its share is not a number") from None
    return name, value


def _check_anchors(config: LeagueConfig) -> None:
    """That ``config.anchors`` name members of the start (the ``members`` bots, and ``main0``
    when the league starts from a policy) with shares in [0, 1) summing to less than 1, and
    leave a member of the first generation free to take the rest."""
    known = [*config.members, *([] if config.init is None else ["main0"])]
    for name, share in config.anchors.items():
        if name not in known:
            raise _core.CheckraiseError(
                f"anchor on {name!r}, which is not a member at the start "
                f"(they are {', '.join(known)})"
            )
        if not (math.isfinite(share) and 0 <= share < 1):
            raise _core.CheckraiseError(
                f"the anchor on {name!r}: its share must be in [0, 1), got {share}"
            )
    if not (math.isfinite(config.exploiter_share) and 0 <= config.exploiter_share < 1):
        raise _core.CheckraiseError(
            f"the exploiters' share must be in [0, 1), got {config.exploiter_share}"
        )
    total = sum(config.anchors.values()) + config.exploiter_share
    if total >= 1:
        raise _core.CheckraiseError(
            f"the anchors' shares sum to {total} (the exploiters' share included): they must "
            "sum to less than 1, leaving the rest to the prioritized weights"
        )
    if config.init is None and all(m in config.anchors for m in config.members):
        raise _core.CheckraiseError(
            "every member of the first generation is anchored: none is left to take the rest"
        )


SCORES = ("return", "win")


def _score(e: Evaluation, game: _core.Game, score: str) -> float:
    """The main's score against a member in [0, 1]: with ``return``, its mean return mapped by
    the game's return range; with ``win``, its share of the games won (AlphaStar's PFSP). In
    chip games the range is far wider than what a hand moves (Hold'em Poker Chess: ±200 chips,
    where results are a few chips a hand), so ``return`` scores every member about 0.5 there
    and weights them alike; ``win`` tells them apart."""
    if score == "win":
        return min(1.0, max(0.0, e.win_rate)) if math.isfinite(e.win_rate) else 0.5
    lo, hi = float(game.min_utility()), float(game.max_utility())
    return min(1.0, max(0.0, (e.mean - lo) / (hi - lo))) if hi > lo else 0.5


def _policy_file(policy_spec: str, game: _core.Game) -> bytes:
    """The bytes of ``shipped`` (the engine's policy for the game) or of a policy file."""
    if policy_spec == "shipped":
        return bytes(_core.shipped_policy(game.name))
    return Path(policy_spec).read_bytes()


def _played(data: bytes, play: str) -> bytes:
    """A policy file's bytes saying it is played as ``play`` (its metadata ``play``), so the
    engine's ``policy`` bot and :func:`evaluate` play it so."""
    tensors, metadata = read_safetensors(data)
    if metadata.get(PLAY, "greedy") == play:
        return data
    metadata[PLAY] = play
    return safetensors_bytes(tensors, metadata)


# The settings a resumed league may change: how far it goes, and where its files are.
RESUMABLE = ("generations", "out", "base.out")


def _settings(config: LeagueConfig) -> dict[str, Any]:
    """``config`` as its file holds it, the PPO settings named ``base.*``."""
    settings = json.loads(json.dumps(asdict(config)))
    base = settings.pop("base")
    return {**settings, **{f"base.{k}": v for k, v in base.items()}}


def _finished(config: LeagueConfig) -> dict[str, Any]:
    """The summary of the finished league in ``config.out`` that ``config`` resumes. A
    CheckraiseError when there is none, when it already ran ``config.generations``, or when it
    ran with other settings than ``config`` (besides ``RESUMABLE``): a league goes on only as
    it began."""
    out = Path(config.out)
    try:
        summary = json.loads((out / "league.json").read_text())
    except (OSError, ValueError) as error:
        raise _core.CheckraiseError(
            f"no finished league to resume in {out} ({error}); --resume goes on from a run "
            "that wrote its league.json"
        ) from None
    if config.generations <= summary["generations"]:
        raise _core.CheckraiseError(
            f"the league in {out} has run {summary['generations']} generations; resuming it "
            f"needs more (--generations {config.generations})"
        )
    # Both read as a LeagueConfig: settings a run's file predates take their defaults.
    theirs, ours = _settings(config_of(out, config.generations)), _settings(config)
    changed = sorted(
        (k for k in {*ours, *theirs} if k not in RESUMABLE and ours.get(k) != theirs.get(k)),
        key=lambda k: (k.startswith("base."), k),
    )
    if changed:
        raise _core.CheckraiseError(
            f"the league in {out} ran with other settings ({', '.join(changed)}): a resumed "
            "league keeps its own, only --generations grows"
        )
    return summary


def _read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a CSV file this module wrote, numbers and booleans read back as such."""

    def value(text: str) -> Any:
        if text in ("True", "False"):
            return text == "True"
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    with open(path, newline="") as f:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(f)]


def config_of(out: str | Path, generations: int) -> LeagueConfig:
    """The settings of the league in ``out`` (its ``league_config.json``), going on to
    ``generations``: what :func:`league` resumes it with. A CheckraiseError when ``out``
    holds none."""
    path = Path(out) / "league_config.json"
    try:
        settings = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise _core.CheckraiseError(f"no league settings to resume in {out} ({error})") from None
    if not isinstance(settings, dict) or not isinstance(settings.get("base"), dict):
        raise _core.CheckraiseError(f"{path} does not hold a league's settings")
    base = settings.pop("base")
    base["hidden"] = tuple(base["hidden"])
    base["pool"] = [tuple(entry) for entry in base["pool"]]
    settings.update(out=str(out), generations=generations)
    try:
        return LeagueConfig(base=Config(**base), **settings)
    except TypeError as error:
        raise _core.CheckraiseError(f"{path} does not hold a league's settings ({error})") from None


def _league_policy(
    main: bytes, init: bytes | None, config: LeagueConfig, main_steps: int, seconds: float
) -> bytes:
    """The final main's file as the league's output: its weights, with metadata that says how
    it was made (the league, its main steps and seconds, added to those of the policy it
    started from, and that policy's trainer) rather than the last main phase's alone."""
    tensors, metadata = read_safetensors(main)
    metadata.pop("updates", None)  # per phase; the league's phases restart the count
    trainer = "checkraise.league (PPO)"
    steps, total_seconds = main_steps, seconds
    if init is not None:
        _, before = read_safetensors(init)
        name = "shipped" if config.init == "shipped" else Path(str(config.init)).name
        trainer += f", started from {name} ({before.get('trainer', 'unknown trainer')})"
        steps += int(before.get("env_steps", 0))
        total_seconds += float(before.get("seconds", 0))
    metadata.update(
        {
            "trainer": trainer,
            "env_steps": str(steps),
            "league_env_steps": str(main_steps),
            "seconds": f"{total_seconds:.0f}",
            "league_seconds": f"{seconds:.0f}",
            "generations": str(config.generations),
            "seed": str(config.base.seed),
        }
    )
    return safetensors_bytes(tensors, metadata)


def league(
    config: LeagueConfig, log: Callable[[str], None] = print, resume: bool = False
) -> dict[str, Any]:
    """Runs the league as ``config`` says and writes its files to ``config.out``; returns the
    summary written to ``league.json``.

    With ``resume``, ``config.out`` holds a finished league (its ``league.json``) run with the
    same settings but fewer generations, and the league goes on from there to
    ``config.generations``: its population, curves and clocks carry on, and a final exploiter
    it trained is the next generation's exploiter (the same phase, seed and target), so it is
    reused rather than trained again. With step limits (``--main-steps``,
    ``--exploiter-steps``) a resumed league ends where one run straight through would."""
    base = config.base
    game = _core.make(base.game)
    if config.generations < 1:
        raise _core.CheckraiseError("a league needs at least one generation")
    if not 0 <= config.self_share < 1:
        raise _core.CheckraiseError("the self share must be in [0, 1)")
    if config.score not in SCORES:
        raise _core.CheckraiseError(
            f"--score {config.score!r}: it must be one of {', '.join(SCORES)}"
        )
    if base.play not in PLAYS:
        raise _core.CheckraiseError(f"--play {base.play!r}: it must be one of {', '.join(PLAYS)}")
    for spec in [*config.members, *config.final_opponents]:
        _core.Bot(game, spec)
    _check_anchors(config)
    out = Path(config.out)
    members_dir = out / "members"
    before = _finished(config) if resume else None
    members_dir.mkdir(parents=True, exist_ok=True)
    settings = asdict(config)
    (out / "league_config.json").write_text(json.dumps(settings, indent=2) + "\n")

    population: list[Member] = [Member(s, "bot", s, 0) for s in config.members]

    def frozen(name: str, kind: str, generation: int, data: bytes) -> Member:
        """A policy member, played by the engine from its file in ``members/``."""
        path = members_dir / f"{name}.safetensors"
        return Member(name, kind, f"policy(path={path})", generation, data)

    def add_policy(name: str, kind: str, generation: int, data: bytes) -> Member:
        (members_dir / f"{name}.safetensors").write_bytes(data)
        member = frozen(name, kind, generation, data)
        population.append(member)
        log(f"league: + {name} ({kind}), {len(population)} members")
        return member

    if config.init is None:
        # A fresh main: its first phase is plain PPO against the bots alone.
        main_data = None
    elif before is not None:
        # The start as the first run read it (the file given then may have changed since).
        main_data = (members_dir / "main0.safetensors").read_bytes()
    else:
        main_data = _policy_file(config.init, game)
        Policy.from_bytes(main_data).check_game(game)
        main_data = _played(main_data, base.play)
    start = time.perf_counter()
    main_steps = 0
    league_rows: list[dict[str, Any]] = []
    exploiter_rows: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    first = 0
    # A final exploiter of the run resumed: the first generation's exploiter here.
    reused: dict[str, Any] | None = None
    if before is not None:
        population = [
            Member(m["name"], "bot", m["spec"], m["generation"])
            if m["kind"] == "bot"
            else frozen(
                m["name"],
                m["kind"],
                m["generation"],
                (members_dir / f"{m['name']}.safetensors").read_bytes(),
            )
            for m in before["population"]
        ]
        start -= before["seconds"]
        main_steps = before["main_env_steps"]
        league_rows = _read_rows(out / "league.csv")
        exploiter_rows = list(before["exploiters"])
        history = list(before["history"])
        first = before["generations"]
        reused = before["final_exploiter"]
        log(
            f"league: resumed after {first} generations and {before['seconds']:.0f} s, "
            f"{len(population)} members"
        )

    def phase(name: str, **changes: Any) -> dict[str, Any]:
        phase_config = Config(**{**asdict(base), "out": str(out / name), **changes})
        return train(phase_config, log=lambda line: log(f"  [{name}] {line}"))

    def elapsed() -> float:
        return round(time.perf_counter() - start, 1)

    def train_exploiter(generation: int, target: Member) -> dict[str, Any]:
        name = f"gen{generation}/exploiter"
        summary = phase(
            name,
            seed=base.seed + 1000 + generation,
            minutes=config.exploiter_minutes,
            max_steps=config.exploiter_steps,
            pool=[(target.entry, 1.0)],
            eval_opponents=[target.spec],
            eval_every_s=1e12,
            final_eval_games=config.exploiter_eval_games,
            best_response_to=target.spec,
            init=str(members_dir / f"{target.name}.safetensors"),
            # A best response need not mix: it is played greedily whatever the main's play,
            # and trained with the trainer's own entropy bonus whatever the main's, so every
            # exploiter value is the learned best response of the exploitability table.
            play="greedy",
            entropy=Config.entropy,
        )
        br = summary["best_response"]
        row = {
            "generation": generation,
            "target": target.name,
            "league_seconds": elapsed(),
            "main_env_steps": main_steps,
            "exploiter_env_steps": summary["env_steps"],
            "exploiter_seconds": summary["seconds"],
            "games": br["games"],
            "value": br["value"],
            "ci_low": br["ci"][0],
            "ci_high": br["ci"][1],
        }
        exploiter_rows.append(row)
        _write_csv(out / "exploiters.csv", exploiter_rows)
        log(
            f"league: exploiter of {target.name}: {br['value']:+.3f} "
            f"[{br['ci'][0]:+.3f}, {br['ci'][1]:+.3f}] ({br['games']} games)"
        )
        return row

    main: Member | None = None
    if before is not None:
        main = [m for m in population if m.kind == "main"][-1]
    elif main_data is not None:
        main = add_policy("main0", "main", 0, main_data)
    for generation in range(first, config.generations):
        if main is not None:
            if reused is not None and generation == first:
                exploiter_row = reused
                log(f"league: exploiter of {main.name}: the resumed run's final exploiter")
            else:
                exploiter_row = train_exploiter(generation, main)
            add_policy(
                f"exploiter{generation}",
                "exploiter",
                generation,
                (out / f"gen{generation}/exploiter/policy.safetensors").read_bytes(),
            )
        else:
            exploiter_row = None
        # The meta-strategy, from the main's results against every member.
        if main is not None:
            policy = Policy.from_bytes(main.data)  # type: ignore[arg-type]
            results = []
            for m in population:
                if m is main:
                    # Against itself: an even score by symmetry, nothing to measure.
                    results.append((0.5, math.nan, (math.nan, math.nan)))
                    continue
                e = evaluate(policy, game, m.spec, config.eval_games, base.eval_seed)
                results.append((_score(e, game, config.score), e.mean, e.ci))
        else:
            results = [(0.5, math.nan, (math.nan, math.nan)) for _ in population]
        anchors = {
            i: config.anchors[m.name] for i, m in enumerate(population) if m.name in config.anchors
        }
        exploiters = [i for i, m in enumerate(population) if m.kind == "exploiter"]
        if config.exploiter_share > 0:
            for i in exploiters:
                anchors[i] = config.exploiter_share / len(exploiters)
        weights = meta_strategy([r[0] for r in results], config.power, config.floor, anchors)
        for i, (m, (score, mean, ci), w) in enumerate(
            zip(population, results, weights, strict=True)
        ):
            league_rows.append(
                {
                    "generation": generation,
                    "league_seconds": elapsed(),
                    "main_env_steps": main_steps,
                    "member": m.name,
                    "kind": m.kind,
                    "member_generation": m.generation,
                    "weight": w,
                    "anchored": i in anchors,
                    "main_mean": mean,
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                    "main_score": score,
                }
            )
            mark = " (anchored)" if i in anchors else ""
            log(f"league:   {m.name:<14} weight {w:.3f}{mark}  main's mean {mean:+.3f}")
        _write_csv(out / "league.csv", league_rows)
        history.append(
            {
                "generation": generation,
                "population": [m.name for m in population],
                "weights": weights,
                "exploiter": exploiter_row,
            }
        )
        share = 1.0 - config.self_share
        pool: list[tuple[str | bytes, float]] = [
            (m.entry, w * share) for m, w in zip(population, weights, strict=True) if w > 0
        ]
        if config.self_share > 0:
            pool.append((SELF, config.self_share))
        name = f"gen{generation}/main"
        summary = phase(
            name,
            seed=base.seed + generation,
            minutes=config.main_minutes,
            max_steps=config.main_steps,
            pool=pool,
            eval_opponents=["heuristic"] if "heuristic" in config.members else [config.members[0]],
            eval_every_s=1e12,
            final_eval_games=config.eval_games,
            best_response_to=None,
            init=None if main is None else str(members_dir / f"{main.name}.safetensors"),
        )
        main_steps += summary["env_steps"]
        main = add_policy(
            f"main{generation + 1}",
            "main",
            generation + 1,
            (out / name / "policy.safetensors").read_bytes(),
        )
    assert main is not None and main.data is not None
    (out / "policy.safetensors").write_bytes(
        _league_policy(main.data, main_data, config, main_steps, elapsed())
    )
    final_exploiter = None
    if config.final_exploiter:
        final_exploiter = train_exploiter(config.generations, main)
    policy = Policy.from_bytes(main.data)
    final_rows = []
    for spec in config.final_opponents:
        e = evaluate(policy, game, spec, config.final_eval_games, base.eval_seed)
        final_rows.append(
            {
                "opponent": spec,
                "games": e.games,
                "mean_return": e.mean,
                "ci_low": e.ci[0],
                "ci_high": e.ci[1],
                "win_rate": e.win_rate,
            }
        )
        log(f"league: final vs {spec}: {e.mean:+.3f} [{e.ci[0]:+.3f}, {e.ci[1]:+.3f}]")
    _write_csv(out / "final.csv", final_rows)
    summary = {
        "game": str(game),
        "generations": config.generations,
        "anchors": config.anchors,
        "exploiter_share": config.exploiter_share,
        "seconds": elapsed(),
        "main_env_steps": main_steps,
        "population": [
            {"name": m.name, "kind": m.kind, "generation": m.generation, "spec": m.spec}
            for m in population
        ],
        "history": history,
        "exploiters": exploiter_rows,
        "final_exploiter": final_exploiter,
        "final": final_rows,
    }
    (out / "league.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot(out)
    return summary


def plot(out: str | Path) -> Path:
    """Draws a league run's ``exploiters.csv`` and ``league.csv`` into ``league.png``: the
    exploiter value over the league's time (its exploitability bound), the main's result
    against each member by generation, and the meta-strategy's weights."""
    with requires("checkraise.league.plot", "train"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    out = Path(out)
    with open(out / "league.csv") as f:
        rows = list(csv.DictReader(f))
    exploiters = []
    if (out / "exploiters.csv").exists():
        with open(out / "exploiters.csv") as f:
            exploiters = list(csv.DictReader(f))
    fig, axes = plt.subplots(1, 3, figsize=(17, 5))
    if exploiters:
        xs = [float(r["league_seconds"]) / 60 for r in exploiters]
        ys = [float(r["value"]) for r in exploiters]
        axes[0].errorbar(
            xs,
            ys,
            yerr=[
                [y - float(r["ci_low"]) for y, r in zip(ys, exploiters, strict=True)],
                [float(r["ci_high"]) - y for y, r in zip(ys, exploiters, strict=True)],
            ],
            marker="o",
            capsize=3,
        )
        for x, y, r in zip(xs, ys, exploiters, strict=True):
            axes[0].annotate(r["target"], (x, y), textcoords="offset points", xytext=(4, 4))
    axes[0].axhline(0, color="grey", linewidth=0.8)
    axes[0].set_xlabel("league minutes (when the exploiter finished)")
    axes[0].set_ylabel("exploiter's mean return against main (95% CI)")
    axes[0].set_title("exploitability bound of the main")
    names = list(dict.fromkeys(r["member"] for r in rows))
    for name in names:
        mine = [r for r in rows if r["member"] == name and r["main_mean"] not in ("", "nan")]
        if mine:
            axes[1].plot(
                [int(r["generation"]) for r in mine],
                [float(r["main_mean"]) for r in mine],
                marker="o",
                label=name,
            )
        axes[2].plot(
            [int(r["generation"]) for r in rows if r["member"] == name],
            [float(r["weight"]) for r in rows if r["member"] == name],
            marker="o",
            label=name,
        )
    axes[1].axhline(0, color="grey", linewidth=0.8)
    axes[1].set_xlabel("generation (before its main phase)")
    axes[1].set_ylabel("main's mean return against member")
    if axes[1].get_lines()[1:]:
        axes[1].legend(fontsize=7)
    axes[2].set_xlabel("generation")
    axes[2].set_ylabel("meta-strategy weight")
    axes[2].legend(fontsize=7)
    fig.suptitle(f"{out.name}: league")
    fig.tight_layout()
    path = out / "league.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``python -m checkraise.league GAME [options]``."""
    d = LeagueConfig(base=Config(game=""))
    p = argparse.ArgumentParser(
        prog="python -m checkraise.league",
        description="League training: a main policy against a growing population of its past "
        "versions, exploiters of it and the engine's bots, weighted by prioritized fictitious "
        "self-play.",
    )
    p.add_argument(
        "game", help="a game name or game string, e.g. 'poker_chess(observation=scores)'"
    )
    p.add_argument("--out", default=d.out)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--init",
        default=d.init,
        help="the first main: 'shipped' (the engine's policy of the game), a policy file, or "
        "'none' (a fresh network, whose first phase plays the bots alone)",
    )
    p.add_argument("--generations", type=int, default=d.generations)
    p.add_argument("--main-minutes", type=float, default=d.main_minutes)
    p.add_argument("--exploiter-minutes", type=float, default=d.exploiter_minutes)
    p.add_argument("--main-steps", type=int, default=None, help="stop each main phase here")
    p.add_argument("--exploiter-steps", type=int, default=None)
    p.add_argument(
        "--member",
        action="append",
        default=None,
        help="a bot spec in the population from the start, repeatable (default heuristic and "
        "random; e.g. 'ismcts(iterations=200,rollout=random)', 'br(target=heuristic)')",
    )
    p.add_argument(
        "--anchor",
        action="append",
        default=None,
        metavar="NAME:SHARE",
        help="hold a member of the start (a --member bot, or main0 with --init) at a fixed "
        "share of the meta-strategy whatever its score, repeatable (e.g. heuristic:0.3; the "
        "prioritized weights share the rest; its share of the main's games is SHARE times "
        "1 - --self-share)",
    )
    p.add_argument(
        "--exploiter-share",
        type=float,
        default=d.exploiter_share,
        metavar="SHARE",
        help="hold the exploiters together at this fixed share of the meta-strategy, split "
        "evenly among those so far, whatever their scores (default 0: weighted by their "
        "scores), so that the main answers every exploiter at once, not only the newest",
    )
    p.add_argument("--self-share", type=float, default=d.self_share)
    p.add_argument("--power", type=float, default=d.power, help="PFSP's exponent")
    p.add_argument("--floor", type=float, default=d.floor, help="PFSP's weight floor")
    p.add_argument(
        "--score",
        choices=SCORES,
        default=d.score,
        help="the main's score against a member: its mean return mapped by the game's return "
        "range (return), or its share of games won (win, for chip games whose range dwarfs "
        "a hand's results)",
    )
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    p.add_argument("--exploiter-eval-games", type=int, default=d.exploiter_eval_games)
    p.add_argument("--final-opponent", action="append", default=None)
    p.add_argument("--final-eval-games", type=int, default=d.final_eval_games)
    p.add_argument("--no-final-exploiter", dest="final_exploiter", action="store_false")
    p.add_argument("--train-reward", default=None)
    p.add_argument("--hidden", default="128,128")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument(
        "--entropy",
        type=float,
        default=Config.entropy,
        help="the main phases' entropy bonus (exploiters keep the trainer's default)",
    )
    p.add_argument(
        "--play",
        choices=("greedy", "sample"),
        default="greedy",
        help="how the main is played, as a member, an exploiter's target and in every "
        "evaluation: greedy, or sample (drawn from its distribution; the main's files say "
        "play=sample); exploiters are played greedily",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="go on with the finished league in --out to --generations, with the settings it "
        "ran with (every other option is an error); its final exploiter, if it trained one, "
        "is the next generation's",
    )
    args = p.parse_args(argv)
    try:
        config = _resumed(p, args) if args.resume else _config(args, d)
        summary = league(config, log=lambda line: print(line, flush=True), resume=args.resume)
    except (_core.CheckraiseError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps({k: summary[k] for k in ("seconds", "main_env_steps", "final")}, indent=2))
    return 0


def _config(args: argparse.Namespace, d: LeagueConfig) -> LeagueConfig:
    """The league the command line's options describe (``d``: the defaults)."""
    anchors: dict[str, float] = {}
    for text in args.anchor or []:
        name, share = parse_anchor(text)
        if name in anchors:
            raise _core.CheckraiseError(f"{name!r} is anchored twice")
        anchors[name] = share
    base = Config(
        game=args.game,
        seed=args.seed,
        train_reward=args.train_reward,
        hidden=tuple(int(h) for h in args.hidden.split(",") if h.strip()),
        num_envs=args.num_envs,
        lr=args.lr,
        entropy=args.entropy,
        play=args.play,
    )
    return LeagueConfig(
        base=base,
        out=args.out,
        init=None if args.init == "none" else args.init,
        generations=args.generations,
        main_minutes=args.main_minutes,
        exploiter_minutes=args.exploiter_minutes,
        main_steps=args.main_steps,
        exploiter_steps=args.exploiter_steps,
        members=args.member or d.members,
        anchors=anchors,
        exploiter_share=args.exploiter_share,
        self_share=args.self_share,
        power=args.power,
        floor=args.floor,
        score=args.score,
        eval_games=args.eval_games,
        exploiter_eval_games=args.exploiter_eval_games,
        final_opponents=args.final_opponent or d.final_opponents,
        final_eval_games=args.final_eval_games,
        final_exploiter=args.final_exploiter,
    )


def _resumed(parser: argparse.ArgumentParser, args: argparse.Namespace) -> LeagueConfig:
    """``--resume``: the settings of the league in ``--out``, going on to ``--generations``; a
    CheckraiseError for any other option given, or another game."""
    given = sorted(
        k
        for k, v in vars(args).items()
        if k not in ("game", "out", "generations", "resume") and v != parser.get_default(k)
    )
    if given:
        options = ", ".join("--" + k.replace("_", "-") for k in given)
        raise _core.CheckraiseError(f"--resume keeps the league's own settings; drop {options}")
    config = config_of(args.out, args.generations)
    if args.game != config.base.game:
        raise _core.CheckraiseError(
            f"the league in {args.out} plays {config.base.game!r}, not {args.game!r}"
        )
    return config


if __name__ == "__main__":
    sys.exit(main())
