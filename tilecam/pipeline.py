"""From frames to scored moves: the tracker, the letter readers, the game and the dictionary.

:class:`Pipeline` takes frames (a live stream, or stills one per turn) and keeps a
:class:`scorer.game.Game` up to date:

- the :class:`vision.tracker.Tracker` says when tiles were laid, and on which squares;
- those squares, and only those, are read once, as soon as they settle
  (:func:`vision.read.read_letters`: the profile's classifier, Tesseract for the rest);
- when the move is committed it goes to :meth:`Game.place`;
- a blank's letter is the one letter that makes every word the move forms valid, when the
  dictionary knows exactly one; a letter read without confidence is taken as read when the
  words are then valid, else as the one letter that makes them valid.  Either way the move's
  notes say so.  Anything else (a blank the dictionary cannot settle, a letter it cannot
  confirm, a placement the rules refuse, a still without a placement) becomes a
  :class:`Question` for the players: never a silently wrong score;
- a confirmed move's tiles extend the calibration profile (the reader learns the user's tiles
  during the game) and teach the tracker's occupancy model the confirmed board.

Questions are answered by an *answer source* (``answers(question) -> str | None``): the web
page's players, or, for evaluating on a recorded game, the game's record
(:class:`RecordAnswers`, which only ever answers questions the pipeline asked).  Without an
answer the pipeline either *holds* the turn (``hold=True``, the page's way: later turns queue
until the players answer) or applies its best guess and marks the move unconfirmed (the replay
command's way).

Answers are strings: a letter (lower case for a blank: ``"e"``), ``"pass"``,
``"exchange ABC"`` / ``"exchange 3"``, or a corrected placement in GCG notation
(``"8D FIRNS"``, board coordinates, lower case for blanks, ``.`` for played-through tiles).
Squares in questions and notes are named as the pipeline is told (``lettered_rows``: row letter
first, as scrabscrap records name them).
"""

from __future__ import annotations

import logging
import time as _time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scorer.game import Event, EventKind, Game, GameError, Rules
from scorer.rules import position_name, words_with_unknown_blanks
from scorer.squares import Square
from scorer.tiles import BLANK, TileSet

if TYPE_CHECKING:
    from calibration.profile import Profile
    from scorer.lexicon import Lexicon
    from vision.tracker import Tracker, TrackerConfig, TrackEvent

log = logging.getLogger(__name__)

#: A letter read with less confidence than this is checked against the dictionary or asked.
UNSURE = 0.6
#: Classifier confidence above which Tesseract is not asked (as in :mod:`vision.read`).
ACCEPT = 0.7
#: Glyph height, relative to the typical letter's, above which a letter carries an umlaut's
#: marks (see :func:`vision.read.marks_above`).
MARKED_HEIGHT = 1.15


@dataclass
class Question:
    """Something the players must settle for a turn."""

    id: int
    turn: int
    #: "blank" (its letter), "letter" (a letter read without confidence), "placement" (the
    #: rules refused what was read), "no_placement" (a pass or an exchange?)
    kind: str
    prompt: str
    square: Square | None = None
    choices: list[str] = field(default_factory=list)
    guess: str | None = None
    answer: str | None = None
    #: who answered: "players", "record" (an evaluation's reference record), or None
    answered_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "turn": self.turn, "kind": self.kind, "prompt": self.prompt,
            "square": None if self.square is None else str(self.square),
            "choices": list(self.choices), "guess": self.guess, "answer": self.answer,
            "answered_by": self.answered_by,
        }


@dataclass
class MoveReport:
    """One turn as the page shows it."""

    turn: int
    player: str
    #: "play", "exchange", "pass", "withdrawn" or "unresolved" (no score could be given)
    kind: str
    position: str = ""
    word: str = ""
    score: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    #: True when an unanswered question's best guess stands in the score
    unconfirmed: bool = False
    event: Event | None = field(default=None, repr=False)
    #: the letters as read, before any inference or answer (board squares -> letter)
    read: dict[Square, str] = field(default_factory=dict)
    #: seconds from the tiles settling to the move being scored
    latency: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn, "player": self.player, "kind": self.kind,
            "position": self.position, "word": self.word, "score": self.score,
            "totals": dict(self.totals), "notes": list(self.notes),
            "questions": [q.to_dict() for q in self.questions],
            "unconfirmed": self.unconfirmed,
        }

    def line(self) -> str:
        """One line of text: ``12. Stefan  H4 FIRNS  +24  Stefan 24 : Hanns 0``."""
        totals = " : ".join(f"{name} {score}" for name, score in self.totals.items())
        if self.kind == "play":
            what = f"{self.position} {self.word}"
        elif self.kind == "exchange":
            what = f"exchange {self.word}".rstrip()
        elif self.kind == "withdrawn":
            what = f"{self.position} {self.word} withdrawn"
        elif self.kind == "unresolved":
            what = f"unresolved placement {self.word}".rstrip()
        else:
            what = self.kind
        flag = "  (unconfirmed)" if self.unconfirmed else ""
        return f"{self.turn:>3}. {self.player:<10} {what:<28} {self.score:+4d}   {totals}{flag}"


