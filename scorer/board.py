"""The 15x15 grid of tiles.

A :class:`Board` holds one tile string per occupied square (upper case = letter tile, lower case
= a blank standing for that letter) and ``None`` for an empty square.

>>> board = Board.from_rows(["." * 15] * 7 + ["...HORN........"] + ["." * 15] * 7)
>>> board[Square.parse("E8")]
'O'
>>> board.tile_count
4
>>> board.transposed()[Square.parse("H5")]
'O'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from scorer.squares import SIZE, Square

EMPTY = "."


class Board:
    """A mutable 15x15 grid.  Cells are addressed by :class:`Square` or by ``row * 15 + col``."""

    __slots__ = ("cells",)

    def __init__(self, cells: Sequence[str | None] | None = None) -> None:
        if cells is None:
            self.cells: list[str | None] = [None] * (SIZE * SIZE)
        else:
            if len(cells) != SIZE * SIZE:
                raise ValueError(f"a board has {SIZE * SIZE} cells, got {len(cells)}")
            self.cells = list(cells)

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> Board:
        """Build a board from 15 strings of 15 characters (``.`` = empty)."""
        if len(rows) != SIZE:
            raise ValueError(f"a board has {SIZE} rows, got {len(rows)}")
        cells: list[str | None] = []
        for number, row in enumerate(rows, start=1):
            if len(row) != SIZE:
                raise ValueError(f"row {number} has {len(row)} characters, expected {SIZE}")
            cells.extend(None if ch == EMPTY else ch for ch in row)
        return cls(cells)

    def rows(self) -> list[str]:
        """15 strings of 15 characters; multi-letter tiles show their first character."""
        return [
            "".join(
                EMPTY if (t := self.cells[r * SIZE + c]) is None else t[0] for c in range(SIZE)
            )
            for r in range(SIZE)
        ]

    def __getitem__(self, square: Square) -> str | None:
        return self.cells[square.row * SIZE + square.col]

    def get(self, row: int, col: int) -> str | None:
        """The tile at (row, col), or ``None`` when empty or off the board."""
        if 0 <= row < SIZE and 0 <= col < SIZE:
            return self.cells[row * SIZE + col]
        return None

    def place(self, tiles: Mapping[Square, str]) -> None:
        for square, tile in tiles.items():
            self.cells[square.row * SIZE + square.col] = tile

    def remove(self, squares: Iterator[Square] | Sequence[Square]) -> None:
        for square in squares:
            self.cells[square.row * SIZE + square.col] = None

    def copy(self) -> Board:
        return Board(self.cells)

    def transposed(self) -> Board:
        return Board([self.cells[c * SIZE + r] for r in range(SIZE) for c in range(SIZE)])

    def occupied(self) -> dict[Square, str]:
        return {
            Square(i // SIZE, i % SIZE): t for i, t in enumerate(self.cells) if t is not None
        }

    @property
    def tile_count(self) -> int:
        return sum(t is not None for t in self.cells)

    def is_empty(self) -> bool:
        return all(t is None for t in self.cells)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.cells == other.cells

    def __hash__(self) -> int:
        return hash(tuple(self.cells))

    def __repr__(self) -> str:
        return "Board.from_rows([\n" + "".join(f"    {r!r},\n" for r in self.rows()) + "])"

    def __str__(self) -> str:
        return "\n".join(self.rows())
