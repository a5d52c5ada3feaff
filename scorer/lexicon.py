"""The word list: which words are valid, and which letters a blank may stand for.

A :class:`Lexicon` is a set of words compared without regard to case.  It is loaded from a
plain-text list (one word per line, optionally gzipped) or built from any iterable of words;
:meth:`Lexicon.default` is the bundled ENABLE list.

>>> lex = Lexicon.from_words(["qi", "Za", "straße", "ÄRGER"])
>>> "QI" in lex, lex.is_valid("za"), "äRGer" in lex, "xi" in lex
(True, True, True, False)
>>> len(lex)
4

Blank solving finds every letter a blank (or two) may stand for so that all words a move forms
are valid; an item that is an ``int`` is an unknown blank, the same id in two words being the same
tile:

>>> lex.blank_solutions([["Q", 0]], "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
[{0: 'I'}]

Lines of a file that cannot be words are reported, with their line numbers, rather than fatal:

>>> lex = Lexicon.from_lines(["# my list", "cat", "", "c4t", "dog house", "DOG"], source="list.txt")
>>> sorted(lex.words)
['CAT', 'DOG']
>>> lex.report.junk
[JunkLine(line_number=4, text='c4t', reason='contains a digit'), \
JunkLine(line_number=5, text='dog house', reason='contains a space')]
"""

from __future__ import annotations

import gzip
import unicodedata
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import NamedTuple

from scorer.tiles import TileSet, package_file

#: Resource path of the bundled word list inside the ``scorer`` package.
DEFAULT_RESOURCE = "data/enable1.txt.gz"

_GZIP_MAGIC = b"\x1f\x8b"

#: One item of a formed word handed to :meth:`Lexicon.blank_solutions`: a known letter, or the
#: id of a blank whose letter is unknown.
WordItem = str | int


class LexiconError(ValueError):
    """A word list that cannot be read, or (in strict mode) holds a line that is not a word.

    ``source`` names the file (or other source) and ``line_number`` is 1-based, ``None`` when the
    error is not about one line.
    """

    def __init__(self, message: str, source: str, line_number: int | None = None) -> None:
        super().__init__(message)
        self.source = source
        self.line_number = line_number


class JunkLine(NamedTuple):
    """A line of a word list that was skipped because it cannot be a word."""

    line_number: int
    text: str
    reason: str


@dataclass
class LexiconReport:
    """What loading a word list found besides words."""

    source: str
    encoding: str = "utf-8"
    lines: int = 0
    duplicates: int = 0
    junk: list[JunkLine] = field(default_factory=list)

    def summary(self, first: int = 5) -> str:
        """One line for a warning: how many junk lines, and the first few line numbers.

        >>> LexiconReport("x.txt", junk=[JunkLine(3, "a1", "contains a digit")]).summary()
        'x.txt: 1 line is not a word and was skipped (line 3)'
        >>> r = LexiconReport("x.txt", junk=[JunkLine(n, "a1", "digit") for n in range(1, 8)])
        >>> r.summary(first=3)
        'x.txt: 7 lines are not words and were skipped (lines 1, 2, 3, ...)'
        """
        count = len(self.junk)
        if count == 0:
            return f"{self.source}: every line is a word, a comment or blank"
        numbers = ", ".join(str(j.line_number) for j in self.junk[:first])
        more = ", ..." if count > first else ""
        if count == 1:
            return f"{self.source}: 1 line is not a word and was skipped (line {numbers})"
        return (
            f"{self.source}: {count} lines are not words and were skipped"
            f" (lines {numbers}{more})"
        )


def normalise(word: str) -> str:
    """The form a word is stored and looked up in: NFC, upper case, one character per letter.

    >>> normalise("qi"), normalise("Ärger"), normalise("cHaRRo")
    ('QI', 'ÄRGER', 'CHARRO')

    German ß upper-cases to "SS", which would change the word's length and so break the one
    letter per character correspondence with tiles and squares; a letter whose upper case is
    longer than itself is kept as it is (the rest of the word is still upper-cased, so lookups
    stay case-insensitive):

    >>> normalise("Straße")
    'STRAßE'
    """
    if word.isascii():
        return word.upper()
    # A list may spell Ä as A + combining diaeresis; NFC makes both spellings the same key.
    word = unicodedata.normalize("NFC", word)
    upper = word.upper()
    if len(upper) == len(word):
        return upper
    return "".join(ch if len(ch.upper()) != 1 else ch.upper() for ch in word)


