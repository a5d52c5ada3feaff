"""Questions for the players: asking, answering, a placement the rules refuse, a turn with no
placement, a withdrawal; and a game record answering as the players would, for evaluation.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.reports import MoveReport, PendingTurn, Question, note_once
from scorer.game import Event, EventKind, GameError
from scorer.squares import Square

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)




class QuestionSteps:
    """Questions for the players: asking, answering, a placement the rules refuse, a turn with no

    A part of :class:`pipeline.Pipeline`: it shares the pipeline's state.
    """

    def answer(self, question_id: int, answer: str) -> list[MoveReport]:
        """The players' answer to a held question; the turns it let through out."""
        for question in self.questions:
            if question.id == question_id and question.answer is None:
                question.answer, question.answered_by = answer, "players"
                break
        else:
            raise KeyError(f"no open question {question_id}")
        return self._handle([])


    @property
    def pending(self) -> list[Question]:
        """Questions not answered yet."""
        return [q for q in self.questions if q.answer is None]


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


    def _ask_blank_or_letter(self, state: PendingTurn, tiles: dict[Square, str],
                             squares: list[Square]) -> None:
        for square in squares:
            letter = tiles[square]
            state.questions.append(self._ask(
                "letter",
                f"the tile on {self.name(square)} reads as {letter} only by the word list: is "
                f"it {letter}, or a blank standing for {letter} ({letter.lower()})?",
                square=square, choices=[letter, letter.lower()], guess=letter,
            ))


    def _refused(self, state: PendingTurn, tiles: dict[Square, str], exc: GameError,
                 unconfirmed: bool) -> MoveReport | None:
        placed = " ".join(f"{self.name(sq)}:{t}" for sq, t in sorted(tiles.items()))
        why = self.in_game_names(exc.message)
        question = next((q for q in state.questions if q.kind == "placement"), None)
        if question is None:
            question = self._ask(
                "placement",
                f"the tiles read ({placed}) are refused by the rules: {why}; "
                "what was played?",
            )
            state.questions.append(question)
        if question.answer is not None:
            return self._play_answer(state, tiles, question, unconfirmed)
        if self.hold:
            return None
        return self._report("unresolved", None, word=placed, questions=state.questions,
                            notes=state.notes + [f"refused: {why}"],
                            unconfirmed=True, read=self._as_read(state),
                            corrected=list(state.corrections))


    def _play_answer(self, state: PendingTurn, tiles: dict[Square, str], question: Question,
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
                                                     f"{self.in_game_names(again.message)}"],
                                unconfirmed=True, read=self._as_read(state),
                                corrected=list(state.corrections))
        source = "the record" if question.answered_by == "record" else "the players"
        note_once(state, f"placement given by {source}: {question.answer}")
        report = self._play_report(game_event, state, unconfirmed=False)
        self._learn(game_event, state)
        return report


    def _no_placement(self) -> MoveReport | None:
        state = PendingTurn([], {}, [], [], [])
        self._held = ("no_placement", state)
        return self._resume()


    def _settle_no_placement(self, state: PendingTurn) -> MoveReport | None:
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
            why = self.in_game_names(exc.message)
            event = self.game.pass_turn(note=f"recorded as a pass: {why}")
            kind, word = "pass", ""
            state.notes.append(f"{answer!r} refused ({why}): recorded as a pass")
        if question.answer is not None:
            source = "the record" if question.answered_by == "record" else "the players"
            state.notes.append(f"labelled {answer} by {source}")
        return self._report(kind, event, word=word, notes=state.notes,
                            questions=state.questions, unconfirmed=question.answer is None)


    def _withdrawal(self) -> MoveReport | None:
        try:
            event = self.game.withdraw()
        except GameError as exc:
            log.warning("tiles taken back but no play to withdraw: %s",
                        self.in_game_names(exc.message))
            return None
        self.tracker.confirm_board(self.game.board.rows())
        assert event.play is not None
        report = self._report(
            "withdrawn", event, position=event.play.position, word=event.play.main.marked,
            notes=["tiles taken back: the play is withdrawn"],
        )
        return report



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