AnswerSource = Callable[[Question], "str | None"]


@dataclass
class _Read:
    """Letters read on a batch of settled squares, with what to learn from once confirmed."""

    guesses: dict[Square, tuple[str, float, float]]  # letter, confidence, glyph height
    rectified: np.ndarray  # the photo's orientation, read scale with margin
    settled_at: float  # the clock when the squares settled
    glyphs: dict[Square, Any] = field(default_factory=dict)
    #: squares read by the classifier alone without confidence (Tesseract not asked yet)
    unchecked: set[Square] = field(default_factory=set)
    #: the classifier's own letter where Tesseract was asked afterwards
    first: dict[Square, str] = field(default_factory=dict)


class Pipeline:
    """Tracker, readers, game and dictionary composed (see the module notes).

    ``players`` name the players in turn order.  ``profile`` is the calibration profile (its
    corners, orientation, occupancy model and letter samples); without one the grid is searched
    for, occupancy is uncalibrated and letters are read by Tesseract alone.  ``lexicon`` is used
    to infer blanks and check unsure letters; pass None where the game's language has no word
    list (then those become questions).  ``learn``: confirmed moves extend the profile.
    """

    def __init__(
        self,
        players: Sequence[str],
        *,
        profile: Profile | None = None,
        tileset: str | TileSet = "en",
        lexicon: Lexicon | None = None,
        stills: bool = False,
        rules: Rules | None = None,
        answers: AnswerSource | None = None,
        hold: bool = False,
        learn: bool = True,
        tracker_config: TrackerConfig | None = None,
        game: Game | None = None,
        lettered_rows: bool = False,
    ) -> None:
        from vision.occupancy import OccupancyModel
        from vision.tesseract_reader import TesseractReader
        from vision.tracker import Tracker

        self.tileset = TileSet.named(profile.tileset) if profile is not None else (
            tileset if isinstance(tileset, TileSet) else TileSet.named(tileset)
        )
        self.game = game or Game(list(players), self.tileset, rules or Rules())
        self.profile = profile
        self.lexicon = lexicon
        self.answers = answers
        self.hold = hold
        self.lettered_rows = lettered_rows
        self.learn = learn and profile is not None
        self.tesseract = TesseractReader(self.tileset)
        occupancy = None
        if profile is not None and profile.occupancy:
            occupancy = OccupancyModel.from_dict(profile.occupancy)
        self.orientation: int | None = None if profile is None else profile.orientation
        self.tracker: Tracker = Tracker(
            corners=None if profile is None else profile.corners,
            orientation=self.orientation or 0,
            occupancy=occupancy,
            known=self.game.board.rows(),
            stills=stills,
            config=tracker_config,
        )
        self.reports: list[MoveReport] = []
        self.questions: list[Question] = []
        self._reads: dict[Square, _Read] = {}
        self._queue: list[TrackEvent] = []
        self._held: tuple[Any, ...] | None = None
        self._heights: list[float] = []
        self._next_question = 1
        self._base_occupancy: list[tuple[np.ndarray, np.ndarray]] = []
        if profile is not None and profile.occupancy_frames is not None:
            boards = profile.occupancy_boards
            assert boards is not None
            self._base_occupancy = list(zip(profile.occupancy_frames, boards, strict=True))

    # ------------------------------------------------------------------ feeding

    @property
    def turn_number(self) -> int:
        """Turns reported so far."""
        return len(self.reports)

    def feed(self, time: float, frame: np.ndarray) -> list[MoveReport]:
        """One frame in; the turns it completed out."""
        return self._handle(self.tracker.update(time, frame))

    def finish(self, time: float = 0.0) -> list[MoveReport]:
        """The source ended: the provisional move is committed."""
        return self._handle(self.tracker.finish(time))

    def commit(self, time: float = 0.0) -> list[MoveReport]:
        """Commit the provisional move now (a player pressed the clock)."""
        return self._handle(self.tracker.commit(time))

    def run(self, source: Any) -> list[MoveReport]:
        """Feed a whole frame source (an iterable of ``(time, frame)``); all turns out."""
        out: list[MoveReport] = []
        last = 0.0
        for time, frame in source:
            last = time
            out.extend(self.feed(time, frame))
        out.extend(self.finish(last))
        return out

    def answer(self, question_id: int, answer: str) -> list[MoveReport]:
        """The players' answer to a held question; the turns it let through out."""
        for question in self.questions:
            if question.id == question_id and question.answer is None:
                question.answer, question.answered_by = answer, "players"
                break
        else:
            raise KeyError(f"no open question {question_id}")
        return self._handle([])

    def state(self) -> dict[str, Any]:
        """What the page shows, as plain JSON types: the turns so far, the open questions,
        the squares of the move being laid (not yet committed) and the tracker's counters."""
        return {
            "moves": [report.to_dict() for report in self.reports],
            "pending": [question.to_dict() for question in self.pending],
            "provisional": [self.name(Square(r, c))
                            for r, c in self.tracker.provisional_squares],
            "scores": dict(zip(self.game.players, self.game.scores, strict=True)),
            "tracker": dict(self.tracker.counters),
        }

    @property
    def pending(self) -> list[Question]:
        """Questions not answered yet."""
        return [q for q in self.questions if q.answer is None]

    # ------------------------------------------------------------------ events

    def _handle(self, events: list[TrackEvent]) -> list[MoveReport]:
        from vision.tracker import (
            MoveCommitted,
            NoPlacement,
            TilesAdded,
            TilesRemoved,
        )

        out: list[MoveReport] = []
        for event in events:
            # Reading happens as soon as tiles settle, even while an earlier turn is held.
            if isinstance(event, TilesAdded):
                self._read(event)
            elif isinstance(event, TilesRemoved) and not event.withdrawal:
                for r, c in event.squares:
                    self._reads.pop(Square(r, c), None)
        self._queue.extend(
            e for e in events if isinstance(e, (MoveCommitted, NoPlacement, TilesRemoved))
            and not (isinstance(e, TilesRemoved) and not e.withdrawal)
        )
        while self._queue or self._held is not None:
            if self._held is not None:
                report = self._resume()
                if report is None:
                    break
                out.append(report)
                continue
            event = self._queue.pop(0)
            if isinstance(event, MoveCommitted):
                report = self._placement(event)
            elif isinstance(event, NoPlacement):
                report = self._no_placement()
            else:
                report = self._withdrawal()
            if report is None:
                break
            out.append(report)
        return out

    def _ask(self, kind: str, prompt: str, *, square: Square | None = None,
             choices: Sequence[str] = (), guess: str | None = None) -> Question:
        question = Question(
            self._next_question, self.turn_number + 1, kind, prompt, square, list(choices), guess
        )
        self._next_question += 1
        self.questions.append(question)
        if self.answers is not None:
            answer = self.answers(question)
            if answer is not None:
                question.answer, question.answered_by = answer, "record"
        return question

    # ------------------------------------------------------------------ reading

    def _read(self, event: Any) -> None:
        from vision.read import (
            find_orientation,
            glyphs_of,
            inner,
            occupancy_of,
            read_letters,
            rectify_with_margin,
        )

        started = _time.perf_counter()
        rectified = rectify_with_margin(event.frame, event.corners)
        classifier = self.profile.classifier() if self.profile is not None else None
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
        upright = np.rot90(rectified, self.orientation)
        squares = [Square(int(r), int(c)) for r, c in event_squares]
        glyphs = glyphs_of(upright, [(sq.row, sq.col) for sq in squares])
        # With a word list the classifier reads first, and Tesseract (a few hundred
        # milliseconds a call) only runs at commit if the words as read are not all valid.
        deferred = self.lexicon is not None and classifier is not None and len(classifier) > 0
        guesses, _ = read_letters(glyphs, classifier, None if deferred else self.tesseract, None)
        read = _Read({}, rectified, started, dict(zip(squares, glyphs, strict=True)))
        for square, guess in zip(squares, guesses, strict=True):
            read.guesses[square] = self._letter(read.glyphs[square], guess)
            if deferred and guess.letter != BLANK and guess.confidence < ACCEPT:
                read.unchecked.add(square)
            self._reads[square] = read

    def _letter(self, glyph: Any, guess: Any) -> tuple[str, float, float]:
        """(letter, confidence, glyph height) for a guess, umlaut marks applied; an empty
        letter when the reader proposed something the tile set does not have."""
        from vision.read import with_marks

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

    def _check_unsure(self, state: _Pending) -> None:
        """Letters the classifier read without confidence: unless the dictionary allows only
        the letter read on each of them, one batched Tesseract call decides between the
        readers."""
        from vision.read import read_letters

        unchecked = [sq for sq in state.squares
                     if sq in self._reads and sq in self._reads[sq].unchecked]
        if not unchecked:
            return
        tiles = {sq: (entry[0] or BLANK) for sq, entry in state.read.items()}
        if self.lexicon is not None and all(
            self._determined(tiles, square) == tiles[square] for square in unchecked
        ):
            return  # no other letter would make the words valid
        classifier = self.profile.classifier() if self.profile is not None else None
        glyphs = [self._reads[sq].glyphs[sq] for sq in unchecked]
        guesses, _ = read_letters(glyphs, classifier, self.tesseract, None)
        for square, glyph, guess in zip(unchecked, glyphs, guesses, strict=True):
            self._reads[square].first[square] = state.read[square][0]
            state.read[square] = self._letter(glyph, guess)
            self._reads[square].unchecked.discard(square)

    def _determined(self, tiles: dict[Square, str], square: Square) -> str | None:
        """The one letter that makes every word valid on ``square`` (blanks and unreadable
        tiles unknown too), or None when there is none or more than one."""
        unknown = [sq for sq, t in tiles.items() if t == BLANK or sq == square]
        trial = {sq: (BLANK if sq == square else t) for sq, t in tiles.items()}
        solutions = self._solve(self.game.board, trial, unknown, self.tileset.letters, limit=8)
        letters = {solution[square] for solution in solutions}
        return letters.pop() if len(letters) == 1 else None

    # ------------------------------------------------------------------ turns

    def _report(self, kind: str, event: Event | None, **fields: Any) -> MoveReport:
        player = self.game.players[event.player] if event is not None else (
            self.game.players[self.game.turn]
        )
        report = MoveReport(
            turn=self.turn_number + 1, player=player, kind=kind, event=event,
            totals=dict(zip(self.game.players, self.game.scores, strict=True)), **fields,
        )
        if event is not None:
            report.score = event.score
        self.reports.append(report)
        return report

    def name(self, square: Square) -> str:
        """A square's name: ``G1`` (column G, row 1), or with ``lettered_rows`` the row letter
        first (the same square is then ``A7``: row A, column 7)."""
        if self.lettered_rows:
            return f"{'ABCDEFGHIJKLMNO'[square.row]}{square.col + 1}"
        return str(square)

    def position_text(self, event: Event, lettered_rows: bool = False) -> str:
        """A play's position, in standard GCG or the lettered-rows convention."""
        assert event.play is not None
        main = event.play.main
        if lettered_rows:
            return position_name(main.start.transposed(), main.direction.other)
        return main.position

    def _placement(self, event: Any) -> MoveReport | None:
        squares = [Square(r, c) for r, c in event.squares]
        read: dict[Square, tuple[str, float, float]] = {}
        for square in squares:
            entry = self._reads.get(square)
            read[square] = entry.guesses[square] if entry is not None else ("", 0.0, 0.0)
        state = _Pending(squares, read, [], [], [])
        self._held = ("placement", state)
        return self._resume()

    def _resume(self) -> MoveReport | None:
        assert self._held is not None
        kind, state = self._held
        if kind == "placement":
            report = self._settle_placement(state)
        elif kind == "no_placement":
            report = self._settle_no_placement(state)
        else:
            report = None
        if report is not None:
            self._held = None
        return report

    def _settle_placement(self, state: _Pending) -> MoveReport | None:
        """Decide the letters (dictionary, answers), then place.  None while held."""
        if not state.questions:
            self._check_unsure(state)
            state.tiles, state.notes = self._infer(state)
            self._check_words(state)
        open_questions = [q for q in state.questions if q.answer is None]
        if open_questions and self.hold:
            return None
        tiles = dict(state.tiles)
        unconfirmed = False
        for question in state.questions:
            if question.kind not in ("blank", "letter") or question.square is None:
                continue
            if question.answer is not None:
                tiles[question.square] = question.answer.strip()
                source = "the record" if question.answered_by == "record" else "the players"
                state.notes.append(f"{self.name(question.square)}: {question.answer.strip()} "
                                   f"({question.kind} answered by {source})")
            elif question.guess:
                tiles[question.square] = question.guess
                unconfirmed = True
        if any(t == BLANK or not t for t in tiles.values()):
            unconfirmed = True
            # A blank scores nothing whatever it stands for; the letter only names it.
            tiles = {sq: ("?" if not t else t) for sq, t in tiles.items()}
        started = min((self._reads[sq].settled_at for sq in state.squares
                       if sq in self._reads), default=_time.perf_counter())
        try:
            game_event = self._place(tiles)
        except GameError as exc:
            return self._refused(state, tiles, exc, unconfirmed)
        report = self._play_report(game_event, state, unconfirmed)
        report.latency = _time.perf_counter() - started
        self._learn(game_event, state)
        return report

    def _place(self, tiles: dict[Square, str]) -> Event:
        unknown = sorted(sq for sq, t in tiles.items() if t == BLANK)
        if not unknown:
            return self.game.place(tiles)
        # A blank scores nothing whatever it stands for: an unknown one stands as "a" in the
        # game, and the record's note says that its letter is not known.
        tiles = {sq: ("a" if t == BLANK else t) for sq, t in tiles.items()}
        names = ", ".join(self.name(sq) for sq in unknown)
        return self.game.place(tiles, note=f"unconfirmed: letter of the blank on {names} "
                                           "not known")

    def _refused(self, state: _Pending, tiles: dict[Square, str], exc: GameError,
                 unconfirmed: bool) -> MoveReport | None:
        placed = " ".join(f"{self.name(sq)}:{t}" for sq, t in sorted(tiles.items()))
        question = next((q for q in state.questions if q.kind == "placement"), None)
        if question is None:
            question = self._ask(
                "placement",
                f"the tiles read ({placed}) are refused by the rules: {exc.message}; "
                "what was played?",
            )
            state.questions.append(question)
        if question.answer is None:
            if self.hold:
                return None
            report = self._report("unresolved", None, word=placed, questions=state.questions,
                                  notes=state.notes + [f"refused: {exc.message}"],
                                  unconfirmed=True, read=self._as_read(state))
            return report
        position, _, word = question.answer.strip().partition(" ")
        try:
            game_event = self.game.play(position, word)
        except GameError as again:
            report = self._report("unresolved", None, word=placed, questions=state.questions,
                                  notes=state.notes + [f"answer {question.answer!r} refused: "
                                                       f"{again.message}"],
                                  unconfirmed=True, read=self._as_read(state))
            return report
        source = "the record" if question.answered_by == "record" else "the players"
        state.notes.append(f"placement corrected by {source}: {question.answer}")
        report = self._play_report(game_event, state, unconfirmed=False)
        self._learn(game_event, state)
        return report

    def _as_read(self, state: _Pending) -> dict[Square, str]:
        return {sq: (entry[0] or BLANK) for sq, entry in state.read.items()}

    def _play_report(self, event: Event, state: _Pending, unconfirmed: bool) -> MoveReport:
        assert event.play is not None
        main = event.play.main
        word = main.marked
        unknown = {q.square for q in state.questions
                   if q.kind == "blank" and q.answer is None and q.guess is None}
        if unknown:
            # A blank whose letter nobody knows is shown as "?", not as the stand-in letter.
            shown = [("?" if sq in unknown else t) for sq, t in zip(main.squares, main.tiles,
                                                                   strict=True)]
            word = type(main)(main.start, main.direction, tuple(shown), main.new, 0).marked
        return self._report(
            "play", event, position=main.position, word=word,
            notes=state.notes, questions=state.questions, unconfirmed=unconfirmed,
            read=self._as_read(state),
        )

    def _infer(self, state: _Pending) -> tuple[dict[Square, str], list[str]]:
        """Letters for the read squares, the dictionary's inferences, and questions.

        Unknown are: blanks (a tile without a glyph, while blanks are left), *unreadable*
        tiles (no letter: a glyph nothing could read, or no glyph once every blank is on the
        board) and *unsure* letters (read without confidence).
        """
        tiles: dict[Square, str] = {}
        notes: list[str] = []
        blanks: list[Square] = []
        unreadable: list[Square] = []
        unsure: list[Square] = []
        blanks_left = self.game.unseen()[BLANK]
        for square, (letter, confidence, _) in sorted(state.read.items()):
            if letter == BLANK and blanks_left > len(blanks):
                blanks.append(square)
            elif not letter or letter == BLANK:
                unreadable.append(square)
            else:
                tiles[square] = letter
                if confidence < UNSURE:
                    unsure.append(square)
                continue
            tiles[square] = BLANK
        letters = self.tileset.letters
        board = self.game.board
        settled: dict[Square, str] = {}
        maybe_blank: list[Square] = []
        if self.lexicon is not None and (blanks or unreadable or unsure):
            # First with the unsure letters as read, then with them unknown too.
            solutions = self._solve(board, tiles, blanks + unreadable, letters)
            if unsure and solutions:
                # Valid as read; but only a letter that no other letter could replace is
                # confirmed (CAT misread as GAT is valid too).
                confirmed = [sq for sq in unsure if self._determined(tiles, sq) == tiles[sq]]
                if blanks_left > len(blanks):
                    # A faceless blank can show a faint mark that reads as the very letter it
                    # stands for: while blanks are unseen, which of the two is asked.
                    maybe_blank += confirmed
                    confirmed = []
                if confirmed:
                    notes.append("unsure letters confirmed by the dictionary (no other letter "
                                 "fits): " + ", ".join(f"{self.name(sq)} {tiles[sq]}"
                                                       for sq in confirmed))
                unsure = [sq for sq in unsure if sq not in confirmed and sq not in maybe_blank]
                if unsure:
                    solutions = []  # asked below, with the letters as read as the guess
            elif unsure:
                trial = {sq: (BLANK if sq in unsure else t) for sq, t in tiles.items()}
                solutions = self._solve(board, trial, blanks + unreadable + unsure, letters)
            if len(solutions) == 1 and unsure and blanks_left > len(blanks):
                maybe_blank += unsure  # the letter is settled, not whether it is a blank
                for square in unsure:
                    tiles[square] = solutions[0][square]
                unsure = []
                solutions = [{sq: v for sq, v in solutions[0].items() if sq not in maybe_blank}]
            if len(solutions) == 1:
                settled = solutions[0]
                for square in unsure + unreadable:
                    was = state.read[square][0]
                    notes.append(
                        f"{self.name(square)}: read {was if was not in ('', BLANK) else 'nothing'}"
                        f", taken as {settled[square]}: the only letter that makes every "
                        "word valid"
                    )
                    tiles[square] = settled[square]
                for square in blanks:
                    tiles[square] = settled[square].lower()
                    notes.append(f"blank on {self.name(square)} is {settled[square]}: the "
                                 "only letter that makes every word valid")
                blanks, unreadable, unsure = [], [], []
            else:
                options = {sq: sorted({s[sq] for s in solutions if sq in s})
                           for sq in blanks + unreadable + unsure}
                for square in blanks:
                    state.questions.append(self._ask(
                        "blank", f"which letter is the blank on {self.name(square)}?",
                        square=square, choices=[c.lower() for c in options[square]],
                        guess=options[square][0].lower() if options[square] else None,
                    ))
                for square in unreadable + unsure:
                    read = tiles[square] if tiles[square] != BLANK else None
                    state.questions.append(self._ask(
                        "letter",
                        f"the tile on {self.name(square)} was read as {read or 'nothing'} "
                        "without confidence: which letter is it?",
                        square=square, choices=options[square],
                        guess=read or (options[square][0] if options[square] else None),
                    ))
                self._ask_blank_or_letter(state, tiles, maybe_blank)
                return tiles, notes
        for square in blanks:
            state.questions.append(self._ask(
                "blank", f"which letter is the blank on {self.name(square)}?", square=square,
            ))
        for square in unreadable + unsure:
            read = tiles[square] if tiles[square] != BLANK else None
            state.questions.append(self._ask(
                "letter",
                f"the tile on {self.name(square)} was read as {read or 'nothing'} without "
                "confidence: which letter is it?",
                square=square, guess=read,
            ))
        self._ask_blank_or_letter(state, tiles, maybe_blank)
        return tiles, notes

    def _ask_blank_or_letter(self, state: _Pending, tiles: dict[Square, str],
                             squares: list[Square]) -> None:
        for square in squares:
            letter = tiles[square]
            state.questions.append(self._ask(
                "letter",
                f"the tile on {self.name(square)} reads as {letter} only by the word list: is "
                f"it {letter}, or a blank standing for {letter} ({letter.lower()})?",
                square=square, choices=[letter, letter.lower()], guess=letter,
            ))

    def _check_words(self, state: _Pending) -> None:
        """Words not in the word list: a phony, or a letter misread with confidence.

        When changing one tile's letter makes every word valid (the only such change, or the
        only one Tesseract's reading of the tiles supports), the players are asked which it
        is; the guess is Tesseract's when it supports the change, else the letter as read.
        Otherwise the move stands as read, with a note (a phony is the players' to challenge).
        """
        if self.lexicon is None or state.questions or not state.tiles:
            return
        board = self.game.board
        tiles = state.tiles
        if self._solve(board, tiles, [], self.tileset.letters):
            return
        try:
            formed = words_with_unknown_blanks(board, tiles)
        except (ValueError, KeyError):
            return
        invalid = ["".join(str(t) for t in word) for word in formed
                   if "".join(str(t) for t in word) not in self.lexicon]
        candidates: list[tuple[Square, str]] = []
        for square, letter in sorted(tiles.items()):
            if letter != letter.upper():
                continue  # a blank: any letter was already tried
            for solution in self._solve(board, tiles, [square], self.tileset.letters,
                                        limit=len(self.tileset.letters)):
                candidates.append((square, solution[square]))
        # Tesseract's reading of the move's tiles (one call) picks among several candidates.
        read_squares = [sq for sq in sorted(tiles) if sq in self._reads
                        and self._reads[sq].glyphs.get(sq) is not None]
        second: dict[Square, str] = {}
        if candidates and read_squares:
            answers = self.tesseract.read([self._reads[sq].glyphs[sq].ink for sq in read_squares])
            second = {sq: a.letter for sq, a in zip(read_squares, answers, strict=True)}
        # A candidate either reader proposed (Tesseract now, or the classifier before
        # Tesseract overruled it) is the likely misread.
        first = {sq: self._reads[sq].first.get(sq) for sq in tiles if sq in self._reads}
        supported = [(sq, letter) for sq, letter in candidates
                     if letter in (second.get(sq), first.get(sq))]
        if len(supported) == 1:
            (square, alternative), guess = supported[0], supported[0][1]
        elif len(candidates) == 1:
            (square, alternative), guess = candidates[0], tiles[candidates[0][0]]
        else:
            state.notes.append(f"not in the word list: {', '.join(invalid)} (a phony?)")
            return
        read = tiles[square]
        state.questions.append(self._ask(
            "letter",
            f"{', '.join(invalid)} is not in the word list: is the tile on {self.name(square)} "
            f"{alternative} (read as {read}), or is the play a phony?",
            square=square, choices=[alternative, read], guess=guess,
        ))

    def _solve(self, board: Any, tiles: dict[Square, str], unknown: list[Square],
               letters: Sequence[str], limit: int = 2) -> list[dict[Square, str]]:
        """Assignments of letters to ``unknown`` squares that make every word valid (at most
        ``limit``: 2 tell one from several)."""
        assert self.lexicon is not None
        query = {sq: (BLANK if sq in unknown else t) for sq, t in tiles.items()}
        try:
            words = words_with_unknown_blanks(board, query)
        except (ValueError, KeyError):
            return []
        order = sorted(sq for sq, t in query.items() if t == BLANK)
        found = self.lexicon.blank_solutions(words, letters, limit=limit)
        solutions = [{order[i]: letter for i, letter in s.items()} for s in found]
        # A tile that is in no word (a misplaced one) is not settled by any: no solution.
        return [s for s in solutions if len(s) == len(order)]

    def _no_placement(self) -> MoveReport | None:
        state = _Pending([], {}, [], [], [])
        self._held = ("no_placement", state)
        return self._resume()

    def _settle_no_placement(self, state: _Pending) -> MoveReport | None:
        if not state.questions:
            state.questions.append(self._ask(
                "no_placement", "no tiles were laid: was it a pass or an exchange?",
                choices=["pass", "exchange"], guess="pass",
            ))
        question = state.questions[0]
        if question.answer is None and self.hold:
            return None
        answer = (question.answer or "pass").strip()
        words = answer.split()
        try:
            if words[0] == "exchange" and len(words) > 1:
                tiles: str | int = int(words[1]) if words[1].isdigit() else words[1]
                event = self.game.exchange(tiles)
                kind, word = "exchange", str(words[1])
            else:
                event = self.game.pass_turn()
                kind, word = "pass", ""
        except GameError as exc:
            event = self.game.pass_turn(note=f"recorded as a pass: {exc.message}")
            kind, word = "pass", ""
            state.notes.append(f"{answer!r} refused ({exc.message}): recorded as a pass")
        if question.answer is not None:
            source = "the record" if question.answered_by == "record" else "the players"
            state.notes.append(f"labelled {answer} by {source}")
        return self._report(kind, event, word=word, notes=state.notes,
                            questions=state.questions, unconfirmed=question.answer is None)

    def _withdrawal(self) -> MoveReport | None:
        try:
            event = self.game.withdraw()
        except GameError as exc:
            log.warning("tiles taken back but no play to withdraw: %s", exc.message)
            return None
        self.tracker.confirm_board(self.game.board.rows())
        assert event.play is not None
        report = self._report(
            "withdrawn", event, position=event.play.position, word=event.play.main.marked,
            notes=["tiles taken back: the play is withdrawn"],
        )
        return report

    # ------------------------------------------------------------------ learning

    def _learn(self, event: Event, state: _Pending) -> None:
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
            from vision.letters import crop_margin_px
            from vision.read import SQUARE_PX

            batches: dict[int, tuple[_Read, dict[Square, str]]] = {}
            for square in state.squares:
                read = self._reads.get(square)
                if read is None or square not in placed:
                    continue
                batches.setdefault(id(read), (read, {}))[1][square] = placed[square]
            for read, known in batches.values():
                try:
                    self.profile.extend_from_squares(
                        read.rectified, known, SQUARE_PX, crop_margin_px(SQUARE_PX)
                    )
                except ValueError as exc:  # ProfileError: nothing learnt, nothing lost
                    log.warning("could not learn from the move: %s", exc)
        for square in state.squares:
            self._reads.pop(square, None)
        if len(self.game.events) % 3 == 0:
            self.tracker.refit_occupancy(self._base_occupancy)


