"""The board's words as evidence for its letters, where the glyphs leave a choice: a letter of
a word that is no word is replaced only by one its glyph looks about as much like, when
exactly one such change makes every word through it valid.

One file, about 820 lines, on purpose: one check, whose steps (blanks joining, letters,
the photo's own letters, labels) share the board's words and run in an order that matters.

The word check serves the reader, not the dictionary.  A real board holds words that are in
no word list (names, misspellings, house rules, a phony nobody challenged), and the reader's
job is to report the tiles: whether a word is valid is the players' question.  So the word
list only chooses between letters the glyph itself leaves close: a letter changes only to one
the reader ranked among its likeliest for the glyph at a similarity at most
:data:`CLOSE_LIKENESS` below the letter read's; a letter the reader did not rank (named by
another reader) has no close one; a reader that ranks nothing (Tesseract alone) leaves every
letter close only where it was unsure (:data:`UNSURE_BELOW`).  A confident letter is never
replaced, and a word no close change mends is reported as read.  Measured on the labelled real
photos (``bench/eval_real.py``, the nine handheld phone photos, read with and without a
profile): letting the word list choose any of the glyph's likeliest letters made 17 squares
wrong and 11 right (RIEA made RHEA, CIN DIN, ROME POME, a D read with confidence 0.97 a B);
choosing only close ones (:data:`CLOSE_LIKENESS` up to 0.08; at 0.12 one goes wrong), it makes
none wrong and 7 right: the O's the stock reader took for D's in a real game.  On rendered
photos, where every word is valid, the words then settle fewer letters of motion-blurred
photos (those the reading warns of), and as many of sharp and out-of-focus ones.

Which letters change: the cheapest set of such changes that makes the invalid word and every
word through a changed square valid, when it is the only cheapest one
(:meth:`_BoardCheck.cheapest_mend`).  A change costs one, plus how much less the glyph looks
like the new letter than like the reader's likeliest (its shortfall in similarity, in steps of
:data:`LIKENESS_STEP`).  A letter read with near certainty (:data:`SURE`) changes only to the
glyph's likeliest letter (which another reader overruled).  Searching the changes cheapest
first, and the words they touch with them, mends a word with two misread letters whose
crossing word holds a third.
A changed square keeps a low confidence and its source becomes ``"dictionary"``.  Blanks
(``?``) are never changed: their letter is unknown to a photo, so a word through a blank is
checked with the blank free.

A reader learnt from other tiles (printed typefaces, or the user's own photographed otherwise)
can take one letter of this photo's font and blur for another wherever it stands, yet the same
letter stands right in the words read well.  After a first check the glyphs of the words still
invalid are compared with the photo's own glyphs of letters in valid words
(:func:`learnt_from_the_photo`), which adds to what each glyph looks like and re-reads one
read without confidence that is clearly closer to a letter of the photo; the check then runs
again from the reading.

A ``?`` that is not a blank is different: a glyph the reader found ink for but could read no
letter in (Tesseract on a blurred tile often answers nothing).  Such an *unread* square is
solved over the whole alphabet, valid words or not, and takes the dictionary's letter when that
is unique; otherwise it stays ``?`` with its low confidence.

A blank tile can also pass for an empty square, on boards whose squares are of the tiles'
colour.  Before the letters are mended, an empty square between two pieces of a line, one of
them no word, becomes a blank where that joins them into one word of five letters or more and
makes every word through it valid (:func:`blanks_joining`): mended first, the piece would
become a word of its own by a misread letter.  After the letters, an empty square at the end
of a word still invalid becomes a blank where that makes every word through it valid
(:func:`missed_blanks`); both within the set's blanks.

The reverse happens on premium squares: their label's print, lightened by glare, can pass for
a tile whose letter is like no letter, lengthening a word into one that is no word.  Such a
letter at a word's end is taken off where the word is valid without it (:func:`stray_labels`):
before the letters are mended where the glyph is like no letter at all and the word has two
letters, after them otherwise.

>>> from scorer.lexicon import Lexicon
>>> lex = Lexicon.from_words(["CAT", "AT", "TA", "ACT"])
>>> rows = ["." * 15 for _ in range(15)]
>>> rows[7] = "......CIT......"                           # CAT with its A read as I
>>> rows[8] = ".......T......."                           # ... and AT going down through it
>>> ranked = {(7, 7): ("I", "A", "L")}                    # the glyph about as like an A
>>> fixed, changes = correct_words(rows, np.full((15, 15), 0.9), lex, likeliest=ranked)
>>> fixed[7][6:9], changes
('CAT', [((7, 7), 'I', 'A')])
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from scorer.lexicon import Lexicon
from scorer.rules import position_name
from scorer.squares import PREMIUM_LAYOUT, Direction
from scorer.squares import Square as ScorerSquare
from scorer.tiles import TileSet
from vision.letter_choice import LABEL_UNLIKE
from vision.letters import LIKELIEST, LetterClassifier
from vision.read import BoardReading

SIZE = 15
EMPTY = "."
BLANK = "?"
#: Confidence given to a letter the dictionary chose.
CHOSEN_CONFIDENCE = 0.5
#: A letter ending a word of two that is no word, on a premium square, whose glyph is less
#: like any letter than this is taken for the square's label before the letters are mended
#: (:func:`stray_labels`): the labels read as letters on rendered photos were -0.43 to -0.2
#: like their likeliest letter, where a tile's letter is 0.5 or more unless a blur ruined it
#: (an A read as a Z, -0.28, ending ZVIATORS on seed 1 photo 78: hence words of two only).
STRAY_UNLIKE = 0.0
#: Words with more unknown squares than this (unread letters and blanks together) are not
#: solved: each unknown multiplies the search by the alphabet, and so many unknowns settle
#: nothing anyway.
MOST_UNKNOWN = 3
#: A letter read with at least this confidence changes only to the glyph's likeliest letter.
SURE = 0.99
#: Shortfall in the classifier's similarity (:attr:`vision.letters.LetterGuess.likeness`)
#: that costs as much as one more changed letter.  Letters of one glyph lie 0.01 to 0.5
#: apart; 0.03 to 0.06 gave the fewest errors on the rendered photos.
LIKENESS_STEP = 0.045
#: The word list chooses only between letters the glyph itself leaves close: a letter changes
#: only to one the reader ranked among its likeliest for the glyph at a similarity at most this
#: far below the letter read's (:attr:`vision.letters.LetterGuess.likeness`; the classifier's
#: confidence is its lead over the next letter in steps of 0.15, so a lead of 0.05 is a
#: confidence of a third at most).  Real boards hold words in no word list (names, misspellings,
#: house rules, a phony nobody challenged): a C plainly a C stays a C in CIN, though DIN is a
#: word.
CLOSE_LIKENESS = 0.08
#: Confidence below which a letter read by a reader that ranks no alternatives (Tesseract
#: alone) may change to any letter...
UNSURE_BELOW = 0.6
#: ... at this much more than a change to a ranked letter.
ANY_LETTER = 1.0
#: Changes dearer than this are not made: that many misread letters in a few words are more
#: likely a photo read badly throughout than a word the dictionary can settle.
MOST_COST = 14.0
#: At most this many letters change to mend one word and the words through its changes...
MOST_CHANGED = 4
#: ... and at most this many of one word.
MOST_IN_A_WORD = 3
#: Sets of changes tried for one word before it is left as read (a photo read badly
#: throughout offers many).
MOST_TRIED = 5000
#: Letters of a word, blank included, that two pieces of a line must make for a blank between
#: them to be found before the letters are mended (:func:`blanks_joining`): a shorter word
#: with one letter free fits misread letters too often (F IL read for a column of misread
#: letters made FAIL; T KE, TAKE).
JOINED_AT_LEAST = 5
#: ... and a piece of a single tile must be read with at least this confidence: alone it
#: chooses the joined word (CAUD L, GAUD with its G read C and an E read L below it, made
#: CAUDAL).
JOIN_SINGLE = 0.5
#: Glyphs of letters in valid words from which the photo's own letters are learnt
#: (:func:`learnt_from_the_photo`)...
LEARNT_FROM_AT_LEAST = 5
#: ... and how much more like one of them a glyph must be than like the letter it was read as
#: to be read as that.  Chosen on the saved readings of nine rendered sets of
#: ``bench/eval_rendered.py`` (15-20, 27, 28, 30): 0.1, 0.05, 0.03 and 0 left 825, 823, 809 and
#: 817 squares wrong uncalibrated (709, 697, 688, 693 calibrated); on the nine sets not used
#: to choose (29, 31-38) 0.03 left 538 where 0.1 left 543 (427 and 431 calibrated).
REREAD_BY = 0.03
#: ... where it was read with less confidence than this: a letter read with confidence stays
#: as read though its word is in no word list (ABENDS kept its D, 0.97, that the photo's own B
#: was a little more like).
REREAD_BELOW = 0.5

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
    likeness: Mapping[Square, Sequence[float]] | None = None,
) -> tuple[list[str], list[tuple[Square, str, str]]]:
    """The board with letters that break words replaced where the dictionary settles them.

    ``rows`` are single-character squares (``.`` empty, ``?`` blank, a letter); ``confidence``
    is the readers' confidence per square (15x15).  ``unread``: squares
    shown as ``?`` that hold a letter no reader could make out (see the module notes).  Returns
    the new rows and the changes as ``(square, read, chosen)``.  A word mended by a change may
    let a word beside it be mended next, so the words are gone through until nothing changes.

    ``likeliest``: the reader's likeliest letters for a square's glyph, best first, and
    ``likeness`` the glyph's similarity to each (without it, each rank down counts as one
    :data:`LIKENESS_STEP`).  Where the words allow several letters, the one the glyph looks
    likeliest to be is chosen; of letters it does not look like at all, none.

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
    check = _BoardCheck(rows, lexicon, alphabet, likeliest or {}, confidence, likeness or {})
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
            chosen = check.cheapest_mend(word, settled)
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


