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
- once every letter asked is answered, every word the move forms is checked against the word
  list, whatever was asked before: a letter misread even with confidence is *corrected by the
  dictionary* when one letter clearly fits (the only one, or the one a second reading
  proposes) and the glyph could be that letter, otherwise the players are asked (a phony
  stands as laid when they say so);
- a move needing a tile of which none is left shows an earlier misread: the earlier tile is
  corrected in the game (replayed from that move; the report's ``corrected`` says which, the
  earlier report gets a note) when the word list and the readers point at one, otherwise the
  players are asked which it was.  The move itself is not lost;
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

import copy
import logging
import time as _time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scorer.board import Board
from scorer.game import Event, EventKind, Game, GameError, Rules, rack_form
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
#: At most this many doubtful squares of one placement are solved for together by the
#: dictionary (more would let it make almost anything valid).
MAX_DOUBTED = 3
#: Rounds of checking a placement's words, each with the answers to the one before.
CHECK_ROUNDS = 3
#: At most this many letters are offered for an earlier tile found misread (without a word
#: list every unseen letter is possible: the likeliest are offered, any may be answered).
MOST_CHOICES = 8
#: A letter read with confidence is corrected by the dictionary only to one of the calibrated
#: classifier's this many likeliest letters for its glyph: a clear Q is no R because a word
#: wants one (that is more likely a phony, for the players to say).
PLAUSIBLE_RANK = 3


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


@dataclass(frozen=True)
class Correction:
    """A tile of an earlier move whose letter was misread, and the letter it really is."""

    square: Square
    #: the turn that laid the tile
    turn: int
    was: str
    letter: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"square": str(self.square), "turn": self.turn, "was": self.was,
                "letter": self.letter, "reason": self.reason}


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
    #: tiles of earlier moves whose letter this turn showed to be misread, corrected in the
    #: game before this turn was scored (the earlier turns' reports carry a note too)
    corrected: list[Correction] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn, "player": self.player, "kind": self.kind,
            "position": self.position, "word": self.word, "score": self.score,
            "totals": dict(self.totals), "notes": list(self.notes),
            "questions": [q.to_dict() for q in self.questions],
            "unconfirmed": self.unconfirmed,
            "corrected": [c.to_dict() for c in self.corrected],
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
    #: Tesseract's letter, where it was asked for a second reading ("" when it read nothing)
    second: dict[Square, str] = field(default_factory=dict)


