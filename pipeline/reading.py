"""Reading the squares that changed, once, as soon as they settle, and learning the tiles of
confirmed moves (a part of :class:`pipeline.Pipeline`).
"""

from __future__ import annotations

import logging
import time as _time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.reports import PendingTurn
from scorer.game import Event
from scorer.squares import Square
from scorer.tiles import BLANK

if TYPE_CHECKING:
    from calibration.profile import Profile

log = logging.getLogger(__name__)

#: A letter read with less confidence than this is checked against the dictionary or asked.
UNSURE = 0.6

#: Classifier confidence above which Tesseract is not asked (as in :mod:`vision.read`).
ACCEPT = 0.7

#: Glyph height, relative to the typical letter's, above which a letter carries an umlaut's
#: marks (see :func:`vision.letter_choice.marks_above`).
MARKED_HEIGHT = 1.15

#: A letter read with confidence is corrected by the dictionary only to one of the calibrated
#: classifier's this many likeliest letters for its glyph: a clear Q is no R because a word
#: wants one (that is more likely a phony, for the players to say).
PLAUSIBLE_RANK = 3

@dataclass
class SquaresRead:
    """Letters read on a batch of settled squares, with what to learn from once confirmed."""

    guesses: dict[Square, tuple[str, float, float]]  # letter, confidence, glyph height
    rectified: np.ndarray  # the photo's orientation, read scale with margin
    settled_at: float  # the clock when the squares settled
    glyphs: dict[Square, Any] = field(default_factory=dict)
    #: squares read by the classifier alone without confidence (Tesseract not asked yet)
    unchecked: set[Square] = field(default_factory=set)
    #: the classifier's own letter where Tesseract was asked afterwards
    first: dict[Square, str] = field(default_factory=dict)
    #: Tesseract's letter, where it was asked for a second reading ("" when it read nothing)
    second: dict[Square, str] = field(default_factory=dict)
    unmatched: set[Square] = field(default_factory=set)


@dataclass
class LaidTile:
    """What is known of a tile on the board that the pipeline laid: how it was read, and
    whether anyone confirmed its letter (see :meth:`Pipeline._suspects`)."""

    turn: int
    letter: str
    confidence: float
    #: its letter was answered by the players (or a reference record)
    confirmed: bool
    glyph: Any = None
    #: the classifier's letter where Tesseract overruled it; Tesseract's where it was asked
    first: str | None = None
    second: str | None = None



