"""From frames to scored moves: the tracker, the letter readers, the game and the dictionary.

:class:`Pipeline` takes frames (a live stream, or stills one per turn) and keeps a
:class:`scorer.game.Game` up to date:

- the :class:`tracker.Tracker` says when tiles were laid, and on which squares;
- those squares, and only those, are read once, as soon as they settle
  (:func:`vision.letter_choice.read_letters`: the profile's classifier, Tesseract for the rest);
- when the move is committed it goes to :meth:`Game.place`;
- a blank's letter is the one letter that makes every word the move forms valid, when the
  dictionary knows exactly one; a letter read without confidence is taken as read when the
  words are then valid, else as the one letter that makes them valid.  Either way the move's
  notes say so.  Anything else (a blank the dictionary cannot settle, a letter it cannot
  confirm, a placement the rules refuse, a still without a placement) becomes a
  :class:`Question` for the players: never a silently wrong score;
- once every letter asked is answered, every word the move forms is checked against the word
  list, whatever was asked before: a misread letter is *corrected by the dictionary* when one
  letter clearly fits (the only one, or the one a second reading proposes) and the glyph
  leaves that letter close to the one read; otherwise the play stands as laid, its words in
  no list named in the move's notes (a name, a misspelling or a phony is the players' to
  challenge, not the camera's to mend);
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

import logging
import re
import time as _time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.inference import InferenceSteps
from pipeline.questions import QuestionSteps
from pipeline.reading import LaidTile, ReadingSteps, SquaresRead
from pipeline.reports import (
    NO_TURN,
    AnswerSource,
    DeferredRefusal,
    MoveReport,
    PendingTurn,
    Question,
    note_once,
)
from pipeline.several_moves import SeveralMovesSteps
from scorer.game import Event, Game, GameError, Rules
from scorer.rules import position_name
from scorer.squares import Square
from scorer.tiles import BLANK, TileSet

if TYPE_CHECKING:
    from calibration.profile import Profile
    from scorer.lexicon import Lexicon
    from tracker import Tracker, TrackerConfig, TrackEvent, ViewObstructed

log = logging.getLogger(__name__)

#: Faces without a letter, at most, that a finger held over the board is taken for (in
#: perspective, a finger and its shadow cover up to six squares); more are a hand, which may
#: hide part of the move beside it.
FINGER_SQUARES = 8

#: A square as the rules engine names it: column letter, row number (``G1``, ``O15``).
_SQUARE_NAME = re.compile(r"(?<![A-Za-z0-9])[A-O](?:1[0-5]|[1-9])(?![A-Za-z0-9])")

#: Rounds of checking a placement's words, each with the answers to the one before.
CHECK_ROUNDS = 3


class Pipeline(ReadingSteps, InferenceSteps, QuestionSteps, SeveralMovesSteps):
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
        from tracker import Tracker
        from vision.occupancy import OccupancyModel
        from vision.tesseract_reader import TesseractReader

        self.tileset = TileSet.named(profile.tileset) if profile is not None else (
            tileset if isinstance(tileset, TileSet) else TileSet.named(tileset)
        )
        self.game = game or Game(list(players), self.tileset, rules or Rules())
        self.profile = profile
        self.lexicon = lexicon
        self.answers = answers
        self.hold = hold
        #: one photo per turn: a photo is a turn, and a change no move explains is looked at
        #: again in the next one
        self.stills = stills
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
            letters=self.tileset.letters,
        )
        self.reports: list[MoveReport] = []
        self.questions: list[Question] = []
        self._reads: dict[Square, SquaresRead] = {}
        #: tiles this pipeline laid, as read (for finding an earlier misread later)
        self._laid: dict[Square, LaidTile] = {}
        #: confirmed moves being learnt by the learning thread (see :meth:`finish_learning`)
        self._learner: ThreadPoolExecutor | None = None
        self._learning: list[Future[None]] = []
        #: the samples each laid tile taught the profile (to rename them if it was misread)
        self._learnt: dict[Square, list[np.ndarray]] = {}
        self._queue: list[TrackEvent] = []
        self._held: tuple[Any, ...] | None = None
        self._heights: list[float] = []
        self._next_question = 1
        #: the squares of each move split from a placement, with its note and question
        self._split_notes: dict[tuple[tuple[int, int], ...], tuple[str, Question | None]] = {}
        #: photos set aside since the last turn (a hand over the board): said in its notes
        self._set_aside: list[str] = []
        #: the photos set aside since the last clear one (a hand over the board)
        self._set_aside_views: list[ViewObstructed] = []
        #: the next no-placement turn follows a move a photo set aside already showed
        self._shown_before = False
        #: the next no-placement turn is a photo set aside that showed the board unchanged
        self._set_aside_unchanged = False
        #: tiles a photo whose change was refused showed laid, back in the next with their
        #: letters (the first of several moves that photo shows holds them)
        self._laid_before: set[Square] = set()
        #: tiles seen on squares something lying over the board hid (see
        #: :meth:`_hidden_joined`), each with the squares laid while it was hidden
        self._hidden_tiles: dict[Square, frozenset[Square]] = {}
        #: squares of another colour than the tiles' set aside beside the move being settled
        self._covered_beside: set[Square] = set()
        #: a refused placement to look at again in the next photo (stills)
        self._deferred: DeferredRefusal | None = None
        #: squares of refused placements looked at again: refused again, they are asked about
        self._final_refusals: set[tuple[tuple[int, int], ...]] = set()
        self._base_occupancy: list[tuple[np.ndarray, np.ndarray]] = []
        if profile is not None and profile.occupancy_frames is not None:
            boards = profile.occupancy_boards
            assert boards is not None
            self._base_occupancy = list(zip(profile.occupancy_frames, boards, strict=True))


    @property
    def turn_number(self) -> int:
        """Turns reported so far (the position of a game joined in progress is none)."""
        return sum(1 for report in self.reports if report.kind != "start")


    def feed(self, time: float, frame: np.ndarray) -> list[MoveReport]:
        """One frame in; the turns it completed out."""
        return self._handle(self.tracker.update(time, frame))


    def finish(self, time: float = 0.0) -> list[MoveReport]:
        """The source ended: the provisional move is committed (and learnt from); a refused
        placement waiting for the next photo is asked about, as no photo will come, where its
        faces could be tiles (or, the first tiles seen, is a game's start position)."""
        from tracker import MoveCommitted

        reports = self._handle(self.tracker.finish(time))
        if self._deferred is not None:
            deferred, self._deferred = self._deferred, None
            bare = [sq for sq in deferred.squares if self._faceless(sq)]
            lettered = [sq for sq in deferred.squares if sq not in bare]
            scored: list[Square] | None = None
            if self._could_be_tiles(deferred.squares):
                scored = list(deferred.squares)
            elif (bare and lettered and self._apart(bare, lettered)
                  and self._could_be_moves(lettered)):
                # A hand or a finger over the board in the last photo, apart from a move whose
                # letters show and which the rules allow on its own: no later photo will show
                # the board without it, and waiting for one lost the game's last move.
                note = (f"{self._listed(bare)}, faces showing no letter in the last photo apart "
                        f"from the move on {self._listed(lettered)}: not scored (something "
                        "over the board)")
                log.info("%s", note)
                self._set_aside.append(note)
                scored = lettered
            if scored is not None:
                squares = tuple((sq.row, sq.col) for sq in scored)
                self._final_refusals.add(squares)
                reports += self._handle([MoveCommitted(time, squares, "end of source")])
            else:
                # The last photo showed something over the board, not tiles: nothing to ask.
                log.info("%s, taken for tiles in the last photo and refused by the rules: "
                         "not scored", self._listed(deferred.squares))
        self.finish_learning()
        return reports


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


    def state(self) -> dict[str, Any]:
        """What the page shows, as plain JSON types: the turns so far, the open questions,
        the squares of the move being laid (not yet committed) and the tracker's counters."""
        return {
            "moves": [report.to_dict(self.name) for report in self.reports],
            "pending": [question.to_dict(self.name) for question in self.pending],
            "provisional": [self.name(Square(r, c))
                            for r, c in self.tracker.provisional_squares],
            "scores": dict(zip(self.game.players, self.game.scores, strict=True)),
            "tracker": dict(self.tracker.counters),
        }


    def _handle(self, events: list[TrackEvent]) -> list[MoveReport]:
        from tracker import (
            MoveCommitted,
            NoPlacement,
            TilesAdded,
            TilesRemoved,
            ViewObstructed,
        )

        out: list[MoveReport] = []
        events = list(events)
        for index, event in enumerate(events):
            # Reading happens as soon as tiles settle, even while an earlier turn is held.
            if isinstance(event, TilesAdded):
                unknown = self.orientation is None
                self._read(event)
                self._hidden_tiles.update(
                    (Square(*square), frozenset(Square(*sq) for sq in since))
                    for square, since in event.hidden)
                if unknown and self.orientation:
                    # The tracker made this update's events before the first tiles told which
                    # way up the board lies, naming the squares as the camera sees them: the
                    # rest turn with the board now (these tiles' own turned in _read).  A
                    # first photo of a board turned a quarter had its move laid elsewhere.
                    events[index + 1:] = [self._turned_with_board(e) for e in events[index + 1:]]
            elif isinstance(event, TilesRemoved) and not event.withdrawal:
                for r, c in event.squares:
                    self._reads.pop(Square(r, c), None)
            elif isinstance(event, ViewObstructed):
                covered = [self.name(Square(r, c)) for r, c in event.squares]
                shown = " ".join(covered[:6]) + (" ..." if len(covered) > 6 else "")
                self._set_aside.append(
                    f"a photo with something over the board ({shown}) was set aside: the next "
                    "clear photo was compared with the last clear one")
                self._set_aside_views.append(event)
        self._queue.extend(
            e for e in events if isinstance(e, (MoveCommitted, NoPlacement, TilesRemoved))
            and not (isinstance(e, TilesRemoved) and not (e.withdrawal or e.misread))
        )
        while self._queue or self._held is not None:
            if self._held is not None and self._held[0] == "split":
                if not self._resume_split(self._held[1]):
                    break
                continue
            if self._held is not None:
                report = self._resume()
                if report is None:
                    break
                if report is not NO_TURN:
                    out.append(report)
                    out.extend(self._unseen_after(report))
                continue
            event = self._queue.pop(0)
            if isinstance(event, MoveCommitted):
                report = self._placement(event)
            elif isinstance(event, NoPlacement):
                report = self._no_placement(first=event.first)
            elif event.misread:
                out.extend(self._never_tiles(event))
                continue
            else:
                report = self._withdrawal()
            if report is None:
                break
            if report is not NO_TURN:
                out.append(report)
                out.extend(self._unseen_after(report))
        return out


    def _turned_with_board(self, event: TrackEvent) -> TrackEvent:
        """A tracker event's squares, named as the camera saw them, as squares of the upright
        board."""
        turned = {name: self.tracker.to_upright(getattr(event, name))
                  for name in ("squares", "laid") if hasattr(event, name)}
        return replace(event, **turned) if turned else event


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
        if self._set_aside:
            report.notes = [*report.notes, *self._set_aside]
            self._set_aside = []
        self.reports.append(report)
        return report


    def name(self, square: Square) -> str:
        """A square's name: ``G1`` (column G, row 1), or with ``lettered_rows`` the row letter
        first (the same square is then ``A7``: row A, column 7)."""
        if self.lettered_rows:
            return f"{'ABCDEFGHIJKLMNO'[square.row]}{square.col + 1}"
        return str(square)


    def in_game_names(self, text: str) -> str:
        """``text`` (a message of the rules engine, which names squares ``G1``: column G, row
        1) with every square named as this game names them (see :meth:`name`), so that a note
        and the question beside it speak of a square the same way.

        >>> pipeline = Pipeline(["ann", "ben"], lettered_rows=True)
        >>> pipeline.in_game_names("the tiles are not all in one row or one column: D8, F10")
        'the tiles are not all in one row or one column: H4, J6'
        """
        if not self.lettered_rows:
            return text
        return _SQUARE_NAME.sub(lambda m: self.name(Square.parse(m.group(0))), text)


    def position_text(self, event: Event, lettered_rows: bool = False) -> str:
        """A play's position, in standard GCG or the lettered-rows convention."""
        assert event.play is not None
        main = event.play.main
        if lettered_rows:
            return position_name(main.start.transposed(), main.direction.other)
        return main.position


    def _placement(self, event: Any) -> MoveReport | None:
        from tracker import MoveCommitted

        looked_again: list[str] = []
        if self._deferred is not None:
            event, after, looked_again = self._looked_again(event)
            self._queue[0:0] = after
            if not isinstance(event, MoveCommitted):
                return self._no_placement()
        elif self._taken_before(event):
            # The first photo set aside since the last clear one showed every square of these
            # tiles clear and as that one did: it was taken before they were laid, so it is
            # the last player's pass or exchange with a hand over the board, or the board
            # taken again, which no photo tells apart (as a clear photo of a move a photo set
            # aside already showed is, below).  Its turn is asked first; the photos set aside
            # after it are weighed against these tiles as ever.
            later = self._set_aside_views[1:]
            self._queue.insert(0, event)
            self._set_aside_unchanged = True
            report = self._no_placement()
            self._set_aside_views = later
            return report
        joined = self._hidden_joined(event)
        if joined is None:
            return self._no_placement()
        event = self._without_faceless_apart(joined)
        if event is None:
            self._laid_before = set()
            return NO_TURN
        parts = self._moves_in(event)
        self._laid_before = set()  # (what a refused photo showed tells this photo's moves only)
        if parts is None:
            return None  # the players are asked which tiles went in which move
        laid = {Square(r, c) for r, c in event.squares}
        shown_before = (len(parts) == 1 and bool(self._set_aside_views)
                        and self._shown_laid(laid) == laid)
        self._set_aside_views = []
        event, later = parts[0], parts[1:]
        self._queue[0:0] = later
        if shown_before:
            # A photo set aside (something over the board) already showed every tile of this
            # move: it was taken after the move, so this clear photo is either the same board
            # taken again or the next player's pass or exchange, which no photo tells apart.
            # A camera triggered by the clock takes no second photo: the turn is asked.
            from tracker import NoPlacement

            self._queue.insert(len(later), NoPlacement(event.time))
            self._shown_before = True
        squares = [Square(r, c) for r, c in event.squares]
        read: dict[Square, tuple[str, float, float]] = {}
        for square in squares:
            entry = self._reads.get(square)
            read[square] = entry.guesses[square] if entry is not None else ("", 0.0, 0.0)
        state = PendingTurn(squares, read, [], list(looked_again), [])
        if tuple(event.squares) in self._final_refusals:
            self._final_refusals.discard(tuple(event.squares))
            state.looked_again = True
        split = self._split_notes.pop(tuple(event.squares), None)
        if split is not None:
            note, question = split
            state.notes.append(note)
            if question is not None:
                state.questions.append(question)
        self._held = ("placement", state)
        return self._resume()


    def _without_faceless_apart(self, event: Any) -> Any:
        """A still's new squares less a group of faces showing no letter that lies apart from
        the squares showing letters, where there are more such faces than blanks are unseen
        and the lettered squares alone could be moves: a finger or a hand's edge over the
        board, taken for tiles beside a move.  The group is looked at again in the next photo
        (tiles really there come back with it).  None where the photo's new squares all show
        no letter, no more than a finger covers: looked at again likewise (a move of blanks
        alone is rare, a finger resting on the board as the photo is taken is not; gone in the
        next photo, this one showed no placement)."""
        from tracker import MoveCommitted

        self._covered_beside = set()  # (of the photo before, if its move was never settled)
        squares = [Square(r, c) for r, c in event.squares]
        if not self.stills or tuple(event.squares) in self._split_notes:
            return event  # (one of several moves a photo showed: split already)
        bare = [sq for sq in squares if self._faceless(sq)]
        lettered = [sq for sq in squares if sq not in bare]
        unlike = self._unlike_groups(bare, lettered)
        others = [sq for sq in squares if sq not in unlike]
        if (unlike and len(unlike) <= FINGER_SQUARES and lettered and self._apart(unlike, lettered)
                and tuple(event.squares) not in self._final_refusals
                and self._could_be_moves(others)):
            # Faces of another colour than the tiles' (a pen lying on the board), with the
            # faces showing no letter touching them, apart from the squares showing letters
            # (a blank of the move may lie beside them): no tile, looked at again in the next
            # photo all the same.  (Beside a letter, or more than a finger covers, they may
            # be a hand over the rest of the move.)
            self._defer_refused(PendingTurn(unlike, {}, [], [], []),
                                dict.fromkeys(unlike, BLANK),
                                "faces of another colour than the tiles', apart from the move")
            # What covers them may cover a tile of the move, where they lie in its line.
            self._covered_beside = set(unlike)
            return MoveCommitted(event.time, tuple((sq.row, sq.col) for sq in others),
                                 event.reason)
        if (bare and not lettered and len(bare) <= FINGER_SQUARES
                and tuple(event.squares) not in self._final_refusals):
            self._defer_refused(PendingTurn(bare, {}, [], [], []), dict.fromkeys(bare, BLANK),
                                "faces showing no letter alone", whole_photo=True)
            return None
        if self._could_be_tiles(squares) or not self._faceless_apart(bare, lettered):
            return event
        as_read = {sq: BLANK for sq in bare}
        self._defer_refused(PendingTurn(bare, {}, [], [], []), as_read,
                            "faces showing no letter, more than blanks are left, apart from "
                            "the move")
        return MoveCommitted(event.time, tuple((sq.row, sq.col) for sq in lettered),
                             event.reason)


    def _faceless_apart(self, bare: list[Square], lettered: list[Square]) -> bool:
        """Whether a photo's new squares showing no letter (``bare``), no more than a finger
        covers, lie apart from those showing letters, which could be moves on their own."""
        if len(bare) > FINGER_SQUARES:
            return False  # a hand over the board: it may hide part of the move
        return bool(lettered) and self._could_be_moves(lettered) and self._apart(bare, lettered)


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


    def _settle_placement(self, state: PendingTurn) -> MoveReport | None:
        """Decide the letters (reading, dictionary, answers), check every word and the tiles
        left, then place.  None while held."""
        if not state.inferred and self.stills and not self._could_be_moves(state.squares):
            # Nothing to ask about tiles that may be a hand: looked at again in the next photo,
            # and if they stay, one question about what was played (not one per square).
            as_read = {sq: (state.read[sq][0] or BLANK) for sq in state.squares}
            why = "no move, nor a few moves in turn, lays tiles there"
            if not state.looked_again:
                self._defer_refused(state, as_read, why)
                return NO_TURN
            if not self._joined_in_progress(state.squares):
                state.inferred = state.settled = True
                return self._refused(state, as_read, GameError("not_a_move", why), True)
            # The first tiles seen, tiles after all: a game joined in progress.  Their letters
            # are read, inferred and asked about as a move's are (the words are the players'
            # business: a real board holds words in no list).
            state.starting = state.settled = True
        if not state.inferred:
            state.inferred = True
            self._check_unsure(state)
            state.tiles, inferred = self._infer(state)
            state.notes = [*state.notes, *inferred]
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
        if self._ask_what_lies_under(state) and self.hold:
            return None
        tiles, unconfirmed = self._letters(state, notes=True)
        if any(t == BLANK or not t for t in tiles.values()):
            unconfirmed = True
            # A blank scores nothing whatever it stands for; the letter only names it.
            tiles = {sq: ("?" if not t else t) for sq, t in tiles.items()}
        started = min((self._reads[sq].settled_at for sq in state.squares
                       if sq in self._reads), default=_time.perf_counter())
        unconfirmed |= self._correct_earlier(state)
        if state.starting:
            start = self._start_from(state, tiles)
            if start is not None:
                return start
            return self._refused(state, tiles, GameError(
                "not_a_move", "no move, nor a few moves in turn, lays tiles there"), True)
        given = next((q for q in state.questions if q.kind == "placement"
                      and q.answer is not None), None)
        if given is not None:
            return self._play_answer(state, tiles, given, unconfirmed)
        # What was played was asked and not answered: the play stands as read, unconfirmed.
        unconfirmed |= any(q.kind == "placement" or (q.kind == "split" and q.answer is None)
                           for q in state.questions)
        try:
            game_event = self._place(tiles, state.recorded)
        except GameError as exc:
            return self._refused(state, tiles, exc, unconfirmed)
        report = self._play_report(game_event, state, unconfirmed)
        report.latency = _time.perf_counter() - started
        self._learn(game_event, state)
        return report


    def _letters(self, state: PendingTurn, notes: bool = False) -> tuple[dict[Square, str], bool]:
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
                    note_once(state, f"{self.name(question.square)}: {question.answer.strip()} "
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


    def _as_read(self, state: PendingTurn) -> dict[Square, str]:
        return {sq: (entry[0] or BLANK) for sq, entry in state.read.items()}


    def _play_report(self, event: Event, state: PendingTurn, unconfirmed: bool) -> MoveReport:
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