@dataclass
class _Laid:
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
        #: tiles this pipeline laid, as read (for finding an earlier misread later)
        self._laid: dict[Square, _Laid] = {}
        #: confirmed moves being learnt by the learning thread (see :meth:`finish_learning`)
        self._learner: ThreadPoolExecutor | None = None
        self._learning: list[Future[None]] = []
        #: the samples each laid tile taught the profile (to rename them if it was misread)
        self._learnt: dict[Square, list[np.ndarray]] = {}
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
        """The source ended: the provisional move is committed (and learnt from)."""
        reports = self._handle(self.tracker.finish(time))
        self.finish_learning()
        return reports

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

    def _stock_for_unseen(self, classifier: Any) -> Any:
        """See :func:`vision.stock.stock_for_unseen`."""
        from vision.stock import stock_for_unseen

        return stock_for_unseen(classifier, set(self.tileset.letters))

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
        upright = np.rot90(rectified, self.orientation)
        squares = [Square(int(r), int(c)) for r, c in event_squares]
        glyphs = glyphs_of(upright, [(sq.row, sq.col) for sq in squares])
        # With a word list the classifier reads first, and Tesseract (a few hundred
        # milliseconds a call) only runs at commit if the words as read are not all valid.
        deferred = self.lexicon is not None and classifier is not None and len(classifier) > 0
        guesses, _ = read_letters(glyphs, classifier, None if deferred else self.tesseract, None,
                                  confirm=True, stock=self._stock_for_unseen(classifier))
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
        classifier = self._classifier()
        glyphs = [self._reads[sq].glyphs[sq] for sq in unchecked]
        guesses, _ = read_letters(glyphs, classifier, self.tesseract, None, confirm=True,
                                  stock=self._stock_for_unseen(classifier))
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
        """Decide the letters (reading, dictionary, answers), check every word and the tiles
        left, then place.  None while held."""
        if not state.inferred:
            state.inferred = True
            self._check_unsure(state)
            state.tiles, state.notes = self._infer(state)
        if self.hold and any(q.answer is None for q in state.questions):
            return None
        while not state.settled:
            # Only now are all the letters known (the players answered what was asked): a
            # confident misread on another square is found whatever was asked before.  A
            # round that asks something is followed by another with the answers.
            if self.hold and any(q.answer is None for q in state.questions):
                return None
            before = len(state.questions)
            self._check_words(state)
            state.rounds += 1
            state.settled = len(state.questions) == before or state.rounds >= CHECK_ROUNDS
        if self.hold and any(q.answer is None for q in state.questions):
            return None
        tiles, unconfirmed = self._letters(state, notes=True)
        if any(t == BLANK or not t for t in tiles.values()):
            unconfirmed = True
            # A blank scores nothing whatever it stands for; the letter only names it.
            tiles = {sq: ("?" if not t else t) for sq, t in tiles.items()}
        started = min((self._reads[sq].settled_at for sq in state.squares
                       if sq in self._reads), default=_time.perf_counter())
        unconfirmed |= self._correct_earlier(state)
        given = next((q for q in state.questions if q.kind == "placement"
                      and q.answer is not None), None)
        if given is not None:
            return self._play_answer(state, tiles, given, unconfirmed)
        # What was played was asked and not answered: the play stands as read, unconfirmed.
        unconfirmed |= any(q.kind == "placement" for q in state.questions)
        try:
            game_event = self._place(tiles, state.recorded)
        except GameError as exc:
            return self._refused(state, tiles, exc, unconfirmed)
        report = self._play_report(game_event, state, unconfirmed)
        report.latency = _time.perf_counter() - started
        self._learn(game_event, state)
        return report

    def _letters(self, state: _Pending, notes: bool = False) -> tuple[dict[Square, str], bool]:
        """The placement's letters with the answers (or, unanswered, the guesses) to the
        questions about its squares; True when a guess stands.  ``notes``: say who answered."""
        tiles = dict(state.tiles)
        unconfirmed = False
        for question in state.questions:
            if question.kind not in ("blank", "letter") or question.square not in tiles:
                continue
            assert question.square is not None
            if question.answer is not None:
                tiles[question.square] = question.answer.strip()
                if notes:
                    source = "the record" if question.answered_by == "record" else "the players"
                    _note(state, f"{self.name(question.square)}: {question.answer.strip()} "
                                 f"({question.kind} answered by {source})")
            elif question.guess:
                tiles[question.square] = question.guess
                unconfirmed = True
        return tiles, unconfirmed

    def _place(self, tiles: dict[Square, str], notes: Sequence[str] = ()) -> Event:
        """Place the tiles; ``notes`` go into the game's record of the play."""
        unknown = sorted(sq for sq, t in tiles.items() if t == BLANK)
        notes = list(notes)
        if unknown:
            # A blank scores nothing whatever it stands for: an unknown one stands as "a" in
            # the game, and the record's note says that its letter is not known.
            tiles = {sq: ("a" if t == BLANK else t) for sq, t in tiles.items()}
            names = ", ".join(self.name(sq) for sq in unknown)
            notes.append(f"unconfirmed: letter of the blank on {names} not known")
        return self.game.place(tiles, note="; ".join(notes) or None)

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
        if question.answer is not None:
            return self._play_answer(state, tiles, question, unconfirmed)
        if self.hold:
            return None
        return self._report("unresolved", None, word=placed, questions=state.questions,
                            notes=state.notes + [f"refused: {exc.message}"],
                            unconfirmed=True, read=self._as_read(state),
                            corrected=list(state.corrections))

    def _play_answer(self, state: _Pending, tiles: dict[Square, str], question: Question,
                     unconfirmed: bool) -> MoveReport:
        """The play the players (or the record) said was made, in GCG notation."""
        assert question.answer is not None
        position, _, word = question.answer.strip().partition(" ")
        try:
            game_event = self.game.play(position, word)
        except GameError as again:
            placed = " ".join(f"{self.name(sq)}:{t}" for sq, t in sorted(tiles.items()))
            return self._report("unresolved", None, word=placed, questions=state.questions,
                                notes=state.notes + [f"answer {question.answer!r} refused: "
                                                     f"{again.message}"],
                                unconfirmed=True, read=self._as_read(state),
                                corrected=list(state.corrections))
        source = "the record" if question.answered_by == "record" else "the players"
        _note(state, f"placement given by {source}: {question.answer}")
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
            read=self._as_read(state), corrected=list(state.corrections),
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
        """Every word the placement forms against the word list, and its tiles against those
        still unseen, with the letters as now known (read, inferred, answered).  Called in
        rounds: each round only asks what the rounds before it could not settle.

        A blank whose letter the word list gave when other letters were not known yet is
        solved again with the letters as answered, and asked when that no longer settles it.

        Any other word not in the word list is a misread or a phony.  Squares whose letter the
        players gave (or were asked) are not doubted; on the others a correction *by the
        dictionary* is made when the evidence points at one change: the only one-letter change
        (to a letter still unseen) that makes every word valid that a reader proposed
        (Tesseract's second reading, or the classifier's reading before Tesseract overruled
        it); else an earlier move's tile in one of the words, with the one other letter that
        its own second reading proposes and that makes every word valid; else the only
        one-letter change there is, unless both readers read the letter as it is (then it may
        be a phony); else the only letters that make every word valid on the squares read
        without confidence or read differently by the two readers.  A tile read with
        confidence is only ever changed to a letter its glyph could be (:meth:`_plausible`): a
        clear Q made an R because a word wants one would hide a phony.  Otherwise the players
        are asked, once: the letter of the one square that could change, or else what was
        played (what they answer stands, a phony included).

        A placement needing a tile of which none is left is taken as a misread too: see
        :meth:`_check_tiles_left`.
        """
        if any(q.kind == "placement" for q in state.questions):
            return  # what was played is the players' word now
        tiles, _ = self._letters(state)
        if not tiles or any(t == BLANK or not t for t in tiles.values()):
            return  # a letter nobody knows: nothing to check it against
        check = self._check(state, tiles)
        if self.lexicon is None:
            self._check_tiles_left(check)  # no word list: the tile count is the one check
            return
        if not self._solve(check.board, tiles, [], self.tileset.letters):
            blanks = self._recheck_blanks(check)
            if blanks is None:
                if state.words_asked:
                    invalid = self._invalid_words(check.board, tiles)
                    _note(state, f"not in the word list: {', '.join(invalid)} (played as "
                                 "laid, the players said)")
                    return
                if not self._fix_words(check):
                    return
            elif not blanks:
                return
            check = self._check(state, self._letters(state)[0])
        self._check_tiles_left(check)

    def _check(self, state: _Pending, tiles: dict[Square, str]) -> _Check:
        """The round's view: this placement's letters, and the board and the tiles left with
        the earlier tiles being corrected as they will be."""
        fixes = self._earlier_fixes(state)
        board = self.game.board
        left = Counter(self.game.unseen())
        if fixes:
            board = board.copy()
            for square, letter in fixes.items():
                left[rack_form(self.game.board[square] or letter)] += 1
                left[rack_form(letter)] -= 1
            board.place(fixes)
        left.subtract(rack_form(t) for t in tiles.values())
        given = {q.square for q in state.questions if q.kind in ("blank", "letter")
                 and q.answer is not None and q.square in tiles} | state.asked
        return _Check(state, dict(tiles), board, given, left)

    def _recheck_blanks(self, check: _Check) -> bool | None:
        """Blanks whose letter the word list gave (before the letters asked were answered),
        solved again now that the words are not valid: True when that settles them (every word
        valid), False when they are asked, None when there are none."""
        state, tiles = check.state, check.tiles
        inferred = [sq for sq in sorted(tiles) if tiles[sq].islower() and sq not in check.given]
        if not inferred:
            return None
        solutions = self._solve(check.board, tiles, inferred, self.tileset.letters)
        if len(solutions) == 1:
            for square in inferred:
                letter = solutions[0][square].lower()
                self._set_letter(state, square, letter)
                _note(state, f"blank on {self.name(square)} is {letter.upper()}: the only letter "
                             "that makes every word valid with the letters answered")
            return True
        for square in inferred:
            state.asked.add(square)
            state.questions.append(self._ask(
                "blank", f"which letter is the blank on {self.name(square)}?", square=square,
                choices=sorted({s[square].lower() for s in solutions}), guess=tiles[square],
            ))
        return False

    def _fix_words(self, check: _Check) -> bool:
        """Words not in the word list (see :meth:`_check_words`): True when corrected by the
        dictionary, False when the players were asked."""
        state, tiles, board = check.state, check.tiles, check.board
        letters = self.tileset.letters
        invalid = self._invalid_words(board, tiles)
        if not invalid:
            return False  # no words to speak of (tiles not in one line): the rules refuse it
        loose = [sq for sq in sorted(tiles) if sq not in check.given and tiles[sq].isupper()]
        candidates: list[tuple[Square, str]] = []
        for square in loose:
            for solution in self._solve(board, tiles, [square], letters, limit=len(letters)):
                if solution[square] != tiles[square] and check.left[solution[square]] >= 1:
                    candidates.append((square, solution[square]))
        seconds = self._second_readings(loose)
        readers = {sq: self._other_readings(sq, tiles[sq], seconds) for sq in loose}
        plausible = [(sq, letter) for sq, letter in candidates
                     if self._plausible_here(state, sq, letter)]
        supported = [(sq, letter) for sq, letter in plausible if letter in readers[sq]]
        change: dict[Square, str] = {}
        how = ""
        if len(supported) == 1:
            change, how = dict(supported), "the only change a reader's second reading proposed"
        elif self._fix_earlier_words(check, invalid):
            return True
        elif len(candidates) == 1 and plausible and (
                seconds.get(candidates[0][0]) != tiles[candidates[0][0]]):
            change, how = dict(candidates), "the only letter that makes every word valid"
        elif not candidates:
            doubted = [sq for sq in loose if readers[sq] or state.read[sq][1] < ACCEPT]
            if 2 <= len(doubted) <= MAX_DOUBTED:
                solutions = self._solve(board, tiles, doubted, letters, limit=8)
                fitting = [s for s in solutions if self._fits(check, s)]
                if len(fitting) == 1 and len(solutions) < 8:
                    change = {sq: c for sq, c in fitting[0].items() if c != tiles[sq]}
                    how = "the only letters that make every word valid"
                    if not all(self._plausible_here(state, sq, c) for sq, c in change.items()):
                        change = {}
        if change:
            valid = self._words(board, {**tiles, **change})
            for square, letter in sorted(change.items()):
                self._set_letter(state, square, letter)
                state.recorded.append(f"{self.name(square)} corrected to {letter} by the "
                                      f"dictionary (read {tiles[square]})")
                _note(state, f"{self.name(square)}: read {tiles[square]}, corrected to {letter} "
                             f"by the dictionary: {', '.join(invalid)} not in the word list, "
                             f"{', '.join(valid)} valid ({how})")
            return True
        state.words_asked = True
        squares = sorted({sq for sq, _ in candidates})
        if len(squares) == 1:
            [square] = squares
            options = sorted(letter for sq, letter in candidates if sq == square)
            read = tiles[square]
            state.asked.add(square)
            state.questions.append(self._ask(
                "letter",
                f"{', '.join(invalid)} is not in the word list: is the tile on "
                f"{self.name(square)} {' or '.join(options)} (read as {read}), or is the play a "
                "phony?",
                square=square, choices=options + [read], guess=read,
            ))
            return False
        notation = self._notation(board, tiles)
        why = (f"one letter changed on any of {', '.join(self.name(sq) for sq in squares)} "
               "would make every word valid" if squares else
               "no one letter changed would make every word valid")
        state.questions.append(self._ask(
            "placement",
            f"{', '.join(invalid)} is not in the word list ({why}): what was played"
            + (f" (read as {notation})?" if notation else "?"),
            guess=notation,
        ))
        return False

    def _fix_earlier_words(self, check: _Check, invalid: list[str]) -> bool:
        """A word not in the word list through a tile laid earlier, whose other letter makes
        every word valid and is the one a reader's second reading of it proposes: that earlier
        tile is corrected (True).  Without a second reading's support nothing is changed: the
        words may be a phony laid against a tile read right."""
        state, tiles = check.state, check.tiles
        on_board = sorted({sq for word in self._formed(check.board, tiles) for sq in word
                           if sq not in tiles})
        suspects = [(sq, letter) for sq in on_board
                    for letter in self._earlier_alternatives(check, sq)
                    if self._valid_with(check, {sq: letter})]
        chosen = self._choose_earlier(suspects, 1, supported_only=True)
        if chosen is None:
            return False
        square, letter, how = chosen
        laid = self._laid[square]
        state.corrections.append(Correction(
            square, laid.turn, laid.letter, letter,
            f"{', '.join(invalid)} not in the word list; {letter} on {self.name(square)} makes "
            f"every word valid ({how})",
        ))
        _note(state, f"{self.name(square)} (laid in turn {laid.turn}, read {laid.letter}) "
                     f"corrected to {letter} by the dictionary: {', '.join(invalid)} not in the "
                     f"word list ({how})")
        return True

    def _check_tiles_left(self, check: _Check) -> None:
        """A placement needing more of a letter than are unseen: a misread somewhere.

        This move's tile of that letter is taken as a reader's other reading when exactly one
        such change (to a letter still unseen) keeps every word valid.  Otherwise the tile is
        as seen, and an earlier move's tile of that letter was misread: the one tile laid
        earlier that nobody confirmed and whose other letter keeps every word through it valid
        (the reader's second reading, or the only letter that does) is corrected in that
        earlier move; when several could be, the players are asked about the likeliest (its
        best letter the guess).  The move itself is never refused for it when a candidate
        exists.
        """
        state, tiles = check.state, check.tiles
        short = {t: -n for t, n in check.left.items()
                 if n < 0 and t != BLANK and t not in state.short_asked}
        if not short:
            return
        own = [sq for sq in sorted(tiles) if sq not in check.given and tiles[sq] in short]
        seconds = self._second_readings(own)
        changes = [(sq, letter) for sq in own
                   for letter in self._other_readings(sq, tiles[sq], seconds)
                   if check.left[letter] >= 1 and self._valid_with(check, {sq: letter})
                   and self._plausible_here(state, sq, letter)]
        if len(changes) == 1 and sum(short.values()) == 1:
            [(square, letter)] = changes
            was = tiles[square]
            self._set_letter(state, square, letter)
            state.recorded.append(f"{self.name(square)} corrected to {letter} by the dictionary "
                                  f"(read {was}, no {was} left)")
            _note(state, f"{self.name(square)}: read {was}, but no {was} is left: corrected to "
                         f"{letter} by the dictionary (the second reading, and every word "
                         "valid)")
            return
        for letter, missing in sorted(short.items()):
            suspects = [(sq, other) for sq in self._laid_squares(check, letter)
                        for other in self._earlier_alternatives(check, sq)]
            chosen = self._choose_earlier(suspects, missing)
            if chosen is not None:
                square, other, how = chosen
                laid = self._laid[square]
                by = "the dictionary" if self.lexicon is not None else "the tile count"
                fits = (f"{other} on {self.name(square)} keeps every word valid"
                        if self.lexicon is not None else f"{self.name(square)} is {other}")
                state.corrections.append(Correction(
                    square, laid.turn, letter, other,
                    f"no {letter} left for turn {self.turn_number + 1}; {fits} ({how})",
                ))
                _note(state, f"no {letter} is left for this play: {self.name(square)} (laid in "
                             f"turn {laid.turn}, read {letter}) corrected to {other} by {by} "
                             f"({how})")
                continue
            state.short_asked.add(letter)
            ranked = self._rank_earlier(suspects)
            if not ranked:
                _note(state, f"no {letter} is left for this play, and no {letter} laid earlier "
                             + ("can be another letter by the word list"
                                if self.lexicon is not None else "is left unconfirmed"))
                continue
            for square in list(dict.fromkeys(sq for sq, _ in ranked))[:missing]:
                laid = self._laid[square]
                options = [other for sq, other in ranked if sq == square][:MOST_CHOICES]
                state.questions.append(self._ask(
                    "letter",
                    f"no {letter} is left for this play, so an earlier {letter} was misread: "
                    f"which letter is the tile on {self.name(square)} (laid in turn "
                    f"{laid.turn}, read as {letter})?",
                    square=square, choices=options + [letter], guess=options[0],
                ))

    # ------------------------------------------------------------------ earlier moves

    def _laid_squares(self, check: _Check, letter: str) -> list[Square]:
        """Board squares holding ``letter`` that the pipeline laid and nobody confirmed."""
        return sorted(sq for sq, laid in self._laid.items()
                      if not laid.confirmed and check.board[sq] == letter == laid.letter)

    def _earlier_alternatives(self, check: _Check, square: Square) -> list[str]:
        """Other letters for the board tile on ``square`` (laid earlier, unconfirmed) that keep
        every word through it valid with this placement on the board, and are still unseen
        once this placement's tiles are taken.

        Without a word list every letter still unseen is possible: then they come in the
        order the calibrated classifier ranks them for the tile's glyph (where it knows them),
        so that the likeliest is offered first."""
        laid = self._laid.get(square)
        if (laid is None or laid.confirmed
                or check.board[square] != laid.letter or not laid.letter.isupper()):
            return []
        if self.lexicon is None:
            unseen = [t for t in self.tileset.letters
                      if t != BLANK and t != laid.letter and check.left[t] >= 1]
            ranking = None if laid.glyph is None else self._classifier_ranking(laid.glyph)
            order = {letter: n for n, letter in enumerate(ranking or [])}
            return sorted(unseen, key=lambda t: order.get(t, len(order)))
        trial = check.board.copy()
        trial.place(check.tiles)
        trial.remove([square])
        try:
            words = words_with_unknown_blanks(trial, {square: BLANK})
        except (ValueError, KeyError):
            return []
        found = self.lexicon.blank_solutions(words, self.tileset.letters,
                                             limit=len(self.tileset.letters))
        return [s[0] for s in found
                if 0 in s and s[0] != laid.letter and check.left[s[0]] >= 1]

    def _choose_earlier(self, suspects: list[tuple[Square, str]], needed: int,
                        supported_only: bool = False) -> tuple[Square, str, str] | None:
        """The earlier tile to correct, when the evidence points at one (see
        :meth:`_check_tiles_left`): its square, letter and why; None otherwise (or when more
        than one tile is ``needed``: those are asked).  ``supported_only``: only a letter a
        reader proposed."""
        suspects = [(sq, letter) for sq, letter in suspects if self._plausible(
            self._laid[sq].glyph, self._laid[sq].confidence, letter)]
        if not suspects or needed != 1:
            return None
        seconds = self._earlier_second_readings(sorted({sq for sq, _ in suspects}))
        supported = [(sq, letter) for sq, letter in suspects
                     if letter in self._laid_readings(sq, seconds)]
        if len(supported) == 1:
            return (*supported[0], "the reader's second reading")
        if not supported_only and len(suspects) == 1:
            square, _ = suspects[0]
            if seconds.get(square) != self._laid[square].letter:  # not read so twice
                return (*suspects[0], "the only letter that makes every word valid")
        return None

    def _rank_earlier(self, suspects: list[tuple[Square, str]]) -> list[tuple[Square, str]]:
        """Suspects likeliest first: a letter a reader proposed, then the tile read with the
        least confidence, then the latest laid; else as given (the alternatives' order)."""
        seconds = self._earlier_second_readings(sorted({sq for sq, _ in suspects}))
        given = {suspect: n for n, suspect in enumerate(suspects)}
        return sorted(suspects, key=lambda s: (
            s[1] not in self._laid_readings(s[0], seconds),
            self._laid[s[0]].confidence, -self._laid[s[0]].turn, given[s],
        ))

    def _laid_readings(self, square: Square, seconds: dict[Square, str]) -> set[str]:
        laid = self._laid[square]
        return {r for r in (seconds.get(square), laid.first) if r and r != laid.letter}

    def _earlier_second_readings(self, squares: list[Square]) -> dict[Square, str]:
        """Tesseract's letters for tiles laid earlier (one call for those not asked yet)."""
        want = [sq for sq in squares if self._laid[sq].second is None
                and self._laid[sq].glyph is not None]
        if want:
            letters = self._tesseract_letters([self._laid[sq].glyph for sq in want])
            for square, letter in zip(want, letters, strict=True):
                self._laid[square].second = letter
        return {sq: self._laid[sq].second or "" for sq in squares
                if self._laid[sq].second is not None}

    def _earlier_corrections(self, state: _Pending) -> tuple[dict[Square, Correction], bool]:
        """The earlier tiles to correct: those found misread, and those the players were asked
        about (their answer, or unanswered the guess: then True)."""
        guessed = False
        wanted = {c.square: c for c in state.corrections}
        for question in state.questions:
            square = question.square
            if question.kind != "letter" or square is None or square in state.tiles:
                continue
            letter = (question.answer or question.guess or "").strip()
            laid = self._laid.get(square)
            if not letter or laid is None:
                continue
            if question.answer is None:
                guessed = True
            source = ("the record" if question.answered_by == "record" else "the players"
                      ) if question.answer is not None else "a guess, unconfirmed"
            wanted[square] = Correction(square, laid.turn, laid.letter, letter,
                                        f"{question.prompt} ({letter}: {source})")
        return wanted, guessed

    def _earlier_fixes(self, state: _Pending) -> dict[Square, str]:
        """Earlier tiles being corrected (square -> letter) that the board does not show yet."""
        wanted, _ = self._earlier_corrections(state)
        board = self.game.board
        return {sq: c.letter for sq, c in wanted.items() if board[sq] != c.letter}

    def _correct_earlier(self, state: _Pending) -> bool:
        """Correct the earlier moves' tiles found misread while settling this turn (and those
        the players were asked about), replaying the game from the first of them.  True when a
        guess nobody confirmed was applied."""
        wanted, guessed = self._earlier_corrections(state)
        todo = [c for c in wanted.values() if self.game.board[c.square] != c.letter]
        state.corrections = list(wanted.values())
        if not todo:
            return guessed
        game = self._replayed({c.square: c.letter for c in todo})
        if game is None:
            _note(state, "the earlier tiles could not be corrected in the game: "
                         + ", ".join(f"{self.name(c.square)} {c.letter}" for c in todo))
            state.corrections = [c for c in state.corrections if c not in todo]
            return guessed
        index_of = {id(e): i for i, e in enumerate(self.game.events)}
        self.game = game
        for report in self.reports:
            if report.event is None or id(report.event) not in index_of:
                continue
            event = game.events[index_of[id(report.event)]]
            fixed = [c for c in todo if event.play is not None and report.kind == "play"
                     and c.square in event.play.placement.squares]
            if not fixed:
                continue
            assert event.play is not None
            report.event, report.score = event, event.score
            report.word = event.play.main.marked
            report.notes.append(
                f"corrected in turn {self.turn_number + 1}: "
                + ", ".join(f"{self.name(c.square)} is {c.letter}, not {c.was}" for c in fixed))
        for correction in todo:
            laid = self._laid[correction.square]
            self._relabel(correction.square, laid.letter, correction.letter)
            laid.letter = correction.letter
            laid.confirmed = any(q.square == correction.square and q.answer is not None
                                 for q in state.questions)
        return guessed

    def _replayed(self, letters: dict[Square, str]) -> Game | None:
        """A copy of the game with the tiles on ``letters``' squares as given in the plays
        that laid them, every later event replayed; None when the game refuses any of it."""
        events = list(self.game.events)
        origin: dict[Square, int] = {}
        for index, event in enumerate(events):
            if event.kind is EventKind.PLAY and event.play is not None:
                for square in event.play.placement.squares:
                    if square in letters:
                        origin[square] = index
        if set(origin) != set(letters):
            return None
        first = min(origin.values())
        game = copy.deepcopy(self.game)
        for _ in range(len(events) - first):
            game.undo()
        try:
            for index in range(first, len(events)):
                event = events[index]
                patch = {sq: c for sq, c in letters.items() if origin[sq] == index}
                _replay(game, event, patch)
        except GameError as exc:
            log.warning("earlier tiles %s not corrected: %s", letters, exc.message)
            return None
        return game

    # ------------------------------------------------------------------ helpers

    def _set_letter(self, state: _Pending, square: Square, letter: str) -> None:
        """A letter settled for one of this placement's squares (a guess standing for an
        unanswered question follows it)."""
        state.tiles[square] = letter
        for question in state.questions:
            if question.square == square and question.answer is None:
                question.guess = letter

    def _plausible_here(self, state: _Pending, square: Square, letter: str) -> bool:
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

    def _fits(self, check: _Check, change: dict[Square, str]) -> bool:
        """Whether every letter ``change`` brings to this placement is still unseen."""
        left = Counter(check.left)
        for square, letter in change.items():
            left[rack_form(check.tiles[square])] += 1
            left[rack_form(letter)] -= 1
        return all(left[rack_form(letter)] >= 0 for letter in change.values())

    def _valid_with(self, check: _Check, change: dict[Square, str]) -> bool:
        """Every word valid with ``change`` applied (to this placement's squares, or to a
        board tile laid earlier); without a word list nothing says no."""
        if self.lexicon is None:
            return True
        board = check.board
        if any(sq not in check.tiles for sq in change):
            board = board.copy()
            board.place({sq: c for sq, c in change.items() if sq not in check.tiles})
        trial = {sq: change.get(sq, t) for sq, t in check.tiles.items()}
        return bool(self._solve(board, trial, [], self.tileset.letters))

    def _formed(self, board: Any, tiles: dict[Square, str]) -> list[list[Square]]:
        """The squares of each word the placement forms."""
        from scorer.rules import Placement, score_play

        try:
            play = score_play(board, Placement.of(tiles), self.tileset)
        except Exception:  # noqa: BLE001 - any refusal: no words to speak of
            return []
        return [list(word.squares) for word in play.words]

    def _words(self, board: Any, tiles: dict[Square, str]) -> list[str]:
        try:
            formed = words_with_unknown_blanks(board, tiles)
        except (ValueError, KeyError):
            return []
        return ["".join(str(t) for t in word) for word in formed]

    def _invalid_words(self, board: Any, tiles: dict[Square, str]) -> list[str]:
        assert self.lexicon is not None
        return [w for w in self._words(board, tiles) if w not in self.lexicon]

    def _notation(self, board: Any, tiles: dict[Square, str]) -> str | None:
        """The placement in GCG notation (``8D WORD``), or None where the rules refuse it."""
        from scorer.rules import Placement, score_play

        try:
            play = score_play(board, Placement.of(tiles), self.tileset)
        except Exception:  # noqa: BLE001 - refused: no notation
            return None
        return f"{play.position} {play.gcg_word}"

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
            batches: dict[int, tuple[_Read, dict[Square, str]]] = {}
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
            read = self._reads.get(square)
            self._laid[square] = _Laid(
                turn=self.turn_number, letter=letter,
                confidence=state.read.get(square, ("", 0.0, 0.0))[1],
                confirmed=given_all or square in given,
                glyph=None if read is None else read.glyphs.get(square),
                first=None if read is None else read.first.get(square),
                second=None if read is None else read.second.get(square),
            )
        for square in state.squares:
            self._reads.pop(square, None)
        if len(self.game.events) % 3 == 0:
            self.tracker.refit_occupancy(self._base_occupancy)

    def _learn_tiles(self, profile: Profile,
                     batches: list[tuple[np.ndarray, dict[Square, str]]]) -> None:
        """The learning thread's work (see :meth:`finish_learning`): a confirmed move's tiles
        into the profile, and the classifier built for the next read."""
        from vision.letters import crop_margin_px
        from vision.read import SQUARE_PX

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
            log.info("%s: %d samples learnt as %s renamed %s", square, changed, old, label)


