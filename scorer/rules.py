"""Placing tiles: legality, the words a placement forms, and their score.

A :class:`Placement` is the set of *new* tiles a player puts down.  :func:`score_play` checks it
against every placement rule, finds the main word and each cross word, and scores them.

>>> from scorer.tiles import TileSet
>>> en = TileSet.named("en")
>>> board = Board()
>>> horn = score_play(board, Placement.from_position("8E", "HORN", board, en), en)
>>> horn.score, horn.position, horn.main.text
(14, '8E', 'HORN')
>>> board.place(horn.placement.as_dict())
>>> farm = score_play(board, Placement.from_position("G6", "FA.M", board, en), en)
>>> farm.seed_notation
'FA(R)M G6 13'
>>> score_play(board, Placement.from_position("1A", "XI", board, en), en)
Traceback (most recent call last):
...
scorer.rules.IllegalPlay: not_connected: the play touches no tile already on the board
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer.board import Board
from scorer.squares import (
    CENTRE_COL,
    CENTRE_ROW,
    COLUMNS,
    MULTIPLIERS,
    PREMIUM_LAYOUT,
    SIZE,
    Direction,
    Square,
)
from scorer.tiles import TileError, TileSet, is_blank

BINGO_BONUS = 50

_LETTER_MULT = [[MULTIPLIERS[p][0] for p in row] for row in PREMIUM_LAYOUT]
_WORD_MULT = [[MULTIPLIERS[p][1] for p in row] for row in PREMIUM_LAYOUT]
# The same, flat (index row * 15 + col), for the scoring loop.
_LETTER_MULT_FLAT = [m for row in _LETTER_MULT for m in row]
_WORD_MULT_FLAT = [m for row in _WORD_MULT for m in row]

# Per tile set (by identity): whether any tile is several letters, and a value table that also
# holds the lower-case (blank) forms at 0.  Scoring a play looks values up many times.
_TILESET_TABLES: dict[int, tuple[TileSet, tuple[str, ...], dict[str, int]]] = {}


def _tables(tileset: TileSet) -> tuple[tuple[str, ...], dict[str, int]]:
    entry = _TILESET_TABLES.get(id(tileset))
    if entry is None or entry[0] is not tileset:
        values = {"?": 0}
        for tile, value in tileset.values.items():
            values[tile] = value
            values[tile.lower()] = 0
        multi = tuple(t for t in tileset.counts if len(t) > 1)
        entry = (tileset, multi, values)
        _TILESET_TABLES[id(tileset)] = entry
    return entry[1], entry[2]


def multi_letter_tiles(tileset: TileSet) -> tuple[str, ...]:
    """The tiles of the set written with several letters (``CH``, ``L·L``); often none."""
    return _tables(tileset)[0]


def split_tiles(tileset: TileSet, text: str) -> tuple[str, ...]:
    """``tileset.split(text)``, quick when every tile of the set is one character.

    >>> from scorer.tiles import TileSet
    >>> split_tiles(TileSet.named("de"), "ÄRA."), split_tiles(TileSet.named("es"), "CHa")
    (('Ä', 'R', 'A', '.'), ('CH', 'a'))
    """
    multi, _ = _tables(tileset)
    if not multi and "[" not in text:
        return tuple(text)
    return tileset.split(text)


class IllegalPlay(ValueError):
    """A placement that breaks a rule.  ``code`` names the rule, the message says where.

    Codes: ``no_tiles``, ``off_board``, ``duplicate_square``, ``square_taken``,
    ``unknown_letter``, ``not_in_line``, ``gap``, ``first_play_off_star``,
    ``first_play_one_tile``, ``not_connected``, ``played_through_mismatch``, ``bad_position``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Placement:
    """New tiles put on the board in one turn, with the main-word direction if it was stated.

    ``direction`` matters only for a one-tile play, where it says which of the two words is the
    main word (GCG records state it; a camera cannot, so it is ``None`` there).
    """

    tiles: tuple[tuple[Square, str], ...]
    direction: Direction | None = None

    @staticmethod
    def of(tiles: Mapping[Square, str], direction: Direction | None = None) -> Placement:
        return Placement(tuple(sorted(tiles.items())), direction)

    def as_dict(self) -> dict[Square, str]:
        return dict(self.tiles)

    @property
    def squares(self) -> list[Square]:
        return [sq for sq, _ in self.tiles]

    def transposed(self) -> Placement:
        d = None if self.direction is None else self.direction.other
        return Placement(tuple(sorted((sq.transposed(), t) for sq, t in self.tiles)), d)

    @staticmethod
    def from_position(
        position: str, word: str | Iterable[str], board: Board, tileset: TileSet
    ) -> Placement:
        """Read a GCG-style position and word against ``board``.

        ``position`` is ``8D`` (row first: across) or ``D8`` (column first: down), case-insensitive.
        ``word`` spells the whole main word; a played-through square is ``.`` or the letter that
        is already there (older records), optionally inside parentheses.  Lower case = blank.
        """
        start, direction = parse_position(position)
        if isinstance(word, str):
            tiles = split_tiles(tileset, word.replace("(", "").replace(")", ""))
        else:
            tiles = tuple(word)
        dr, dc = direction.step
        # Check the length first: a word that runs off the board is that fault, whatever the
        # squares it does cover hold.
        last = len(tiles) - 1
        if tiles and (start.row + dr * last >= SIZE or start.col + dc * last >= SIZE):
            raise IllegalPlay(
                "off_board",
                f"{position} {_join(tiles)} runs off the board "
                f"({len(tiles)} tiles from {start})",
            )
        new: list[tuple[Square, str]] = []
        for i, tile in enumerate(tiles):
            r, c = start.row + dr * i, start.col + dc * i
            existing = board.cells[r * SIZE + c]
            if tile == ".":
                if existing is None:
                    raise IllegalPlay(
                        "played_through_mismatch",
                        f"{position} {_join(tiles)}: '.' at {Square(r, c)} but the square is empty",
                    )
                continue
            if existing is not None:
                if existing == tile or (existing.upper() == tile.upper() and is_blank(existing)):
                    continue  # an older record writes the played-through letter itself
                raise IllegalPlay(
                    "square_taken",
                    f"{position} {_join(tiles)}: {Square(r, c)} already holds {existing!r}",
                )
            new.append((Square(r, c), tile))
        return Placement(tuple(new), direction)


