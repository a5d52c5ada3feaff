"""Squares, directions and the premium layout of the 15x15 board.

Rows are numbered 1..15 top to bottom and columns lettered A..O left to right.  A square is
stored 0-based (``Square(row=7, col=7)`` is the centre star, ``H8``).

>>> Square.parse("H8")
Square(row=7, col=7)
>>> str(Square(0, 14))
'O1'
>>> premium(Square.parse("A1")), premium(Square.parse("H8")), premium(Square.parse("B2"))
('TW', '*', 'DW')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

SIZE = 15
COLUMNS = "ABCDEFGHIJKLMNO"
CENTRE_ROW = CENTRE_COL = 7

# The standard layout; the lower half mirrors the upper.  "*" is the centre star (a DW square).
_UPPER = (
    "TW .  .  DL .  .  .  TW .  .  .  DL .  .  TW",
    ".  DW .  .  .  TL .  .  .  TL .  .  .  DW .",
    ".  .  DW .  .  .  DL .  DL .  .  .  DW .  .",
    "DL .  .  DW .  .  .  DL .  .  .  DW .  .  DL",
    ".  .  .  .  DW .  .  .  .  .  DW .  .  .  .",
    ".  TL .  .  .  TL .  .  .  TL .  .  .  TL .",
    ".  .  DL .  .  .  DL .  DL .  .  .  DL .  .",
    "TW .  .  DL .  .  .  *  .  .  .  DL .  .  TW",
)
PREMIUM_LAYOUT: tuple[tuple[str, ...], ...] = tuple(
    tuple(cell for cell in row.split())
    for row in _UPPER + tuple(reversed(_UPPER[:7]))
)

#: (letter multiplier, word multiplier) for each premium code.
MULTIPLIERS: dict[str, tuple[int, int]] = {
    ".": (1, 1), "DL": (2, 1), "TL": (3, 1), "DW": (1, 2), "TW": (1, 3), "*": (1, 2),
}

_SQUARE_RE = re.compile(r"^([A-Oa-o])(1[0-5]|[1-9])$")


class Direction(Enum):
    ACROSS = "across"
    DOWN = "down"

    @property
    def step(self) -> tuple[int, int]:
        """(row step, column step) along the direction."""
        return (0, 1) if self is Direction.ACROSS else (1, 0)

    @property
    def other(self) -> Direction:
        return Direction.DOWN if self is Direction.ACROSS else Direction.ACROSS


@dataclass(frozen=True, order=True, slots=True)
class Square:
    """One square of the board, 0-based."""

    row: int
    col: int

    def __post_init__(self) -> None:
        if not (0 <= self.row < SIZE and 0 <= self.col < SIZE):
            raise ValueError(f"square ({self.row}, {self.col}) is off the board")

    @staticmethod
    def parse(name: str) -> Square:
        """Parse ``"H8"`` (column letter, row number; case-insensitive)."""
        m = _SQUARE_RE.match(name.strip())
        if not m:
            raise ValueError(f"{name!r} is not a square (expected a column A-O and a row 1-15)")
        return Square(int(m.group(2)) - 1, COLUMNS.index(m.group(1).upper()))

    @property
    def name(self) -> str:
        return f"{COLUMNS[self.col]}{self.row + 1}"

    def __str__(self) -> str:
        return self.name

    def transposed(self) -> Square:
        return Square(self.col, self.row)


def premium(square: Square) -> str:
    """The premium code of a square: ``"."``, ``"DL"``, ``"TL"``, ``"DW"``, ``"TW"`` or ``"*"``."""
    return PREMIUM_LAYOUT[square.row][square.col]
