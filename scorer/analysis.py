"""After the game: what each play could have been.

For every play of a game, :func:`analyse_game` asks the move generator
(:mod:`scorer.movegen`) two questions on the board as it stood before the play:

* the best play with **the same tiles** the player laid (the multiset of tiles; a blank stays a
  blank and may stand for another letter), anywhere on the board;
* where the player's **whole rack** is known, the best plays from it, the bingos it held when
  the play was none, and so the points left on the table.

Scores only: the analysis knows nothing of leaves, defence or the end game, and a play counts as
possible when every word it forms is in the word list it is given, whatever the record's own
word list was.

A rack is known when the game recorded it whole: as many tiles as the player held (a full rack,
or fewer once the bag ran out), holding the tiles the play laid.  Many records write only the
tiles played (an opponent's rack, which nobody saw): such a rack is not known.

>>> from scorer.game import Game
>>> words = ["HORN", "HORNS", "THORN", "THORNS", "HAM", "MAN", "RAM", "AM", "MA", "OH", "NO"]
>>> game = Game(["Ann", "Ben"])
>>> _ = game.play("8E", "HORN", rack="HNORSTX")    # her whole rack
>>> _ = game.play("H6", "MA.", rack="AM")          # only the tiles he laid: his rack is unknown
>>> analysis = analyse_game(game, words)
>>> ann, ben = analysis.plays
>>> ann.rack, [p.seed_notation for p in ann.best_from_rack[:2]], ann.points_left
('HNORSTX', ['THORNS 8C 26', 'THORNS H3 26'], 12)
>>> ben.rack, ben.played.seed_notation, ben.best_same_tiles.seed_notation, ben.points_left
(None, 'MA(N) H6 5', '(H)AM E8 8', 3)
>>> [(s.name, s.points_scored, s.points_left) for s in analysis.summaries]
[('Ann', 14, 12), ('Ben', 5, 3)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from scorer.board import Board
from scorer.game import TURN_KINDS, Event, EventKind, Game, missing_tiles, rack_form
from scorer.movegen import RackSearch, WordGraph, Words
from scorer.rules import ScoredPlay, split_tiles
from scorer.tiles import TileSet

#: How many of the best plays from a rack are kept (and as many bingos).
BEST_COUNT = 5

__all__ = [
    "BEST_COUNT",
    "GameAnalysis",
    "NextTurn",
    "PlayAnalysis",
    "PlayerSummary",
    "RackOptions",
    "analyse_game",
    "best_with_tiles",
    "known_rack",
    "play_dict",
    "rack_options",
]


# -- the two questions -----------------------------------------------------------------------------


def best_with_tiles(
    board: Board,
    tiles: str | Sequence[str],
    words: Words | WordGraph,
    tileset: TileSet | None = None,
    *,
    bingo_sizes: frozenset[int] = frozenset({7}),
) -> ScoredPlay | None:
    """The best-scoring play that lays exactly ``tiles`` (rack form, ``?`` a blank), anywhere
    on ``board``; ``None`` when they make no play.

    >>> best_with_tiles(Board(), "NROHS", ["HORN", "HORNS"]).seed_notation
    'HORNS 8D 24'
    >>> best_with_tiles(Board(), "NO?", ["HORN", "HORNS"]) is None   # no word of 3 tiles
    True
    >>> best_with_tiles(Board(), "NOR?", ["HORN", "HORNS"]).seed_notation  # ? stands for H
    'hORN 8E 6'
    """
    search = RackSearch(board, tiles, words, tileset, bingo_sizes=bingo_sizes)
    return _first(search.best(1, tiles_laid={len(search.rack)}))


@dataclass(frozen=True)
class RackOptions:
    """What one rack could play: its ``best`` plays and its best ``bingos``, each best first,
    and the best play laying exactly some of its tiles (``with_tiles``, when asked)."""

    best: tuple[ScoredPlay, ...]
    bingos: tuple[ScoredPlay, ...]
    with_tiles: ScoredPlay | None = None


def rack_options(
    board: Board,
    rack: str | Sequence[str],
    words: Words | WordGraph,
    tileset: TileSet | None = None,
    *,
    bingo_sizes: frozenset[int] = frozenset({7}),
    count: int = BEST_COUNT,
    tiles: str | Sequence[str] | None = None,
) -> RackOptions:
    """The ``count`` best plays of ``rack`` on ``board``, its ``count`` best bingos and, with
    ``tiles`` (some of the rack's), the best play laying exactly those: one search.

    >>> options = rack_options(Board(), "HNORST", ["HORN", "THORN", "THORNS"],
    ...                        bingo_sizes=frozenset({6}), count=2, tiles="NROH")
    >>> [p.seed_notation for p in options.best], [p.seed_notation for p in options.bingos]
    (['THORNS 8C 76', 'THORNS H3 76'], ['THORNS 8C 76', 'THORNS H3 76'])
    >>> options.with_tiles.seed_notation
    'HORN 8E 14'
    """
    search = RackSearch(board, rack, words, tileset, bingo_sizes=bingo_sizes)
    return RackOptions(
        tuple(search.best(count)),
        tuple(search.best(count, tiles_laid=bingo_sizes)),
        None if tiles is None else _first(search.best(1, tiles=tiles)),
    )


def _first(plays: Sequence[ScoredPlay]) -> ScoredPlay | None:
    return plays[0] if plays else None


# -- the results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayAnalysis:
    """One play of the game and what it could have been.

    ``turn`` counts the turns from 1 (plays, exchanges, passes and turns lost), ``event`` is the
    play's index in :attr:`Game.events <scorer.game.Game.events>`.  ``played_score`` is what
    the play kept: its score, or 0 when it was withdrawn as a phony.  ``unknown_words`` are
    the words it formed that the word list does not hold (a record played with another list).
    ``rack`` is the whole rack before the play when known, else ``None``; ``best_from_rack``
    and ``bingos_missed`` are empty without it.  ``points_left``: how much more the best play
    from the rack scored (with the same tiles, when the rack is unknown), never below 0.
    """

    turn: int
    event: int
    player: int
    played: ScoredPlay
    played_score: int
    withdrawn: bool
    unknown_words: tuple[str, ...]
    rack: str | None
    best_same_tiles: ScoredPlay | None
    best_from_rack: tuple[ScoredPlay, ...]
    bingos_missed: tuple[ScoredPlay, ...]
    points_left: int

    @property
    def tiles(self) -> str:
        """The tiles laid, as they sat in the rack (``?`` for a blank)."""
        return "".join(rack_form(t) for _, t in self.played.placement.tiles)

    @property
    def same_tiles_left(self) -> int:
        """How much more the best play with the same tiles scored (never below 0)."""
        if self.best_same_tiles is None:
            return 0
        return max(0, self.best_same_tiles.score - self.played_score)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form."""
        return {
            "turn": self.turn,
            "event": self.event,
            "player": self.player,
            "played": play_dict(self.played),
            "played_score": self.played_score,
            "withdrawn": self.withdrawn,
            "unknown_words": list(self.unknown_words),
            "tiles": self.tiles,
            "rack": self.rack,
            "best_same_tiles": None if self.best_same_tiles is None
            else play_dict(self.best_same_tiles),
            "same_tiles_left": self.same_tiles_left,
            "best_from_rack": [play_dict(p) for p in self.best_from_rack],
            "bingos_missed": [play_dict(p) for p in self.bingos_missed],
            "points_left": self.points_left,
        }


@dataclass(frozen=True)
class NextTurn:
    """The player to move in an unfinished game, whose rack is known (a record's ``#rack``),
    and the best plays and bingos of that rack."""

    player: int
    rack: str
    best: tuple[ScoredPlay, ...]
    bingos: tuple[ScoredPlay, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "rack": self.rack,
            "best": [play_dict(p) for p in self.best],
            "bingos": [play_dict(p) for p in self.bingos],
        }


@dataclass(frozen=True)
class PlayerSummary:
    """One player's plays added up.

    ``points_left`` adds each play's :attr:`PlayAnalysis.points_left` (from the rack where it
    is known, from the same tiles elsewhere); ``same_tiles_left`` the same-tiles shortfall of
    every play.  ``best_plays`` counts the plays that left nothing; ``bingos_missed`` the
    plays that were no bingo from a rack that held one.
    """

    player: int
    name: str
    plays: int
    racks_known: int
    points_scored: int
    points_left: int
    same_tiles_left: int
    best_plays: int
    bingos: int
    bingos_missed: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GameAnalysis:
    """Every play analysed, a summary per player, and the next turn when it can be."""

    players: tuple[str, ...]
    plays: tuple[PlayAnalysis, ...]
    summaries: tuple[PlayerSummary, ...]
    next_turn: NextTurn | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "plays": [p.to_dict() for p in self.plays],
            "summaries": [s.to_dict() for s in self.summaries],
            "next_turn": None if self.next_turn is None else self.next_turn.to_dict(),
        }