@dataclass(frozen=True, slots=True)
class FormedWord:
    """One word made by a play, with its score."""

    start: Square
    direction: Direction
    tiles: tuple[str, ...]
    new: tuple[bool, ...]
    score: int

    @property
    def text(self) -> str:
        """The word in upper case (what a dictionary is asked)."""
        return "".join(self.tiles).upper()

    @property
    def position(self) -> str:
        return position_name(self.start, self.direction)

    @property
    def squares(self) -> list[Square]:
        dr, dc = self.direction.step
        r, c = self.start.row, self.start.col
        return [Square(r + dr * i, c + dc * i) for i in range(len(self.tiles))]

    @property
    def gcg_word(self) -> str:
        """The word as GCG writes it: played-through tiles as ``.``, blanks in lower case."""
        return "".join(t if n else "." for t, n in zip(self.tiles, self.new, strict=True))

    @property
    def marked(self) -> str:
        """Played-through tiles in parentheses: ``A(D)DITiON(AL)``."""
        out: list[str] = []
        inside = False
        for tile, is_new in zip(self.tiles, self.new, strict=True):
            if not is_new and not inside:
                out.append("(")
                inside = True
            elif is_new and inside:
                out.append(")")
                inside = False
            out.append(tile)
        if inside:
            out.append(")")
        return "".join(out)


@dataclass(frozen=True, slots=True)
class ScoredPlay:
    """A legal placement with every word it forms and the total score."""

    placement: Placement
    main: FormedWord
    cross: tuple[FormedWord, ...]
    score: int
    bingo: bool

    @property
    def words(self) -> tuple[FormedWord, ...]:
        return (self.main, *self.cross)

    @property
    def position(self) -> str:
        return self.main.position

    @property
    def gcg_word(self) -> str:
        return self.main.gcg_word

    @property
    def seed_notation(self) -> str:
        """The rule sheet's notation: ``A(D)DITiON(AL) D3 74``."""
        return f"{self.main.marked} {self.main.position} {self.score}"

    @property
    def tiles_used(self) -> int:
        return len(self.placement.tiles)


def parse_position(position: str) -> tuple[Square, Direction]:
    """``"8D"`` -> (D8, across); ``"D8"`` -> (D8, down).

    >>> parse_position("8d")
    (Square(row=7, col=3), <Direction.ACROSS: 'across'>)
    >>> parse_position("h12")
    (Square(row=11, col=7), <Direction.DOWN: 'down'>)
    """
    text = position.strip()
    if text[:1].isdigit():
        digits = text.rstrip("ABCDEFGHIJKLMNOabcdefghijklmno")
        letter = text[len(digits) :]
        direction = Direction.ACROSS
    else:
        letter, digits = text[:1], text[1:]
        direction = Direction.DOWN
    if len(letter) != 1 or letter.upper() not in COLUMNS or not digits.isdigit():
        raise IllegalPlay("bad_position", f"{position!r} is not a position like 8D or D8")
    row = int(digits)
    if not 1 <= row <= SIZE:
        raise IllegalPlay("off_board", f"{position!r}: row {row} is off the board")
    return Square(row - 1, COLUMNS.index(letter.upper())), direction