@dataclass
class _Check:
    """One round of checking a placement (see :meth:`Pipeline._check_words`)."""

    state: _Pending
    tiles: dict[Square, str]
    #: the game's board with the earlier tiles being corrected as they will be
    board: Board
    #: this placement's squares whose letter the players gave, or were asked
    given: set[Square]
    #: tiles unseen once this placement's are taken (negative: more than are left)
    left: Counter[str]


@dataclass
class _Pending:
    """A turn being settled."""

    squares: list[Square]
    read: dict[Square, tuple[str, float, float]]
    questions: list[Question]
    notes: list[str]
    extra: list[Any]
    tiles: dict[Square, str] = field(default_factory=dict)
    #: letters read, inferred and asked (done once)
    inferred: bool = False
    #: rounds of checking every word and the tiles left, once the letters asked were answered
    rounds: int = 0
    #: a round asked nothing new: the letters are settled
    settled: bool = False
    #: this placement's squares the word check asked about (not doubted again)
    asked: set[Square] = field(default_factory=set)
    #: the players were asked about a word not in the word list (their answer stands)
    words_asked: bool = False
    #: letters of which none is left that the players were asked about
    short_asked: set[str] = field(default_factory=set)
    #: tiles of earlier moves to correct before this one is placed
    corrections: list[Correction] = field(default_factory=list)
    #: what the game's record of the play says of its letters (corrections by the dictionary)
    recorded: list[str] = field(default_factory=list)


