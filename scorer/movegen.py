"""Move generation: every legal play of a rack on a board, scored, best first.

One file, about 1,030 lines, on purpose: the word graph, the anchor search and the game that
drives it are one algorithm.

The search is Appel and Jacobson's: the words are held in a minimised DAWG (a trie whose equal
sub-trees are shared, :class:`WordGraph`); for each row (and each column, on the transposed
board) the squares next to tiles are *anchors*, each empty square gets the set of tiles its
cross word allows, and plays are grown from each anchor: a left part drawn from the rack (or the
tiles already left of the anchor), then rightwards through the anchor, letting the graph prune
every prefix that starts no word.  Scores are summed along the way; a play is built into a
:class:`~scorer.rules.ScoredPlay` equal to what :func:`~scorer.rules.score_play` returns for it.

>>> words = ["HORN", "FARM", "FARMS", "HORNS", "OF", "ON", "NO", "OR", "SO", "MO", "AM", "AS"]
>>> plays = generate_plays(Board(), "HORNFSX", words)
>>> [p.seed_notation for p in plays[:3]]
['HORNS 8D 24', 'HORNS H4 24', 'HORNS 8H 18']
>>> len(plays)
38
>>> board = Board()
>>> board.place(plays[0].placement.as_dict())
>>> best_play(board, "FARM", words).seed_notation
'FA(R)M F6 17'

A blank (``"?"`` in the rack) is tried as every letter; it lands on the board in lower case:

>>> best_play(Board(), "?ARM", words).seed_notation
'fARM 8E 10'

Words are held as sequences of tiles, read with the tile set's own split (longest tile first),
so in Spanish ``"CHARRO"`` is ``CH A RR O`` and a C tile followed by an H tile does not spell it.
"""

from __future__ import annotations

import gc
import heapq
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from math import prod
from operator import mul

from scorer.board import Board
from scorer.lexicon import Lexicon, normalise
from scorer.rules import BINGO_BONUS, FormedWord, Placement, ScoredPlay
from scorer.squares import (
    CENTRE_COL,
    CENTRE_ROW,
    MULTIPLIERS,
    PREMIUM_LAYOUT,
    SIZE,
    Direction,
    Square,
)
from scorer.tiles import BLANK, TileError, TileSet, face

__all__ = [
    "Game",
    "RackSearch",
    "Turn",
    "WordGraph",
    "best_play",
    "generate_game",
    "generate_plays",
]

#: What the generator accepts as a word list.
Words = Iterable[str]