def position_name(start: Square, direction: Direction) -> str:
    """The GCG position of a word: row first when across, column first when down."""
    col, row = COLUMNS[start.col], start.row + 1
    return f"{row}{col}" if direction is Direction.ACROSS else f"{col}{row}"


def _join(tiles: Iterable[str]) -> str:
    return "".join(tiles)


def _run(
    cells: list[str | None], new: dict[int, str], r: int, c: int, dr: int, dc: int
) -> tuple[int, int, list[int]]:
    """The maximal run of occupied-or-new cells through (r, c) along (dr, dc)."""
    while True:
        pr, pc = r - dr, c - dc
        if pr < 0 or pc < 0:
            break
        i = pr * SIZE + pc
        if cells[i] is None and i not in new:
            break
        r, c = pr, pc
    start_r, start_c = r, c
    idx: list[int] = []
    while r < SIZE and c < SIZE:
        i = r * SIZE + c
        if cells[i] is None and i not in new:
            break
        idx.append(i)
        r, c = r + dr, c + dc
    return start_r, start_c, idx


def _word(
    cells: list[str | None],
    new: dict[int, str],
    r: int,
    c: int,
    direction: Direction,
    tileset: TileSet,
) -> FormedWord:
    """The word through (r, c) along ``direction``, scored (premiums under new tiles only)."""
    values = _tables(tileset)[1]
    if direction is Direction.ACROSS:
        base = r * SIZE
        first = c
        while first > 0 and (cells[base + first - 1] is not None or base + first - 1 in new):
            first -= 1
        last = c
        while last < SIZE - 1 and (cells[base + last + 1] is not None or base + last + 1 in new):
            last += 1
        idx = range(base + first, base + last + 1)
        start = Square(r, first)
    else:
        first = r
        while first > 0 and (
            cells[(first - 1) * SIZE + c] is not None or (first - 1) * SIZE + c in new
        ):
            first -= 1
        last = r
        while last < SIZE - 1 and (
            cells[(last + 1) * SIZE + c] is not None or (last + 1) * SIZE + c in new
        ):
            last += 1
        idx = range(first * SIZE + c, last * SIZE + c + 1, SIZE)
        start = Square(first, c)
    total = 0
    word_mult = 1
    tiles: list[str] = []
    fresh: list[bool] = []
    for i in idx:
        tile = new.get(i)
        if tile is not None:
            total += values[tile] * _LETTER_MULT_FLAT[i]
            word_mult *= _WORD_MULT_FLAT[i]
            fresh.append(True)
        else:
            tile = cells[i]
            assert tile is not None
            total += values[tile]
            fresh.append(False)
        tiles.append(tile)
    return FormedWord(start, direction, tuple(tiles), tuple(fresh), total * word_mult)


def check_placement(board: Board, placement: Placement, tileset: TileSet) -> Direction:
    """Raise :class:`IllegalPlay` unless the placement is legal; return the main-word direction."""
    tiles = placement.tiles
    if not tiles:
        raise IllegalPlay("no_tiles", "the play places no tiles")
    cells = board.cells
    values = _tables(tileset)[1]
    seen: set[int] = set()  # row * 15 + col of each new tile
    for square, tile in tiles:
        i = square.row * SIZE + square.col
        if i in seen:
            raise IllegalPlay("duplicate_square", f"two tiles on {square}")
        seen.add(i)
        if cells[i] is not None:
            raise IllegalPlay("square_taken", f"{square} already holds {cells[i]!r}")
        if tile == "?":
            raise IllegalPlay(
                "unknown_letter", f"{square}: a blank on the board must name its letter"
            )
        if tile not in values:
            try:
                tileset.check_letter(tile)
            except TileError as exc:
                raise IllegalPlay("unknown_letter", f"{square}: {exc}") from None
    across = _check_lines(cells, seen)
    if len(tiles) == 1:
        return placement.direction or Direction.ACROSS
    return Direction.ACROSS if across else Direction.DOWN