@lru_cache(maxsize=4)
def _all_spelt(lexicon: Lexicon) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lexicon's words as code points one after another, a line feed after each
    (:meth:`Lexicon.word_lines`), with where each word starts and its length: the words are
    grouped by length by whole-array steps, where grouping them one at a time and converting
    each group took 50 ms of a cold read's word check on the bundled list.  (No word holds a
    line feed: a list is split into words there.)"""
    text = lexicon.word_lines()
    if text.isascii():  # one byte a letter: a quarter of the memory to search for line ends
        codes = np.frombuffer(text.encode("ascii"), np.uint8)
    else:
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    ends = np.flatnonzero(codes == ord("\n"))
    starts = np.zeros(len(ends), np.intp)
    starts[1:] = ends[:-1] + 1
    return codes, starts, ends - starts


@lru_cache(maxsize=32)
def _spelt(lexicon: Lexicon, length: int) -> np.ndarray:
    """The lexicon's words of ``length`` letters as code points (uint32), a row per position
    (length, words): matching a pattern compares whole rows.  A word may come twice.

    >>> _spelt(Lexicon.from_words(["AB", "CD", "EFG"]), 2).tolist() in (
    ...     [[65, 67], [66, 68]], [[67, 65], [68, 66]])
    True
    >>> _spelt(Lexicon.from_words(["AB"]), 3).shape, _spelt(Lexicon.from_words([]), 2).shape
    ((3, 0), (2, 0))
    """
    codes, starts, lengths = _all_spelt(lexicon)
    first = starts[lengths == length]
    return codes[np.arange(length)[:, None] + first[None, :]].astype(np.uint32, copy=False)


def _spelt_like(lexicon: Lexicon, pattern: Sequence[str | None]) -> np.ndarray:
    """The lexicon's words that have the pattern's letters where it has one (None: any
    letter), spelt as by :func:`_spelt`."""
    spelt = _spelt(lexicon, len(pattern))
    kept: np.ndarray | None = None
    for position, letter in enumerate(pattern):
        if letter is None:
            continue
        if kept is None:
            kept = np.flatnonzero(spelt[position] == ord(letter))
        else:
            kept = kept[spelt[position, kept] == ord(letter)]
        if len(kept) == 0:
            break
    return spelt if kept is None else spelt[:, kept]


class _BoardCheck:
    """A board being mended: its letters, its words and which words pass through a square."""

    def __init__(self, rows: Sequence[str], lexicon: Lexicon,
                 alphabet: Sequence[str] | TileSet,
                 likeliest: Mapping[Square, Sequence[str]] | None = None,
                 confidence: np.ndarray | None = None,
                 likeness: Mapping[Square, Sequence[float]] | None = None) -> None:
        self.board = [list(row) for row in rows]
        self.likeliest = likeliest or {}
        self.likeness = likeness or {}
        self.confidence = np.zeros((SIZE, SIZE)) if confidence is None else confidence
        self.lexicon = lexicon
        self.alphabet = alphabet
        self.letters = [letter for letter in (
            alphabet.letters if isinstance(alphabet, TileSet) else alphabet) if letter != BLANK]
        self._spelling_valid: dict[str, bool] = {}
        self._costs: dict[Square, dict[str, float]] = {}
        self._fitting: dict[tuple[str | None, ...], list[tuple[str, ...]]] = {}
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

    def valid(self, word: list[Square], change: Mapping[Square, str] | None = None) -> bool:
        """Whether the word (with ``change`` made) is in the dictionary, some letter for each
        blank in it; a word of more blanks than :data:`MOST_UNKNOWN` counts as valid, there
        being nothing to check."""
        change = change or {}
        spelling = "".join(change.get(square) or self.letter(square) for square in word)
        known = self._spelling_valid.get(spelling)
        if known is None:
            if spelling.count(BLANK) > MOST_UNKNOWN:
                known = True
            elif BLANK in spelling:
                pattern = [None if letter == BLANK else letter for letter in spelling]
                known = _spelt_like(self.lexicon, pattern).shape[1] > 0
            else:
                known = spelling in self.lexicon
            self._spelling_valid[spelling] = known
        return known

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

    def cheapest_mend(self, word: list[Square],
                      settled: Collection[Square]) -> dict[Square, str] | None:
        """The cheapest set of changes that makes the invalid ``word`` and every word through
        a changed square valid (see the module notes for the costs); None when there is no
        such set, or several are cheapest.

        The sets are searched cheapest first: a set that leaves a word invalid (``word``
        itself, or one it crosses at a changed square) grows by the changes of up to
        :data:`MOST_IN_A_WORD` of that word's letters that spell a word, until none is
        left invalid.  Squares in ``settled`` (changed already) stay as they are.

        >>> lex = Lexicon.from_words(["BRIEF", "REEF"])
        >>> rows = ["." * 15 for _ in range(15)]
        >>> rows[7] = "...BRTFF......."
        >>> check = _BoardCheck(rows, lex, "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        ...                     {(7, 5): "TIL", (7, 6): "FET"}, np.full((15, 15), 0.9))
        >>> check.cheapest_mend(check.words[0], set())
        {(7, 5): 'I', (7, 6): 'E'}
        """
        frontier: list[tuple[float, tuple[tuple[Square, str], ...]]] = [(0.0, ())]
        seen: set[tuple[tuple[Square, str], ...]] = set()
        cheapest: list[dict[Square, str]] = []
        cheapest_cost = math.inf
        while frontier and len(seen) < MOST_TRIED:
            cost, changes = heapq.heappop(frontier)
            if cost > cheapest_cost:
                break
            if changes in seen:
                continue
            seen.add(changes)
            change = dict(changes)
            touched = [word] + [self.words[w] for square in change for w in self.through[square]]
            invalid = next((w for w in touched if not self.valid(w, change)), None)
            if invalid is None:
                cheapest.append(change)
                cheapest_cost = cost
                continue
            free = [square for square in invalid if square not in change
                    and square not in settled and self._change_costs(square)]
            for count in range(1, min(MOST_IN_A_WORD, MOST_CHANGED - len(change)) + 1):
                for squares in itertools.combinations(free, count):
                    costs = [self._change_costs(square) for square in squares]
                    for letters in self._fitting_letters(invalid, change, squares):
                        pairs = list(zip(letters, costs, strict=True))
                        if not all(letter in cost_of for letter, cost_of in pairs):
                            continue
                        total = cost + sum(cost_of[letter] for letter, cost_of in pairs)
                        if total <= MOST_COST:
                            grown = changes + tuple(zip(squares, letters, strict=True))
                            heapq.heappush(frontier, (total, tuple(sorted(grown))))
        return cheapest[0] if len(cheapest) == 1 and len(seen) < MOST_TRIED else None

    def _change_costs(self, square: Square) -> dict[str, float]:
        """The letters ``square`` may change to, each with what the change costs."""
        if square in self._costs:
            return self._costs[square]
        letter = self.letter(square)
        confidence = float(self.confidence[square])
        ranked = list(self.likeliest.get(square, ()))
        likeness = list(self.likeness.get(square, ())) or [
            -rank * LIKENESS_STEP for rank in range(len(ranked))]
        costs: dict[str, float] = {}
        if letter != BLANK:
            sure = confidence >= SURE
            # Alternatives are weighed against the letter read; a letter the reader did not
            # rank (one the calibrated classifier never learnt, named by another reader) has
            # none the glyph leaves close.
            if letter in ranked:
                read_likeness = likeness[ranked.index(letter)]
                for rank, other in enumerate(ranked):
                    if (other != letter and not (sure and rank > 0)
                            and read_likeness - likeness[rank] <= CLOSE_LIKENESS):
                        costs[other] = 1.0 + (likeness[0] - likeness[rank]) / LIKENESS_STEP
            if not sure and not ranked and confidence < UNSURE_BELOW:
                # A reader that ranks nothing (Tesseract alone) leaves every letter as close
                # as any other where it was unsure.
                for other in self.letters:
                    if other != letter:
                        costs[other] = 1.0 + ANY_LETTER
        self._costs[square] = costs
        return costs

    def _fitting_letters(self, word: list[Square], change: Mapping[Square, str],
                         squares: tuple[Square, ...]) -> list[tuple[str, ...]]:
        """Every choice of letters for ``squares`` (all in ``word``) that spells a word with
        ``change`` made, blanks free; each differs from what the squares hold."""
        pattern = tuple(None if square in squares
                        or (change.get(square) or self.letter(square)) == BLANK
                        else change.get(square) or self.letter(square) for square in word)
        key = pattern + tuple(f"{r},{c}" for r, c in squares)
        if key not in self._fitting:
            where = [word.index(square) for square in squares]
            held = [ord(self.letter(square)) for square in squares]
            spelt = _spelt_like(self.lexicon, pattern)[where]
            differ = np.all(spelt != np.array(held, np.uint32)[:, None], axis=0)
            self._fitting[key] = [tuple(chr(code) for code in codes) for codes in
                                  sorted(set(map(tuple, spelt[:, differ].T.tolist())))]
        return self._fitting[key]

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
    ends settles nothing, unless only one of the two joins it to the next piece of its line
    into one word (CAD NT: a blank between them makes CADENT; one after NT, NTH).

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
    check = _BoardCheck(rows, lexicon, alphabet)
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
        if len(fitting) == 2:
            # A blank between two pieces of the line that joins them into one valid word is
            # far likelier than a short piece that a letter at its other end happens to make
            # a word of (CAD NT: CADENT, not NTH).
            joining = [end for end, out in zip(ends, (-1, 1), strict=True)
                       if _tile_at(rows, (end[0] + out * step[0], end[1] + out * step[1]))]
            if len(joining) == 1:
                fitting = joining
        if len(fitting) == 1 and fitting[0] not in found:
            found.append(fitting[0])
    return found if len(found) <= budget else []


def blanks_joining(
    rows: Sequence[str], lexicon: Lexicon,
    alphabet: Sequence[str] | TileSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", budget: int = 2,
    confidence: np.ndarray | None = None,
) -> list[Square]:
    """Empty squares between two pieces of a line, one of them no word, where a blank joins
    the pieces into one word and makes every word through it valid: blanks the photo did
    not show, found before any letter is mended.

    Mending letters first would make a word of the invalid piece by a letter of its own
    (ARG TIC, the O of ARGOTIC a blank read as an empty square: ARG became ARC), and leave
    :func:`missed_blanks` nothing to find.  With the readers' ``confidence`` (15x15) given, a
    piece of one tile counts only where that tile was read with :data:`JOIN_SINGLE` or more.

    >>> lex = Lexicon.from_words(["ARGOTIC", "ARC", "TIC"])
    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[7] = "......ARG.TIC.."
    >>> blanks_joining(rows, lex)
    [(7, 9)]
    >>> rows[7] = "......ARC.TIC.."                  # two words a square apart
    >>> blanks_joining(rows, lex)
    []
    >>> lex = Lexicon.from_words(["FAIL", "FOIL"])
    >>> rows[7] = "......F.IL....."                  # a word of four: too easily fitted
    >>> blanks_joining(rows, lex)
    []
    """
    if budget <= 0:
        return []
    check = _BoardCheck(rows, lexicon, alphabet)
    invalid = {tuple(word) for word in check.words if not check.valid(word)}
    if not invalid:
        return []
    found: list[Square] = []
    for r, c in itertools.product(range(SIZE), range(SIZE)):
        if rows[r][c] != EMPTY:
            continue
        for dr, dc in ((0, 1), (1, 0)):
            before = _word_from(check, (r - dr, c - dc), (dr, dc))
            after = _word_from(check, (r + dr, c + dc), (dr, dc))
            if (before is None or after is None or not ({before, after} & invalid)
                    or len(before) + 1 + len(after) < JOINED_AT_LEAST
                    or (confidence is not None and any(
                        len(piece) == 1 and confidence[piece[0]] < JOIN_SINGLE
                        for piece in (before, after)))
                    or not _blank_mends(rows, (r, c), lexicon, alphabet, len(invalid))):
                continue
            found.append((r, c))
            break
    return found if len(found) <= budget else []


def _word_from(check: _BoardCheck, square: Square, step: Square) -> tuple[Square, ...] | None:
    """The word along ``step`` (across or down) through ``square``: a single tile's square
    alone, None where the square holds no tile."""
    if not (0 <= square[0] < SIZE and 0 <= square[1] < SIZE) or check.letter(square) == EMPTY:
        return None
    for index in check.through.get(square, []):
        word = check.words[index]
        if word[0][0] + step[0] * (len(word) - 1) == word[-1][0] and (
                word[0][1] + step[1] * (len(word) - 1) == word[-1][1]):
            return tuple(word)
    return (square,)


def _tile_at(rows: Sequence[str], square: Square) -> bool:
    """Whether ``square`` lies on the board and holds a tile."""
    return 0 <= square[0] < SIZE and 0 <= square[1] < SIZE and rows[square[0]][square[1]] != EMPTY


def _blank_mends(rows: Sequence[str], square: Square, lexicon: Lexicon,
                 alphabet: Sequence[str] | TileSet, invalid: int) -> bool:
    """Whether a blank on ``square`` makes every word through it valid and leaves fewer than
    ``invalid`` words on the board invalid."""
    trial = [list(row) for row in rows]
    trial[square[0]][square[1]] = BLANK
    check = _BoardCheck(["".join(row) for row in trial], lexicon, alphabet)
    through = check.through.get(square, [])
    if not through or not all(check.valid(check.words[i]) for i in through):
        return False
    return sum(not check.valid(word) for word in check.words) < invalid


def stray_labels(
    rows: Sequence[str], lexicon: Lexicon, likeness: Mapping[Square, Sequence[float]],
    alphabet: Sequence[str] | TileSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    unlike: float | None = None, longest: int = SIZE,
) -> list[Square]:
    """Letters at the end of a word not in the dictionary that are a premium square's label
    rather than a tile: on a premium square, in no word across the other way, their glyph
    less than ``unlike`` (by default :data:`vision.letter_choice.LABEL_UNLIKE`) like any letter the
    reader knows
    (``likeness``: each square's similarities to its likeliest letters), and the word without
    them valid, leaving fewer words on the board invalid.

    A premium label's print (a deluxe board's "DL", a classic board's three lines of small
    type) lightened by glare can pass for a tile with a letter; beside a word it lengthens the
    word into one that is no word.  A tile misread there instead is a letter wrong either
    way, read empty or misread.

    >>> lex = Lexicon.from_words(["CAT"])
    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[3] = "........CATW..."                 # the label of the double-word square L4
    >>> stray_labels(rows, lex, {(3, 11): (-0.2, -0.4)})
    [(3, 11)]
    >>> stray_labels(rows, lex, {(3, 11): (0.8, 0.3)})  # a tile's letter, clearly seen
    []
    """
    unlike = LABEL_UNLIKE if unlike is None else unlike
    check = _BoardCheck(rows, lexicon, alphabet)
    invalid = [word for word in check.words if not check.valid(word)]
    found: list[Square] = []
    for word in invalid:
        if len(word) > longest:
            continue
        for end in (word[0], word[-1]):
            seen = likeness.get(end)
            if (PREMIUM_LAYOUT[end[0]][end[1]] == EMPTY or not seen
                    or max(seen) >= unlike or len(check.through.get(end, [])) != 1
                    or end in found):
                continue
            trial = [list(row) for row in rows]
            trial[end[0]][end[1]] = EMPTY
            shorter = _BoardCheck(["".join(row) for row in trial], lexicon, alphabet)
            # The rest of the word, and whatever crosses it, must be words (a single letter
            # left over stands in the word crossing it).
            rest = set(word) - {end}
            kept = [w for w in shorter.words if rest & set(w)]
            if (all(shorter.valid(w) for w in kept)
                    and sum(not shorter.valid(w) for w in shorter.words) < len(invalid)):
                found.append(end)
    return found


def check_reading(reading: BoardReading, lexicon: Lexicon, tileset: TileSet) -> BoardReading:
    """``reading`` with letters that break words replaced by the dictionary's choice (see
    :func:`correct_words`); multi-letter tiles' sets are left as read."""
    if any(len(letter) > 1 for letter in tileset.letters):
        return reading
    # A glyph Tesseract read no letter in comes back as "?" from Tesseract, and a tile whose
    # face is marked by a letter no glyph was found in as "?" marked unread; a blank tile (no
    # glyph at all, a clean face) or the classifier's blank comes from elsewhere.
    unread = [square for square, source in sorted(reading.sources.items())
              if source in ("tesseract", "unread")
              and reading.board[square[0]][square[1]] == BLANK]
    original = reading.board
    # A label whose glyph is like no letter at all, lengthening a tile into a word of two, is
    # taken off before the letters are mended: nearly any letter there makes a word of two,
    # as the label's as the tile's.  (A longer word that one letter mends is a tile's.)
    strays = stray_labels(original, lexicon, reading.likeness, tileset, STRAY_UNLIKE,
                          longest=2)
    if strays:
        cleared = [list(row) for row in original]
        for r, c in strays:
            cleared[r][c] = EMPTY
        reading = replace(reading, board=["".join(row) for row in cleared])
    joined = blanks_joining(reading.board, lexicon, tileset,
                            _blanks_left(reading.board, unread, tileset), reading.confidence)
    if joined:
        board = [list(row) for row in reading.board]
        for r, c in joined:
            board[r][c] = BLANK
        reading = replace(reading, board=["".join(row) for row in board])
    rows, _ = correct_words(reading.board, reading.confidence, lexicon, tileset, unread,
                            reading.likeliest, reading.likeness)
    learnt = learnt_from_the_photo(rows, reading, lexicon, tileset)
    if learnt is not None:
        rows, _ = correct_words(learnt.board, reading.confidence, lexicon, tileset, unread,
                                learnt.likeliest, learnt.likeness)
    changes = [((r, c), original[r][c], rows[r][c]) for r in range(SIZE) for c in range(SIZE)
               if rows[r][c] != original[r][c]]
    for square in missed_blanks(rows, lexicon, tileset, _blanks_left(rows, unread, tileset)):
        rows[square[0]] = rows[square[0]][:square[1]] + BLANK + rows[square[0]][square[1] + 1:]
        changes.append((square, EMPTY, BLANK))
    for square in stray_labels(rows, lexicon, reading.likeness, tileset):
        changes.append((square, rows[square[0]][square[1]], EMPTY))
        rows[square[0]] = rows[square[0]][:square[1]] + EMPTY + rows[square[0]][square[1] + 1:]
    unlisted = words_not_in_list(rows, lexicon, tileset)
    if not changes:
        return replace(reading, not_in_word_list=unlisted)
    confidence = reading.confidence.copy()
    sources = dict(reading.sources)
    for square, _, now in changes:
        confidence[square] = min(float(confidence[square]), CHOSEN_CONFIDENCE)
        if now == EMPTY:
            sources.pop(square, None)  # no tile: nothing read it
        else:
            sources[square] = "dictionary"
    return replace(reading, board=rows, confidence=confidence, sources=sources,
                   not_in_word_list=unlisted)