def play_dict(play: ScoredPlay) -> dict[str, Any]:
    """A play as the CLI's JSON and the page show it.

    >>> from scorer.movegen import best_play
    >>> play_dict(best_play(Board(), "HORN", ["HORN"]))
    {'notation': 'HORN 8E 14', 'position': '8E', 'word': 'HORN', 'score': 14, 'bingo': False, \
'tiles': 4}
    """
    return {
        "notation": play.seed_notation,
        "position": play.position,
        "word": play.gcg_word,
        "score": play.score,
        "bingo": play.bingo,
        "tiles": play.tiles_used,
    }


# -- the game --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Before:
    """What stood before one play: the board and how many tiles the player held."""

    turn: int
    index: int
    event: Event
    board: Board
    held: int


def _before_each_play(game: Game, events: Sequence[Event]) -> Iterator[_Before]:
    """The board and the player's tile count before each play of ``events``.

    The game keeps these only for its latest state, so they are followed here event by event
    with the game's own accounting (racks refilled from the bag as far as it goes; a
    withdrawn play puts everything back as it was before it).  Working from a copy of the
    events lets a page analyse a game that is still being played.
    """
    rack_size = game.rules.rack_size
    # A game joined in progress starts from its position: those tiles are out of the bag.
    bag = game.tileset.total_tiles - len(game.start_position)
    held: list[int] = []
    for _ in game.players:
        drawn = min(rack_size, bag)
        held.append(drawn)
        bag -= drawn
    board = Board()
    board.place(dict(game.start_position))
    before_last_play = (list(held), bag)
    turn = 0
    for index, event in enumerate(events):
        if event.kind in TURN_KINDS:
            turn += 1
        if event.kind is EventKind.PLAY and event.play is not None:
            yield _Before(turn, index, event, board.copy(), held[event.player])
            before_last_play = (list(held), bag)
            board.place(event.play.placement.as_dict())
            laid = event.play.tiles_used
            drawn = min(laid, bag)
            bag -= drawn
            held[event.player] += drawn - laid
        elif event.kind is EventKind.WITHDRAWN and event.play is not None:
            board.remove(event.play.placement.squares)
            held, bag = list(before_last_play[0]), before_last_play[1]


