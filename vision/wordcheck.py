"""The board's words as evidence for its letters: a read letter that leaves a word invalid is
replaced when exactly one letter makes every word through its square valid.

A board from a real game holds words of the agreed dictionary (a phony that stood is the rare
exception).  A misread letter almost always breaks a word; where the square lies in two words
(across and down), the dictionary nearly always leaves only one letter that mends both.  The
check works on a whole reading (:class:`vision.read.BoardReading`) after the readers, so it
serves both the calibrated classifier and Tesseract.

Which squares are doubted: in each word not in the dictionary, its least confident letter,
then its two least confident letters together.  A doubted square is solved as if it were a
blank (:meth:`scorer.lexicon.Lexicon.blank_solutions`), with every word through it as the
constraint.  A letter is changed only when the solution is unique; the square keeps a low
confidence and its source becomes ``"dictionary"``.  Blanks (``?``) are never changed: their
letter is unknown to a photo, so a word through a blank is checked with the blank free.

The misread letters of a word are not always its least confident ones (a blurred E read as F
with a fair margin, beside a letter the reader barely took).  A word that doubting leaves
invalid is then mended by the letters its glyphs look like next: up to :data:`MOST_MENDED`
of its letters changed, each to another of the reader's likeliest letters for its glyph, so
that every word through them is valid; of such changes the cheapest (each changed letter
costing one more than its rank among the glyph's guesses) is made when it is the only
cheapest one.  A letter read with near certainty (:data:`SURE`) is neither doubted nor changed
to a lesser guess: a word of such letters that is no word was broken by a tile or blank the
photo did not show.  On the 300 rendered photos of ``bench/eval_rendered.py`` (both readers)
these two rules leave 76 fewer squares wrong and 9 more.

A ``?`` that is not a blank is different: a glyph the reader found ink for but could read no
letter in (Tesseract on a blurred tile often answers nothing).  Such an *unread* square is
solved like a doubted one, valid words or not, and takes the dictionary's letter when that is
unique; otherwise it stays ``?`` with its low confidence.

A blank tile can also pass for an empty square, on boards whose squares are of the tiles'
colour.  After the letters, an empty square at the end of a word still invalid becomes a blank
where that makes every word through it valid (:func:`missed_blanks`), within the set's blanks.

>>> from scorer.lexicon import Lexicon
>>> lex = Lexicon.from_words(["CAT", "AT", "TA", "ACT"])
>>> rows = ["." * 15 for _ in range(15)]
>>> rows[7] = "......CIT......"                           # CAT with its A read as I
>>> rows[8] = ".......T......."                           # ... and AT going down through it
>>> fixed, changes = correct_words(rows, np.full((15, 15), 0.9), lex)
>>> fixed[7][6:9], changes
('CAT', [((7, 7), 'I', 'A')])
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from scorer.lexicon import Lexicon
from scorer.tiles import TileSet

if TYPE_CHECKING:
    from vision.read import BoardReading

SIZE = 15
EMPTY = "."
BLANK = "?"
#: Confidence given to a letter the dictionary chose.
CHOSEN_CONFIDENCE = 0.5
#: At most this many letters of one invalid word are doubted together.
MOST_DOUBTED = 2
#: Words with more unknown squares than this (doubted letters and blanks together) are not
#: solved: each unknown multiplies the search by the alphabet, and so many unknowns settle
#: nothing anyway.
MOST_UNKNOWN = 3
#: At most this many letters of one invalid word are changed to letters their glyphs look
#: like next (:meth:`_BoardCheck.mend_by_lookalikes`).
MOST_MENDED = 2
#: ... of which a letter read with at least this confidence is changed only to the glyph's
#: likeliest letter.
SURE = 0.99

Square = tuple[int, int]


def words_on(rows: Sequence[str]) -> list[list[Square]]:
    """Every word of two or more tiles on the board, as its squares, across then down.

    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[0] = "AB............."
    >>> rows[1] = "C.............."
    >>> words_on(rows)
    [[(0, 0), (0, 1)], [(0, 0), (1, 0)]]
    """
    words: list[list[Square]] = []
    for across in (True, False):
        for line in range(SIZE):
            run: list[Square] = []
            for k in range(SIZE + 1):
                square = (line, k) if across else (k, line)
                if k < SIZE and rows[square[0]][square[1]] != EMPTY:
                    run.append(square)
                    continue
                if len(run) >= 2:
                    words.append(run)
                run = []
    return words


def correct_words(
    rows: Sequence[str],
    confidence: np.ndarray,
    lexicon: Lexicon,
    alphabet: Sequence[str] | TileSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    unread: Collection[Square] = (),
    likeliest: Mapping[Square, Sequence[str]] | None = None,
) -> tuple[list[str], list[tuple[Square, str, str]]]:
    """The board with letters that break words replaced where the dictionary settles them.

    ``rows`` are single-character squares (``.`` empty, ``?`` blank, a letter); ``confidence``
    is the readers' confidence per square (15x15), which orders the doubt.  ``unread``: squares
    shown as ``?`` that hold a letter no reader could make out (see the module notes).  Returns
    the new rows and the changes as ``(square, read, chosen)``.  A word mended by a change may
    let a word beside it be mended next, so the words are gone through until nothing changes.

    ``likeliest``: the reader's likeliest letters for a square's glyph, best first.  Where the
    words allow several letters, the one of those the glyph looks likeliest to be is chosen;
    of letters it does not look like at all, none.

    >>> lex = Lexicon.from_words(["CAT", "COT"])
    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[7] = "......CIT......"                  # CAT or COT
    >>> sure = np.full((15, 15), 0.9); sure[7, 7] = 0.4
    >>> correct_words(rows, sure, lex)[1]
    []
    >>> correct_words(rows, sure, lex, likeliest={(7, 7): "IAL"})[1]
    [((7, 7), 'I', 'A')]
    >>> correct_words(rows, sure, lex, likeliest={(7, 7): "ILE"})[1]
    []

    >>> lex = Lexicon.from_words(["CAT", "AT", "TA", "ACT", "ART"])
    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[7] = "......C?T......"                  # the A unread: CAT, ACT or ART across
    >>> rows[8] = ".......T......."                  # AT down through it leaves only CAT
    >>> correct_words(rows, np.full((15, 15), 0.9), lex, unread=[(7, 7)])[1]
    [((7, 7), '?', 'A')]
    >>> correct_words(rows, np.full((15, 15), 0.9), lex)[1]  # a real blank stays one
    []
    """
    check = _BoardCheck(rows, lexicon, alphabet, likeliest or {}, confidence)
    changes: list[tuple[Square, str, str]] = []
    settled: set[Square] = set()
    progress = True
    while progress:
        progress = False
        for square in unread:
            if (square in settled or check.letter(square) != BLANK
                    or square not in check.through):  # a lone tile: no word to go by
                continue
            chosen = check.solve([square])
            if chosen is not None:
                check.board[square[0]][square[1]] = chosen[square]
                changes.append((square, BLANK, chosen[square]))
                settled.add(square)
                progress = True
        for word in check.words:
            if check.valid(word):
                continue
            # A letter read with near certainty is not doubted: a word of such letters that is
            # no word was broken elsewhere (a tile missed or a blank's letter).
            doubt = sorted((sq for sq in word if check.letter(sq) != BLANK and sq not in settled
                            and float(confidence[sq]) < SURE),
                           key=lambda sq: float(confidence[sq]))
            chosen = None
            for count in range(1, MOST_DOUBTED + 1):
                if len(doubt) < count:
                    break
                chosen = check.solve(doubt[:count])
                if chosen is not None:
                    break
            if chosen is None:
                # The misread letters need not be the least confident ones: a word is
                # also mended by the letters its glyphs look like next.
                chosen = check.mend_by_lookalikes(word, settled)
            if chosen is None:
                continue
            for square, letter in chosen.items():
                read = check.letter(square)
                if letter != read:
                    check.board[square[0]][square[1]] = letter
                    changes.append((square, read, letter))
                    progress = True
                settled.add(square)
    return ["".join(row) for row in check.board], changes


class _BoardCheck:
    """A board being mended: its letters, its words and which words pass through a square."""

    def __init__(self, rows: Sequence[str], lexicon: Lexicon,
                 alphabet: Sequence[str] | TileSet,
                 likeliest: Mapping[Square, Sequence[str]],
                 confidence: np.ndarray | None = None) -> None:
        self.board = [list(row) for row in rows]
        self.likeliest = likeliest
        self.confidence = np.zeros((SIZE, SIZE)) if confidence is None else confidence
        self.lexicon = lexicon
        self.alphabet = alphabet
        self.words = words_on(rows)
        self.through: dict[Square, list[int]] = {}
        for index, word in enumerate(self.words):
            for square in word:
                self.through.setdefault(square, []).append(index)

    def letter(self, square: Square) -> str:
        return self.board[square[0]][square[1]]

    def items(self, word: list[Square], unknown: dict[Square, int]) -> list[str | int]:
        """The word for :meth:`Lexicon.blank_solutions`: letters, and ids for the unknown
        squares and the blanks (which get ids of their own, added to ``unknown``)."""
        out: list[str | int] = []
        for square in word:
            letter = self.letter(square)
            if square in unknown:
                out.append(unknown[square])
            elif letter == BLANK:
                out.append(unknown.setdefault(square, len(unknown)))
            else:
                out.append(letter)
        return out

    def valid(self, word: list[Square]) -> bool:
        """Whether the word is in the dictionary (some letter for each blank in it); a word of
        more blanks than :data:`MOST_UNKNOWN` counts as valid, there being nothing to check."""
        unknown: dict[Square, int] = {}
        items = self.items(word, unknown)
        if len(unknown) > MOST_UNKNOWN:
            return True
        return bool(self.lexicon.blank_solutions([items], self.alphabet, limit=1))

    def solve(self, doubted: list[Square]) -> dict[Square, str] | None:
        """The doubted squares' letters when exactly one choice makes all their words valid."""
        unknown = {square: i for i, square in enumerate(doubted)}
        involved = sorted({w for square in doubted for w in self.through[square]})
        constraint = [self.items(self.words[w], unknown) for w in involved]
        if len(unknown) > MOST_UNKNOWN:
            return None
        solutions = self.lexicon.blank_solutions(constraint, self.alphabet)
        # Blanks on the board are free in each solution; only the doubted squares must agree.
        choices = {tuple(s[unknown[sq]] for sq in doubted) for s in solutions}
        if len(choices) > 1:
            choices = self._likeliest_of(doubted, choices)
        if len(choices) != 1:
            return None
        (letters,) = choices
        return dict(zip(doubted, letters, strict=True))

    def mend_by_lookalikes(self, word: list[Square],
                           settled: Collection[Square]) -> dict[Square, str] | None:
        """The cheapest change of up to :data:`MOST_MENDED` letters of an invalid ``word``,
        each to another of the letters its glyph looks likeliest to be, that makes every word
        through the changed squares valid; None when no change does, or several are cheapest.

        A change costs, per letter, one plus the new letter's rank among the glyph's
        likeliest: one letter to the glyph's second guess is cheaper than two letters, or
        than one to its third guess.
        """
        options: list[tuple[Square, list[tuple[str, int]]]] = []
        for square in word:
            letter = self.letter(square)
            ranked = self.likeliest.get(square, ())
            if letter == BLANK or square in settled or not ranked:
                continue
            # A letter the reader is sure of is changed only to the glyph's likeliest letter
            # (which another reader overruled), never to a lesser guess.
            sure = float(self.confidence[square]) >= SURE
            others = [(other, 1 + rank) for rank, other in enumerate(ranked)
                      if other != letter and not (sure and rank > 0)]
            if others:
                options.append((square, others))
        best: list[dict[Square, str]] = []
        best_cost = math.inf
        for count in range(1, MOST_MENDED + 1):
            for chosen in itertools.combinations(options, count):
                for letters in itertools.product(*(others for _, others in chosen)):
                    cost = sum(letter_cost for _, letter_cost in letters)
                    if cost > best_cost:
                        continue
                    change = {square: letter for (square, _), (letter, _)
                              in zip(chosen, letters, strict=True)}
                    if not self._valid_with(change):
                        continue
                    if cost < best_cost:
                        best, best_cost = [], cost
                    best.append(change)
        return best[0] if len(best) == 1 else None

    def _valid_with(self, change: Mapping[Square, str]) -> bool:
        """Whether every word through the squares of ``change`` is valid with it made."""
        was = {square: self.letter(square) for square in change}
        for (r, c), letter in change.items():
            self.board[r][c] = letter
        try:
            involved = {w for square in change for w in self.through[square]}
            return all(self.valid(self.words[w]) for w in involved)
        finally:
            for (r, c), letter in was.items():
                self.board[r][c] = letter

    def _likeliest_of(
        self, doubted: list[Square], choices: set[tuple[str, ...]]
    ) -> set[tuple[str, ...]]:
        """Of several choices of letters for the doubted squares, those whose letters the
        glyphs look likeliest to be (least sum of ranks, over the squares the reader ranked),
        among those the reader ranks within its likeliest at all; every choice where the
        reader ranked nothing."""
        ranks = {k: list(self.likeliest[square]) for k, square in enumerate(doubted)
                 if self.likeliest.get(square)}
        if not ranks:
            return choices
        scored = {choice: sum(rank.index(choice[k]) for k, rank in ranks.items())
                  for choice in choices if all(choice[k] in rank for k, rank in ranks.items())}
        if not scored:
            return choices
        best = min(scored.values())
        return {choice for choice, score in scored.items() if score == best}


