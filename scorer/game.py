"""A game in progress: turns, scores, challenges, the end of the game and undo.

One file, about 1,200 lines, on purpose: every event acts on one snapshot and keeps its
invariants, and undo relies on all of them.

A :class:`Game` is a log of :class:`Event` objects with one immutable snapshot of the state after
each.  Every method either appends one event (or, for :meth:`Game.end_game`, several) or raises
:class:`GameError` and leaves the game exactly as it was; :meth:`Game.undo` drops the last event
and returns to the snapshot before it.  Snapshots share whatever an event did not change (the
board is copied only by plays and withdrawals), so a long game stays cheap.

The rule sheet's worked example starts with HORN (R on the centre star), then FARM:

>>> game = Game(["Ann", "Ben"])
>>> game.play("8F", "HORN").score
14
>>> game.play("H6", "FA.M").play.seed_notation
'FA(R)M H6 9'
>>> game.scores, game.turn, game.bag_count()
([14, 9], 0, 79)
>>> game.undo().kind is EventKind.PLAY
True
>>> game.scores, game.turn
([14, 0], 1)
>>> game.pass_turn().kind.value, game.consecutive_scoreless
('pass', 1)
>>> game.play("1A", "XI")
Traceback (most recent call last):
...
scorer.game.GameError: not_connected: the play touches no tile already on the board
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from scorer.board import Board
from scorer.rules import (
    IllegalPlay,
    Placement,
    ScoredPlay,
    multi_letter_tiles,
    score_play,
    split_tiles,
)
from scorer.squares import Square
from scorer.tiles import BLANK, TileError, TileSet

#: Finish-line targets from the rule sheets: players -> level -> points.
FINISH_LINE_TARGETS: dict[int, dict[str, int]] = {
    2: {"beginner": 70, "intermediate": 120, "expert": 200},
    3: {"beginner": 60, "intermediate": 100, "expert": 180},
    4: {"beginner": 50, "intermediate": 90, "expert": 160},
}

MIN_PLAYERS = 2
MAX_PLAYERS = 4


class ChallengeRule(StrEnum):
    """What happens when a challenged play turns out to be valid."""

    VOID = "void"  # plays are checked before they are accepted; no challenges
    SINGLE = "single"  # no penalty for a failed challenge
    DOUBLE = "double"  # the challenger loses the next turn
    FIVE_POINT = "five"  # the player of the play gets 5 points per challenge
    TEN_POINT = "ten"  # ... or 10


class OutBonus(StrEnum):
    """How the unplayed tiles are settled when a player goes out.

    ``TRANSFER`` is the rule sheets' wording: each other player loses the value of their rack and
    the player who went out gains the sum.  ``DOUBLE`` is the two-player tournament convention:
    the player who went out gains twice the opponent's rack and the opponent loses nothing (the
    spread is the same).  With more than two players ``DOUBLE`` settles as ``TRANSFER``.
    """

    TRANSFER = "transfer"
    DOUBLE = "double"


class EndReason(StrEnum):
    OUT = "out"  # bag empty and a player played their last tile
    SCORELESS = "scoreless"  # the agreed number of consecutive scoreless turns
    FINISH_LINE = "finish_line"  # a player reached the agreed target
    AGREEMENT = "agreement"  # the players agreed nobody can go: each loses their own rack
    RESIGNED = "resigned"  # a player gave up: the others win whatever the scores
    TIMEOUT = "timeout"  # a player lost on time: the others win whatever the scores


#: Endings with a loser named by the event, not by the scores.
_LOST_BY_EVENT = frozenset({EndReason.RESIGNED, EndReason.TIMEOUT})


_CHALLENGE_BONUS = {ChallengeRule.FIVE_POINT: 5, ChallengeRule.TEN_POINT: 10}


@dataclass(frozen=True)
class Rules:
    """House rules, fixed when the game starts.

    >>> r = Rules(challenge="five", rack_size=9)
    >>> Rules.from_dict(r.to_dict()) == r, sorted(r.bingo_sizes)
    (True, [7, 8, 9])
    """

    challenge: ChallengeRule = ChallengeRule.DOUBLE
    rack_size: int = 7
    scoreless_turns_to_end: int = 6
    finish_line: int | None = None
    overtime_points_per_minute: int = 10
    out_bonus: OutBonus = OutBonus.TRANSFER
    #: An exchange needs at least this many tiles in the bag (tournament rule: 7).
    exchange_min_bag: int = 7

    def __post_init__(self) -> None:
        object.__setattr__(self, "challenge", ChallengeRule(self.challenge))
        object.__setattr__(self, "out_bonus", OutBonus(self.out_bonus))
        if self.rack_size not in (7, 9):
            raise ValueError(f"rack size must be 7 or 9, not {self.rack_size}")
        if self.scoreless_turns_to_end < 0:
            raise ValueError("scoreless_turns_to_end must be >= 0 (0: never)")
        if self.finish_line is not None and self.finish_line <= 0:
            raise ValueError("a finish line must be a positive score")
        if self.overtime_points_per_minute < 0 or self.exchange_min_bag < 0:
            raise ValueError("overtime points and the exchange limit cannot be negative")

    @property
    def bingo_sizes(self) -> frozenset[int]:
        """Numbers of tiles placed in one play that earn the bingo bonus."""
        return frozenset({7}) if self.rack_size == 7 else frozenset({7, 8, 9})

    @staticmethod
    def finish_line_for(players: int, level: str) -> int:
        """The rule sheet's target for ``players`` at ``level`` (beginner/intermediate/expert)."""
        try:
            return FINISH_LINE_TARGETS[players][level]
        except KeyError:
            raise ValueError(f"no finish-line target for {players} players at {level!r}") from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "challenge": self.challenge.value,
            "rack_size": self.rack_size,
            "scoreless_turns_to_end": self.scoreless_turns_to_end,
            "finish_line": self.finish_line,
            "overtime_points_per_minute": self.overtime_points_per_minute,
            "out_bonus": self.out_bonus.value,
            "exchange_min_bag": self.exchange_min_bag,
        }

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Rules:
        known = Rules.__dataclass_fields__
        unknown = set(d) - set(known)
        if unknown:
            raise ValueError(f"unknown rule settings: {', '.join(sorted(unknown))}")
        return Rules(**dict(d))