def known_rack(rack: str | None, held: int, laid: Sequence[str], tileset: TileSet) -> str | None:
    """``rack`` when it is the whole rack: ``held`` tiles holding the ``laid`` ones; else None.

    >>> en = TileSet.named("en")
    >>> known_rack("AEINRST", 7, "RAT", en), known_rack("ART", 7, "RAT", en)
    ('AEINRST', None)
    >>> known_rack("ART", 3, "RAT", en), known_rack("AEINRS?", 7, "RAT", en)
    ('ART', None)
    """
    if not rack:
        return None
    tiles = split_tiles(tileset, rack)
    if len(tiles) != held or missing_tiles(laid, tiles):
        return None
    return rack


def analyse_game(
    game: Game, words: Words | WordGraph, *, count: int = BEST_COUNT
) -> GameAnalysis:
    """Analyse every play of ``game`` with the word list ``words`` (see the module's example).

    ``count`` is how many of the best plays from a rack (and of its bingos) are kept.
    """
    graph = WordGraph.cached(words, game.tileset)
    tileset = game.tileset
    bingo_sizes = game.rules.bingo_sizes
    events = game.events  # a copy: the game may go on while this runs
    withdrawn = _withdrawn_plays(events)
    plays: list[PlayAnalysis] = []
    for before in _before_each_play(game, events):
        event = before.event
        played = event.play
        assert played is not None
        laid = [rack_form(t) for _, t in played.placement.tiles]
        kept = 0 if before.index in withdrawn else played.score
        unknown_words = tuple(w.text for w in played.words if w.text not in graph)
        rack = known_rack(event.rack, before.held, laid, tileset)
        best: tuple[ScoredPlay, ...] = ()
        bingos: tuple[ScoredPlay, ...] = ()
        if rack is None:
            same = best_with_tiles(before.board, laid, graph, bingo_sizes=bingo_sizes)
        else:
            # The rack's one search also holds every play of the tiles laid.
            options = rack_options(
                before.board, rack, graph, bingo_sizes=bingo_sizes, count=count, tiles=laid
            )
            best, bingos, same = options.best, options.bingos, options.with_tiles
        if kept and not unknown_words:
            # Among plays of equal score the one played is shown first: it was as good as any.
            # (A phony or a withdrawn play is no alternative to itself.)  The search finds the
            # play made, so it never scores more than the best found.
            same = played if same is not None and same.score == played.score else same
            best = _played_first(played, best, count)
        top = best[0] if best else same
        plays.append(PlayAnalysis(
            turn=before.turn, event=before.index, player=event.player, played=played,
            played_score=kept, withdrawn=before.index in withdrawn,
            unknown_words=unknown_words, rack=rack, best_same_tiles=same, best_from_rack=best,
            bingos_missed=() if played.bingo and kept else bingos,
            points_left=max(0, top.score - kept) if top is not None else 0,
        ))  # fmt: skip
    return GameAnalysis(
        tuple(game.players), tuple(plays), _summaries(game.players, plays),
        _next_turn(game, graph, count),
    )


