"""Replays: a match step by step (:class:`Replay`, :class:`ReplayStep`,
:class:`ReplayEntry`), each step's public view rebuilt from the JSON Patch the server
sends."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._optional import requires
from .matches import MatchSummary

with requires("checkraise.client", "grpc"):
    import jsonpatch
    from jsonpointer import JsonPointerException

    from ..v1 import checkraise_pb2 as pb


@dataclass(frozen=True)
class ReplayEntry:
    """One history entry of a finished match: ``player`` a seat or -1 for chance, ``action``
    the action id or chance outcome, ``text`` as the engine writes it (a chance outcome names
    the card dealt)."""

    player: int
    action: int
    text: str


@dataclass(frozen=True)
class ReplayStep:
    """One step of a match: the deal (``version`` 0, ``actor`` -1), then each seat action
    (``actor`` the seat) or joint action at a simultaneous node (``actor`` -2) with the
    chance that followed it. ``state`` is the view after the step: for a live match the public
    view (the spectator's ``View.state``), for a finished one (``revealed``) the view of
    everyone, every card a seat held face up (its ``"everyone"`` true); ``entries`` the step's
    history entries, chance included, and empty unless the replay is ``revealed``.

    The server sends the public view whole only for a page's first step, and for each later
    step the change from the previous step's view (a JSON Patch, RFC 6902): ``state`` is
    rebuilt from it, and ``view_patch`` is that patch as sent (``None`` on a page's first
    step; not compared, so that steps read in pages of any size are equal). A step that did
    not change the view shares its ``state`` with the step before: copy a state before
    modifying it.
    """

    version: int
    actor: int
    entries: tuple[ReplayEntry, ...]
    state: dict[str, Any]
    view_patch: list[dict[str, Any]] | None = field(default=None, repr=False, compare=False)


def _replay_steps(steps: Sequence[pb.ReplayStep]) -> Iterator[ReplayStep]:
    """A page's steps with each public view rebuilt: the first step's from its
    ``spectator_view_json``, each later one by applying its ``spectator_view_patch`` to the
    previous step's view. (A step that carries the whole view, as servers before paged
    replays sent for every step, is read as it is.)"""
    state: Any = None
    for index, step in enumerate(steps):
        patch = None
        if step.spectator_view_json:
            state = json.loads(step.spectator_view_json)
        elif step.spectator_view_patch:
            if index == 0:
                raise ValueError(
                    f"the replay page's first step (version {step.version}) has a view patch "
                    "but no view to apply it to"
                )
            try:
                patch = json.loads(step.spectator_view_patch)
                state = _apply_patch(state, patch)
            except ValueError as error:
                raise ValueError(
                    f"cannot rebuild the public view of replay step {step.version}: {error}"
                ) from None
        elif index == 0:
            state = {}
        # else: neither the view nor a patch: the public view did not change.
        yield ReplayStep(
            version=step.version,
            actor=step.actor,
            entries=tuple(ReplayEntry(e.player, e.action, e.text) for e in step.entries),
            state=state,
            view_patch=patch,
        )


@dataclass(frozen=True)
class Replay:
    """A match step by step: one page of it (:meth:`Client.get_replay`), or all of it
    (:meth:`Match.replay`).

    ``revealed`` is true for a finished match: every step lists its history entries, chance
    outcomes (so every card dealt) included. For a match still being played it is false and
    the steps carry only what a spectator may see: who acted and the public view after each
    step. ``next_version`` is the ``from_version`` of the next page, ``None`` when ``steps``
    ends with the match's last step. ``raw`` is the wire message (the pages joined, for a
    whole replay; its later steps carry view patches, not whole views).
    """

    match: MatchSummary
    revealed: bool
    steps: tuple[ReplayStep, ...]
    raw: pb.Replay = field(repr=False, compare=False)
    next_version: int | None = None

    @classmethod
    def from_proto(cls, replay: pb.Replay) -> Replay:
        """Decodes a ``Replay`` message (one page), rebuilding each step's public view."""
        return cls(
            match=MatchSummary.from_proto(replay.match),
            revealed=replay.revealed,
            steps=tuple(_replay_steps(replay.steps)),
            raw=replay,
            next_version=replay.next_version if replay.HasField("next_version") else None,
        )


def _apply_patch(document: Any, patch: Any) -> Any:
    """``document`` with the JSON Patch (RFC 6902) ``patch``, a list of operations, applied
    by :mod:`jsonpatch` to a copy: ``document`` itself is unchanged. A patch that does not
    apply (a missing member, an index past the end, an unknown operation, a failed ``test``)
    is a ``ValueError`` that says why."""
    if not isinstance(patch, list):
        raise ValueError(f"a JSON Patch is a list of operations, not {type(patch).__name__}")
    try:
        return jsonpatch.apply_patch(document, patch)
    except (jsonpatch.JsonPatchException, JsonPointerException) as error:
        raise ValueError(f"the JSON Patch does not apply: {error}") from None