class EventKind(StrEnum):
    PLAY = "play"
    EXCHANGE = "exchange"
    PASS = "pass"
    WITHDRAWN = "withdrawn"  # a phony taken back after a challenge
    CHALLENGE_BONUS = "challenge_bonus"
    LOST_TURN = "lost_turn"  # a failed challenge under the double rule
    END_RACK_POINTS = "end_rack_points"  # went out: gains the other racks
    END_RACK_PENALTY = "end_rack_penalty"  # loses own unplayed tiles
    TIME_PENALTY = "time_penalty"
    ADJUSTMENT = "adjustment"
    AGREED_END = "agreed_end"  # the players agreed to end the game now (nobody can go)
    RESIGNED = "resigned"  # the player resigned
    TIMED_OUT = "timed_out"  # the player lost on time


#: Events that end the game by themselves, each with the reason it gives.
ENDING_KINDS: dict[EventKind, EndReason] = {
    EventKind.AGREED_END: EndReason.AGREEMENT,
    EventKind.RESIGNED: EndReason.RESIGNED,
    EventKind.TIMED_OUT: EndReason.TIMEOUT,
}


#: Events that use up the turn of the player to move.
TURN_KINDS = frozenset({EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS, EventKind.LOST_TURN})


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of the game log.

    ``score`` is the signed change this event made to ``player``'s total, ``total`` the total
    after it; ``rack`` the rack before the event when known (``?`` = blank); ``play`` the scored
    play (for PLAY, and the play taken back for WITHDRAWN); ``tiles`` the exchanged tiles, the
    tiles taken back, or the rack settled at the end of the game.
    """

    kind: EventKind
    player: int
    score: int
    total: int
    rack: str | None = None
    play: ScoredPlay | None = None
    tiles: str | None = None
    note: str | None = None
    #: Tiles exchanged when only their number is known; minutes for a time penalty.
    count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form for the web page."""
        out: dict[str, Any] = {
            "kind": self.kind.value,
            "player": self.player,
            "score": self.score,
            "total": self.total,
            "rack": self.rack,
            "tiles": self.tiles,
            "count": self.count,
            "note": self.note,
            "play": None,
        }
        if self.play is not None:
            p = self.play
            out["play"] = {
                "position": p.position,
                "word": p.gcg_word,
                "main": p.main.text,
                "notation": p.seed_notation,
                "bingo": p.bingo,
                "tiles": [[str(sq), t] for sq, t in p.placement.tiles],
                "words": [
                    {"word": w.text, "marked": w.marked, "position": w.position, "score": w.score}
                    for w in p.words
                ],
            }
        return out


