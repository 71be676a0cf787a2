"""Replays: a match step by step (:class:`Replay`, :class:`ReplayStep`,
:class:`ReplayEntry`), each step's public view rebuilt from the JSON Patch the server
sends."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._optional import requires
from .matches import MatchSummary

with requires("checkraise.client", "grpc"):
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
    step; not compared, so that steps read in pages of any size are equal). Consecutive
    steps share the parts of ``state`` the step did not change: copy a state before
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


# JSON Patch (RFC 6902), as replays send each step's change of the public view. Applied by
# copying only the containers on the changed paths: the document given is never modified,
# and the result shares every part the patch did not touch with it.


def _patch_error(operation: Mapping[str, Any], why: str) -> ValueError:
    return ValueError(
        f"cannot apply JSON Patch operation {operation.get('op')!r} at "
        f"{operation.get('path')!r}: {why}"
    )


def _scalar(value: Any) -> str:
    """A JSON value that is neither an object nor an array, as the patch errors name it."""
    return f"{json.dumps(value)[:40]}, neither an object nor an array"


def _pointer(operation: Mapping[str, Any], key: str = "path") -> list[str]:
    """The reference tokens of the operation's JSON Pointer (RFC 6901) ``key``."""
    path = operation.get(key)
    if not isinstance(path, str):
        raise _patch_error(operation, f"{key!r} is missing or not a string")
    if path == "":
        return []
    if not path.startswith("/"):
        raise _patch_error(operation, f"{key} {path!r} does not start with '/'")
    return [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]


def _array_index(
    operation: Mapping[str, Any], array: list[Any], token: str, *, adding: bool = False
) -> int:
    """The array position a token names: an index below the length (up to it when adding),
    or ``-`` (the end) when adding."""
    if adding and token == "-":
        return len(array)
    if not (token.isascii() and token.isdigit()) or (len(token) > 1 and token[0] == "0"):
        raise _patch_error(operation, f"{token!r} is not an array index")
    index = int(token)
    if index > len(array) or (index == len(array) and not adding):
        raise _patch_error(operation, f"index {index} is past the array's end ({len(array)})")
    return index


def _child(operation: Mapping[str, Any], node: Any, token: str) -> Any:
    """The member or element ``token`` names in ``node`` (which must exist)."""
    if isinstance(node, dict):
        if token not in node:
            raise _patch_error(operation, f"no member {token!r}")
        return node[token]
    if isinstance(node, list):
        return node[_array_index(operation, node, token)]
    raise _patch_error(operation, f"{token!r} names a part of {_scalar(node)}")


def _get(operation: Mapping[str, Any], document: Any, tokens: list[str]) -> Any:
    for token in tokens:
        document = _child(operation, document, token)
    return document


def _edit(
    operation: Mapping[str, Any],
    node: Any,
    tokens: list[str],
    change: Callable[[dict[str, Any] | list[Any], str], None],
) -> Any:
    """A copy of ``node`` in which ``change`` was made to (a copy of) the container that
    ``tokens[:-1]`` names, with the last token; every other part is shared."""
    if not isinstance(node, (dict, list)):
        raise _patch_error(operation, f"{tokens[0]!r} names a part of {_scalar(node)}")
    copy: dict[str, Any] | list[Any] = dict(node) if isinstance(node, dict) else list(node)
    if len(tokens) == 1:
        change(copy, tokens[0])
        return copy
    if isinstance(copy, dict):
        key = tokens[0]
        copy[key] = _edit(operation, _child(operation, node, key), tokens[1:], change)
    else:
        index = _array_index(operation, copy, tokens[0])
        copy[index] = _edit(operation, copy[index], tokens[1:], change)
    return copy


def _add(operation: Mapping[str, Any], document: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value

    def change(container: dict[str, Any] | list[Any], token: str) -> None:
        if isinstance(container, dict):
            container[token] = value
        else:
            container.insert(_array_index(operation, container, token, adding=True), value)

    return _edit(operation, document, tokens, change)


def _replace(operation: Mapping[str, Any], document: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value

    def change(container: dict[str, Any] | list[Any], token: str) -> None:
        if isinstance(container, dict):
            if token not in container:
                raise _patch_error(operation, f"no member {token!r}")
            container[token] = value
        else:
            container[_array_index(operation, container, token)] = value

    return _edit(operation, document, tokens, change)


def _remove(operation: Mapping[str, Any], document: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise _patch_error(operation, "the whole document cannot be removed")

    def change(container: dict[str, Any] | list[Any], token: str) -> None:
        if isinstance(container, dict):
            if token not in container:
                raise _patch_error(operation, f"no member {token!r}")
            del container[token]
        else:
            del container[_array_index(operation, container, token)]

    return _edit(operation, document, tokens, change)


def _apply_patch(document: Any, patch: Any) -> Any:
    """``document`` with the JSON Patch ``patch`` (a list of operations: ``add``, ``remove``,
    ``replace``, ``move``, ``copy``, ``test``) applied; ``document`` itself is unchanged.
    A patch that does not apply (a missing member, an index past the end, an unknown
    operation, a failed ``test``) is a ``ValueError`` that says which operation and why."""
    if not isinstance(patch, list):
        raise ValueError(f"a JSON Patch is a list of operations, not {type(patch).__name__}")
    for operation in patch:
        if not isinstance(operation, dict):
            raise ValueError(f"a JSON Patch operation is an object, not {operation!r}")
        op = operation.get("op")
        tokens = _pointer(operation)
        if op in ("add", "replace", "test") and "value" not in operation:
            raise _patch_error(operation, "'value' is missing")
        if op == "add":
            document = _add(operation, document, tokens, operation["value"])
        elif op == "remove":
            document = _remove(operation, document, tokens)
        elif op == "replace":
            document = _replace(operation, document, tokens, operation["value"])
        elif op in ("move", "copy"):
            source = _pointer(operation, "from")
            value = _get(operation, document, source)
            if op == "move":
                if tokens[: len(source)] == source and tokens != source:
                    raise _patch_error(operation, "a value cannot move into itself")
                document = _remove(operation, document, source) if source else document
            document = _add(operation, document, tokens, value)
        elif op == "test":
            if _get(operation, document, tokens) != operation["value"]:
                raise _patch_error(operation, "the test failed")
        else:
            raise _patch_error(operation, "unknown operation")
    return document
