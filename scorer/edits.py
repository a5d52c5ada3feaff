"""Edits of past events: a game is its list of events, replayed with one of them changed.

A :class:`~scorer.game.Game` only takes events in order and undoes only the last one.  To change
an event further back (a misread letter, the wrong square, a blank's letter, who played, the
outcome of a challenge) or to delete or insert one, the game's events are turned into the
calls that make them (:class:`Action`, :func:`actions_of`), one is replaced, deleted or inserted
(:class:`Edit`) and the whole list is played again through a new game (:func:`replay_actions`),
every later score recomputed by the rules.  An event the change makes impossible stops the
replay with an :class:`EditError` naming the event (numbered from 1, as the pages number them)
and the rules' reason; the game edited is never touched, so a refused edit changes nothing.
:meth:`Edit.inverse` gives the edit that takes one back.

>>> from scorer.game import Game
>>> game = Game(["Ann", "Ben"])
>>> _ = game.play("8F", "HORN"); _ = game.play("H6", "FA.M"); _ = game.play("10F", "PASTE")
>>> game.scores
[39, 9]
>>> actions = actions_of(game)
>>> actions[1].to_dict()  # a turn: the player to move makes it
{'kind': 'play', 'position': 'H6', 'word': 'FA.M'}
>>> fix = Edit.replace(1, actions[1].but(word="FA.m"))  # the M was a blank
>>> edited = edit_game(game, fix)
>>> edited.scores, game.scores
([36, 6], [39, 9])
>>> edit_game(edited, fix.inverse(actions)).events == game.events  # taken back
True

A pass the camera could not see, inserted, passes the later turns on to the players in turn:

>>> passed = edit_game(game, Edit.insert(1, Action(EventKind.PASS)))
>>> [(e.kind.value, passed.players[e.player]) for e in passed.events]
[('play', 'Ann'), ('pass', 'Ben'), ('play', 'Ann'), ('play', 'Ben')]

A change that makes a later event impossible is refused, and says which event and why:

>>> edit_game(game, Edit.delete(0))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scorer.edits.EditError: event 1 (Ann's play H6 FA.M): played_through_mismatch: ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scorer.game import (
    ENDING_KINDS,
    Event,
    EventKind,
    Game,
    GameError,
    OutBonus,
    missing_tiles,
    rack_form,
)
from scorer.rules import split_tiles

#: Event kinds made by the player to move (the player may be left out: whoever is on turn).
_TURN_KINDS = frozenset({EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS})

#: Event kinds whose player the game works out (the player of the play concerned).
_PLAY_OWNER_KINDS = frozenset({EventKind.WITHDRAWN, EventKind.CHALLENGE_BONUS})

#: Event kinds that need their player named.
_NAMED_PLAYER_KINDS = frozenset({
    EventKind.END_RACK_POINTS, EventKind.END_RACK_PENALTY, EventKind.TIME_PENALTY,
    EventKind.ADJUSTMENT, EventKind.RESIGNED, EventKind.TIMED_OUT,
})  # fmt: skip

_TEXT_FIELDS = ("position", "word", "rack", "tiles", "note")
_NUMBER_FIELDS = ("player", "count", "score")


@dataclass(frozen=True)
class Action:
    """One event as the call that makes it again on a game in the same state.

    ``player`` None: the player to move (turn events), the player of the play concerned
    (withdrawal, challenge bonus).  ``tiles``: the exchanged tiles, or an end-of-game rack
    (None: worked out from the board where it can be).  ``count``: tiles exchanged when only
    their number is known, overtime minutes, or how many times the others' tiles count for the
    player who went out (1 or 2, whatever the rules' convention).  ``score``: a score set by
    hand (challenge bonus, penalties, adjustment); None: the rules' value.  ``check_rack``
    False keeps a play or exchange whose recorded rack does not hold its tiles (an imported
    record's).
    """

    kind: EventKind
    player: int | None = None
    position: str | None = None
    word: str | None = None
    rack: str | None = None
    tiles: str | None = None
    count: int | None = None
    score: int | None = None
    note: str | None = None
    check_rack: bool = True

    def but(self, **changes: Any) -> Action:
        """A copy with ``changes`` (field names as above)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form: the kind and every field set.

        >>> Action(EventKind.PLAY, 0, "8F", "HORN").to_dict()
        {'kind': 'play', 'player': 0, 'position': '8F', 'word': 'HORN'}
        """
        out: dict[str, Any] = {"kind": self.kind.value}
        for name in ("player", *_TEXT_FIELDS[:4], "count", "score", "note"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if not self.check_rack:
            out["check_rack"] = False
        return out

    @staticmethod
    def from_dict(data: Mapping[str, Any], players: int) -> Action:
        """The action ``data`` describes (as :meth:`to_dict` writes it), its fields checked for
        type; ``players`` is the number of players.  A :class:`GameError` names the field.

        >>> Action.from_dict({"kind": "pass", "player": 1}, 2) == Action(EventKind.PASS, 1)
        True
        >>> Action.from_dict({"kind": "play", "word": "HORN"}, 2)
        Traceback (most recent call last):
        ...
        scorer.game.GameError: bad_action: a play needs 'position' (like 8D or D8)
        """
        if not isinstance(data, Mapping):
            raise GameError("bad_action", "an event is an object with a 'kind'")
        unknown = set(data) - {"kind", "check_rack", *_TEXT_FIELDS, *_NUMBER_FIELDS}
        if unknown:
            raise GameError("bad_action", f"unknown event fields: {', '.join(sorted(unknown))}")
        try:
            kind = EventKind(data.get("kind"))
        except ValueError:
            known = ", ".join(k.value for k in EventKind)
            raise GameError(
                "bad_action", f"unknown event kind {data.get('kind')!r}; known: {known}"
            ) from None
        values: dict[str, Any] = {}
        for name in _TEXT_FIELDS:
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise GameError("bad_action", f"{name!r} must be text, not {value!r}")
            values[name] = value.strip() or None if isinstance(value, str) else None
        for name in _NUMBER_FIELDS:
            value = data.get(name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise GameError("bad_action", f"{name!r} must be a whole number, not {value!r}")
            values[name] = value
        player = values["player"]
        if player is not None and not 0 <= player < players:
            raise GameError("bad_action", f"no player {player} (0..{players - 1})")
        check_rack = data.get("check_rack", True)
        if not isinstance(check_rack, bool):
            raise GameError("bad_action", f"'check_rack' must be true or false, not {check_rack!r}")
        action = Action(kind, check_rack=check_rack, **values)
        _require_fields(action)
        return action

    def describe(self, players: Sequence[str]) -> str:
        """Who did what, for messages.

        >>> Action(EventKind.PLAY, 1, "8D", "HORN").describe(["Ann", "Ben"])
        "Ben's play 8D HORN"
        >>> Action(EventKind.PASS).describe(["Ann", "Ben"])
        'a pass'
        """
        what = self.kind.value.replace("_", " ")
        if self.kind is EventKind.PLAY:
            what = f"play {self.position} {self.word}"
        elif self.kind is EventKind.EXCHANGE:
            what = f"exchange of {self.tiles or self.count}"
        elif self.kind in (EventKind.END_RACK_PENALTY, EventKind.END_RACK_POINTS) and self.tiles:
            what = f"{what} ({self.tiles})"
        if self.player is None or not 0 <= self.player < len(players):
            return f"a {what}" if what[0] not in "aeiou" else f"an {what}"
        return f"{players[self.player]}'s {what}"


def _require_fields(action: Action) -> None:
    """Refuse an action that lacks what its kind needs (before any game is touched)."""
    kind = action.kind
    if kind is EventKind.PLAY:
        if not action.position:
            raise GameError("bad_action", "a play needs 'position' (like 8D or D8)")
        if not action.word:
            raise GameError("bad_action", "a play needs 'word' (. for a tile on the board)")
    elif kind is EventKind.EXCHANGE:
        if not action.tiles and not action.count:
            raise GameError("bad_action", "an exchange needs 'tiles' or 'count'")
    elif kind in _NAMED_PLAYER_KINDS and action.player is None:
        raise GameError("bad_action", f"a {kind.value.replace('_', ' ')} needs 'player'")
    if kind is EventKind.ADJUSTMENT and action.score is None:
        raise GameError("bad_action", "an adjustment needs 'score' (the points, signed)")


class EditError(GameError):
    """An edit the replay refused: event ``index`` (0-based; ``number`` 1-based, as the pages
    show it) of the edited list could not be made.  ``code`` and ``message`` are the rules'."""

    def __init__(self, index: int, what: str, code: str, message: str) -> None:
        super().__init__(code, message)
        self.index = index
        self.what = what
        # The whole text, where the refusal came from first.
        self.args = (f"event {index + 1} ({what}): {code}: {message}",)

    @property
    def number(self) -> int:
        return self.index + 1

    def __str__(self) -> str:
        return str(self.args[0])


class EditKind(StrEnum):
    REPLACE = "replace"
    DELETE = "delete"
    INSERT = "insert"


@dataclass(frozen=True)
class Edit:
    """One change to a list of actions: ``index`` is the event replaced or deleted, or the one
    the new event goes before (the list's length: after the last)."""

    kind: EditKind
    index: int
    action: Action | None = None

    @staticmethod
    def replace(index: int, action: Action) -> Edit:
        return Edit(EditKind.REPLACE, index, action)

    @staticmethod
    def delete(index: int) -> Edit:
        return Edit(EditKind.DELETE, index)

    @staticmethod
    def insert(index: int, action: Action) -> Edit:
        return Edit(EditKind.INSERT, index, action)

    def applied_to(self, actions: Sequence[Action]) -> list[Action]:
        """The list with this edit made; a :class:`GameError` when the event is not there.

        >>> Edit.delete(3).applied_to([Action(EventKind.PASS)])
        Traceback (most recent call last):
        ...
        scorer.game.GameError: no_such_event: there is no event 4 (the game has 1)
        """
        last = len(actions) if self.kind is EditKind.INSERT else len(actions) - 1
        if not 0 <= self.index <= last:
            raise GameError(
                "no_such_event",
                f"there is no event {self.index + 1} (the game has {len(actions)})",
            )
        out = list(actions)
        if self.kind is EditKind.DELETE:
            del out[self.index]
        else:
            if self.action is None:
                raise GameError("bad_action", f"a {self.kind.value} needs the new event")
            if self.kind is EditKind.REPLACE:
                out[self.index] = self.action
            else:
                out.insert(self.index, self.action)
        return out

    def inverse(self, before: Sequence[Action]) -> Edit:
        """The edit that takes this one back, given the actions ``before`` it was made."""
        if self.kind is EditKind.INSERT:
            return Edit.delete(self.index)
        if self.kind is EditKind.DELETE:
            return Edit.insert(self.index, before[self.index])
        return Edit.replace(self.index, before[self.index])

    def describe(self, players: Sequence[str], before: Sequence[Action],
                 movers: Sequence[int] = ()) -> str:
        """What the edit does, for the game's history; ``movers``: the player of each event
        of the game before, naming whoever was to move for a turn made by the player to move.

        >>> before = [Action(EventKind.PLAY, None, "8F", "HORN")]
        >>> Edit.replace(0, before[0].but(word="HORn")).describe(["Ann", "Ben"], before, [0])
        "event 1: Ann's play 8F HORN -> Ann's play 8F HORn"
        """
        number = self.index + 1

        def named(action: Action) -> str:
            if action.player is None and self.index < len(movers):
                action = action.but(player=movers[self.index])
            return action.describe(players)

        if self.kind is EditKind.DELETE:
            return f"event {number} deleted: {named(before[self.index])}"
        assert self.action is not None
        if self.kind is EditKind.INSERT:
            return f"inserted as event {number}: {named(self.action)}"
        return f"event {number}: {named(before[self.index])} -> {named(self.action)}"


def new_game_like(game: Game) -> Game:
    """A game not yet started with ``game``'s players, tile set and rules (and the position it
    started from, for a game joined in progress)."""
    fresh = Game(game.players, game.tileset, game.rules)
    if game.start_position:
        fresh.set_up(game.start_position)
    return fresh


def apply_action(game: Game, action: Action) -> Event:
    """Make ``action`` on ``game`` (the game's own refusals, :class:`GameError`, unchanged)."""
    kind = action.kind
    p = action.player
    note = action.note
    if kind is EventKind.PLAY:
        assert action.position is not None and action.word is not None
        return game.play(
            action.position, action.word, action.rack, player=p, note=note,
            check_rack=action.check_rack,
        )  # fmt: skip
    if kind is EventKind.EXCHANGE:
        what: str | int = action.tiles if action.tiles else action.count or 0
        return game.exchange(what, action.rack, player=p, note=note, check_rack=action.check_rack)
    if kind is EventKind.PASS:
        return game.pass_turn(action.rack, player=p, note=note)
    if kind in _PLAY_OWNER_KINDS:
        pending = game.pending_challenge()
        if p is not None and pending is not None and pending.player != p:
            raise GameError(
                "wrong_player",
                f"the play concerned is {game.players[pending.player]}'s, not {game.players[p]}'s",
            )
        if kind is EventKind.WITHDRAWN:
            return game.withdraw(note=note)
        return game.challenge_bonus(action.score, note=note)
    if kind is EventKind.LOST_TURN:
        return game.lose_turn(p, note=note)
    assert p is not None or kind is EventKind.AGREED_END, f"{kind.value} needs its player"
    if kind is EventKind.END_RACK_POINTS:
        score = action.score
        if score is None and action.count:
            # The record's convention (1x or 2x the others' tiles), not a number that an edit
            # of the tiles played would leave stale.
            score = action.count * game.tileset.rack_value(list(game.unseen().elements()))
        return game.end_rack_points(p, action.tiles, score, note=note)  # type: ignore[arg-type]
    if kind is EventKind.END_RACK_PENALTY:
        return game.end_rack_penalty(p, action.tiles, action.score, note=note)  # type: ignore[arg-type]
    if kind is EventKind.TIME_PENALTY:
        return game.time_penalty(p, action.count or 0, score=action.score, note=note)  # type: ignore[arg-type]
    if kind is EventKind.ADJUSTMENT:
        assert action.score is not None
        return game.adjust(p, action.score, note or "")  # type: ignore[arg-type]
    if kind is EventKind.AGREED_END:
        return game.end_by_agreement(p, note=note)
    if kind is EventKind.RESIGNED:
        return game.resign(p, note=note)  # type: ignore[arg-type]
    if kind is EventKind.TIMED_OUT:
        return game.lose_on_time(p, note=note)  # type: ignore[arg-type]
    raise AssertionError(f"no call makes a {kind.value} event")


def replay_actions(like: Game, actions: Sequence[Action], free: int | None = None) -> Game:
    """A new game with ``like``'s players, tile set and rules, made of ``actions`` in order;
    an :class:`EditError` names the first action the rules refuse.

    A play's word may name a tile already on the board by its letter instead of ``.``; only
    the action at index ``free`` (the one a person just typed) may do so.  Every other play
    must place a new tile wherever its word has a letter (:func:`actions_of` writes them so):
    after an earlier play was changed, a tile of it may lie where a later play put one of the
    same letter, and that play would otherwise silently become a play of fewer tiles.
    """
    game = new_game_like(like)
    for index, action in enumerate(actions):
        try:
            event = apply_action(game, action)
            if action.kind is EventKind.PLAY and index != free:
                _check_all_new(game, action, event)
        except GameError as exc:
            who = action if action.player is not None or action.kind not in _TURN_KINDS else (
                action.but(player=game.turn))
            raise EditError(index, who.describe(game.players), exc.code, exc.message) from None
    return game


def _check_all_new(game: Game, action: Action, event: Event) -> None:
    """Refuse a play that placed fewer tiles than its word names (see :func:`replay_actions`);
    the play is taken back first, so the refusal leaves the game as it was."""
    assert event.play is not None and action.word is not None
    named = sum(1 for t in split_tiles(game.tileset, action.word) if t != ".")
    placed = len(event.play.placement.tiles)
    if placed != named:
        game.undo()
        raise GameError(
            "tile_now_on_board",
            f"{action.position} {action.word} places {named} tiles, but {named - placed} of "
            "their squares now hold a tile",
        )


def actions_of(game: Game) -> list[Action]:
    """The actions that make ``game``'s events again, in order.

    What the rules work out is left for them to work out again (a rack the board decides at
    the end, a score by the rules' convention), so that an edit earlier in the game rescores
    it; what a person said (a rack typed in, a score set by hand) is kept as said.
    """
    fresh = new_game_like(game)
    out: list[Action] = []
    for index, event in enumerate(game.events):
        action = _action_for(event, fresh)
        try:
            made = apply_action(fresh, action)
        except GameError as exc:  # a bug here, not the user's: the game made this event
            raise AssertionError(f"event {index + 1} does not replay: {exc}") from None
        assert made == event, f"event {index + 1} replays as {made}, not {event}"
        out.append(action)
    return out


def _action_for(event: Event, game: Game) -> Action:
    """The action for ``event``, ``game`` being in the state just before it."""
    kind = event.kind
    p = event.player
    # A turn is the turn of whoever is to move: a turn inserted or deleted before it (a pass
    # the camera could not see, a turn counted twice) passes the later turns on in order, as
    # the players took them at the table.
    base = Action(kind, None if kind in _TURN_KINDS else p, note=event.note)
    if kind is EventKind.PLAY:
        assert event.play is not None
        placed = [rack_form(t) for _, t in event.play.placement.tiles]
        return base.but(
            position=event.play.position, word=event.play.gcg_word, rack=event.rack,
            check_rack=_rack_holds(game, event.rack, placed),
        )  # fmt: skip
    if kind is EventKind.EXCHANGE:
        given = split_tiles(game.tileset, event.tiles) if event.tiles else ()
        return base.but(
            tiles=event.tiles or None, count=None if event.tiles else event.count,
            rack=event.rack, check_rack=_rack_holds(game, event.rack, given),
        )  # fmt: skip
    if kind is EventKind.PASS:
        return base.but(rack=event.rack)
    if kind is EventKind.CHALLENGE_BONUS:
        return base.but(score=event.score)
    if kind is EventKind.END_RACK_POINTS:
        # The others' tiles are what is off the board: an earlier edit changes them.
        value = game.tileset.rack_value(list(split_tiles(game.tileset, event.tiles or "")))
        double = game.rules.out_bonus is OutBonus.DOUBLE and len(game.players) == 2
        usual = 2 * value if double else value
        if event.score == usual:
            return base
        if value and event.score in (value, 2 * value):
            return base.but(count=event.score // value)  # the other convention: 1x or 2x
        return base.but(score=event.score)
    if kind is EventKind.END_RACK_PENALTY:
        tiles = event.tiles or ""
        derived = game.derived_rack(p)
        same = derived is not None and sorted(split_tiles(game.tileset, derived)) == sorted(
            split_tiles(game.tileset, tiles)
        )
        usual = -game.tileset.rack_value(list(split_tiles(game.tileset, tiles)))
        return base.but(
            tiles=None if same else tiles, score=None if event.score == usual else event.score
        )
    if kind is EventKind.TIME_PENALTY:
        minutes = event.count or 0
        usual = -game.rules.overtime_points_per_minute * minutes
        return base.but(count=event.count, score=None if event.score == usual else event.score)
    if kind is EventKind.ADJUSTMENT:
        return base.but(score=event.score)
    if kind in (EventKind.WITHDRAWN, EventKind.LOST_TURN) or kind in ENDING_KINDS:
        return base
    raise AssertionError(f"no action for a {kind.value} event")


def _rack_holds(game: Game, rack: str | None, tiles: Sequence[str]) -> bool:
    """Whether ``rack`` (None: unknown) holds ``tiles``: an imported record's rack may not,
    and its play is kept all the same."""
    return rack is None or not missing_tiles(tiles, split_tiles(game.tileset, rack))


def edit_game(game: Game, edit: Edit) -> Game:
    """A new game: ``game``'s events with ``edit`` made, all replayed.  ``game`` is untouched;
    an :class:`EditError` names the event the edit makes impossible."""
    free = None if edit.kind is EditKind.DELETE else edit.index
    return replay_actions(game, edit.applied_to(actions_of(game)), free)


__all__ = [
    "Action", "Edit", "EditError", "EditKind", "actions_of", "apply_action", "edit_game",
    "new_game_like", "replay_actions",
]  # fmt: skip