def _note(state: _Pending, text: str) -> None:
    """A note for the turn, once (a held turn is settled again when answered)."""
    if text not in state.notes:
        state.notes.append(text)


def _replay(game: Game, event: Event, letters: dict[Square, str]) -> None:
    """Make ``event`` again in ``game`` (the turn's player to move), with the tiles on
    ``letters``' squares changed; GameError when the game refuses it."""
    if event.kind is EventKind.PLAY:
        assert event.play is not None
        tiles = dict(event.play.placement.tiles)
        tiles.update(letters)
        note = event.note
        if letters:
            fixed = ", ".join(f"{sq} {c}" for sq, c in sorted(letters.items()))
            note = f"{note}; corrected: {fixed}" if note else f"corrected: {fixed}"
        game.place(tiles, event.rack, player=event.player, note=note, check_rack=False)
    elif event.kind is EventKind.EXCHANGE:
        given: str | int = event.tiles if event.tiles else (event.count or 0)
        game.exchange(given, event.rack, player=event.player, note=event.note,
                      check_rack=False)
    elif event.kind is EventKind.PASS:
        game.pass_turn(event.rack, player=event.player, note=event.note)
    elif event.kind is EventKind.WITHDRAWN:
        game.withdraw(note=event.note)
    elif event.kind is EventKind.LOST_TURN:
        game.lose_turn(event.player, note=event.note)
    elif event.kind is EventKind.CHALLENGE_BONUS:
        game.challenge_bonus(event.score, note=event.note)
    elif event.kind is EventKind.ADJUSTMENT:
        game.adjust(event.player, event.score, event.note or "")
    else:  # the end of the game: not replayed
        raise GameError("not_replayable", f"a {event.kind.value} event is not replayed")


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
        if question.kind in ("blank", "letter") and question.square is not None:
            # The tile may be this turn's or one laid earlier (a misread found later): the
            # players answer from the board as it stands.
            for earlier in reversed(self.turns[:question.turn]):
                tiles = dict(earlier.play.placement.tiles) if earlier.play is not None else {}
                if question.square in tiles:
                    answer = tiles[question.square]
                    break
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