_SQUARES: tuple[Square, ...] = tuple(Square(i // SIZE, i % SIZE) for i in range(SIZE * SIZE))
# Premium multipliers per orientation: index 0 reads the board row by row (across plays),
# index 1 reads it column by column (down plays, on the transposed board).
_LETTER_MULT: tuple[tuple[tuple[int, ...], ...], ...] = (
    tuple(tuple(MULTIPLIERS[p][0] for p in row) for row in PREMIUM_LAYOUT),
    tuple(tuple(MULTIPLIERS[PREMIUM_LAYOUT[r][c]][0] for r in range(SIZE)) for c in range(SIZE)),
)
_WORD_MULT: tuple[tuple[tuple[int, ...], ...], ...] = (
    tuple(tuple(MULTIPLIERS[p][1] for p in row) for row in PREMIUM_LAYOUT),
    tuple(tuple(MULTIPLIERS[PREMIUM_LAYOUT[r][c]][1] for r in range(SIZE)) for c in range(SIZE)),
)
_LETTER_MULT_AT: tuple[int, ...] = sum(_LETTER_MULT[0], ())  # by cell index row * 15 + col
_WORD_MULT_AT: tuple[int, ...] = sum(_WORD_MULT[0], ())
_DIRECTIONS = (Direction.ACROSS, Direction.DOWN)

#: Tiles the bag must hold for an exchange (the tournament rule).
EXCHANGE_MIN_BAG = 7


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while a search runs.

    A search (or a graph build) allocates hundreds of thousands of short-lived tuples and keeps
    tens of thousands of objects; the allocation bursts set off collections that walk every
    tracked object in the process (the word sets of loaded lexicons among them), which costs
    up to half the run time.  Neither makes reference cycles worth collecting, and the
    collector is restored as it was, also on error.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# -- the word graph ------------------------------------------------------------------------------


class WordGraph:
    """A minimised DAWG of a word list, spelt in the tiles of one tile set.

    Node ``0`` is the root; ``edges[n]`` maps a tile (upper case) to the next node and
    ``terminal[n]`` says whether the tiles read from the root to ``n`` spell a word.  Words of
    fewer than two tiles are left out (a play never forms one), as are words with a letter the
    tile set has no tile for (:attr:`skipped` counts them).

    >>> graph = WordGraph.build(["cat", "cats", "bat", "bats", "a", "öl"], TileSet.named("en"))
    >>> len(graph), graph.skipped, "BATS" in graph, "BA" in graph
    (4, 1, True, False)
    >>> graph.node_count   # BAT(S) and CAT(S) share their tails: a trie would need 9
    5
    """

    __slots__ = ("edges", "terminal", "tileset", "word_count", "skipped", "build_seconds")

    def __init__(
        self,
        edges: list[dict[str, int]],
        terminal: bytes,
        tileset: TileSet,
        word_count: int,
        skipped: int,
        build_seconds: float,
    ) -> None:
        """Wrap a built graph; use :meth:`build` or :meth:`cached` instead."""
        self.edges = edges
        self.terminal = terminal
        self.tileset = tileset
        self.word_count = word_count
        self.skipped = skipped
        self.build_seconds = build_seconds

    @classmethod
    def build(cls, words: Words, tileset: TileSet | None = None) -> WordGraph:
        """Build the graph of ``words`` (any case) for ``tileset`` (English by default).

        Incremental construction over the sorted words (Daciuk et al. 2000): after each word,
        the part of the previous word's path that the new word does not share is frozen,
        each node being replaced by an equal one already registered when there is one.
        """
        started = time.perf_counter()
        tileset = tileset or TileSet.named("en")
        with _gc_paused():
            return cls._build(words, tileset, started)

    @classmethod
    def _build(cls, words: Words, tileset: TileSet, started: float) -> WordGraph:
        spelt, skipped = _spell(words, tileset)
        edges: list[dict[str, int]] = [{}]
        terminal = [False]
        register: dict[tuple[bool, tuple[tuple[str, int], ...]], int] = {}
        # The path of the last word inserted, still open to change: (parent, tile, child).
        open_path: list[tuple[int, str, int]] = []

        def freeze(down_to: int) -> None:
            while len(open_path) > down_to:
                parent, tile, child = open_path.pop()
                # Children were added in sorted order, so the items are a canonical signature.
                signature = (terminal[child], tuple(edges[child].items()))
                twin = register.get(signature)
                if twin is None:
                    register[signature] = child
                else:
                    edges[parent][tile] = twin
                    edges[child] = _FREED  # unreachable now; its children are all registered

        previous: Sequence[str] = ()
        for word in spelt:
            common = 0
            for a, b in zip(word, previous, strict=False):
                if a != b:
                    break
                common += 1
            freeze(common)
            node = open_path[-1][2] if open_path else 0
            for tile in word[common:]:
                child = len(edges)
                edges.append({})
                terminal.append(False)
                edges[node][tile] = child
                open_path.append((node, tile, child))
                node = child
            terminal[node] = True
            previous = word
        freeze(0)

        # Renumber the nodes still reachable, so the lists hold no replaced duplicates.
        number = {0: 0}
        order = [0]
        for node in order:
            for child in edges[node].values():
                if child not in number:
                    number[child] = len(order)
                    order.append(child)
        compact = [{tile: number[c] for tile, c in edges[n].items()} for n in order]
        flags = bytes(terminal[n] for n in order)
        return cls(
            compact, flags, tileset, len(spelt), skipped, time.perf_counter() - started
        )

    @classmethod
    def cached(cls, words: Words | WordGraph, tileset: TileSet | None = None) -> WordGraph:
        """The graph of ``words`` for ``tileset``, built once and kept (the last few lists).

        A :class:`~scorer.lexicon.Lexicon` is recognised by its word set, so asking again
        with the same lexicon costs a dictionary look-up; any other iterable is read and
        normalised each time (about a tenth of a second for ENABLE) to find its entry.  A
        :class:`WordGraph` is returned as it is (``tileset`` defaults to its own).
        """
        if isinstance(words, WordGraph):
            if tileset is not None and words.tileset != tileset:
                raise ValueError(
                    f"the word graph was built for the {words.tileset.name} tile set,"
                    f" not the {tileset.name} one"
                )
            return words
        tileset = tileset or TileSet.named("en")
        if isinstance(words, Lexicon):
            key_words = words.words
        elif isinstance(words, frozenset):
            key_words = frozenset(normalise(w) for w in words)
        else:
            _check_not_one_string(words)
            key_words = frozenset(normalise(w.strip()) for w in words if w.strip())
        key = (tileset, key_words)
        graph = _GRAPH_CACHE.get(key)
        if graph is None:
            graph = cls.build(key_words, tileset)
            _GRAPH_CACHE[key] = graph
            while len(_GRAPH_CACHE) > _GRAPH_CACHE_SIZE:
                _GRAPH_CACHE.popitem(last=False)
        else:
            _GRAPH_CACHE.move_to_end(key)
        return graph

    def walk(self, tiles: Iterable[str], node: int = 0) -> int | None:
        """The node reached by reading ``tiles`` (upper case) from ``node``; ``None`` when no
        word continues that way."""
        edges = self.edges
        for tile in tiles:
            node = edges[node].get(tile)  # type: ignore[assignment]
            if node is None:
                return None
        return node

    def __contains__(self, word: object) -> bool:
        if isinstance(word, str):
            tiles: Sequence[str] = self.tileset.split(normalise(word))
        elif isinstance(word, tuple | list):
            tiles = [normalise(t) for t in word]
        else:
            return False
        node = self.walk(tiles)
        return node is not None and bool(self.terminal[node])

    def __len__(self) -> int:
        return self.word_count

    @property
    def node_count(self) -> int:
        return len(self.edges)

    @property
    def edge_count(self) -> int:
        return sum(len(e) for e in self.edges)

    def __repr__(self) -> str:
        return (
            f"<WordGraph {self.tileset.code}: {self.word_count} words,"
            f" {self.node_count} nodes, {self.edge_count} edges>"
        )


_FREED: dict[str, int] = {}  # the shared stand-in for a node replaced during a build
_GRAPH_CACHE: OrderedDict[tuple[TileSet, frozenset[str]], WordGraph] = OrderedDict()
_GRAPH_CACHE_SIZE = 4


def _check_not_one_string(words: object) -> None:
    if isinstance(words, str | bytes):
        # Iterating a string would make each character a word.
        raise TypeError("words must be an iterable of words, not a single string")


def _spell(words: Iterable[str], tileset: TileSet) -> tuple[list[Sequence[str]], int]:
    """The distinct words of two or more tiles as sorted tile sequences, and how many words
    were skipped for a letter outside the tile set."""
    _check_not_one_string(words)
    letters = frozenset(tileset.letters)
    distinct = {normalise(w) for w in words}
    skipped = 0
    if all(len(t) == 1 for t in letters):
        # One character per tile: a string already is its own tile sequence.
        out: list[Sequence[str]] = []
        for word in distinct:
            if not set(word) <= letters:
                skipped += 1
            elif len(word) >= 2:
                out.append(word)
        out.sort()
        return out, skipped
    spelt: list[tuple[str, ...]] = []
    for word in distinct:
        tiles = tileset.split(word)
        if not all(t in letters for t in tiles):
            skipped += 1
        elif len(tiles) >= 2:
            spelt.append(tiles)
    spelt.sort()
    return list(spelt), skipped


# -- the search ----------------------------------------------------------------------------------

# A play found by the search: (score, orientation 0 across / 1 down, line number, placed tiles
# as (index along the line, tile)).  Sorting by (-score, orientation, line, tiles) is a total
# order, so ties are broken the same way every run.
_Raw = tuple[int, int, int, tuple[tuple[int, str], ...]]


def _rank(raw: _Raw) -> tuple[int, int, int, tuple[tuple[int, str], ...]]:
    return (-raw[0], raw[1], raw[2], raw[3])


def _rack_tiles(rack: str | Iterable[str], tileset: TileSet) -> list[str]:
    """The rack as tiles: letters (any case) in upper case and ``"?"`` for each blank."""
    tiles = tileset.split(rack) if isinstance(rack, str) else list(rack)
    out: list[str] = []
    for position, tile in enumerate(tiles, start=1):
        if tile == BLANK:
            out.append(BLANK)
            continue
        if tile.upper() not in tileset.counts or tile.upper() == BLANK:
            raise TileError(
                f"rack tile {position} ({tile!r}) is not a tile of the {tileset.name} set"
            )
        out.append(tile.upper())
    return out


def _search(
    graph: WordGraph,
    cells: Sequence[str | None],
    rack: list[str],
    bingo_sizes: frozenset[int] | set[int],
    bingo_bonus: int,
) -> list[_Raw]:
    """Every legal play of ``rack`` on the board ``cells``, unsorted."""
    tileset = graph.tileset
    out: list[_Raw] = []
    if not rack:
        return out
    for i, tile in enumerate(cells):
        if tile is not None and (tile.upper() not in tileset.counts or tile.upper() == BLANK):
            raise TileError(
                f"{_SQUARES[i]} holds {tile!r}, which is not a letter of the {tileset.name} set"
                + (" (a blank on the board must name its letter)" if tile == BLANK else "")
            )
    values = {t: tileset.value(t) for t in tileset.letters}
    counts: dict[str, int] = dict.fromkeys(tileset.letters, 0)
    counts[BLANK] = 0
    for tile in rack:
        counts[tile] += 1
    distinct = sorted({t for t in rack if t != BLANK})
    lower = {t: t.lower() for t in tileset.letters}
    first_move = all(c is None for c in cells)
    transposed = [cells[c * SIZE + r] for r in range(SIZE) for c in range(SIZE)]
    for orientation, grid in enumerate((list(cells), transposed)):
        _search_lines(
            graph, grid, orientation, first_move, counts, distinct, len(rack),
            values, lower, bingo_sizes, bingo_bonus, out,
        )
    return out


def _search_lines(
    graph: WordGraph,
    grid: list[str | None],
    orientation: int,
    first_move: bool,
    counts: dict[str, int],
    distinct: list[str],
    rack_size: int,
    values: dict[str, int],
    lower: dict[str, str],
    bingo_sizes: frozenset[int] | set[int],
    bingo_bonus: int,
    out: list[_Raw],
) -> None:
    """Find the plays along the rows of ``grid`` (the board itself, or transposed for down
    plays) and append them to ``out``."""
    edges = graph.edges
    terminal = graph.terminal
    value_of = graph.tileset.value
    down = orientation == 1
    letter_mult_rows = _LETTER_MULT[orientation]
    word_mult_rows = _WORD_MULT[orientation]
    bingo_score = {n: bingo_bonus for n in bingo_sizes}

    # Per line, refreshed for each row; the nested functions read them from this scope.
    row = 0
    anchor = 0
    line: list[str | None] = []
    letters_up: list[str | None] = []  # the existing tiles in upper case (graph spelling)
    line_values: list[int] = []
    allowed: list[frozenset[str] | None] = []  # None: no cross word, any tile goes
    cross_base: list[int] = []  # face value of the cross word's existing tiles; -1: none
    letter_mult: tuple[int, ...] = ()
    word_mult: tuple[int, ...] = ()

    def extend(col: int, node: int, main: int, wmul: int, cross: int,
               placed: list[tuple[int, str]]) -> None:
        """Continue the word from square ``col`` of the line, having read ``node``."""
        if col < SIZE:
            existing = letters_up[col]
            if existing is not None:
                child = edges[node].get(existing)
                if child is not None:
                    extend(col + 1, child, main + line_values[col], wmul, cross, placed)
                return
        if col > anchor and terminal[node]:
            n = len(placed)
            # A lone tile with a neighbour across was found (with both its words) by the across
            # search already; the down search keeps only lone tiles that form a down word alone.
            if not (down and n == 1 and cross_base[placed[0][0]] >= 0):
                out.append(
                    (main * wmul + cross + bingo_score.get(n, 0), orientation, row, tuple(placed))
                )
        if col == SIZE:
            return
        ok = allowed[col]
        lm = letter_mult[col]
        wm = word_mult[col]
        base = cross_base[col]
        node_edges = edges[node]
        if counts[BLANK]:
            for tile, child in node_edges.items():
                if ok is not None and tile not in ok:
                    continue
                if counts[tile]:
                    counts[tile] -= 1
                    v = values[tile] * lm
                    placed.append((col, tile))
                    extend(col + 1, child, main + v, wmul * wm,
                           cross if base < 0 else cross + (base + v) * wm, placed)
                    placed.pop()
                    counts[tile] += 1
                counts[BLANK] -= 1
                placed.append((col, lower[tile]))
                extend(col + 1, child, main, wmul * wm,
                       cross if base < 0 else cross + base * wm, placed)
                placed.pop()
                counts[BLANK] += 1
        else:
            for tile in distinct:
                if not counts[tile] or (ok is not None and tile not in ok):
                    continue
                child = node_edges.get(tile)
                if child is None:
                    continue
                counts[tile] -= 1
                v = values[tile] * lm
                placed.append((col, tile))
                extend(col + 1, child, main + v, wmul * wm,
                       cross if base < 0 else cross + (base + v) * wm, placed)
                placed.pop()
                counts[tile] += 1

    def left_parts(node: int, part: list[str], part_values: list[int], limit: int) -> None:
        """Extend every left part (rack tiles on the free squares before the anchor) that
        starts a word, then grow it by one more tile while ``limit`` allows."""
        if part:
            start = anchor - len(part)
            main = sum(map(mul, part_values, letter_mult[start:anchor]))
            placed = list(zip(range(start, anchor), part, strict=True))
            extend(anchor, node, main, prod(word_mult[start:anchor]), 0, placed)
        else:
            extend(anchor, node, 0, 1, 0, [])
        if not limit:
            return
        node_edges = edges[node]
        if counts[BLANK]:
            for tile, child in node_edges.items():
                if counts[tile]:
                    counts[tile] -= 1
                    part.append(tile)
                    part_values.append(values[tile])
                    left_parts(child, part, part_values, limit - 1)
                    part.pop()
                    part_values.pop()
                    counts[tile] += 1
                counts[BLANK] -= 1
                part.append(lower[tile])
                part_values.append(0)
                left_parts(child, part, part_values, limit - 1)
                part.pop()
                part_values.pop()
                counts[BLANK] += 1
        else:
            for tile in distinct:
                if counts[tile]:
                    child = node_edges.get(tile)
                    if child is not None:
                        counts[tile] -= 1
                        part.append(tile)
                        part_values.append(values[tile])
                        left_parts(child, part, part_values, limit - 1)
                        part.pop()
                        part_values.pop()
                        counts[tile] += 1

    def cross_set(above: list[str], below: list[str]) -> frozenset[str]:
        """The tiles that make ``above + tile + below`` a word."""
        start = graph.walk(above)
        if start is None:
            return frozenset()
        ok = []
        for tile, child in edges[start].items():
            end = graph.walk(below, child)
            if end is not None and terminal[end]:
                ok.append(tile)
        return frozenset(ok)

    for row in range(SIZE):
        line = grid[row * SIZE : row * SIZE + SIZE]
        if first_move and row != (CENTRE_ROW if orientation == 0 else CENTRE_COL):
            continue  # the first play must cover the centre star
        if not first_move and all(
            line[c] is None
            and (row == 0 or grid[(row - 1) * SIZE + c] is None)
            and (row == SIZE - 1 or grid[(row + 1) * SIZE + c] is None)
            for c in range(SIZE)
        ):
            continue  # nothing on or next to this line: no anchor
        letters_up = [None if t is None else t.upper() for t in line]
        line_values = [0 if t is None else value_of(t) for t in line]
        letter_mult = letter_mult_rows[row]
        word_mult = word_mult_rows[row]
        allowed = [None] * SIZE
        cross_base = [-1] * SIZE
        is_anchor = [False] * SIZE
        for col in range(SIZE):
            if line[col] is not None:
                continue
            above: list[str] = []
            r = row - 1
            while r >= 0 and (t := grid[r * SIZE + col]) is not None:
                above.append(t)
                r -= 1
            above.reverse()
            below: list[str] = []
            r = row + 1
            while r < SIZE and (t := grid[r * SIZE + col]) is not None:
                below.append(t)
                r += 1
            if above or below:
                allowed[col] = cross_set([t.upper() for t in above], [t.upper() for t in below])
                cross_base[col] = sum(value_of(t) for t in above) + sum(value_of(t) for t in below)
                is_anchor[col] = True
            elif (col > 0 and line[col - 1] is not None) or (
                col < SIZE - 1 and line[col + 1] is not None
            ):
                is_anchor[col] = True
        if first_move and row == (CENTRE_ROW if orientation == 0 else CENTRE_COL):
            is_anchor[CENTRE_COL if orientation == 0 else CENTRE_ROW] = True

        for col in range(SIZE):
            if not is_anchor[col]:
                continue
            ok = allowed[col]
            if ok is not None and not ok:
                continue
            anchor = col
            if col > 0 and line[col - 1] is not None:
                start = col - 1
                while start > 0 and line[start - 1] is not None:
                    start -= 1
                node = graph.walk(letters_up[start:col])  # type: ignore[arg-type]
                if node is not None:
                    extend(col, node, sum(line_values[start:col]), 1, 0, [])
                continue
            limit = 0
            c = col - 1
            while c >= 0 and line[c] is None and not is_anchor[c] and limit < rack_size - 1:
                limit += 1
                c -= 1
            left_parts(0, [], [], limit)


# -- building the scored plays ---------------------------------------------------------------------


def _scored(
    cells: Sequence[str | None],
    raw: _Raw,
    tileset: TileSet,
    bingo_sizes: frozenset[int] | set[int],
    bingo_bonus: int,
) -> ScoredPlay:
    """The :class:`ScoredPlay` of a play found by the search, as ``score_play`` builds it."""
    _, orientation, line, placed = raw
    # Cell index of position p along the line: origin + p * along; a step across it: across.
    if orientation == 0:
        origin, along, across = line * SIZE, 1, SIZE
    else:
        origin, along, across = line, SIZE, 1
    value = _tile_values(tileset)
    new = {origin + p * along: t for p, t in placed}

    # The main word: existing tiles before the first new one, then through to the last run.
    first = placed[0][0]
    while first > 0 and cells[origin + (first - 1) * along] is not None:
        first -= 1
    last = placed[-1][0]
    while last < SIZE - 1 and cells[origin + (last + 1) * along] is not None:
        last += 1
    tiles: list[str] = []
    fresh: list[bool] = []
    total = 0
    wmul = 1
    for i in range(origin + first * along, origin + last * along + 1, along):
        tile = new.get(i)
        if tile is None:
            tile = cells[i]
            total += value[tile]  # type: ignore[index]
            fresh.append(False)
        else:
            total += value[tile] * _LETTER_MULT_AT[i]
            wmul *= _WORD_MULT_AT[i]
            fresh.append(True)
        tiles.append(tile)  # type: ignore[arg-type]
    main = FormedWord(
        _SQUARES[origin + first * along], _DIRECTIONS[orientation], tuple(tiles), tuple(fresh),
        total * wmul,
    )

    cross: list[FormedWord] = []
    cross_direction = _DIRECTIONS[1 - orientation]
    for i, tile in new.items():
        top = i
        for _ in range(line):
            if cells[top - across] is None:
                break
            top -= across
        bottom = i
        for _ in range(SIZE - 1 - line):
            if cells[bottom + across] is None:
                break
            bottom += across
        if top == bottom:
            continue
        word_total = 0
        word_tiles: list[str] = []
        for j in range(top, bottom + 1, across):
            existing = cells[j]
            if existing is None:
                word_tiles.append(tile)
                word_total += value[tile] * _LETTER_MULT_AT[i]
            else:
                word_tiles.append(existing)
                word_total += value[existing]
        cross.append(
            FormedWord(
                _SQUARES[top], cross_direction, tuple(word_tiles),
                tuple(j == i for j in range(top, bottom + 1, across)),
                word_total * _WORD_MULT_AT[i],
            )
        )
    bingo = len(placed) in bingo_sizes
    total = main.score + sum(w.score for w in cross) + (bingo_bonus if bingo else 0)
    placement = Placement(tuple((_SQUARES[i], t) for i, t in new.items()), main.direction)
    return ScoredPlay(placement, main, tuple(cross), total, bingo)


def _tile_values(tileset: TileSet) -> dict[str, int]:
    """Face value of every tile of the set as it may sit on the board: upper case for a letter
    tile, lower case (worth 0) for a blank standing for it."""
    values = _VALUE_TABLES.get(tileset)
    if values is None:
        values = {t: tileset.value(t) for t in tileset.letters}
        values.update({t.lower(): 0 for t in tileset.letters})
        _VALUE_TABLES[tileset] = values
    return values


_VALUE_TABLES: dict[TileSet, dict[str, int]] = {}


def generate_plays(
    board: Board,
    rack: str | Iterable[str],
    words: Words | WordGraph,
    tileset: TileSet | None = None,
    *,
    limit: int | None = None,
    bingo_sizes: frozenset[int] | set[int] = frozenset({7}),
    bingo_bonus: int = BINGO_BONUS,
) -> list[ScoredPlay]:
    """Every legal play of ``rack`` on ``board``, best first.

    ``rack`` is a string read with the tile set's split (``"?"`` a blank) or a sequence of
    tiles; ``words`` a :class:`~scorer.lexicon.Lexicon`, a prebuilt :class:`WordGraph` or any
    iterable of words (its graph is built once and cached); ``tileset`` is English unless
    given (or the graph's own when ``words`` is a graph).  A play is legal when it is legal
    for :func:`~scorer.rules.check_placement` and every word it forms, main and cross, is a
    word; a blank is tried as every letter of the tile set.  Plays are sorted by score, then
    across before down, then by line and squares, so the order is the same every run.
    ``limit`` builds only the best ``limit`` plays (the search itself is the same).
    """
    search = RackSearch(
        board, rack, words, tileset, bingo_sizes=bingo_sizes, bingo_bonus=bingo_bonus
    )
    return search.best(limit)


class RackSearch:
    """Every legal play of a rack on a board, found by one search and built into
    :class:`~scorer.rules.ScoredPlay` only as they are asked for: several questions about one
    rack (its best plays, its best bingos, its best play with some of its tiles) cost one
    search.  The arguments are those of :func:`generate_plays`; the board is copied.

    >>> search = RackSearch(Board(), "HORNS", ["HORN", "HORNS", "NO", "ON", "SO"])
    >>> len(search), [p.seed_notation for p in search.best(2)]
    (30, ['HORNS 8D 24', 'HORNS H4 24'])
    >>> [p.seed_notation for p in search.best(1, tiles_laid={2})]
    ['NO 8G 4']
    >>> horn = search.best(tiles="RNHO")
    >>> len(horn), horn[0].seed_notation, horn[-1].seed_notation
    (8, 'HORN 8E 14', 'HORN H8 14')
    """

    __slots__ = ("tileset", "rack", "_cells", "_raws", "_bingo_sizes", "_bingo_bonus")

    def __init__(
        self,
        board: Board,
        rack: str | Iterable[str],
        words: Words | WordGraph,
        tileset: TileSet | None = None,
        *,
        bingo_sizes: frozenset[int] | set[int] = frozenset({7}),
        bingo_bonus: int = BINGO_BONUS,
    ) -> None:
        graph = WordGraph.cached(words, tileset)
        self.tileset = graph.tileset
        self.rack = tuple(_rack_tiles(rack, self.tileset))
        self._cells = list(board.cells)
        self._bingo_sizes = bingo_sizes
        self._bingo_bonus = bingo_bonus
        with _gc_paused():
            self._raws = _search(graph, self._cells, list(self.rack), bingo_sizes, bingo_bonus)

    def __len__(self) -> int:
        """How many plays the rack has."""
        return len(self._raws)

    def best(
        self,
        limit: int | None = None,
        *,
        tiles_laid: Collection[int] | None = None,
        tiles: str | Iterable[str] | None = None,
    ) -> list[ScoredPlay]:
        """The best ``limit`` plays (all with ``None``), in :func:`generate_plays` order.

        ``tiles_laid`` keeps the plays that lay that many tiles (``bingo_sizes``: the
        bingos); ``tiles`` those that lay exactly these tiles, a blank (``"?"``) standing
        for any letter.
        """
        raws = self._raws
        if tiles_laid is not None:
            raws = [raw for raw in raws if len(raw[3]) in tiles_laid]
        if tiles is not None:
            wanted = sorted(_rack_tiles(tiles, self.tileset))
            raws = [
                raw for raw in raws
                if len(raw[3]) == len(wanted)
                and sorted(BLANK if t.islower() else t for _, t in raw[3]) == wanted
            ]  # fmt: skip
        with _gc_paused():
            if limit is None:
                raws = sorted(raws, key=_rank)
            else:
                raws = heapq.nsmallest(limit, raws, key=_rank)
            return [
                _scored(self._cells, raw, self.tileset, self._bingo_sizes, self._bingo_bonus)
                for raw in raws
            ]


def best_play(
    board: Board,
    rack: str | Iterable[str],
    words: Words | WordGraph,
    tileset: TileSet | None = None,
    *,
    bingo_sizes: frozenset[int] | set[int] = frozenset({7}),
    bingo_bonus: int = BINGO_BONUS,
) -> ScoredPlay | None:
    """The highest-scoring play (first in :func:`generate_plays` order), or ``None`` when the
    rack cannot play."""
    plays = generate_plays(
        board, rack, words, tileset, limit=1, bingo_sizes=bingo_sizes, bingo_bonus=bingo_bonus
    )
    return plays[0] if plays else None


# -- whole games ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One turn of a generated game.

    ``kind`` is ``"play"``, ``"exchange"`` or ``"pass"``; ``rack`` is the rack before the turn,
    ``drawn`` the tiles drawn after it, ``totals`` every player's score after it and ``board``
    the board after it.
    """

    number: int
    player: int
    rack: tuple[str, ...]
    kind: str
    play: ScoredPlay | None
    exchanged: tuple[str, ...]
    drawn: tuple[str, ...]
    score: int
    totals: tuple[int, ...]
    bag_left: int
    board: Board = field(repr=False, compare=True)

    def describe(self) -> str:
        """One line: ``"3. player 1 AEINRST: HORN 8E 14"``."""
        rack = "".join(self.rack)
        if self.play is not None:
            what = self.play.seed_notation
        elif self.kind == "exchange":
            what = f"exchange {''.join(self.exchanged)}"
        else:
            what = "pass"
        return f"{self.number}. player {self.player + 1} {rack}: {what}"


@dataclass(frozen=True)
class Game:
    """A generated game: its turns, how it ended and the final scores.

    ``ended_by`` is ``"out"`` (a player used their last tile with the bag empty) or
    ``"scoreless"`` (``scoreless_limit`` scoreless turns in a row).  ``adjustments`` are the
    end-of-game changes per player (unplayed tiles lost, and gained by the player who went
    out); ``final_scores`` the totals after them.
    """

    seed: int
    tileset: TileSet
    turns: tuple[Turn, ...]
    final_racks: tuple[tuple[str, ...], ...]
    ended_by: str
    adjustments: tuple[int, ...]
    final_scores: tuple[int, ...]

    @property
    def board(self) -> Board:
        """The board at the end."""
        return self.turns[-1].board if self.turns else Board()

    def to_gcg(self, names: Sequence[str] = ("player1", "player2")) -> str:
        """The game as a two-player GCG record (end-of-game rack points in the older
        two-line form, which keeps the totals of the rules: the player who went out gains
        the rack, the other loses it)."""
        if len(self.final_scores) != 2:
            raise ValueError("GCG records two-player games; this game has"
                             f" {len(self.final_scores)} players")
        lines = [
            "#character-encoding UTF-8",
            f"#player1 {names[0]} {names[0]}",
            f"#player2 {names[1]} {names[1]}",
            f"#description tilecam generated game, seed {self.seed}",
        ]
        for turn in self.turns:
            nick = names[turn.player]
            rack = "".join(turn.rack)
            total = turn.totals[turn.player]
            if turn.play is not None:
                lines.append(
                    f">{nick}: {rack} {turn.play.position} {turn.play.gcg_word}"
                    f" +{turn.score} {total}"
                )
            elif turn.kind == "exchange":
                lines.append(f">{nick}: {rack} -{''.join(turn.exchanged)} +0 {total}")
            else:
                lines.append(f">{nick}: {rack} - +0 {total}")
        totals = list(self.turns[-1].totals) if self.turns else [0, 0]
        last = self.turns[-1].player if self.turns else 0
        order = [last, 1 - last] if self.ended_by == "out" else [1 - last, last]
        for player in order:
            change = self.adjustments[player]
            totals[player] += change
            rack = "".join(self.final_racks[player])
            if self.ended_by == "out" and not rack:
                other = "".join(self.final_racks[1 - player])
                lines.append(f">{names[player]}: ({other}) {change:+d} {totals[player]}")
            elif rack:
                lines.append(f">{names[player]}: {rack} ({rack}) {change:+d} {totals[player]}")
        return "\n".join(lines) + "\n"


def generate_game(
    seed: int,
    words: Words | WordGraph,
    tileset: TileSet | None = None,
    *,
    players: int = 2,
    rack_size: int = 7,
    choose_among: int = 1,
    bingo_sizes: frozenset[int] | set[int] = frozenset({7}),
    scoreless_limit: int = 6,
    on_turn: Callable[[Turn], None] | None = None,
) -> Game:
    """Play a whole game with random draws from the bag, the same game for the same seed.

    Each turn plays the best-scoring play (or, with ``choose_among`` above 1, one drawn by the
    seed from that many best plays); a rack that cannot play exchanges every tile but its
    blanks while the bag holds at least :data:`EXCHANGE_MIN_BAG` tiles, else passes.  Player 1
    starts.  The game ends when a player goes out with the bag empty or after
    ``scoreless_limit`` scoreless turns in a row (a play scoring 0 counts as one).  ``on_turn``
    is called with each turn as it is made.

    >>> game = generate_game(7, ["AT", "TA", "AA", "TAT"], players=2)
    >>> game.ended_by, len(game.turns) > 0
    ('scoreless', True)
    """
    if players < 2:
        raise ValueError(f"a game needs at least 2 players, not {players}")
    if choose_among < 1:
        raise ValueError(f"choose_among must be at least 1, not {choose_among}")
    graph = WordGraph.cached(words, tileset)
    tileset = graph.tileset
    rng = random.Random(seed)
    bag = sorted(tileset.bag().elements())
    rng.shuffle(bag)
    if players * rack_size > len(bag):
        raise ValueError(f"{players} racks of {rack_size} need more than the {len(bag)} tiles")

    def draw(count: int) -> list[str]:
        taken = bag[-count:] if count else []
        del bag[len(bag) - len(taken) :]
        return taken

    racks: list[list[str]] = [draw(rack_size) for _ in range(players)]
    board = Board()
    totals = [0] * players
    turns: list[Turn] = []
    scoreless = 0
    player = 0
    ended_by = "scoreless"
    while True:
        rack = racks[player]
        before = tuple(_sorted_rack(rack))
        with _gc_paused():
            raws = _search(graph, board.cells, rack, bingo_sizes, BINGO_BONUS)
        play: ScoredPlay | None = None
        exchanged: tuple[str, ...] = ()
        if raws:
            best = heapq.nsmallest(choose_among, raws, key=_rank)
            chosen = best[rng.randrange(len(best))] if len(best) > 1 else best[0]
            play = _scored(board.cells, chosen, tileset, bingo_sizes, BINGO_BONUS)
            board.place(play.placement.as_dict())
            for _, tile in play.placement.tiles:
                rack.remove(face(tile))
            drawn = draw(min(rack_size - len(rack), len(bag)))
            kind = "play"
            score = play.score
        elif len(bag) >= EXCHANGE_MIN_BAG:
            exchanged = tuple(_sorted_rack(t for t in rack if t != BLANK)) or tuple(rack)
            drawn = draw(len(exchanged))
            for tile in exchanged:
                rack.remove(tile)
            bag.extend(exchanged)
            rng.shuffle(bag)
            kind = "exchange"
            score = 0
        else:
            drawn = []
            kind = "pass"
            score = 0
        rack.extend(drawn)
        totals[player] += score
        scoreless = scoreless + 1 if score == 0 else 0
        turn = Turn(
            len(turns) + 1, player, before, kind, play, exchanged, tuple(drawn), score,
            tuple(totals), len(bag), board.copy(),
        )
        turns.append(turn)
        if on_turn is not None:
            on_turn(turn)
        if not rack and not bag:
            ended_by = "out"
            break
        if scoreless >= scoreless_limit:
            break
        player = (player + 1) % players

    left = [tileset.rack_value(r) for r in racks]
    adjustments = [-v for v in left]
    if ended_by == "out":
        adjustments[player] = sum(left)
    final = tuple(t + a for t, a in zip(totals, adjustments, strict=True))
    return Game(
        seed, tileset, tuple(turns), tuple(tuple(_sorted_rack(r)) for r in racks), ended_by,
        tuple(adjustments), final,
    )


def _sorted_rack(tiles: Iterable[str]) -> list[str]:
    """Tiles in alphabetical order with blanks last, as racks are usually written."""
    return sorted(tiles, key=lambda t: (t == BLANK, t))