def words_not_in_list(rows: Sequence[str], lexicon: Lexicon,
                      alphabet: Sequence[str] | TileSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                      ) -> tuple[tuple[str, str], ...]:
    """The words on the board that no letters for its blanks make valid, as read (``?`` for
    a blank), each with its GCG position (row first across, column first down).

    >>> lex = Lexicon.from_words(["ROBE", "ROMEO", "TO"])
    >>> rows = ["." * 15 for _ in range(15)]
    >>> rows[7] = "......ROME....."                  # a name: in no word list
    >>> rows[8] = ".........?....."                  # E? down: no letter makes it a word
    >>> words_not_in_list(rows, lex)
    (('ROME', '8G'), ('E?', 'J8'))
    """
    check = _BoardCheck(rows, lexicon, alphabet)
    unlisted = []
    for word in check.words:
        if not check.valid(word):
            across = word[0][0] == word[-1][0]
            position = position_name(ScorerSquare(*word[0]),
                                     Direction.ACROSS if across else Direction.DOWN)
            unlisted.append(("".join(check.letter(square) for square in word), position))
    return tuple(unlisted)


def _blanks_left(rows: Sequence[str], unread: Collection[Square], tileset: TileSet) -> int:
    """The set's blanks not seen on the board yet (a ``?`` that is an unread glyph is no
    blank)."""
    shown = sum(row.count(BLANK) for row in rows)
    unread_shown = sum(1 for r, c in unread if rows[r][c] == BLANK)
    return tileset.counts.get(BLANK, 0) - shown + unread_shown