def _withdrawn_plays(events: Sequence[Event]) -> set[int]:
    """The indices of the plays taken back: each withdrawal takes back the latest play."""
    out: set[int] = set()
    latest: int | None = None
    for index, event in enumerate(events):
        if event.kind is EventKind.PLAY:
            latest = index
        elif event.kind is EventKind.WITHDRAWN and latest is not None:
            out.add(latest)
    return out


def _played_first(
    played: ScoredPlay, best: tuple[ScoredPlay, ...], count: int
) -> tuple[ScoredPlay, ...]:
    """``best`` with ``played`` first when it scored as much as the first."""
    if not best or played.score != best[0].score:
        return best
    squares = set(played.placement.tiles)
    others = tuple(p for p in best if set(p.placement.tiles) != squares)
    return (played, *others)[:count]


def _next_turn(game: Game, graph: WordGraph, count: int) -> NextTurn | None:
    """The options of the player to move, when the game goes on and their rack is known."""
    if game.over:
        return None
    player = game.turn
    rack = known_rack(game.known_rack(player), game.rack_counts[player], (), game.tileset)
    if rack is None:
        return None
    options = rack_options(
        game.board, rack, graph, bingo_sizes=game.rules.bingo_sizes, count=count
    )
    return NextTurn(player, rack, options.best, options.bingos)


def _summaries(
    players: Sequence[str], plays: Sequence[PlayAnalysis]
) -> tuple[PlayerSummary, ...]:
    out = []
    for player, name in enumerate(players):
        mine = [p for p in plays if p.player == player]
        out.append(PlayerSummary(
            player=player, name=name, plays=len(mine),
            racks_known=sum(p.rack is not None for p in mine),
            points_scored=sum(p.played_score for p in mine),
            points_left=sum(p.points_left for p in mine),
            same_tiles_left=sum(p.same_tiles_left for p in mine),
            best_plays=sum(p.points_left == 0 for p in mine),
            bingos=sum(p.played.bingo and not p.withdrawn for p in mine),
            bingos_missed=sum(bool(p.bingos_missed) for p in mine),
        ))  # fmt: skip
    return tuple(out)