def _alphabet_characters(tileset: TileSet | str | None) -> frozenset[str] | None:
    """Characters that may appear in a word of this tile set (multi-letter tiles contribute
    each of their characters), or ``None`` when any letter is allowed."""
    if tileset is None:
        return None
    if isinstance(tileset, str):
        tileset = TileSet.named(tileset)
    return frozenset(ch for tile in tileset.letters for ch in normalise(tile))


def _junk_reason(word: str, alphabet: frozenset[str] | None) -> str | None:
    """Why a stripped, normalised, non-empty line cannot be a word; ``None`` when it can."""
    if alphabet is not None:
        outside = [ch for ch in word if ch not in alphabet]
        if not outside:
            return None
        ch = outside[0]
    else:
        if word.isalpha():
            return None
        ch = next(ch for ch in word if not ch.isalpha())
    if ch.isdigit():
        return "contains a digit"
    if ch.isspace():
        return "contains a space"
    if ch.isalpha():
        return f"letter {ch!r} is not in the tile set"
    return f"contains {ch!r}, which is not a letter"


def _decode(data: bytes) -> tuple[str, str]:
    """Text of a word list and the encoding it was read with: UTF-8 (a BOM is dropped) when it
    decodes as such, else Latin-1, which decodes any bytes."""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


#: Lookups in a sorted list's text (:func:`_in_sorted_lines`, about 10 microseconds each)
#: after which its words are made a set (25 ms for the bundled list, then a fraction of a
#: microsecond each): a board's word check asks a few hundred words, a game's pipeline or a
#: web server more as it goes on.
SET_AFTER_LOOKUPS = 1000