class GameError(ValueError):
    """A refused action.  ``code`` names the reason; the game is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        # Raised in a worker process, it must cross back whole (pickling calls the class
        # with ``args``, which holds the joined text alone).
        return (type(self), (self.code, self.message))


@dataclass(frozen=True)
class ChallengeResult:
    """What a challenge decided: each word of the play with its verdict, and the events made."""

    words: list[tuple[str, bool]]
    valid: bool
    rule: ChallengeRule
    events: list[Event] = field(default_factory=list)


@dataclass(slots=True)
class _State:
    """Everything after one event.  Never mutated once stored; fields not changed by an event
    are shared with the previous snapshot (``cells`` and ``board_counts`` included)."""

    cells: list[str | None]
    board_counts: dict[str, int]  # tiles on the board as they sit in a rack ("?" for blanks)
    scores: tuple[int, ...]
    turn: int
    rack_counts: tuple[int, ...]
    bag: int
    scoreless: int
    skips: tuple[int, ...]  # turns still to be lost (a failed challenge by a player not to move)
    known_racks: tuple[tuple[str, ...] | None, ...]  # tiles known to be on each rack
    over: EndReason | None
    out_player: int | None
    end_points_done: bool
    penalized: frozenset[int]
    timed: frozenset[int]
    challengeable: int | None  # index of the play a challenge may still concern
    withdrawable: bool
    last_play: int | None  # index of the latest play still standing
    loser: int | None = None  # the player who resigned or lost on time

    def copy(self) -> _State:
        return _State(
            self.cells, self.board_counts, self.scores, self.turn, self.rack_counts, self.bag,
            self.scoreless, self.skips, self.known_racks, self.over, self.out_player,
            self.end_points_done, self.penalized, self.timed, self.challengeable,
            self.withdrawable, self.last_play, self.loser,
        )  # fmt: skip


def _board_view(cells: list[str | None]) -> Board:
    """A Board over ``cells`` without copying them (read-only use inside this module)."""
    board = Board.__new__(Board)
    board.cells = cells
    return board


def _with(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def count_tiles(tiles: Iterable[str]) -> dict[str, int]:
    """A multiset as a plain dict (cheaper than Counter on the scoring path)."""
    out: dict[str, int] = {}
    for t in tiles:
        out[t] = out.get(t, 0) + 1
    return out


def missing_tiles(need: Iterable[str], have: Iterable[str]) -> list[str]:
    """The tiles of ``need`` that ``have`` lacks (with multiplicity), sorted.

    >>> missing_tiles("AAB", "ABC")
    ['A']
    """
    left = count_tiles(have)
    out = []
    for t in need:
        if left.get(t, 0):
            left[t] -= 1
        else:
            out.append(t)
    return sorted(out)


def rack_form(tile: str) -> str:
    """A board tile as it sits in a rack: a blank (lower case) is ``?``."""
    return BLANK if tile.islower() else tile


def join_tiles(tiles: Iterable[str], tileset: TileSet | None = None) -> str:
    """Write tiles as one string that splits back into the same tiles: a multi-letter tile is
    bracketed, and so is a one-letter tile that would otherwise merge with the next letters
    into one of ``tileset``'s multi-letter tiles.

    >>> es = TileSet.named("es")
    >>> join_tiles(["CH", "A"]), join_tiles(["C", "H", "A"]), join_tiles(["C", "H", "A"], es)
    ('[CH]A', 'CHA', '[C]HA')
    >>> es.split(join_tiles(["C", "H", "A"], es))
    ('C', 'H', 'A')
    """
    tiles = list(tiles)
    multi = multi_letter_tiles(tileset) if tileset is not None else ()
    out: list[str] = []
    for i, t in enumerate(tiles):
        if len(t) > 1:
            out.append(f"[{t}]")
        elif multi and any("".join(tiles[i:]).upper().startswith(m) for m in multi):
            out.append(f"[{t}]")
        else:
            out.append(t)
    return "".join(out)


class Game:
    """A game of 2 to 4 players.  See the module docstring for an example."""

    def __init__(
        self,
        players: Sequence[str],
        tileset: TileSet | str = "en",
        rules: Rules | None = None,
    ) -> None:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise GameError(
                "bad_players",
                f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}",
            )
        self.players: list[str] = [str(p) for p in players]
        self.tileset: TileSet = tileset if isinstance(tileset, TileSet) else TileSet.named(tileset)
        self.rules: Rules = rules if rules is not None else Rules()
        self._bingo_sizes = self.rules.bingo_sizes
        n = len(self.players)
        rack_counts, remaining = self._racks_drawn(self.tileset.total_tiles)
        initial = _State(
            cells=[None] * 225,
            board_counts={},
            scores=(0,) * n,
            turn=0,
            rack_counts=rack_counts,
            bag=remaining,
            scoreless=0,
            skips=(0,) * n,
            known_racks=(None,) * n,
            over=None,
            out_player=None,
            end_points_done=False,
            penalized=frozenset(),
            timed=frozenset(),
            challengeable=None,
            withdrawable=False,
            last_play=None,
        )
        self._events: list[Event] = []
        self._states: list[_State] = [initial]
        self._start: tuple[tuple[Square, str], ...] = ()

    # ------------------------------------------------------------------ read-only views

    @property
    def _state(self) -> _State:
        return self._states[-1]

    @property
    def board(self) -> Board:
        """A copy of the board (changing it does not change the game)."""
        return Board(self._state.cells)

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    @property
    def scores(self) -> list[int]:
        return list(self._state.scores)

    @property
    def turn(self) -> int:
        """Index of the player to move."""
        return self._state.turn

    @property
    def over(self) -> bool:
        return self._state.over is not None

    @property
    def end_reason(self) -> EndReason | None:
        return self._state.over

    @property
    def out_player(self) -> int | None:
        """The player who went out, if the game ended that way."""
        return self._state.out_player

    @property
    def loser(self) -> int | None:
        """The player who resigned or lost on time, if the game ended that way."""
        return self._state.loser

    @property
    def consecutive_scoreless(self) -> int:
        return self._state.scoreless

    @property
    def rack_counts(self) -> list[int]:
        """How many tiles each player holds (racks are assumed refilled from the bag)."""
        return list(self._state.rack_counts)

    def bag_count(self) -> int:
        """Tiles left in the bag: the full set minus the board minus all racks (assumed full)."""
        return self._state.bag

    def known_rack(self, player: int) -> str | None:
        """The tiles known to be on ``player``'s rack (from the last rack given), or None."""
        rack = self._state.known_racks[self._player_index(player)]
        return None if rack is None else self._join(rack)

    def unseen(self, player: int | None = None) -> Counter[str]:
        """Tiles not on the board and not on ``player``'s known rack: the bag plus other racks.

        >>> g = Game(["A", "B"]); _ = g.play("8G", "QI", rack="QIAEBCD")
        >>> g.unseen()["Q"], g.unseen(0)["A"], g.unseen(1)["A"]
        (0, 8, 9)
        """
        s = self._state
        out = Counter(self.tileset.counts)
        out.subtract(s.board_counts)
        if player is not None:
            known = s.known_racks[self._player_index(player)]
            if known:
                out.subtract(known)
        return +out

    def last_play(self) -> Event | None:
        """The latest play still on the board."""
        index = self._state.last_play
        return None if index is None else self._events[index]

    def pending_challenge(self) -> Event | None:
        """The play a challenge (withdrawal, bonus, lost turn) may still concern."""
        index = self._state.challengeable
        return None if index is None else self._events[index]

    def racks_settled(self) -> bool:
        """True once the unplayed tiles have been settled (or need not be)."""
        s = self._state
        if s.over is None:
            return False
        if s.over is EndReason.OUT:
            return s.end_points_done
        if s.over in (EndReason.SCORELESS, EndReason.AGREEMENT):
            return len(s.penalized) == len(self.players)
        return True

    def winner(self) -> list[int]:
        """The leaders: highest total; a tie goes to the higher score before the end-of-game
        rack adjustments.  Several indices only when that ties too.  (Before the end: leaders.)
        A player who resigned or lost on time is never among them, whatever the scores.

        >>> g = Game(["Ann", "Ben"]); _ = g.play("8F", "HORN"); _ = g.resign(0)
        >>> g.scores, g.winner(), g.end_reason.value
        ([14, 0], [1], 'resigned')
        """
        totals = self._state.scores
        contenders = [i for i in range(len(totals)) if i != self._state.loser]
        best = max(totals[i] for i in contenders)
        leaders = [i for i in contenders if totals[i] == best]
        if len(leaders) == 1:
            return leaders
        before = list(totals)
        for e in self._events:
            if e.kind in (EventKind.END_RACK_POINTS, EventKind.END_RACK_PENALTY):
                before[e.player] -= e.score
        best_before = max(before[i] for i in leaders)
        return [i for i in leaders if before[i] == best_before]

    # ------------------------------------------------------------------ helpers

    def _join(self, tiles: Iterable[str]) -> str:
        return join_tiles(tiles, self.tileset)

    def _player_index(self, player: int) -> int:
        if not isinstance(player, int) or not 0 <= player < len(self.players):
            raise GameError("no_such_player", f"no player {player!r} (0..{len(self.players) - 1})")
        return player

    def _acting(self, player: int | None) -> int:
        """The player whose turn this is, after the refusals every turn event shares."""
        s = self._state
        if s.over is not None:
            raise GameError("game_over", f"the game is over ({s.over.value})")
        if player is not None and self._player_index(player) != s.turn:
            raise GameError(
                "not_your_turn",
                f"it is {self.players[s.turn]}'s turn, not {self.players[player]}'s",
            )
        return s.turn

    def _tiles(self, text: str | Iterable[str], what: str) -> tuple[str, ...]:
        """Split and check rack-style tiles: letters of the set in upper case, or ``?``."""
        tiles = split_tiles(self.tileset, text) if isinstance(text, str) else tuple(text)
        counts = self.tileset.counts
        for t in tiles:
            if t != BLANK and (t not in counts or t != t.upper()):
                raise GameError(
                    "rack_malformed",
                    f"{what} {self._join(tiles)!r}: {t!r} is not a tile of the "
                    f"{self.tileset.name} set",
                )
        return tiles

    def _rack(self, rack: str | None, player: int) -> tuple[str, ...] | None:
        if rack is None:
            return None
        tiles = self._tiles(rack, "rack")
        if len(tiles) > self.rules.rack_size:
            raise GameError(
                "rack_malformed",
                f"rack {rack!r} has {len(tiles)} tiles; racks hold {self.rules.rack_size}",
            )
        self._check_available(tiles, "rack_not_in_bag", f"{self.players[player]}'s rack {rack!r}")
        return tiles

    def check_tiles_left(
        self, tiles: Iterable[str], also_taken: Iterable[str] = (), what: str = "tiles"
    ) -> None:
        """Raise ``GameError("rack_not_in_bag")`` unless ``tiles`` (rack form, ``?`` = blank)
        could all be off the board, besides ``also_taken``."""
        self._check_available(tiles, "rack_not_in_bag", what, also_taken)

    def _check_available(
        self, tiles: Iterable[str], code: str, what: str, also_taken: Iterable[str] = ()
    ) -> None:
        """Raise unless ``tiles`` could all still be off the board (and not in ``also_taken``)."""
        need = count_tiles(tiles)
        taken = self._state.board_counts
        extra = count_tiles(also_taken)
        counts = self.tileset.counts
        short = [
            t for t, n in need.items() if n > counts.get(t, 0) - taken.get(t, 0) - extra.get(t, 0)
        ]
        if short:
            left = {t: counts.get(t, 0) - taken.get(t, 0) - extra.get(t, 0) for t in short}
            detail = ", ".join(f"{need[t]} x {t} but {left[t]} left" for t in sorted(short))
            raise GameError(code, f"{what}: {detail}")

    def _advance(self, s: _State, after: int) -> None:
        """Move the turn on from ``after``, consuming turns lost to failed challenges."""
        n = len(self.players)
        q = (after + 1) % n
        skips = s.skips
        for _ in range(n * 4):
            if skips[q] == 0:
                break
            skips = _with(skips, q, skips[q] - 1)
            s.scoreless += 1
            q = (q + 1) % n
        s.skips = skips
        s.turn = q

    def _check_end(self, s: _State) -> None:
        """Set ``over`` when a finish line or the scoreless-turn limit is reached."""
        if s.over is not None:
            return
        line = self.rules.finish_line
        if line is not None and max(s.scores) >= line:
            s.over = EndReason.FINISH_LINE
            return
        limit = self.rules.scoreless_turns_to_end
        if limit and s.scoreless >= limit:
            s.over = EndReason.SCORELESS

    def _push(self, event: Event, state: _State) -> Event:
        self._events.append(event)
        self._states.append(state)
        return event

    # ------------------------------------------------------------------ a game joined late

    @property
    def start_position(self) -> tuple[tuple[Square, str], ...]:
        """The tiles the game started from (:meth:`set_up`), by square; none for a game
        started on an empty board."""
        return self._start

    def set_up(self, tiles: Mapping[Square, str] | Iterable[tuple[Square, str]]) -> None:
        """Start the game from the tiles already on the board: a game joined in progress (the
        first photo of a game shows more than a few moves laid).  The tiles are laid without a
        turn or a score, wherever they lie, and come out of the bag; the racks are drawn
        from what is left.  Letters as on the board (a blank in lower case, or ``?`` where
        what it stands for is not known, as in a play).  Only before the first event (set up
        again, the new position replaces the old; with no tiles, the board is empty again);
        :class:`GameError` otherwise, or for a tile the set has not (or not that many of),
        and the game is unchanged.

        >>> game = Game(["Ann", "Ben"])
        >>> game.set_up({Square(7, 7 + i): tile for i, tile in enumerate("HOrN")})
        >>> game.bag_count(), str(game.start_position[2][0]), game.board.rows()[7]
        (82, 'J8', '.......HOrN....')
        >>> game.play("9H", "AM").score  # with HA and OM across: not a first play
        19
        >>> game.set_up({Square(0, 0): "A"})
        Traceback (most recent call last):
        ...
        scorer.game.GameError: game_started: a game is set up before its first event
        """
        if self._events:
            raise GameError("game_started", "a game is set up before its first event")
        given = dict(tiles)
        for square in given:
            if not isinstance(square, Square):
                raise GameError("bad_square", f"{square!r} is not a square")
        placed = sorted(given.items())
        counts = self.tileset.counts
        for square, tile in placed:
            letter = tile.upper()
            if letter not in counts or (tile != letter or letter == BLANK) and not counts.get(
                    BLANK, 0):
                raise GameError("unknown_letter",
                                f"{square}: {tile!r} is not a tile of the {self.tileset.name} set")
        # Against the whole set: a position set up again replaces the one before.
        need = count_tiles(rack_form(t) for _, t in placed)
        short = sorted(t for t, n in need.items() if n > counts.get(t, 0))
        if short:
            raise GameError("tiles_not_in_bag", "the tiles set up: " + ", ".join(
                f"{need[t]} x {t} but {counts.get(t, 0)} left" for t in short))
        new = self._state.copy()
        cells: list[str | None] = [None] * 225
        for square, tile in placed:
            cells[square.row * 15 + square.col] = tile
        new.cells, new.board_counts = cells, need
        new.rack_counts, new.bag = self._racks_drawn(self.tileset.total_tiles - len(placed))
        self._states = [new]
        self._start = tuple(placed)

    def _racks_drawn(self, tiles: int) -> tuple[tuple[int, ...], int]:
        """Each player's rack drawn in turn from a bag of ``tiles``, and what the bag keeps."""
        racks = []
        for _ in self.players:
            drawn = min(self.rules.rack_size, tiles)
            racks.append(drawn)
            tiles -= drawn
        return tuple(racks), tiles

    # ------------------------------------------------------------------ turn events

    def play(
        self,
        position: str,
        word: str,
        rack: str | None = None,
        *,
        player: int | None = None,
        note: str | None = None,
        check_rack: bool = True,
    ) -> Event:
        """Place a word given GCG-style: ``"8D"`` across / ``"D8"`` down from that square;
        ``.`` or the letter itself for tiles already there; lower case = blank.

        ``rack`` (the rack before the play, ``?`` = blank) is checked against the tiles still
        unseen, and the placed tiles against it unless ``check_rack`` is False (a record whose
        racks are known to be unreliable).
        """
        p = self._acting(player)
        tiles = self._rack(rack, p)
        try:
            placement = Placement.from_position(
                position, word, _board_view(self._state.cells), self.tileset
            )
        except IllegalPlay as exc:
            raise GameError(exc.code, exc.message) from None
        return self._place(placement, p, tiles, note, check_rack)

    def place(
        self,
        tiles: Mapping[Square, str],
        rack: str | None = None,
        *,
        player: int | None = None,
        note: str | None = None,
        check_rack: bool = True,
    ) -> Event:
        """Place new tiles (what a camera sees); the direction is inferred.  A blank must be
        given as the lower-case letter it stands for."""
        p = self._acting(player)
        rack_tiles = self._rack(rack, p)
        for square, tile in tiles.items():
            if tile == BLANK:
                raise GameError(
                    "blank_unknown", f"the blank on {square} must be given the letter it stands for"
                )
        return self._place(Placement.of(dict(tiles)), p, rack_tiles, note, check_rack)

    def _place(
        self,
        placement: Placement,
        p: int,
        rack: tuple[str, ...] | None,
        note: str | None,
        check_rack: bool,
    ) -> Event:
        s = self._state
        try:
            scored = score_play(
                _board_view(s.cells), placement, self.tileset, self._bingo_sizes
            )
        except IllegalPlay as exc:
            raise GameError(exc.code, exc.message) from None
        except TileError as exc:
            raise GameError("unknown_letter", str(exc)) from None
        placed = [rack_form(t) for _, t in scored.placement.tiles]
        k = len(placed)
        if k > s.rack_counts[p]:
            raise GameError(
                "too_many_tiles",
                f"{self.players[p]} holds {s.rack_counts[p]} tiles but the play places {k}",
            )
        what = f"{scored.position} {scored.gcg_word}"
        self._check_available(placed, "tiles_not_in_bag", f"play {what}")
        leave: tuple[str, ...] | None = None
        if rack is not None:
            missing = missing_tiles(placed, rack)
            if missing and check_rack:
                raise GameError(
                    "tiles_not_in_rack",
                    f"{what} needs {self._join(missing)}, not on the rack {self._join(rack)}",
                )
            if not missing:
                leave = _without(rack, placed)
        new = s.copy()
        cells = list(s.cells)
        for square, tile in scored.placement.tiles:
            cells[square.row * 15 + square.col] = tile
        new.cells = cells
        counts = dict(s.board_counts)
        for t in placed:
            counts[t] = counts.get(t, 0) + 1
        new.board_counts = counts
        draw = min(k, s.bag)
        new.bag = s.bag - draw
        new.rack_counts = _with(s.rack_counts, p, s.rack_counts[p] - k + draw)
        total = s.scores[p] + scored.score
        new.scores = _with(s.scores, p, total)
        new.scoreless = 0 if scored.score else s.scoreless + 1
        new.known_racks = _with_rack(s.known_racks, p, leave)
        index = len(self._events)
        new.challengeable = index
        new.withdrawable = True
        new.last_play = index
        self._advance(new, p)
        if new.rack_counts[p] == 0:
            new.over = EndReason.OUT
            new.out_player = p
        self._check_end(new)
        event = Event(
            EventKind.PLAY, p, scored.score, total,
            rack=None if rack is None else self._join(rack), play=scored, note=note,
        )  # fmt: skip
        return self._push(event, new)

    def exchange(
        self,
        tiles: str | int,
        rack: str | None = None,
        *,
        player: int | None = None,
        note: str | None = None,
        check_rack: bool = True,
    ) -> Event:
        """Put ``tiles`` (letters, or just how many) back and draw as many.  Refused while the
        bag holds fewer than ``rules.exchange_min_bag`` tiles (tournament rule: 7)."""
        p = self._acting(player)
        s = self._state
        rack_tiles = self._rack(rack, p)
        given: tuple[str, ...] | None = None
        if isinstance(tiles, int):
            n = tiles
        else:
            given = self._tiles(tiles, "exchanged tiles")
            n = len(given)
        if n < 1:
            raise GameError("nothing_to_exchange", "an exchange puts back at least one tile")
        if s.bag < max(self.rules.exchange_min_bag, n):
            raise GameError(
                "exchange_bag_too_small",
                f"the bag holds {s.bag} tiles; exchanging {n} needs at least "
                f"{max(self.rules.exchange_min_bag, n)}",
            )
        if n > s.rack_counts[p]:
            raise GameError(
                "too_many_tiles", f"{self.players[p]} holds {s.rack_counts[p]} tiles, not {n}"
            )
        kept: tuple[str, ...] | None = None
        if given is not None:
            self._check_available(given, "tiles_not_in_bag", f"exchange of {self._join(given)}")
            if rack_tiles is not None:
                missing = missing_tiles(given, rack_tiles)
                if missing and check_rack:
                    raise GameError(
                        "tiles_not_in_rack",
                        f"exchange of {self._join(given)}: rack {self._join(rack_tiles)} does not "
                        f"hold {self._join(missing)}",
                    )
                if not missing:
                    kept = _without(rack_tiles, given)
        new = s.copy()
        new.scoreless = s.scoreless + 1
        new.known_racks = _with_rack(s.known_racks, p, kept)
        new.challengeable = None
        new.withdrawable = False
        self._advance(new, p)
        self._check_end(new)
        event = Event(
            EventKind.EXCHANGE, p, 0, s.scores[p],
            rack=None if rack_tiles is None else self._join(rack_tiles),
            tiles=None if given is None else self._join(given),
            count=n, note=note,
        )  # fmt: skip
        return self._push(event, new)

    def pass_turn(
        self, rack: str | None = None, *, player: int | None = None, note: str | None = None
    ) -> Event:
        p = self._acting(player)
        s = self._state
        rack_tiles = self._rack(rack, p)
        new = s.copy()
        new.scoreless = s.scoreless + 1
        if rack_tiles is not None:
            new.known_racks = _with_rack(s.known_racks, p, rack_tiles)
        new.challengeable = None
        new.withdrawable = False
        self._advance(new, p)
        self._check_end(new)
        event = Event(
            EventKind.PASS, p, 0, s.scores[p],
            rack=None if rack_tiles is None else self._join(rack_tiles), note=note,
        )  # fmt: skip
        return self._push(event, new)

    # ------------------------------------------------------------------ challenges

    def challenge(
        self, is_valid: Callable[[str], bool], challenger: int | None = None
    ) -> ChallengeResult:
        """Challenge the last play: every word it formed is looked up with ``is_valid``.

        Any invalid word: the play is withdrawn (tiles back, 0 for the turn).  All valid: per the
        challenge rule, the challenger loses a turn (double), the player gets a bonus (five/ten),
        or nothing happens (single).  Under the void rule challenges are refused.
        """
        s = self._state
        rule = self.rules.challenge
        if rule is ChallengeRule.VOID:
            raise GameError(
                "challenges_void", "under the void rule plays are checked before they count"
            )
        if s.challengeable is None:
            raise GameError("no_play_to_challenge", "there is no play to challenge")
        play_event = self._events[s.challengeable]
        if challenger is None:
            challenger = s.turn
        challenger = self._player_index(challenger)
        if challenger == play_event.player:
            raise GameError("own_play", "a player cannot challenge their own play")
        assert play_event.play is not None
        verdicts = [(w.text, bool(is_valid(w.text))) for w in play_event.play.words]
        valid = all(ok for _, ok in verdicts)
        events: list[Event] = []
        if not valid:
            if not s.withdrawable:
                raise GameError("no_play_to_withdraw", "the play can no longer be withdrawn")
            events.append(self.withdraw())
        elif rule is ChallengeRule.DOUBLE:
            events.append(self.lose_turn(challenger))
        elif rule in _CHALLENGE_BONUS:
            events.append(self.challenge_bonus())
        return ChallengeResult(verdicts, valid, rule, events)

    def withdraw(self, *, note: str | None = None) -> Event:
        """Take the last play back (a phony): tiles return to the rack and it scores 0."""
        s = self._state
        if s.challengeable is None or not s.withdrawable:
            raise GameError("no_play_to_withdraw", "there is no play to take back")
        index = s.challengeable
        play_event = self._events[index]
        before = self._states[index]
        p = play_event.player
        new = s.copy()
        new.cells = before.cells
        new.board_counts = before.board_counts
        new.bag = before.bag
        new.rack_counts = before.rack_counts
        rack = None if play_event.rack is None else split_tiles(self.tileset, play_event.rack)
        new.known_racks = _with_rack(s.known_racks, p, rack)
        total = s.scores[p] - play_event.score
        new.scores = _with(s.scores, p, total)
        new.scoreless = before.scoreless + 1
        new.over = None
        new.out_player = None
        new.challengeable = None
        new.withdrawable = False
        new.last_play = before.last_play
        self._check_end(new)
        assert play_event.play is not None
        placed = self._join(t for _, t in play_event.play.placement.tiles)
        event = Event(
            EventKind.WITHDRAWN, p, -play_event.score, total,
            rack=play_event.rack, play=play_event.play, tiles=placed, note=note,
        )  # fmt: skip
        return self._push(event, new)

    def challenge_bonus(self, points: int | None = None, *, note: str | None = None) -> Event:
        """Points to the player of the last play for a challenge that failed (5 or 10 by rule)."""
        s = self._state
        if s.challengeable is None:
            raise GameError("no_play_to_challenge", "a challenge bonus needs a play just made")
        if points is None:
            if self.rules.challenge not in _CHALLENGE_BONUS:
                raise GameError(
                    "no_bonus_rule",
                    f"the {self.rules.challenge.value} challenge rule gives no bonus; give points",
                )
            points = _CHALLENGE_BONUS[self.rules.challenge]
        p = self._events[s.challengeable].player
        new = s.copy()
        total = s.scores[p] + points
        new.scores = _with(s.scores, p, total)
        new.withdrawable = False
        self._check_end(new)
        return self._push(Event(EventKind.CHALLENGE_BONUS, p, points, total, note=note), new)

    def lose_turn(self, player: int | None = None, *, note: str | None = None) -> Event:
        """``player`` (default: the player to move) loses a turn, as after a failed challenge
        under the double rule.  Allowed right after a play that ended the game (the challenge
        of the last play)."""
        s = self._state
        if s.over is not None and s.challengeable is None:
            raise GameError("game_over", f"the game is over ({s.over.value})")
        q = s.turn if player is None else self._player_index(player)
        if s.challengeable is not None and self._events[s.challengeable].player == q:
            raise GameError("own_play", "a player cannot challenge their own play")
        new = s.copy()
        new.challengeable = None
        new.withdrawable = False
        if s.over is None:
            if q == s.turn:
                new.scoreless = s.scoreless + 1
                self._advance(new, q)
            else:
                new.skips = _with(s.skips, q, s.skips[q] + 1)
            self._check_end(new)
        return self._push(Event(EventKind.LOST_TURN, q, 0, s.scores[q], note=note), new)

    # ------------------------------------------------------------------ end of the game

    def _remaining(self) -> Counter[str]:
        """Tiles not on the board (bag plus every rack)."""
        left = Counter(self.tileset.counts)
        left.subtract(self._state.board_counts)
        return +left

    def end_rack_points(
        self,
        player: int,
        tiles: str | None = None,
        score: int | None = None,
        *,
        note: str | None = None,
    ) -> Event:
        """The player who went out gains the other racks: ``tiles`` (default: everything not on
        the board, which is what the others hold once the bag is empty).  ``score`` defaults to
        the rules' convention (``out_bonus``)."""
        s = self._state
        p = self._player_index(player)
        if s.over is None:
            raise GameError("game_not_over", "rack points come after the game ends")
        if s.over is not EndReason.OUT:
            raise GameError("nobody_went_out", f"the game ended by {s.over.value}, not going out")
        if p != s.out_player:
            raise GameError(
                "not_out_player",
                f"{self.players[s.out_player]} went out, not {self.players[p]}",  # type: ignore[index]
            )
        if s.end_points_done:
            raise GameError("end_points_repeated", "the rack points were already counted")
        remaining = self._remaining()
        others = tuple(remaining.elements())
        if tiles is not None:
            given = self._tiles(tiles, "other racks")
            if Counter(given) != remaining:
                raise GameError(
                    "end_rack_mismatch",
                    f"the other racks hold {self._join(sorted(others))}, not {tiles}",
                )
            others = given
        value = self.tileset.rack_value(list(others))
        if score is None:
            double = self.rules.out_bonus is OutBonus.DOUBLE and len(self.players) == 2
            score = 2 * value if double else value
        new = s.copy()
        total = s.scores[p] + score
        new.scores = _with(s.scores, p, total)
        new.end_points_done = True
        new.challengeable = None
        new.withdrawable = False
        event = Event(
            EventKind.END_RACK_POINTS, p, score, total, tiles=self._join(others), note=note
        )
        return self._push(event, new)

    def end_rack_penalty(
        self,
        player: int,
        tiles: str | None = None,
        score: int | None = None,
        *,
        note: str | None = None,
    ) -> Event:
        """``player`` loses the value of the unplayed ``tiles``.  The rack may be left out when
        it is the only one not yet known and the bag is empty."""
        s = self._state
        p = self._player_index(player)
        if s.over is None:
            raise GameError("game_not_over", "rack penalties come after the game ends")
        if s.over is EndReason.OUT and p == s.out_player:
            raise GameError("went_out", f"{self.players[p]} went out and has no tiles left")
        if p in s.penalized:
            raise GameError("end_penalty_repeated", f"{self.players[p]}'s rack was already counted")
        settled = [t for e in self._events if e.kind is EventKind.END_RACK_PENALTY
                   for t in split_tiles(self.tileset, e.tiles or "")]  # fmt: skip
        if tiles is None:
            rack = self._derived_rack(p, settled)
        else:
            rack = self._tiles(tiles, "rack")
            self._check_available(
                rack, "rack_not_in_bag", f"{self.players[p]}'s rack {tiles!r}", also_taken=settled
            )
        if score is None:
            score = -self.tileset.rack_value(list(rack))
        new = s.copy()
        total = s.scores[p] + score
        new.scores = _with(s.scores, p, total)
        new.penalized = s.penalized | {p}
        new.known_racks = _with_rack(s.known_racks, p, rack)
        new.challengeable = None
        new.withdrawable = False
        event = Event(
            EventKind.END_RACK_PENALTY, p, score, total,
            rack=self._join(rack), tiles=self._join(rack), note=note,
        )  # fmt: skip
        return self._push(event, new)

    def _derived_rack(self, p: int, settled: Sequence[str]) -> tuple[str, ...]:
        """``p``'s rack when it is the only one unknown: all tiles off the board but not on the
        racks already settled (or on the player who went out, who holds none)."""
        s = self._state
        known = s.known_racks[p]
        if known is not None and len(known) == s.rack_counts[p]:
            # A rack said earlier may no longer fit the board (a play before it changed since,
            # or a record's racks disagree): refuse rather than count tiles that are not left.
            self._check_available(
                known, "rack_not_in_bag", f"{self.players[p]}'s rack {self._join(known)!r}",
                also_taken=settled,
            )
            return known
        unsettled = [
            q for q in range(len(self.players))
            if q != p and q not in s.penalized and q != s.out_player
        ]  # fmt: skip
        if s.bag or unsettled:
            raise GameError(
                "rack_required",
                f"{self.players[p]}'s rack is needed: it cannot be worked out from the board",
            )
        left = self._remaining()
        left.subtract(settled)
        return tuple(sorted((+left).elements()))

    def derived_rack(self, player: int) -> str | None:
        """``player``'s unplayed tiles when the board and the other settled racks determine
        them (bag empty, every other rack settled or gone out), else None."""
        p = self._player_index(player)
        s = self._state
        if s.over is EndReason.OUT and p == s.out_player:
            return ""
        settled = [t for e in self._events if e.kind is EventKind.END_RACK_PENALTY
                   for t in split_tiles(self.tileset, e.tiles or "")]  # fmt: skip
        try:
            return self._join(self._derived_rack(p, settled))
        except GameError:
            return None

    def end_game(self, racks: Mapping[int, str] | None = None) -> list[Event]:
        """Settle the unplayed tiles once the game is over; returns the events made.

        After a player went out with the bag empty, the others' tiles are exactly the unseen
        tiles, so a two-player game needs no input.  After the scoreless-turn limit each player
        loses their own rack (``racks``; one may be left out once the bag is empty).  After an
        agreement to end, each player loses their own rack too and nobody gains the others'
        (nobody went out); every rack must be given, with as many tiles as the player holds.
        A finish line, a resignation or a loss on time settles nothing.
        """
        s = self._state
        if s.over is None:
            raise GameError("game_not_over", "the game is not over yet")
        given = {self._player_index(p): r for p, r in (racks or {}).items()}
        start = len(self._events)
        try:
            if s.over is EndReason.OUT and not s.end_points_done:
                self._settle_out(given)
            elif s.over in (EndReason.SCORELESS, EndReason.AGREEMENT):
                if s.over is EndReason.AGREEMENT:
                    self._check_agreed_racks(given)
                n = len(self.players)
                order = [(s.turn + i) % n for i in range(n) if (s.turn + i) % n not in s.penalized]
                # Racks given first (player to move first); a rack left out is worked out last,
                # from what the others hold.
                for q in [q for q in order if q in given] + [q for q in order if q not in given]:
                    self.end_rack_penalty(q, given.get(q))
        except GameError:
            del self._events[start:]
            del self._states[start + 1 :]
            raise
        return self._events[start:]

    def _check_agreed_racks(self, given: Mapping[int, str]) -> None:
        """Every unsettled player's rack is given, with as many tiles as they hold: when the
        players end the game by agreement the bag may still hold tiles, so no rack can be
        worked out, and a rack typed short would cost the wrong number of points."""
        s = self._state
        unsettled = [q for q in range(len(self.players)) if q not in s.penalized]
        missing = [self.players[q] for q in unsettled if q not in given]
        if missing:
            raise GameError(
                "rack_required",
                "ending by agreement needs every player's unplayed tiles; missing: "
                + ", ".join(missing),
            )
        for q in unsettled:
            tiles = self._tiles(given[q], f"{self.players[q]}'s rack")
            if len(tiles) != s.rack_counts[q]:
                raise GameError(
                    "rack_size_mismatch",
                    f"{self.players[q]} holds {s.rack_counts[q]} tiles, but the rack given "
                    f"({given[q]!r}) has {len(tiles)}",
                )

    def _end_now(
        self, kind: EventKind, player: int | None, note: str | None
    ) -> Event:
        """End the game at once with the reason ``kind`` gives (the turn stays where it is)."""
        s = self._state
        if s.over is not None:
            raise GameError("game_over", f"the game is already over ({s.over.value})")
        p = s.turn if player is None else self._player_index(player)
        reason = ENDING_KINDS[kind]
        new = s.copy()
        new.over = reason
        if reason in _LOST_BY_EVENT:
            new.loser = p
        # The last play can no longer be challenged once the game is ended over it.
        new.challengeable = None
        new.withdrawable = False
        return self._push(Event(kind, p, 0, s.scores[p], note=note), new)

    def end_by_agreement(self, player: int | None = None, *, note: str | None = None) -> Event:
        """The players agree to end the game now (nobody can go).  Each then loses the value of
        their own unplayed tiles (:meth:`end_game` with every rack); nobody gains the others',
        as nobody went out.  ``player`` is who said so (default: the player to move).

        >>> g = Game(["Ann", "Ben"]); _ = g.play("8F", "HORN")
        >>> g.end_by_agreement().kind.value, g.end_reason.value
        ('agreed_end', 'agreement')
        >>> [(e.player, e.score, e.total) for e in g.end_game({0: "AEIRSTT", 1: "QAEIOUZ"})]
        [(1, -25, -25), (0, -7, 7)]
        """
        return self._end_now(EventKind.AGREED_END, player, note)

    def resign(self, player: int, *, note: str | None = None) -> Event:
        """``player`` resigns: the game ends and the others win, whatever the scores (no rack
        is settled)."""
        return self._end_now(EventKind.RESIGNED, self._player_index(player), note)

    def lose_on_time(self, player: int, *, note: str | None = None) -> Event:
        """``player`` lost on time (a flag fell where the game is played that way): the game
        ends and the others win, whatever the scores (no rack is settled)."""
        return self._end_now(EventKind.TIMED_OUT, self._player_index(player), note)

    def _settle_out(self, given: Mapping[int, str]) -> None:
        s = self._state
        p = s.out_player
        assert p is not None
        others = [q for q in range(len(self.players)) if q != p]
        if p in given and given[p].strip():
            raise GameError("went_out", f"{self.players[p]} went out and holds no tiles")
        double = self.rules.out_bonus is OutBonus.DOUBLE and len(self.players) == 2
        if double:
            self.end_rack_points(p, given.get(others[0]))
            return
        racks: dict[int, tuple[str, ...]] = {q: self._tiles(given[q], "rack")
                                             for q in others if q in given}  # fmt: skip
        unknown = [q for q in others if q not in racks]
        left = self._remaining()
        for rack in racks.values():
            left.subtract(rack)
        if any(n < 0 for n in left.values()):
            raise GameError("end_rack_mismatch", "the racks given hold tiles that are not left")
        if len(unknown) > 1:
            raise GameError(
                "rack_required",
                "racks needed for " + ", ".join(self.players[q] for q in unknown[1:]),
            )
        if unknown:
            racks[unknown[0]] = tuple(sorted((+left).elements()))
        elif +left:
            raise GameError(
                "end_rack_mismatch",
                f"tiles unaccounted for: {self._join(sorted((+left).elements()))}",
            )
        all_tiles = [t for q in others for t in racks[q]]
        self.end_rack_points(p, self._join(all_tiles))
        for q in others:
            if racks[q]:
                self.end_rack_penalty(q, self._join(racks[q]))

    def time_penalty(
        self,
        player: int,
        minutes: int = 0,
        *,
        score: int | None = None,
        note: str | None = None,
    ) -> Event:
        """Overtime: ``rules.overtime_points_per_minute`` per started minute (or ``score``),
        after the racks are settled, once per player."""
        s = self._state
        p = self._player_index(player)
        if s.over is None:
            raise GameError("game_not_over", "time penalties come at the end of the game")
        if not self.racks_settled():
            raise GameError(
                "premature_time_penalty", "settle the unplayed tiles before time penalties"
            )
        if p in s.timed:
            raise GameError("redundant_time_penalty", f"{self.players[p]} was already penalised")
        if minutes < 0:
            raise GameError("bad_minutes", "overtime minutes cannot be negative")
        if score is None:
            score = -self.rules.overtime_points_per_minute * minutes
        new = s.copy()
        total = s.scores[p] + score
        new.scores = _with(s.scores, p, total)
        new.timed = s.timed | {p}
        new.challengeable = None
        new.withdrawable = False
        event = Event(
            EventKind.TIME_PENALTY, p, score, total, count=minutes or None, note=note
        )
        return self._push(event, new)

    def adjust(self, player: int, points: int, reason: str) -> Event:
        """A manual correction of ``points`` (signed) with the reason, at any time."""
        p = self._player_index(player)
        s = self._state
        new = s.copy()
        total = s.scores[p] + points
        new.scores = _with(s.scores, p, total)
        return self._push(Event(EventKind.ADJUSTMENT, p, points, total, note=reason), new)

    def set_rack(self, player: int, rack: str | None) -> None:
        """Say what ``player`` holds now (used by :meth:`unseen`; not an event).  Undo keeps it
        only while the event it followed stays."""
        p = self._player_index(player)
        tiles = self._rack(rack, p)
        s = self._state.copy()
        s.known_racks = _with_rack(s.known_racks, p, tiles)
        self._states[-1] = s

    def undo(self) -> Event:
        """Remove the last event; the game is exactly as it was before it."""
        if not self._events:
            raise GameError("nothing_to_undo", "there is no event to undo")
        self._states.pop()
        return self._events.pop()


def _without(rack: Sequence[str], used: Iterable[str]) -> tuple[str, ...]:
    """``rack`` minus ``used`` (which it holds), in the rack's order."""
    out = list(rack)
    for t in used:
        out.remove(t)
    return tuple(out)


def _with_rack(
    racks: tuple[tuple[str, ...] | None, ...], index: int, rack: tuple[str, ...] | None
) -> tuple[tuple[str, ...] | None, ...]:
    return racks[:index] + (rack,) + racks[index + 1 :]