def _check_lines(cells: list[str | None], seen: set[int]) -> bool:
    """Raise :class:`IllegalPlay` unless new tiles on the cells ``seen`` (``row * 15 + col``,
    empty cells) lie as the rules place them, letters apart: in one line, unbroken, touching the
    tiles on the board (the first play: covering the centre star, at least two tiles).  True
    when the line runs across (a single tile's too)."""
    rows = {i // SIZE for i in seen}
    cols = {i % SIZE for i in seen}
    if len(rows) > 1 and len(cols) > 1:
        raise IllegalPlay(
            "not_in_line",
            "the tiles are not all in one row or one column: "
            + ", ".join(str(Square(*divmod(i, SIZE))) for i in sorted(seen)),
        )
    across = len(rows) == 1
    # The line from the first to the last new tile must be unbroken.
    first, last = min(seen), max(seen)
    step = 1 if across else SIZE
    for i in range(first + step, last, step):
        if i not in seen and cells[i] is None:
            raise IllegalPlay(
                "gap",
                f"{Square(*divmod(i, SIZE))} is empty between {Square(*divmod(first, SIZE))} "
                f"and {Square(*divmod(last, SIZE))}: the line is broken",
            )
    if not any(cells):
        if CENTRE_ROW * SIZE + CENTRE_COL not in seen:
            raise IllegalPlay("first_play_off_star", "the first play must cover the centre star H8")
        if len(seen) < 2:
            raise IllegalPlay("first_play_one_tile", "the first play must place at least 2 tiles")
    elif not _touches_tiles(cells, seen):
        raise IllegalPlay("not_connected", "the play touches no tile already on the board")
    return across


def _touches_tiles(cells: list[str | None], seen: Iterable[int]) -> bool:
    """Whether any of the cells ``seen`` (``row * 15 + col``) has a tile beside it."""
    for i in seen:
        r, c = divmod(i, SIZE)
        if (
            (r > 0 and cells[i - SIZE] is not None)
            or (r < SIZE - 1 and cells[i + SIZE] is not None)
            or (c > 0 and cells[i - 1] is not None)
            or (c < SIZE - 1 and cells[i + 1] is not None)
        ):
            return True
    return False


def score_play(
    board: Board,
    placement: Placement,
    tileset: TileSet,
    bingo_sizes: frozenset[int] | set[int] = frozenset({7}),
    bingo_bonus: int = BINGO_BONUS,
) -> ScoredPlay:
    """Check a placement and score it: main word, every cross word, premiums under new tiles
    only, blanks worth 0, word premiums multiplying, and the bingo bonus when the number of tiles
    placed is in ``bingo_sizes`` (7 in the standard game; 7, 8 or 9 with 9-tile racks)."""
    direction = check_placement(board, placement, tileset)
    cells = board.cells
    new = {sq.row * SIZE + sq.col: t for sq, t in placement.tiles}
    anchor = placement.tiles[0][0]
    main = _word(cells, new, anchor.row, anchor.col, direction, tileset)
    if len(main.tiles) < 2 and len(placement.tiles) == 1:
        # One tile stated (or assumed) across but forming only a down word: the down word is main.
        direction = direction.other
        main = _word(cells, new, anchor.row, anchor.col, direction, tileset)
    cross: list[FormedWord] = []
    other = direction.other
    for square, _ in placement.tiles:
        w = _word(cells, new, square.row, square.col, other, tileset)
        if len(w.tiles) > 1:
            cross.append(w)
    bingo = len(placement.tiles) in bingo_sizes
    total = main.score + sum(w.score for w in cross) + (bingo_bonus if bingo else 0)
    return ScoredPlay(
        Placement(placement.tiles, direction), main, tuple(cross), total, bingo
    )


def words_with_unknown_blanks(
    board: Board, tiles: Mapping[Square, str]
) -> list[tuple[str | int, ...]]:
    """The words a placement forms, with each blank of unknown letter (``"?"``) as an int id.

    This is what :meth:`scorer.lexicon.Lexicon.blank_solutions` takes to find the letters a blank
    must stand for.  Ids number the unknown blanks in square order.

    >>> board = Board.from_rows(["." * 15] * 7 + [".......AT......"] + ["." * 15] * 7)
    >>> words_with_unknown_blanks(board, {Square.parse("J8"): "?"})
    [('A', 'T', 0)]
    """
    ordered = sorted(tiles.items())
    ids = {sq: n for n, sq in enumerate(sq for sq, t in ordered if t == "?")}
    new = {sq.row * SIZE + sq.col: t for sq, t in ordered}
    cells = board.cells
    rows = {sq.row for sq, _ in ordered}
    directions = [Direction.ACROSS, Direction.DOWN]
    if len(ordered) > 1:
        main = Direction.ACROSS if len(rows) == 1 else Direction.DOWN
        directions = [main]
    out: list[tuple[str | int, ...]] = []
    seen: set[tuple[int, ...]] = set()

    def add(r: int, c: int, d: Direction) -> None:
        _, _, idx = _run(cells, new, r, c, *d.step)
        if len(idx) < 2 or tuple(idx) in seen:
            return
        seen.add(tuple(idx))
        word: list[str | int] = []
        for i in idx:
            if i in new:
                sq = Square(*divmod(i, SIZE))
                word.append(ids[sq] if new[i] == "?" else new[i].upper())
            else:
                word.append(cells[i].upper())  # type: ignore[union-attr]
        out.append(tuple(word))

    first = ordered[0][0]
    if len(ordered) == 1:
        for d in directions:
            add(first.row, first.col, d)
        return out
    add(first.row, first.col, directions[0])
    for sq, _ in ordered:
        add(sq.row, sq.col, directions[0].other)
    return out


#: Tiles a player holds, and so the most one move can lay.
RACK_SIZE = 7


def move_splits(
    board: Board, squares: Iterable[Square], *, most_moves: int = 3, rack_size: int = RACK_SIZE
) -> list[tuple[tuple[Square, ...], ...]]:
    """Every way to lay the new tiles on ``squares`` as the fewest legal moves in turn, each
    move's squares sorted, the moves in the order played; ``[]`` when no way of at most
    ``most_moves`` moves exists, and ``[(squares,)]`` when they are one legal move.

    For a photo taken after more than one move (someone forgot the photo in between): the tiles
    that appeared are split into moves that each obey the placement rules on the board as the
    moves before left it (one line, unbroken, touching the tiles there; the first covering the
    centre star), with at most ``rack_size`` tiles each.  Letters do not matter to these rules.

    >>> board = Board.from_rows(["." * 15] * 7 + ["......HORN....."] + ["." * 15] * 7)
    >>> move_splits(board, [Square.parse(s) for s in ("E7", "E9", "L8")])
    []
    >>> def named(splits): return [[" ".join(map(str, m)) for m in split] for split in splits]
    >>> named(move_splits(board, [Square.parse(s) for s in ("G7", "G9", "K8", "L8")]))
    [['G7 G9', 'K8 L8'], ['K8 L8', 'G7 G9']]
    >>> named(move_splits(board, [Square.parse(s) for s in ("K8", "K9", "L9")]))
    [['K8', 'K9 L9'], ['K8 K9', 'L9']]
    >>> named(move_splits(board, [Square.parse(s) for s in ("K8", "L8")]))
    [['K8 L8']]
    """
    new = tuple(sorted(set(squares)))
    if not new:
        return []
    cells = list(board.cells)
    for moves in range(1, most_moves + 1):
        if len(new) > moves * rack_size:
            continue
        found = _splits(cells, new, moves, rack_size)
        if found:
            return found
    return []


def _legal_on(cells: list[str | None], squares: tuple[Square, ...]) -> bool:
    """Whether new tiles on ``squares`` obey :func:`_check_lines` on the board ``cells``."""
    seen = {sq.row * SIZE + sq.col for sq in squares}
    if any(cells[i] is not None for i in seen):
        return False
    try:
        _check_lines(cells, seen)
    except IllegalPlay:
        return False
    return True


def _splits(cells: list[str | None], new: tuple[Square, ...], moves: int,
            rack_size: int) -> list[tuple[tuple[Square, ...], ...]]:
    if moves == 1:
        return [(new,)] if len(new) <= rack_size and _legal_on(cells, new) else []
    found: list[tuple[tuple[Square, ...], ...]] = []
    tried: set[tuple[Square, ...]] = set()
    lines = [[sq for sq in new if sq.row == r] for r in {sq.row for sq in new}]
    lines += [[sq for sq in new if sq.col == c] for c in {sq.col for sq in new}]
    for line in lines:
        # Every non-empty subset of one line's new tiles, as the first move.
        for mask in range(1, 1 << len(line)):
            first = tuple(sq for k, sq in enumerate(line) if mask >> k & 1)
            if len(first) > rack_size or first in tried or len(first) == len(new):
                continue
            tried.add(first)
            if not _legal_on(cells, first):
                continue
            after = list(cells)
            for sq in first:
                after[sq.row * SIZE + sq.col] = "?!"
            rest = tuple(sq for sq in new if sq not in first)
            for tail in _splits(after, rest, moves - 1, rack_size):
                found.append((tuple(sorted(first)), *tail))
    return sorted(set(found))
