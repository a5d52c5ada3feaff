"""Tile sets: which letters a language's bag holds, how many of each, and what they are worth.

A *tile* is a string: usually one character (``"A"``, ``"Ä"``), sometimes several
(``"CH"`` in Spanish, ``"L·L"`` in Catalan).  The blank is ``"?"`` in a rack; on the board a
blank is written as the lower-case form of the letter it stands for.

>>> english = TileSet.named("en")
>>> english.value("Q"), english.count("E"), english.value("q")
(10, 12, 0)
>>> english.total_tiles
100
>>> TileSet.named("es").split("CHaRRO")
('CH', 'a', 'RR', 'O')
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

BLANK = "?"

#: Tile-set codes and the names they may also be given by.
ALIASES: dict[str, str] = {
    "english": "en", "german": "de", "deutsch": "de", "french": "fr", "spanish": "es",
    "dutch": "nl", "norwegian": "no", "polish": "pl", "catalan": "ca", "slovene": "sl",
    "slovenian": "sl",
}


class TileError(ValueError):
    """A letter or rack that the tile set does not have."""


@dataclass(frozen=True)
class TileSet:
    """The letters of one language edition with their counts and values."""

    code: str
    name: str
    counts: dict[str, int] = field(hash=False)
    values: dict[str, int] = field(hash=False)
    vowels: frozenset[str] = field(hash=False)

    @staticmethod
    @cache
    def named(name: str = "en") -> TileSet:
        """The built-in tile set for a language code (``"de"``) or name (``"german"``)."""
        code = ALIASES.get(name.lower(), name.lower())
        table = _builtin_tables()
        if code not in table:
            known = ", ".join(sorted(table))
            raise TileError(f"unknown tile set {name!r}; known: {known}")
        entry = table[code]
        counts: dict[str, int] = {}
        values: dict[str, int] = {}
        vowels: set[str] = set()
        for letter, count, value, is_vowel in entry["tiles"]:
            if count == 0:
                continue
            counts[letter] = count
            values[letter] = value
            if is_vowel:
                vowels.add(letter)
        return TileSet(code, entry["name"], counts, values, frozenset(vowels))

    @staticmethod
    def available() -> list[str]:
        """Codes of the built-in tile sets."""
        return sorted(_builtin_tables())

    @property
    def letters(self) -> list[str]:
        """The letter tiles (blank excluded), in the tile set's own order."""
        return [t for t in self.counts if t != BLANK]

    @property
    def total_tiles(self) -> int:
        return sum(self.counts.values())

    def bag(self) -> Counter[str]:
        """A full bag, as a multiset of tiles (blanks as ``"?"``)."""
        return Counter(self.counts)

    def count(self, tile: str) -> int:
        return self.counts.get(tile, 0)

    def value(self, tile: str) -> int:
        """Points for a tile: a blank (``"?"`` or a lower-case letter) is worth 0."""
        if tile == BLANK or is_blank(tile):
            return 0
        try:
            return self.values[tile]
        except KeyError:
            raise TileError(f"{tile!r} is not a tile of the {self.name} set") from None

    def rack_value(self, tiles: str | list[str] | tuple[str, ...]) -> int:
        """Sum of face values of a rack (a string is split into tiles first)."""
        if isinstance(tiles, str):
            tiles = self.split(tiles)
        return sum(self.value(t) for t in tiles)

    @cached_property
    def _by_length(self) -> list[str]:
        return sorted(self.counts, key=len, reverse=True)

    def split(self, text: str) -> tuple[str, ...]:
        """Split written letters into tiles, longest tile first.

        Multi-letter tiles may also be bracketed (``"[CH]"``).  Lower case stays lower case
        (a blank); ``"?"`` and ``"."`` pass through as single tokens.
        """
        out: list[str] = []
        i = 0
        n = len(text)
        by_length = self._by_length
        while i < n:
            ch = text[i]
            if ch == "[":
                end = text.find("]", i)
                if end < 0:
                    raise TileError(f"unclosed '[' in {text!r}")
                out.append(text[i + 1 : end])
                i = end + 1
                continue
            if ch in "?.":
                out.append(ch)
                i += 1
                continue
            for tile in by_length:
                k = len(tile)
                if k > 1 and text[i : i + k].upper() == tile:
                    out.append(text[i : i + k])
                    i += k
                    break
            else:
                out.append(ch)
                i += 1
        return tuple(out)

    def check_letter(self, tile: str) -> None:
        """Raise :class:`TileError` unless ``tile`` is a letter of the set (any case) or ``?``."""
        if tile == BLANK:
            return
        if tile.upper() not in self.counts or tile.upper() == BLANK:
            raise TileError(f"{tile!r} is not a letter of the {self.name} tile set")


def is_blank(tile: str) -> bool:
    """True for a blank on the board (a lower-case letter) or in a rack (``"?"``)."""
    return tile == BLANK or (tile != tile.upper() and tile == tile.lower())


def face(tile: str) -> str:
    """The tile as it sits in a rack: a designated blank becomes ``"?"``."""
    return BLANK if is_blank(tile) else tile


def package_file(name: str) -> Path | Traversable:
    """A file bundled with the package (``name`` relative to its folder): read straight from
    the folder where the package lies in one (importlib.resources' readers, imported at their
    first use, took a millisecond of a cold read), else found by importlib.resources."""
    path = Path(__file__).parent / name
    return path if path.is_file() else resources.files("scorer").joinpath(name)


@cache
def _builtin_tables() -> dict[str, dict]:
    return json.loads(package_file("data/tilesets.json").read_text(encoding="utf-8"))