def missed_blanks(
    rows: Sequence[str], lexicon: Lexicon,
    alphabet: Sequence[str] | TileSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", budget: int = 2,
) -> list[Square]:
    """Empty squares that must hold a blank the photo did not show, at most ``budget``.

    A blank is a tile's face with nothing printed on it, and on boards whose squares are of
    the face's colour (ivory tiles on a pale board) it can pass for an empty square.  Its
    word then falls apart into pieces that are not words (ENDAR and H for ENDARCH), or loses
    its first or last letter (KOSH for SKOSH).  An empty square at either end of a word not in
    the dictionary is taken for a blank when a blank there makes every word through it valid,
    and leaves fewer words on the board invalid; a word that could be mended so at both its
    ends settles nothing.

    >>> lex = Lexicon.from_words(["SKOSH", "SO"])
    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[7] = ".......KOSH...."                  # the S of SKOSH a blank not seen
    >>> missed_blanks(rows, lex)
    [(7, 6)]
    >>> missed_blanks(rows, lex, budget=0)
    []
    """
    if budget <= 0:
        return []
    check = _BoardCheck(rows, lexicon, alphabet, {})
    invalid = [word for word in check.words if not check.valid(word)]
    found: list[Square] = []
    for word in invalid:
        step = (0, 1) if word[0][0] == word[-1][0] else (1, 0)
        ends = [(word[0][0] - step[0], word[0][1] - step[1]),
                (word[-1][0] + step[0], word[-1][1] + step[1])]
        fitting = [end for end in ends
                   if 0 <= end[0] < SIZE and 0 <= end[1] < SIZE
                   and rows[end[0]][end[1]] == EMPTY
                   and _blank_mends(rows, end, lexicon, alphabet, len(invalid))]
        if len(fitting) == 1 and fitting[0] not in found:
            found.append(fitting[0])
    return found if len(found) <= budget else []