class ReadingSteps:
    """Reading the squares that changed, once, as soon as they settle, and learning the tiles of

    A part of :class:`pipeline.Pipeline`: it shares the pipeline's state.
    """

    def finish_learning(self) -> None:
        """Wait until the confirmed moves are learnt.

        A confirmed move's tiles teach the profile in a learning thread (each tile is learnt
        under many blurs: about a tenth of a second for a move), so that frames never wait
        for it.  The profile is touched by nothing else until the next read, which waits here
        first (moves are seconds apart, so it seldom waits at all); so must anyone who copies
        or saves the profile.
        """
        pending, self._learning = self._learning, []
        for future in pending:
            future.result()


    def _classifier(self) -> Any:
        """The profile's classifier with every confirmed move learnt; without a profile, the
        stock classifier learnt from printed typefaces (None when it is not built either)."""
        if self.profile is None:
            from vision.stock import stock_classifier

            return stock_classifier(set(self.tileset.letters))
        self.finish_learning()
        return self.profile.classifier()


    def _like_a_letter(self, classifier: Any) -> Any:
        """Whether glyphs are like a letter of the classifier's or the stock samples' (see
        :func:`vision.letter_choice.like_a_letter`)."""
        from vision.letter_choice import like_a_letter
        from vision.stock import stock_classifier

        return lambda glyphs: like_a_letter(
            glyphs, [classifier, stock_classifier(set(self.tileset.letters))])


    def _stock_for_unseen(self, classifier: Any) -> Any:
        """See :func:`vision.stock.stock_for_unseen`."""
        from vision.stock import stock_for_unseen

        return stock_for_unseen(classifier, set(self.tileset.letters))


    def _read(self, event: Any) -> None:
        from vision.letter_choice import read_letters
        from vision.missed_letters import letters_washed_out
        from vision.orientation import find_orientation
        from vision.rectified import finder_of_frame, inner, occupancy_of, rectify_with_margin

        started = _time.perf_counter()
        rectified = rectify_with_margin(event.frame, event.corners)
        classifier = self._classifier()
        if self.orientation is None:
            occupied, _ = occupancy_of(inner(rectified), self.profile)
            self.orientation = find_orientation(rectified, occupied, classifier, self.tesseract)
            # The tracker was started upright; its squares so far turn with the board.
            self.tracker.orientation = self.orientation
            log.info("board orientation: %d quarter turns", self.orientation)
            # Until now the tracker took the view as upright: its squares were the view's.
            event_squares = self.tracker.to_upright(event.squares)
        else:
            event_squares = event.squares
        squares = [Square(int(r), int(c)) for r, c in event_squares]
        finder = finder_of_frame(event.frame, event.corners, self.orientation,
                                 rectified=rectified)
        at = [(sq.row, sq.col) for sq in squares]
        glyphs = finder.glyphs(at)
        # A reflection over the move's tiles washes their letters out; the tiles laid before
        # tell how bright a face is without it.
        known = [(sq.row, sq.col) for sq, tile in self.game.board.occupied().items()
                 if tile != BLANK and not tile.islower() and sq not in squares]
        blanks = self.game.unseen().get(BLANK, 0)
        for square, glyph in letters_washed_out(finder, at, glyphs, known, blanks,
                                                self._like_a_letter(classifier),
                                                set(event.washed)).items():
            glyphs[at.index(square)] = glyph
        # With a word list the classifier reads first, and Tesseract (a few hundred
        # milliseconds a call) only runs at commit if the words as read are not all valid.
        deferred = self.lexicon is not None and classifier is not None and len(classifier) > 0
        guesses, _ = read_letters(glyphs, classifier, None if deferred else self.tesseract, None,
                                  confirm=True, stock=self._stock_for_unseen(classifier))
        read = SquaresRead({}, rectified, started, dict(zip(squares, glyphs, strict=True)))
        read.unmatched = self._unmatched(rectified, squares, glyphs)
        for square, guess in zip(squares, guesses, strict=True):
            read.guesses[square] = self._letter(read.glyphs[square], guess)
            if deferred and guess.letter != BLANK and guess.confidence < ACCEPT:
                read.unchecked.add(square)
            self._reads[square] = read


    def _unmatched(self, rectified: np.ndarray, squares: list[Square],
                   glyphs: list[Any]) -> set[Square]:
        """The new squares showing no letter whose middles have almost nothing of the colour
        of the lettered tiles' faces around them (:func:`vision.blanks.unmatched_faces`, as a
        board read tells them): a pen lying across an empty square, or a finger, taken for a
        tile.  A blank's face is of the tiles' colour."""
        from vision.blanks import face_likeness, unmatched_faces

        new = {(sq.row, sq.col): glyph for sq, glyph in zip(squares, glyphs, strict=True)}
        bare = [sq for sq, glyph in new.items() if glyph is None]
        if not bare:
            return set()
        lettered = [sq for sq, glyph in new.items() if glyph is not None]
        lettered += [(sq.row, sq.col) for sq, tile in self.game.board.occupied().items()
                     if tile != BLANK and not tile.islower() and (sq.row, sq.col) not in new]
        occupied = np.zeros((15, 15), bool)
        occupied[tuple(np.array([*new, *lettered]).T)] = True
        closer, match = face_likeness(rectified, self.orientation or 0, bare, lettered, occupied)
        face = {sq: (float(a), float(b)) for sq, a, b in zip(bare, closer, match, strict=True)}
        return {Square(r, c) for r, c in unmatched_faces(bare, [None] * len(bare), face)}


    def _letter(self, glyph: Any, guess: Any) -> tuple[str, float, float]:
        """(letter, confidence, glyph height) for a guess, umlaut marks applied; an empty
        letter when the reader proposed something the tile set does not have."""
        from vision.letter_choice import with_marks

        letter = guess.letter
        if glyph is not None and letter != BLANK:
            heights = [glyph.height] + self._heights[-40:]
            typical = float(np.median(heights)) if len(heights) >= 3 else None
            marked = glyph.marked or (
                typical is not None and glyph.height > MARKED_HEIGHT * typical
            )
            letter = with_marks(letter, marked, self.tileset)
        if letter != BLANK and letter not in self.tileset.counts:
            return "", 0.0, 0.0
        return letter, float(guess.confidence), 0.0 if glyph is None else glyph.height


    def _check_unsure(self, state: PendingTurn) -> None:
        """Letters the classifier read without confidence: unless the dictionary allows only
        the letter read on each of them, one batched Tesseract call decides between the
        readers."""
        from vision.letter_choice import read_letters

        unchecked = [sq for sq in state.squares
                     if sq in self._reads and sq in self._reads[sq].unchecked]
        if not unchecked:
            return
        tiles = {sq: (entry[0] or BLANK) for sq, entry in state.read.items()}
        if self.lexicon is not None and all(
            self._determined(tiles, square) == tiles[square] for square in unchecked
        ):
            return  # no other letter would make the words valid
        classifier = self._classifier()
        glyphs = [self._reads[sq].glyphs[sq] for sq in unchecked]
        guesses, _ = read_letters(glyphs, classifier, self.tesseract, None, confirm=True,
                                  stock=self._stock_for_unseen(classifier))
        for square, glyph, guess in zip(unchecked, glyphs, guesses, strict=True):
            self._reads[square].first[square] = state.read[square][0]
            state.read[square] = self._letter(glyph, guess)
            self._reads[square].unchecked.discard(square)


    def _shows_value(self, square: Square) -> bool:
        """Whether the tile read on ``square`` shows a point value in its lower right corner,
        as every lettered tile does and no blank (a blank's face is bare but for marks)."""
        read = self._reads.get(square)
        glyph = read.glyphs.get(square) if read is not None else None
        digit = getattr(glyph, "digit", None)
        return digit is not None and digit[0] > 0 and digit[1] > 0


    def _plausible_here(self, state: PendingTurn, square: Square, letter: str) -> bool:
        """Whether this turn's tile on ``square`` may be corrected to ``letter`` by the
        dictionary (see :meth:`_plausible`)."""
        read = self._reads.get(square)
        glyph = read.glyphs.get(square) if read is not None else None
        return self._plausible(glyph, state.read[square][1], letter)


    def _plausible(self, glyph: Any, confidence: float, letter: str) -> bool:
        """Whether a tile read with ``confidence`` may be ``letter`` instead: always when read
        without confidence; otherwise only when ``letter`` is among the calibrated classifier's
        :data:`PLAUSIBLE_RANK` likeliest letters for the glyph (and when there is no classifier
        or no glyph, nothing says no)."""
        if confidence < UNSURE or glyph is None:
            return True
        ranking = self._classifier_ranking(glyph)
        return ranking is None or letter in ranking[:PLAUSIBLE_RANK]


    def _close_here(self, state: PendingTurn, square: Square,
                    letters: Iterable[str]) -> set[str]:
        """Those of ``letters`` that this turn's tile on ``square`` may be corrected to by the
        word list (see :meth:`_close`)."""
        read = self._reads.get(square)
        glyph = read.glyphs.get(square) if read is not None else None
        return self._close(glyph, state.read[square][1], state.read[square][0], letters)


    def _close(self, glyph: Any, confidence: float, read: str,
               letters: Iterable[str]) -> set[str]:
        """Those of ``letters`` the glyph read as ``read`` (with ``confidence``) leaves close:
        the classifier finds the glyph at most :data:`vision.wordcheck.CLOSE_LIKENESS` less
        like them than like ``read``.  The word list chooses only between such letters (a word
        in no list is otherwise the players' to challenge); without a classifier that knows
        both letters, only a letter read without confidence may change."""
        from vision.wordcheck import CLOSE_LIKENESS

        letters = set(letters)
        classifier = self._classifier() if glyph is not None else None
        like: dict[str, float] = {}
        if classifier is not None and len(classifier) > 0:
            # One comparison of the glyph with the samples, whatever the letters asked about.
            known, similarity = classifier.likeness(glyph.normalised[None])
            like = dict(zip(known, similarity[0].tolist(), strict=True))
        unsure = confidence < UNSURE
        return {letter for letter in letters
                if (like[read] - like[letter] <= CLOSE_LIKENESS
                    if read in like and letter in like else unsure)}


    def _classifier_ranking(self, glyph: Any) -> list[str] | None:
        """The profile's letters, likeliest first for ``glyph``, as the calibrated classifier
        judges them (None without samples)."""
        classifier = self._classifier()
        if classifier is None or len(classifier) == 0:
            return None
        [ranking] = classifier.ranking(glyph.normalised[None])
        return [letter for letter in ranking if letter != BLANK]


    def _second_readings(self, squares: Sequence[Square]) -> dict[Square, str]:
        """Tesseract's letters for this turn's squares (one call for those not asked yet;
        "" where it read nothing)."""
        want = [sq for sq in squares if sq in self._reads and sq not in self._reads[sq].second
                and self._reads[sq].glyphs.get(sq) is not None]
        if want:
            letters = self._tesseract_letters([self._reads[sq].glyphs[sq] for sq in want])
            for square, letter in zip(want, letters, strict=True):
                self._reads[square].second[square] = letter
        return {sq: self._reads[sq].second[sq] for sq in squares
                if sq in self._reads and sq in self._reads[sq].second}


    def _tesseract_letters(self, glyphs: list[Any]) -> list[str]:
        from vision.tesseract_reader import TesseractUnavailable

        try:
            guesses = self.tesseract.read([glyph.ink for glyph in glyphs])
        except TesseractUnavailable as exc:
            log.warning("no second reading: %s", exc)
            return [""] * len(glyphs)
        out = []
        for glyph, guess in zip(glyphs, guesses, strict=True):
            letter = self._letter(glyph, guess)[0]
            out.append("" if letter == BLANK else letter)
        return out


    def _other_readings(self, square: Square, letter: str,
                        seconds: dict[Square, str]) -> set[str]:
        """Letters other than ``letter`` that a reader proposed for this turn's square."""
        read = self._reads.get(square)
        first = read.first.get(square) if read is not None else None
        return {r for r in (seconds.get(square), first) if r and r != letter}


    def _learn(self, event: Event, state: PendingTurn) -> None:
        """A confirmed move teaches the profile its tiles and the tracker the board."""
        self.tracker.confirm_board(self.game.board.rows())
        assert event.play is not None
        placed = dict(event.play.placement.tiles)
        for square, (_, _, height) in state.read.items():
            letter = placed.get(square)
            if letter is not None and height > 0 and letter == letter.upper() and (
                len(letter) == 1 and letter.isascii()
            ):
                self._heights.append(height)
        if self.learn and self.profile is not None:
            batches: dict[int, tuple[SquaresRead, dict[Square, str]]] = {}
            for square in state.squares:
                read = self._reads.get(square)
                if read is None or square not in placed:
                    continue
                batches.setdefault(id(read), (read, {}))[1][square] = placed[square]
            if batches:
                if self._learner is None:
                    self._learner = ThreadPoolExecutor(1, thread_name_prefix="tilecam-learn")
                self._learning.append(self._learner.submit(
                    self._learn_tiles, self.profile,
                    [(read.rectified, known) for read, known in batches.values()]))
        given = {q.square for q in state.questions if q.kind in ("blank", "letter")
                 and q.answer is not None and q.square in placed}
        given_all = any(q.kind == "placement" and q.answer is not None
                        for q in state.questions)
        for square, letter in placed.items():
            self._laid[square] = self._laid_tile(state, square, letter, self.turn_number,
                                                 given_all or square in given)
        for square in state.squares:
            self._reads.pop(square, None)
        if len(self.game.events) % 3 == 0:
            self.tracker.refit_occupancy(self._base_occupancy)


    def _learn_start(self, state: PendingTurn, position: dict[Square, str]) -> None:
        """The tiles of a game's start position, as a move's are learnt (:meth:`_learn`): the
        tracker's board, and what is known of each tile, so that a later move can show one
        misread (no more of its letter left) and correct it."""
        self.tracker.confirm_board(self.game.board.rows())
        given = {q.square for q in state.questions if q.kind in ("blank", "letter")
                 and q.answer is not None}
        for square, letter in position.items():
            self._laid[square] = self._laid_tile(state, square, letter, 0, square in given)
            self._reads.pop(square, None)


    def _laid_tile(self, state: PendingTurn, square: Square, letter: str, turn: int,
                   confirmed: bool) -> LaidTile:
        """What is known of a tile laid on ``square``: how this turn read it."""
        read = self._reads.get(square)
        return LaidTile(
            turn=turn, letter=letter, confidence=state.read.get(square, ("", 0.0, 0.0))[1],
            confirmed=confirmed,
            glyph=None if read is None else read.glyphs.get(square),
            first=None if read is None else read.first.get(square),
            second=None if read is None else read.second.get(square),
        )


    def _learn_tiles(self, profile: Profile,
                     batches: list[tuple[np.ndarray, dict[Square, str]]]) -> None:
        """The learning thread's work (see :meth:`finish_learning`): a confirmed move's tiles
        into the profile, and the classifier built for the next read."""
        from vision.glyphs import crop_margin_px
        from vision.rectified import SQUARE_PX

        try:
            for rectified, known in batches:
                try:
                    report = profile.extend_from_squares(
                        rectified, known, SQUARE_PX, crop_margin_px(SQUARE_PX))
                except ValueError as exc:  # ProfileError: nothing learnt, nothing lost
                    log.warning("could not learn from the move: %s", exc)
                    continue
                for (row, col), samples in report.samples.items():
                    self._learnt[Square(row, col)] = samples
            profile.classifier()
        except Exception:  # noqa: BLE001 - the game goes on with the profile as it was
            log.exception("learning from a confirmed move failed")


    def relabel(self, square: Square, was: str, letter: str) -> None:
        """The tile on ``square``, confirmed as ``was``, is ``letter`` (the players corrected
        it): what the profile learnt of it is renamed."""
        self._relabel(square, was, letter)


    def _forget_learnt(self, square: Square) -> None:
        """The profile learnt a tile on ``square`` that was none: its samples are dropped."""
        self.finish_learning()
        samples = self._learnt.pop(square, None)
        if self.profile is not None and samples:
            dropped = self.profile.forget(samples)
            log.info("%s: %d samples learnt from no tile dropped", self.name(square), dropped)

    def _relabel(self, square: Square, was: str, letter: str) -> None:
        """The profile learnt the tile on ``square`` as ``was``; it is ``letter``."""
        self.finish_learning()  # the move that laid it may still be being learnt
        samples = self._learnt.get(square)
        if self.profile is None or not samples:
            return
        label = BLANK if letter.islower() else letter
        old = BLANK if was.islower() else was
        if label != old:
            changed = self.profile.relabel(samples, old, label)
            log.info("%s: %d samples learnt as %s renamed %s", self.name(square), changed, old,
                     label)


