"""The demo: a whole game played by tilecam itself, filmed by a rendered camera, scored by the
camera pipeline.

Three parts, each real:

1. **the game**: :func:`scorer.movegen.generate_game` plays a legal two-player game with the
   bundled word list (ENABLE), the same game for the same seed (:func:`sim.game.demo_game`);
2. **the film**: :class:`sim.game.DemoCamera` renders it as a fixed camera over the table sees it
   (:func:`sim.render.animate_move`): a hand lays each move's tiles one by one, the light
   drifts, then the board lies still until the tracker's quiet period commits the move.  Passes
   and exchanges, which no camera can see, are entered as the page's buttons enter them;
3. **the scoring**: every frame goes through :class:`pipeline.Pipeline` (tracker,
   letter readers, dictionary, rules engine), which knows nothing of the game but what it sees.
   Before the game, the reader is calibrated as a user would calibrate it: from one photo of
   the alphabet laid out on the board (:meth:`calibration.profile.Profile.extend`).

:class:`DemoRun` plays the three together and compares every turn the pipeline reports with the
turn the generator played: the same squares (detected), the same letters, the same score.
Questions the pipeline asks are answered by the players, who know their tiles
(:func:`players_answer`).

"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer.squares import Square
from sim.game import (
    ALPHABET_ROWS,
    DEFAULT_SEED,
    ENTERED_SECONDS,
    FRAME_SIZE,
    OPENING_SECONDS,
    QUIET_SECONDS,
    DemoCamera,
    DemoTurn,
    demo_game,
)

if TYPE_CHECKING:
    import numpy as np

    from calibration.profile import ExtendReport, Profile
    from pipeline import MoveReport, Pipeline, Question
    from scorer.game import Event
    from scorer.lexicon import Lexicon

class DemoError(RuntimeError):
    """The demo cannot go on (says why)."""


# ------------------------------------------------------------------------------- the run


@dataclass
class TurnCheck:
    """A turn the pipeline reported, against the generator's."""

    report: MoveReport
    expected: DemoTurn | None
    detected: bool  # the same squares
    letters_agree: bool
    score_agrees: bool

    @property
    def as_played(self) -> bool:
        return self.detected and self.letters_agree and self.score_agrees


@dataclass
class DemoResult:
    """What a demo run measured."""

    seed: int
    moves_played: int = 0
    moves_detected: int = 0
    letters_agree: int = 0
    scores_agree: int = 0
    invented: int = 0
    questions: int = 0
    entered: int = 0
    frames: int = 0
    seconds: float = 0.0
    #: seconds spent in the pipeline (feeding frames, answering), rendering left out
    pipeline_seconds: float = 0.0
    #: seconds each frame's feed took (the tracker, and reading and scoring when it decides),
    #: on the clock and in this thread's CPU time (which other processes do not inflate)
    frame_seconds: list[float] = field(default_factory=list)
    frame_cpu_seconds: list[float] = field(default_factory=list)
    final_scores: dict[str, int] = field(default_factory=dict)
    expected_final: dict[str, int] | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    @property
    def ms_per_frame(self) -> float:
        """Whole-pipeline cost per frame (tracker, readers, scorer), in milliseconds."""
        return 1000.0 * self.pipeline_seconds / self.frames if self.frames else 0.0

    @property
    def ok(self) -> bool:
        """Every move detected and scored as the generator played it, nothing invented, and
        (for a whole game) the same final scores."""
        return (
            self.moves_detected == self.moves_played == self.letters_agree == self.scores_agree
            and self.invented == 0 and not self.problems
            and (self.expected_final is None or self.expected_final == self.final_scores)
        )

    def summary(self) -> dict[str, Any]:
        return {
            "moves_played": self.moves_played,
            "moves_detected": self.moves_detected,
            "scores_agree": self.scores_agree,
            "seconds": round(self.seconds, 3),
            "fps": round(self.fps, 2),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "seed": self.seed, "letters_agree": self.letters_agree, "invented": self.invented,
            "questions": self.questions, "entered": self.entered, "frames": self.frames,
            "pipeline_ms_per_frame": round(self.ms_per_frame, 2),
            "final_scores": self.final_scores, "expected_final_scores": self.expected_final,
            "problems": self.problems, "ok": self.ok,
        }