def _blank_mends(rows: Sequence[str], square: Square, lexicon: Lexicon,
                 alphabet: Sequence[str] | TileSet, invalid: int) -> bool:
    """Whether a blank on ``square`` makes every word through it valid and leaves fewer than
    ``invalid`` words on the board invalid."""
    trial = [list(row) for row in rows]
    trial[square[0]][square[1]] = BLANK
    check = _BoardCheck(["".join(row) for row in trial], lexicon, alphabet, {})
    through = check.through.get(square, [])
    if not through or not all(check.valid(check.words[i]) for i in through):
        return False
    return sum(not check.valid(word) for word in check.words) < invalid


def check_reading(reading: BoardReading, lexicon: Lexicon, tileset: TileSet) -> BoardReading:
    """``reading`` with letters that break words replaced by the dictionary's choice (see
    :func:`correct_words`); multi-letter tiles' sets are left as read."""
    if any(len(letter) > 1 for letter in tileset.letters):
        return reading
    # A glyph Tesseract read no letter in comes back as "?" from Tesseract; a blank tile (no
    # glyph at all) or the classifier's blank comes from elsewhere.
    unread = [square for square, source in sorted(reading.sources.items())
              if source == "tesseract" and reading.board[square[0]][square[1]] == BLANK]
    rows, changes = correct_words(reading.board, reading.confidence, lexicon, tileset, unread,
                                  reading.likeliest)
    # The set's blanks not seen on the board yet (an unread glyph is no blank).
    budget = tileset.counts.get(BLANK, 0) - sum(
        row.count(BLANK) for row in rows) + sum(1 for sq in unread if rows[sq[0]][sq[1]] == BLANK)
    for square in missed_blanks(rows, lexicon, tileset, budget):
        rows[square[0]] = rows[square[0]][:square[1]] + BLANK + rows[square[0]][square[1] + 1:]
        changes.append((square, EMPTY, BLANK))
    if not changes:
        return reading
    confidence = reading.confidence.copy()
    sources = dict(reading.sources)
    for square, _, _ in changes:
        confidence[square] = min(float(confidence[square]), CHOSEN_CONFIDENCE)
        sources[square] = "dictionary"
    return replace(reading, board=rows, confidence=confidence, sources=sources)