class Lexicon:
    """A set of valid words, compared case-insensitively (see :func:`normalise`)."""

    __slots__ = ("_lines", "_lookups", "_sorted", "_words", "report")

    def __init__(self, words: frozenset[str] | None, report: LexiconReport,
                 lines: str | None = None, *, sorted_lines: bool = False) -> None:
        """Wrap already normalised words; use the ``from_*`` constructors instead.  ``lines``:
        the same words one per line, where the list was read whole (see :meth:`word_lines`).
        ``sorted_lines``: ``lines`` holds each word once, in ascending order, and ``words``
        may be None: the words are then looked up in the text and made a set only once
        :data:`SET_AFTER_LOOKUPS` lookups were made, or the set is asked for."""
        if words is None and not (sorted_lines and lines is not None):
            raise ValueError("a lexicon without its set of words needs its sorted lines")
        self._words = words
        self.report = report
        self._lines = lines
        self._sorted = sorted_lines
        self._lookups = 0

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_lines(
        cls,
        lines: Iterable[str],
        *,
        source: str = "<lines>",
        tileset: TileSet | str | None = None,
        strict: bool = False,
        encoding: str = "utf-8",
    ) -> Lexicon:
        """Build a lexicon from the lines of a word list (line numbers count from 1).

        Blank lines and lines starting with ``#`` are skipped; surrounding white space is ignored.
        A line that cannot be a word (a digit, punctuation, a space inside, or, when ``tileset``
        is given, a letter that set has no tile for) is recorded in :attr:`report` or, with
        ``strict=True``, raises :class:`LexiconError` naming ``source`` and the line.

        >>> Lexicon.from_lines(["ÄRGER", "CHARRO"], source="es.txt", tileset="es", strict=True)
        Traceback (most recent call last):
        ...
        scorer.lexicon.LexiconError: es.txt:1: letter 'Ä' is not in the tile set: 'ÄRGER'
        """
        if isinstance(lines, str | bytes):
            # Iterating a string would make each character a "line".
            raise TypeError("lines must be an iterable of strings, not a single string")
        alphabet = _alphabet_characters(tileset)
        report = LexiconReport(source=source, encoding=encoding)
        words: set[str] = set()
        add = words.add
        accepted = 0
        line_number = 0
        for line_number, line in enumerate(lines, start=1):  # noqa: B007 (used after the loop)
            text = line.strip()
            if not text or text[0] == "#":
                continue
            word = normalise(text)
            # The common case (plain letters, no tile set) costs one isalpha() per line.
            if alphabet is None and word.isalpha():
                add(word)
                accepted += 1
                continue
            reason = _junk_reason(word, alphabet)
            if reason is None:
                add(word)
                accepted += 1
                continue
            if strict:
                message = f"{source}:{line_number}: {reason}: {text!r}"
                raise LexiconError(message, source, line_number)
            report.junk.append(JunkLine(line_number, text, reason))
        report.lines = line_number
        report.duplicates = accepted - len(words)
        return cls(frozenset(words), report)

    @classmethod
    def from_words(
        cls, words: Iterable[str], *, tileset: TileSet | str | None = None, strict: bool = True
    ) -> Lexicon:
        """Build a lexicon from words held in memory.

        Unlike a file, words handed over by a program are expected to be clean, so a word that
        is not one raises :class:`LexiconError` unless ``strict=False``.

        >>> len(Lexicon.from_words(["qi", "QI", "za"]))
        2
        """
        return cls.from_lines(words, source="<words>", tileset=tileset, strict=strict)

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        *,
        source: str = "<bytes>",
        tileset: TileSet | str | None = None,
        strict: bool = False,
    ) -> Lexicon:
        """Build a lexicon from the bytes of a word list, gzipped or not, UTF-8 or Latin-1."""
        if data[:2] == _GZIP_MAGIC:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as exc:
                raise LexiconError(f"{source}: corrupt gzip data: {exc}", source) from exc
        text, encoding = _decode(data)
        # split("\n") rather than splitlines(): a stray form feed or U+2028 inside a line must
        # not shift the line numbers that are reported; "\r" of CRLF is stripped with the rest.
        # Lines end in LF or CRLF; a list with old Mac CR-only endings has no LF at all.
        newline = "\r" if "\n" not in text and "\r" in text else "\n"
        if tileset is None and text.isascii():
            # A clean list of plain letters (the bundled one, most others) is taken whole, with
            # the same words and report as line by line, in a tenth of the time: when the text
            # but its line ends is letters and no line is empty, every line is a word as it
            # stands (nothing to strip, no junk), so the text is split once, already upper case.
            # Lines that all end in CRLF end so.
            end = "\r\n" if newline == "\n" and "\r" in text and (
                text.count("\r\n") == text.count("\n")) else newline
            body = text[:-len(end)] if text.endswith(end) else text
            if (body and not body.startswith(end) and not body.endswith(end)
                    and end * 2 not in body and body.replace(end, "").isalpha()):
                upper = body.upper()
                words = upper.split(end)
                report = LexiconReport(source=source, encoding=encoding, lines=len(words))
                unique = frozenset(words)
                report.duplicates = len(words) - len(unique)
                if end != "\n":
                    upper = upper.replace(end, "\n")
                return cls(unique, report, upper + "\n")
        lines = text.split(newline)
        if lines and lines[-1] == "":
            lines.pop()
        return cls.from_lines(
            lines, source=source, tileset=tileset, strict=strict, encoding=encoding
        )

    @classmethod
    def from_file(
        cls,
        path: str | PathLike[str],
        tileset: TileSet | str | None = None,
        strict: bool = False,
    ) -> Lexicon:
        """Load a word list from a file (gzip is detected by its magic bytes, not the name).

        An unreadable file raises :class:`LexiconError` naming it.
        """
        source = str(path)
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise LexiconError(f"cannot read word list {source}: {reason}", source) from exc
        return cls.from_bytes(data, source=source, tileset=tileset, strict=strict)

    @classmethod
    def load_default(cls) -> Lexicon:
        """Load the bundled ENABLE list afresh (172,820 words); :meth:`default` caches it.

        The list is ours: plain lower-case letters, a word a line, each once, in alphabetical
        order (``tests/test_lexicon.py`` holds it to that).  Its words are looked up in its
        text as it stands, upper-cased, and made a set only where many are (see
        :data:`SET_AFTER_LOOKUPS`): a cold read of a board asks a few dozen, and building the
        set took 25 of the 40 ms of loading the list.
        """
        data = gzip.decompress(package_file(DEFAULT_RESOURCE).read_bytes())
        text = data.upper().decode("ascii")
        count = text.count("\n")
        report = LexiconReport(source="ENABLE (bundled)", lines=count)
        return cls(None, report, text, sorted_lines=True)

    @classmethod
    def default(cls) -> Lexicon:
        """The bundled ENABLE list, loaded once per process."""
        global _default
        if _default is None:
            _default = cls.load_default()
        return _default

    # -- queries -----------------------------------------------------------------------------

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        return self._has(word.upper() if word.isascii() else normalise(word))

    def is_valid(self, word: str) -> bool:
        """Whether ``word`` is in the list, in any case.

        >>> Lexicon.from_words(["qi"]).is_valid("Qi")
        True
        """
        return self._has(word.upper() if word.isascii() else normalise(word))

    def _has(self, key: str) -> bool:
        """Whether the normalised ``key`` is one of the words."""
        if self._words is not None:
            return key in self._words
        self._lookups += 1
        if self._lookups > SET_AFTER_LOOKUPS:
            return key in self.words
        assert self._lines is not None
        return _in_sorted_lines(self._lines, key)

    def __len__(self) -> int:
        if self._words is None:
            return self.report.lines - self.report.duplicates
        return len(self._words)

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def word_lines(self) -> str:
        """Every word followed by a line feed, in no particular order (a word may come twice):
        for a view of the whole list at once (:mod:`vision.wordcheck` spells the words as
        arrays).  Where the list was read whole this is its text as read, kept: joining the
        words of the set instead visits them in its hash order, scattered over memory (30 ms
        for the bundled list, against none).

        >>> Lexicon.from_bytes("qi za qi ".replace(" ", chr(10)).encode()).word_lines().split()
        ['QI', 'ZA', 'QI']
        >>> Lexicon.from_words(["qi"]).word_lines() == "QI" + chr(10)
        True
        """
        if self._lines is None:
            return "".join(word + "\n" for word in self._words)
        return self._lines

    @property
    def words(self) -> frozenset[str]:
        """The words, normalised (upper case)."""
        if self._words is None:
            assert self._lines is not None
            self._words = frozenset(self._lines.split("\n")[:-1])
        return self._words

    def __repr__(self) -> str:
        return f"<Lexicon {self.report.source}: {len(self)} words>"

    # -- blanks ------------------------------------------------------------------------------

    def blank_solutions(
        self,
        words: Sequence[Sequence[WordItem]],
        alphabet: Iterable[str] | TileSet,
        limit: int | None = None,
    ) -> list[dict[int, str]]:
        """Every assignment of letters to blanks that makes all ``words`` valid, sorted.

        Each word is a sequence of items: a known letter (a string, any case; a multi-letter
        tile such as ``"CH"`` is one item) or the ``int`` id of a blank whose letter is unknown.
        The same id may appear in several words (the main word and a cross word through the
        blank).  Letters are taken from ``alphabet`` (a tile set's letters, or any iterable of
        letters: a plain string stands for its characters).  Assignments are sorted by blank id,
        then letter; ``limit`` stops after that many (``limit=2`` tells one from several).
        A word without blanks must be valid itself, else there is no solution; with no blanks at
        all the one solution is the empty assignment.

        >>> lex = Lexicon.from_words(["QI", "QIS", "IS", "AS", "ZA", "ZAS", "BA", "BI"])
        >>> AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        >>> lex.blank_solutions([["Z", 0]], AZ)
        [{0: 'A'}]
        >>> lex.blank_solutions([[0, "S"]], AZ)
        [{0: 'A'}, {0: 'I'}]
        >>> lex.blank_solutions([[0, "S"], ["Q", 0]], AZ)   # a cross word settles it
        [{0: 'I'}]
        >>> lex.blank_solutions([["Z", 0, 1]], AZ)
        [{0: 'A', 1: 'S'}]
        >>> lex.blank_solutions([[0, 1]], AZ, limit=2)
        [{0: 'A', 1: 'S'}, {0: 'B', 1: 'A'}]
        >>> lex.blank_solutions([["X", 0]], AZ)
        []
        """
        letters = _alphabet_letters(alphabet)
        if limit is not None and limit <= 0:
            return []
        templates: list[tuple[tuple[str | int, ...], frozenset[int]]] = []
        for word in words:
            template = tuple(_template_item(item) for item in word)
            blanks = frozenset(item for item in template if isinstance(item, int))
            if not blanks:
                if not self._has("".join(template)):  # type: ignore[arg-type]
                    return []
                continue
            templates.append((template, blanks))
        blank_ids = sorted(set().union(*(blanks for _, blanks in templates)))
        if not blank_ids:
            return [{}]

        # Each blank's candidates, first narrowed by the words in which it is the only blank:
        # with one or two blanks this leaves a handful of letters, so the joint search is tiny.
        candidates: dict[int, list[str]] = {}
        for blank in blank_ids:
            alone = [t for t, b in templates if b == {blank}]
            candidates[blank] = [
                letter
                for letter in letters
                if all(self._has(_fill(t, {blank: letter})) for t in alone)
            ]
            if not candidates[blank]:
                return []

        # Words with several blanks are checked as soon as their last blank is assigned.
        position = {blank: i for i, blank in enumerate(blank_ids)}
        joint: list[list[tuple[str | int, ...]]] = [[] for _ in blank_ids]
        for template, blanks in templates:
            if len(blanks) > 1:
                joint[max(position[b] for b in blanks)].append(template)

        solutions: list[dict[int, str]] = []
        assignment: dict[int, str] = {}

        def search(depth: int) -> bool:
            """Extend ``assignment`` from blank ``depth`` on; False once ``limit`` is reached."""
            if depth == len(blank_ids):
                solutions.append(dict(assignment))
                return limit is None or len(solutions) < limit
            blank = blank_ids[depth]
            for letter in candidates[blank]:
                assignment[blank] = letter
                if all(self._has(_fill(t, assignment)) for t in joint[depth]):
                    if not search(depth + 1):
                        return False
            del assignment[blank]
            return True

        search(0)
        return solutions