class DemoRun:
    """The demo game filmed and scored (see the module notes).

    Subclasses (the live demo) hook in where the game meets the page: :meth:`on_frame` after
    every frame, :meth:`on_report` for every scored turn, :meth:`on_entered` for a pass or an
    exchange entered, :meth:`ask_players` for a question, :meth:`on_end` at the end.  The base
    class prints nothing.
    """

    def __init__(self, seed: int = DEFAULT_SEED, moves: int | None = None, *,
                 size: tuple[int, int] = FRAME_SIZE, lexicon: Lexicon | None = None) -> None:
        from scorer.lexicon import Lexicon

        self.lexicon = lexicon if lexicon is not None else Lexicon.default()
        self.game = demo_game(seed, moves, self.lexicon)
        self.camera = DemoCamera(seed, size)
        self.result = DemoResult(seed)
        self.checks: list[TurnCheck] = []
        self._waiting: list[DemoTurn] = []  # plays shown but not reported yet
        self.profile: Profile | None = None
        self.pipeline: Pipeline | None = None

    # ------------------------------------------------------------------ hooks

    def on_calibrated(self, report: ExtendReport) -> None:
        """The reader learnt the alphabet photo."""

    def on_frame(self, stamp: float, frame: np.ndarray) -> None:
        """Called after every frame went through the pipeline."""

    def on_report(self, check: TurnCheck) -> None:
        """A turn the pipeline scored, checked against the generator's."""

    def on_entered(self, turn: DemoTurn, event: Event) -> None:
        """A pass or an exchange entered (no camera sees them)."""

    def on_end(self, events: Sequence[Event]) -> None:
        """The game is over and its end settled (``events``: rack points)."""

    def ask_players(self, question: Question, turn: DemoTurn | None) -> str:
        """The players' answer to a question the pipeline holds a turn for."""
        return players_answer(question, turn)

    # ------------------------------------------------------------------ running

    def calibrate(self) -> Profile:
        """Teach a new profile the alphabet photo, as ``tilecam calibrate`` would;
        :class:`DemoError` when the photo cannot be used."""
        from calibration.profile import Profile, ProfileError
        from vision.locate import BoardNotFound

        profile = Profile(tileset="en")
        try:
            report = profile.extend(self.camera.calibration_photo(), ALPHABET_ROWS)
        except (BoardNotFound, ProfileError) as exc:
            raise DemoError(f"seed {self.game.seed}: the calibration photo of the alphabet "
                            f"cannot be used: {exc}") from exc
        self.profile = profile
        self.on_calibrated(report)
        return profile

    def make_pipeline(self) -> Pipeline:
        from pipeline import Pipeline
        from tracker import TrackerConfig

        profile = self.profile or self.calibrate()
        self.pipeline = Pipeline(
            list(self.game.players), profile=profile, tileset="en", lexicon=self.lexicon,
            hold=True, tracker_config=TrackerConfig(quiet_seconds=QUIET_SECONDS),
        )
        return self.pipeline

    def run(self) -> DemoResult:
        """Play the whole demo; the result says how the pipeline did."""
        import cv2

        cv2.setNumThreads(max(1, cv2.getNumThreads()))
        started = time.perf_counter()
        pipeline = self.pipeline or self.make_pipeline()
        result = self.result
        last = 0.0
        self._feed_all(self.camera.still(OPENING_SECONDS))
        for turn in self.game.turns:
            if turn.kind == "play":
                result.moves_played += 1
                self._waiting.append(turn)
                last = self._feed_all(self.camera.move(turn.rows_after))
                continue
            # A pass or an exchange: the move before it must be scored by now (the quiet
            # period has passed); the players then press the page's button.
            if self._waiting:
                self._handle(self._timed(lambda at=last: pipeline.commit(at)))
            event = (pipeline.game.exchange(turn.exchanged) if turn.kind == "exchange"
                     else pipeline.game.pass_turn())
            result.entered += 1
            self.on_entered(turn, event)
            last = self._feed_all(self.camera.still(ENTERED_SECONDS))
        self._handle(self._timed(lambda at=last: pipeline.finish(at)))
        for turn in self._waiting:
            result.problems.append(f"turn {turn.number} ({turn.notation}) was never reported")
        if self.game.complete and pipeline.game.over:
            racks = {i: rack for i, rack in enumerate(self.game.final_racks) if rack}
            events = pipeline.game.end_game(racks if self.game.ended_by != "out" else None)
            self.on_end(events)
            result.expected_final = dict(zip(self.game.players, self.game.final_scores,
                                             strict=True))
        elif self.game.complete:
            result.problems.append("the generator's game is over but the scored game is not")
        result.final_scores = dict(zip(pipeline.game.players, pipeline.game.scores, strict=True))
        result.questions = len(pipeline.questions)
        result.seconds = time.perf_counter() - started
        return result

    def _timed(self, call: Any) -> list[MoveReport]:
        started = time.perf_counter()
        out = call()
        self.result.pipeline_seconds += time.perf_counter() - started
        return out

    def _feed_all(self, frames: Iterator[tuple[float, np.ndarray]]) -> float:
        assert self.pipeline is not None
        pipeline = self.pipeline
        stamp = self.camera.time
        for stamp, image in frames:
            spent, cpu = self.result.pipeline_seconds, time.thread_time()
            reports = self._timed(lambda s=stamp, f=image: pipeline.feed(s, f))
            self.result.frame_cpu_seconds.append(time.thread_time() - cpu)
            self.result.frame_seconds.append(self.result.pipeline_seconds - spent)
            self.result.frames += 1
            self._handle(reports)
            self.on_frame(stamp, image)
        return stamp

    def _handle(self, reports: list[MoveReport]) -> None:
        assert self.pipeline is not None
        pipeline = self.pipeline
        while True:
            for report in reports:
                self._check(report)
            pending = pipeline.pending
            if not pending:
                return
            question = pending[0]
            answer = self.ask_players(question, self._waiting[0] if self._waiting else None)
            reports = self._timed(lambda q=question, a=answer: pipeline.answer(q.id, a))

    def _check(self, report: MoveReport) -> None:
        result = self.result
        event = report.event
        placed: dict[Square, str] = {}
        if report.kind == "play" and event is not None and event.play is not None:
            placed = dict(event.play.placement.tiles)
        # The squares the pipeline saw tiles laid on (read, even when the rules refused them).
        squares = set(placed) or set(report.read)
        expected = None
        # The move shown that shares squares with the report; moves shown before it and
        # never reported were missed.
        for index, waiting in enumerate(self._waiting):
            if squares & set(waiting.tiles):
                for missed in self._waiting[:index]:
                    result.problems.append(f"turn {missed.number} ({missed.notation}) was "
                                           "missed")
                del self._waiting[:index]
                expected = self._waiting.pop(0)
                break
        if expected is None:
            result.invented += 1
            result.problems.append(f"{report.kind} {report.position} {report.word} (reported "
                                   f"turn {report.turn}) matches no move of the game")
            check = TurnCheck(report, None, False, False, False)
        else:
            detected = squares == set(expected.tiles)
            letters = placed == expected.tiles
            score = report.score == expected.score
            result.moves_detected += detected
            result.letters_agree += letters
            result.scores_agree += score
            check = TurnCheck(report, expected, detected, letters, score)
            if not check.as_played:
                result.problems.append(
                    f"turn {expected.number}: scored {report.position} {report.word} "
                    f"{report.score:+d}, the game played {expected.notation}"
                )
        self.checks.append(check)
        self.on_report(check)


def players_answer(question: Question, turn: DemoTurn | None) -> str:
    """What the players say when the pipeline asks about the turn being scored: they know
    the tiles they laid (a blank's letter in lower case), or the play's notation."""
    tiles = turn.tiles if turn is not None else {}
    if question.kind in ("blank", "letter") and question.square in tiles:
        return tiles[question.square]
    if question.kind == "placement" and turn is not None:
        return f"{turn.position} {turn.word}"
    if question.kind == "no_placement":
        return "pass"
    return question.guess or (question.choices[0] if question.choices else "pass")