@dataclass
class _Pending:
    """A turn being settled."""

    squares: list[Square]
    read: dict[Square, tuple[str, float, float]]
    questions: list[Question]
    notes: list[str]
    extra: list[Any]
    tiles: dict[Square, str] = field(default_factory=dict)


# ---------------------------------------------------------------------- record as answers


class RecordAnswers:
    """Answers questions from a reference GCG record, for evaluation only.

    The record stands in for the players: it is consulted only for the questions the pipeline
    asks, turn by turn (turn N of the pipeline is the record's N-th turn event), and answers as
    the players would: the letter on a square, pass or exchange, or the placement.
    ``consulted`` counts the questions it answered.
    """

    def __init__(self, path: str | Path, *, lettered_rows: bool = False,
                 tileset: str | None = None) -> None:
        from scorer.gcg import load_gcg, replay

        record = load_gcg(path, lettered_rows=lettered_rows, tileset=tileset)
        self.result = replay(record)
        self.turns: list[Event] = [
            e for e in self.result.game.events
            if e.kind in (EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS,
                          EventKind.WITHDRAWN, EventKind.LOST_TURN)
        ]
        self.consulted = 0

    def __call__(self, question: Question) -> str | None:
        if not 1 <= question.turn <= len(self.turns):
            return None
        event = self.turns[question.turn - 1]
        answer: str | None = None
        if question.kind in ("blank", "letter") and event.play is not None:
            tiles = dict(event.play.placement.tiles)
            if question.square in tiles:
                answer = tiles[question.square]
        elif question.kind == "placement" and event.play is not None:
            answer = f"{event.play.position} {event.play.gcg_word}"
        elif question.kind == "no_placement":
            if event.kind is EventKind.EXCHANGE:
                answer = f"exchange {event.tiles or event.count}"
            elif event.kind is EventKind.PASS:
                answer = "pass"
        if answer is not None:
            self.consulted += 1
        return answer

    def placement(self, turn: int) -> dict[Square, str] | None:
        """The record's tiles for a turn (for comparing what was read)."""
        if not 1 <= turn <= len(self.turns):
            return None
        event = self.turns[turn - 1]
        return None if event.play is None else dict(event.play.placement.tiles)


def default_lexicon(tileset: TileSet) -> Lexicon | None:
    """The bundled word list where it fits the tile set (English), else None."""
    if tileset.code != "en":
        return None
    from scorer.lexicon import Lexicon

    return Lexicon.default()