@dataclass(frozen=True)
class Relearnt:
    """A reading's letters in words that are no word, read again by the photo's own letters."""

    board: list[str]
    likeliest: dict[Square, tuple[str, ...]]
    likeness: dict[Square, tuple[float, ...]]


def learnt_from_the_photo(rows: Sequence[str], reading: BoardReading, lexicon: Lexicon,
                          tileset: TileSet) -> Relearnt | None:
    """The glyphs of the words still invalid in ``rows`` (the reading after a first check),
    compared with the photo's own glyphs of letters in valid words; None where the board has
    too few of those (:data:`LEARNT_FROM_AT_LEAST`) or no invalid word.

    A reader learnt from other tiles (printed typefaces, or the user's tiles photographed
    otherwise) can misread one letter of this photo's font and blur throughout, yet the same
    letter stands right in other words.  Each glyph's likeliest letters then take the higher
    of the two similarities, and where the photo's own letter is more like the glyph than the
    letter read by :data:`REREAD_BY` or more, it is read so.  On the 300 rendered photos of
    ``bench/eval_rendered.py`` this left 66 squares wrong instead of 70 (calibrated) and 64
    instead of 71 (uncalibrated); on 100 others, 27 instead of 28 and 34 instead of 38.
    """
    check = _BoardCheck(rows, lexicon, tileset)
    in_valid: set[Square] = set()
    in_invalid: set[Square] = set()
    for word in check.words:
        (in_valid if check.valid(word) else in_invalid).update(word)
    known = sorted(square for square in in_valid - in_invalid
                   if square in reading.glyphs and rows[square[0]][square[1]] != BLANK)
    asked = sorted(square for square in in_invalid if square in reading.glyphs)
    if len(known) < LEARNT_FROM_AT_LEAST or not asked:
        return None
    classifier = LetterClassifier()
    classifier.fit(np.stack([reading.glyphs[square] for square in known]),
                   [rows[r][c] for r, c in known])
    letters, similarity = classifier.likeness(np.stack([reading.glyphs[sq] for sq in asked]))
    board = [list(row) for row in reading.board]
    likeliest = dict(reading.likeliest)
    likeness = dict(reading.likeness)
    for k, (r, c) in enumerate(asked):
        merged = dict(zip(reading.likeliest.get((r, c), ()), reading.likeness.get((r, c), ()),
                          strict=True))
        for letter, value in zip(letters, similarity[k].tolist(), strict=True):
            merged[letter] = max(merged.get(letter, -2.0), round(value, 4))
        ranked = sorted(merged.items(), key=lambda item: -item[1])[:LIKELIEST]
        likeliest[r, c] = tuple(letter for letter, _ in ranked)
        likeness[r, c] = tuple(value for _, value in ranked)
        best, value = ranked[0]
        # Only against the letter read's own similarity: a letter no sample of either reader
        # was compared with has nothing to be clearly less like.
        if (board[r][c] != BLANK and board[r][c] in merged
                and reading.confidence[r, c] < REREAD_BELOW
                and value - merged[board[r][c]] >= REREAD_BY):
            board[r][c] = best
    return Relearnt(["".join(row) for row in board], likeliest, likeness)
