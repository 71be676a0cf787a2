"""A server's replay (:class:`checkraise.client.Replay`) checked step by step through the
engine before a notebook draws it: its history is applied to the game from the start, and each
step's actor, entries and view must be what the engine gives (:class:`ReplayMismatchError`
names the first step that is not)."""

from __future__ import annotations

from typing import Any

from .._core import CheckraiseError, Game, State, make


class ReplayMismatchError(ValueError):
    """A server's replay whose step ``version`` is not what the engine gives when the replay's
    history is applied (a replay changed on the way, or from another engine's rules)."""

    def __init__(self, match_id: str, version: int, why: str) -> None:
        super().__init__(
            f"step {version} of the replay of match {match_id!r} is not what the engine gives: "
            f"{why}"
        )
        self.version = version


def _differences(replayed: dict[str, Any], engine: dict[str, Any]) -> str:
    """The view's fields that differ, by name."""
    keys = sorted(
        k for k in replayed.keys() | engine.keys() if replayed.get(k, ...) != engine.get(k, ...)
    )
    return ", ".join(keys)


def checked_states(replay: Any) -> tuple[Game, list[tuple[int, State]]]:
    """The game of a whole, revealed replay (a finished match's :meth:`Match.replay`) and the
    engine's state after each of its steps with who acted (-1: the deal, -2: every seat at
    once), the replay checked against them step by step.

    Refused: a replay that is not revealed (a live match's, or a sealed ladder game's: public
    views only, no history to apply), one page of a longer replay, and any step whose entries
    the engine does not take or whose actor, entry texts or view differ from the engine's
    (:class:`ReplayMismatchError`, naming the step)."""
    summary = replay.match
    match_id = summary.match_id
    if not replay.revealed:
        raise ValueError(
            f"the replay of match {match_id!r} carries public views only, no history (the match "
            f"is {summary.status}): the engine can check a finished match's replay only; ask "
            "for it again once the match is over"
        )
    steps = replay.steps
    if not steps or steps[0].version != 0 or replay.next_version is not None:
        shown = f"steps {steps[0].version} to {steps[-1].version}" if steps else "no steps"
        raise ValueError(
            f"this is one page of the replay of match {match_id!r} ({shown} of "
            f"{summary.version}): pass the whole replay, as Match.replay() or "
            "Client.get_replay(match_id, page_size=...) with every step returns it"
        )
    game = make(summary.game)
    state = game.new_initial_state()
    players = game.num_players()
    out: list[tuple[int, State]] = []
    for index, step in enumerate(steps):

        def wrong(why: str, version: int = step.version) -> ReplayMismatchError:
            return ReplayMismatchError(match_id, version, why)

        if step.version != index:
            raise wrong(f"it follows step {index - 1}, so its version would be {index}")
        entries = list(step.entries)
        try:
            actor = _decision(state, entries, players, index == 0)
            for entry in entries:
                if entry.player != -1 or not state.is_chance_node():
                    raise CheckraiseError(
                        f"its entry {entry.text!r} of player {entry.player} comes where the "
                        "engine has "
                        + ("chance to deal" if state.is_chance_node() else "no chance to deal")
                    )
                _apply(state, entry, -1)
        except CheckraiseError as error:
            raise wrong(str(error)) from None
        if state.is_chance_node():
            raise wrong("it stops before the chance the engine deals after its action")
        if step.actor != actor:
            raise wrong(f"its actor is {step.actor}, the engine's is {actor}")
        engine = state.everyone_view()
        if step.state != engine:
            fields = _differences(step.state, engine)
            raise wrong(f"its view of every seat differs from the engine's in {fields}")
        out.append((actor, state.clone()))
    if steps[-1].version != summary.version:
        raise ReplayMismatchError(
            match_id,
            steps[-1].version,
            f"the replay ends there, but the match is at version {summary.version}",
        )
    return game, out


def _decision(state: State, entries: list[Any], players: int, deal: bool) -> int:
    """Applies the step's decision, taken off the front of ``entries`` (none for the deal):
    a seat's action, or every seat's at a simultaneous node; who acted."""
    if deal:
        return -1
    if state.is_terminal():
        raise CheckraiseError("the game was over before it")
    if state.is_simultaneous_node():
        joint = entries[:players]
        if [e.player for e in joint] != list(range(players)):
            raise CheckraiseError(
                f"every seat chooses at once here, so its entries start with seats 0 to "
                f"{players - 1} in order, not {[e.player for e in joint]}"
            )
        for entry in joint:
            _text(state, entry, entry.player)
        state.apply_actions([e.action for e in joint])
        del entries[:players]
        return -2
    if not entries:
        raise CheckraiseError("it has no entries, but a step after the deal has an action")
    entry = entries.pop(0)
    player = state.current_player()
    if entry.player != player:
        raise CheckraiseError(
            f"its first entry is seat {entry.player}'s action, but the engine has "
            + ("chance to deal" if player == -1 else f"seat {player} to act")
        )
    _apply(state, entry, player)
    return player


def _text(state: State, entry: Any, player: int) -> None:
    """Checks that the engine writes ``entry``'s action as the entry's text."""
    text = state.action_to_string(player, entry.action)
    if entry.text != text:
        raise CheckraiseError(
            f"its entry says {entry.text!r} for action {entry.action} of player {player}, "
            f"the engine writes {text!r}"
        )


def _apply(state: State, entry: Any, player: int) -> None:
    """Applies ``entry``'s action (``player``'s, -1 for chance), its text checked first."""
    _text(state, entry, player)
    if player == -1:
        state.apply_action(entry.action)
    else:
        state.apply_action(entry.action, player)