_default: Lexicon | None = None


def _in_sorted_lines(lines: str, word: str) -> bool:
    """Whether ``word`` is one of the lines of ``lines`` (each ending in a line feed, in
    ascending order, none twice), by halving the text: the line around the middle of what is
    left is found by the line feeds either side of it, so no index of the lines is needed.

    >>> text = "".join(word + chr(10) for word in ("AA", "AB", "BE", "QI"))
    >>> [_in_sorted_lines(text, w) for w in ("AA", "BE", "QI", "A", "AC", "ZZ", "")]
    [True, True, True, False, False, False, False]
    """
    low, high = 0, len(lines)  # the lines starting in [low, high) are left to look at
    while low < high:
        middle = (low + high) // 2
        start = lines.rfind("\n", 0, middle) + 1
        end = lines.index("\n", start)
        line = lines[start:end]
        if line == word:
            return True
        if line < word:
            low = end + 1
        else:
            high = start
    return False


def _alphabet_letters(alphabet: Iterable[str] | TileSet) -> list[str]:
    """Distinct normalised letters of an alphabet, sorted; the blank ``"?"`` is not a letter."""
    if isinstance(alphabet, TileSet):
        alphabet = alphabet.letters
    letters = {normalise(letter) for letter in alphabet if letter and letter != "?"}
    return sorted(letters)


def _template_item(item: WordItem) -> str | int:
    if isinstance(item, bool) or not isinstance(item, str | int):
        raise TypeError(f"a word item is a letter (str) or a blank id (int), not {item!r}")
    if isinstance(item, str):
        if not item:
            raise ValueError("a word item may not be an empty string")
        return normalise(item)
    return item


def _fill(template: tuple[str | int, ...], assignment: dict[int, str]) -> str:
    return "".join(assignment[item] if isinstance(item, int) else item for item in template)


__all__ = [
    "DEFAULT_RESOURCE",
    "JunkLine",
    "Lexicon",
    "LexiconError",
    "LexiconReport",
    "default_lexicon",
    "normalise",
]


def default_lexicon(tileset: TileSet) -> Lexicon | None:
    """The bundled word list where it fits the tile set (English), else None."""
    if tileset.code != "en":
        return None
    return Lexicon.default()

