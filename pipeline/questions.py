"""Questions for the players: asking, answering, a placement the rules refuse, a turn with no
placement, a withdrawal, a challenge no photo shows; and a game record answering as the players
would, for evaluation.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.reports import NO_TURN, DeferredRefusal, MoveReport, PendingTurn, Question, note_once
from scorer.game import ChallengeRule, Event, EventKind, GameError, count_tiles, rack_form
from scorer.squares import Square
from scorer.tiles import BLANK

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

#: The answer to a "no_placement" question saying the photo was no turn at all (the same board
#: photographed twice).
NOT_A_TURN = "no turn"

#: What an answer source says happened after a play that no photo shows: the play was challenged
#: and stood.  Alone, the game's challenge rule says what follows (double: the challenger loses
#: the next turn; five or ten: the player gets the bonus; single: nothing); ``+N`` gives the
#: bonus itself, ``lost-turn`` the lost turn.
CHALLENGED = "challenged"
LOST_TURN = "lost-turn"




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
             choices: Sequence[str] = (), guess: str | None = None,
             splits: Sequence[tuple[tuple[Square, ...], ...]] = ()) -> Question:
        question = Question(
            self._next_question, self.turn_number + 1, kind, prompt, square, list(choices), guess,
            splits=list(splits),
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
        if (question is None and not self.stills and not state.starting
                and self._joined_in_progress(sorted(tiles))):
            # A camera started on a game under way (a calibration layout taken so is set
            # back by the live link once learnt).  Stills come here only once their letters
            # are settled (state.starting).
            started = self._start_from(state, tiles)
            if started is not None:
                return started
        if question is None and self.stills and not state.looked_again:
            # A photo's change that cannot be a move (a hand taken for tiles, a tile read
            # where there is none) is looked at again in the next photo rather than asked
            # about now: what went away is dropped, what stays comes back with the next
            # move's tiles, and nothing of it spills into the turns after.
            self._defer_refused(state, tiles, why)
            return NO_TURN
        if question is None:
            out = self.game.out_player
            if exc.code == "game_over" and out is not None:
                # The tiles counted had a player go out while the board shows play went on:
                # the turns were given to the wrong players earlier.
                prompt = (
                    f"tiles ({placed}) were laid after {self.game.players[out]} went out by "
                    "the tiles counted: an earlier turn went to the wrong player (a pass or "
                    "an exchange whose photo was forgotten, or two moves in one line that "
                    "one photo showed as one); correct the turns on the page, or say what "
                    "was played")
            else:
                prompt = (f"the tiles read ({placed}) are refused by the rules: {why}; "
                          "what was played?")
            question = self._ask("placement", prompt)
            state.questions.append(question)
        if question.answer is not None:
            return self._play_answer(state, tiles, question, unconfirmed)
        if self.hold:
            return None
        event = None
        if self.stills and not self.game.over:
            # A still is a turn: the player's turn passes with nothing scored until the
            # players say what was played, so that the turns after go to the right players.
            event = self.game.pass_turn(
                note=f"unresolved placement {placed}: recorded as a pass until the players "
                     "say what was played")
        return self._report("unresolved", event, word=placed, questions=state.questions,
                            notes=state.notes + [f"refused: {why}"],
                            unconfirmed=True, read=self._as_read(state),
                            corrected=list(state.corrections))

    def _joined_in_progress(self, squares: Sequence[Square]) -> bool:
        """Whether tiles that no move nor a few moves in turn lay are the board of a game
        joined in progress: the first tiles the camera sees, more than one move lays, and
        faces that could all be tiles (not a hand taken for them)."""
        game = self.game
        return (not game.events and not game.start_position
                and not any(game.board.cells) and len(squares) > game.rules.rack_size
                and self._could_be_tiles(list(squares)))

    def _start_from(self, state: PendingTurn, tiles: dict[Square, str]) -> MoveReport | None:
        """The game started from ``tiles`` (:meth:`scorer.game.Game.set_up`), reported as its
        start position; None where the tiles as read cannot be a position (more of a letter
        than the set holds: misread), which is then asked about as any refused placement."""
        position = {sq: (letter or "?") for sq, letter in tiles.items()}
        state.starting = False
        position = self._within_the_set(state, position)
        try:
            self.game.set_up(position)
        except GameError as exc:
            log.info("the first tiles seen cannot be a start position: %s", exc.message)
            return None
        note = (f"the board first seen holds {len(position)} tiles, more than the moves the "
                "rules let it be split into: a game joined in progress, scored from this position "
                "on (the scores before it are not known: the page adjusts them; the first turn "
                f"after it is taken to be {self.game.players[self.game.turn]}'s)")
        report = self._report("start", None, word=str(len(position)), notes=[*state.notes, note],
                              questions=state.questions, read=self._as_read(state),
                              unconfirmed=any(q.answer is None for q in state.questions))
        report.turn, report.player = 0, ""
        self._learn_start(state, position)
        return report

    def _within_the_set(self, state: PendingTurn,
                        position: dict[Square, str]) -> dict[Square, str]:
        """A start position read with more of a letter than the set holds (a Q read as the
        set's fourth O): the least surely read tiles of that letter, as many as are too many,
        are asked about, the guess the likeliest letter still left (a reader's other reading
        first, then the classifier's ranking of the glyph).  Letters answered stand."""
        counts = self.tileset.counts
        used = count_tiles(rack_form(letter) for letter in position.values())
        answered = {q.square for q in state.questions if q.answer is not None}
        out = dict(position)
        for letter, count in sorted(used.items()):
            excess = count - counts.get(letter, 0)
            if excess <= 0 or letter == "?":
                continue
            suspects = sorted((sq for sq, t in position.items()
                               if t == letter and sq not in answered),
                              key=lambda sq: state.read.get(sq, ("", 0.0, 0.0))[1])[:excess]
            seconds = self._second_readings(suspects)
            for square in suspects:
                read = self._reads.get(square)
                glyph = read.glyphs.get(square) if read is not None else None
                ranking = [] if glyph is None else (self._classifier_ranking(glyph) or [])
                left = [t for t in [*sorted(self._other_readings(square, letter, seconds)),
                                    *ranking]
                        if t != letter and t != "?" and used.get(t, 0) < counts.get(t, 0)]
                if not left:
                    continue
                for earlier in [q for q in state.questions if q.square == square]:
                    # (Asked as unsure already: this question asks it again, better guessed.)
                    state.questions.remove(earlier)
                    if earlier in self.questions:
                        self.questions.remove(earlier)
                question = self._ask(
                    "letter",
                    f"the board first seen holds more {letter} than the set: which letter is "
                    f"the tile on {self.name(square)} (read as {letter})?",
                    square=square, choices=list(dict.fromkeys([*left[:5], letter])),
                    guess=left[0],
                )
                state.questions.append(question)
                now = (question.answer or question.guess or letter).strip()
                used[now] = used.get(now, 0) + 1
                used[letter] -= 1
                out[square] = now
        return out

    def _defer_refused(self, state: PendingTurn, tiles: dict[Square, str], why: str,
                       whole_photo: bool = False) -> None:
        squares = sorted(tiles)
        letters = {sq: letter for sq, letter in tiles.items() if letter and letter != BLANK}
        if self._deferred is not None:
            # Another part of the same photo's change, refused too.
            squares = sorted(set(squares) | set(self._deferred.squares))
            why = f"{self._deferred.why}; {why}"
            whole_photo = False
            letters = self._deferred.letters | letters
        self.tracker.reconsider((sq.row, sq.col) for sq in squares)
        for question in state.questions:
            # Questions about squares that may not hold a tile at all no longer apply.
            if question in self.questions and question.answer is None:
                self.questions.remove(question)
        self._deferred = DeferredRefusal(squares, why, whole_photo, letters)
        log.info("tiles read on %s refused (%s): looked at again in the next photo",
                 self._listed(squares), why)

    def _dropped(self, squares: Sequence[Square]) -> str:
        """The note for squares of a refused placement that the next photo showed empty."""
        return (f"{self._listed(squares)}, taken for tiles in the photo before and refused by "
                "the rules, held none in the next: dropped")

    def _listed(self, squares: Sequence[Square], most: int = 8) -> str:
        """Squares named for a note: all of a few, the first of many and how many."""
        named = [self.name(sq) for sq in squares]
        if len(named) <= most:
            return " ".join(named)
        return f"{' '.join(named[:most])} ... ({len(named)} squares)"

    def _something_over_the_board(self, back: list[Square], lettered: list[Square]) -> bool:
        """Whether squares refused in the photo before and back in this one (``back``) are
        something over the board rather than tiles: all showing no letter, apart from the
        squares of this photo showing letters (``lettered``), and either several (both blanks
        played alone, with no letter beside them, is far rarer than a finger left where it
        rested) or of another colour than the tiles' faces (:meth:`_unlike_a_tile`: a pen)."""
        if not (lettered and back and all(self._faceless(sq) for sq in back)
                and self._apart(back, lettered)):
            return False
        return len(back) > 1 or any(self._unlike_a_tile(sq) for sq in back)

    def _over_the_board(self, back: list[Square], now: set[Square],
                        apart_from: str) -> tuple[tuple[int, int], ...]:
        """Squares refused in the photo before and back in this one (``back``) taken for
        something over the board: said in the next report, looked at again in the next photo
        (tiles there come back); the rest of this photo's squares (``now``)."""
        self._set_aside.append(
            f"{self._listed(back)}, showing no letter in two photos running, apart from "
            f"{apart_from}: taken for something over the board")
        self.tracker.reconsider((sq.row, sq.col) for sq in back)
        return tuple((sq.row, sq.col) for sq in sorted(now - set(back)))

    def _looked_again(self, event: Any) -> tuple[Any, list[Any], list[str]]:
        """The next photo's committed squares after a deferred refusal: the event to settle
        now, events to settle after it, and notes for this turn.  Where the deferred squares
        were all the photo before showed new and are gone, that photo showed no placement: a
        :class:`tracker.NoPlacement` comes first (the event then follows it)."""
        from tracker import MoveCommitted, NoPlacement

        deferred, self._deferred = self._deferred, None
        assert deferred is not None
        now = {Square(r, c) for r, c in event.squares}
        back = [sq for sq in deferred.squares if sq in now]
        gone = [sq for sq in deferred.squares if sq not in now]
        notes = []
        if gone:
            notes.append(self._dropped(gone))
        if deferred.whole_photo:
            if gone:
                self._set_aside.append(self._dropped(gone))
            if not back:
                # Gone: the photo that showed them alone showed no placement.
                return NoPlacement(event.time), [event], []
            lettered = [sq for sq in now if not self._faceless(sq)]
            if self._something_over_the_board(back, lettered):
                # Faces showing no letter again, apart from a move this photo shows: a finger
                # left where it rested, or a hand resting there again (both blanks played
                # alone, with no letter beside them, is far rarer).  The photo before showed
                # no placement; the rest of this one's change is judged as any photo's, and
                # those squares are looked at again in the next (tiles there come back).
                rest = self._over_the_board(back, now, "the move")
                return NoPlacement(event.time), [MoveCommitted(event.time, rest,
                                                               event.reason)], []
            # Back: tiles after all (a blank played alone), the move of the photo before;
            # what else this photo shows is a turn of its own, or none.
            moved = tuple((sq.row, sq.col) for sq in back)
            self._final_refusals.add(moved)
            rest = tuple((sq.row, sq.col) for sq in sorted(now - set(back)))
            return MoveCommitted(event.time, moved, event.reason), [
                MoveCommitted(event.time, rest, event.reason) if rest
                else NoPlacement(event.time)], []
        if not back or self._could_be_moves(sorted(now)):
            # The tiles back with the letters they showed were laid when the photo before was
            # taken: where this photo shows several moves, they are the first's.
            self._laid_before = {sq for sq in back if deferred.letters.get(sq)
                                 and deferred.letters[sq] == self._letter_read(sq)}
            return event, [], notes
        lettered = [sq for sq in now if not self._faceless(sq)]
        if self._something_over_the_board(back, lettered):
            # Set aside apart from the move of the photo before, and again apart from this
            # one's: not the earlier turn (asked about as one, its answer was this photo's
            # move, whose tiles were then refused as laid twice, and so on with every move
            # after), but something lying on the board.
            rest = self._over_the_board(back, now, "the moves")
            return MoveCommitted(event.time, rest, event.reason), [], notes
        # What stayed cannot be part of the moves since (where the rules place it, or where
        # its faces showing no letter are more than the blanks left): it is the earlier turn,
        # refused, and asked about; refused again with the next move's tiles, it would be
        # looked at again with every move after.
        rest = sorted(now - set(back))
        later = [MoveCommitted(event.time, tuple((sq.row, sq.col) for sq in rest),
                               event.reason)] if rest else []
        if not rest and self._joined_in_progress(back):
            # The first photo of a game joined in progress is no turn; the next, showing its
            # tiles and nothing new, is one, as any still showing nothing new (a pass or an
            # exchange is asked about).
            later = [NoPlacement(event.time)]
        self._final_refusals.add(tuple((sq.row, sq.col) for sq in back))
        return MoveCommitted(event.time, tuple((sq.row, sq.col) for sq in back),
                             event.reason), later, notes


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


    def _unseen_after(self, report: MoveReport) -> list[MoveReport]:
        """What happened at the table after a play that no photo shows, where the answer source
        says (a replay's answers file or record, through its ``after_turn(turn)``): the play
        was challenged and stood.  A bonus goes into the play's own report (a note and the
        totals); a lost turn is a turn of its own, the challenger's."""
        said = getattr(self.answers, "after_turn", None)
        if said is None or report.kind != "play" or report.event is None:
            return []
        out: list[MoveReport] = []
        for answer in said(report.turn):
            out.extend(self._challenge_stood(report, answer))
        return out


    def _challenge_stood(self, report: MoveReport, answer: str) -> list[MoveReport]:
        words = answer.split()
        rule = self.game.rules.challenge
        lost = bonus = None
        if words[1:] == [LOST_TURN] or (len(words) == 1 and rule is ChallengeRule.DOUBLE):
            lost = True
        elif len(words) == 2 and words[1].lstrip("+").isdigit():
            bonus = int(words[1].lstrip("+"))
        elif len(words) == 1 and rule in (ChallengeRule.FIVE_POINT, ChallengeRule.TEN_POINT):
            bonus = 0  # the rule's own
        elif len(words) == 1:
            report.notes.append(f"challenged, and the play stood (the {rule.value} challenge "
                                "rule: nothing follows)")
            return []
        else:
            report.notes.append(f"{answer!r} after turn {report.turn} not understood: "
                                f"'{CHALLENGED}', '{CHALLENGED} +5' or "
                                f"'{CHALLENGED} {LOST_TURN}'")
            return []
        challenged = f"the challenge of turn {report.turn}"
        try:
            if lost:
                event = self.game.lose_turn(note=f"lost to {challenged}, which stood")
            else:
                event = self.game.challenge_bonus(bonus or None,
                                                  note=f"{challenged}, which stood")
        except GameError as exc:
            report.notes.append(f"{answer!r} after turn {report.turn} refused: "
                                f"{self.in_game_names(exc.message)}")
            return []
        if lost:
            return [self._report("lost_turn", event, notes=[
                f"lost to {challenged}: the play stood (said by the answers)"])]
        report.notes.append(f"challenged, and the play stood: +{event.score} to "
                            f"{self.game.players[event.player]} (said by the answers)")
        report.totals = dict(zip(self.game.players, self.game.scores, strict=True))
        return []


    def _no_placement(self, *, first: bool = False) -> MoveReport | None:
        state = PendingTurn([], {}, [], [], [])
        state.shown_before, self._shown_before = self._shown_before, False
        state.set_aside_unchanged, self._set_aside_unchanged = self._set_aside_unchanged, False
        self._set_aside_views = []  # what a photo set aside showed is no later move's
        if first and (self.game.events or self.game.start_position):
            # The game was under way before this pipeline saw it: its empty board is no news.
            return NO_TURN
        state.first_photo = first
        if self.game.over:
            # A photo after the game ended that shows nothing new is no turn of anybody's.
            return None
        if self._deferred is not None:
            # Nothing came back of a refused placement: it was not tiles.
            deferred, self._deferred = self._deferred, None
            state.notes.append(self._dropped(deferred.squares))
            if deferred.whole_photo:
                # Nor did the photo that showed them show anything else: a turn of its own.
                from tracker import NoPlacement

                self._queue.insert(0, NoPlacement(0.0))
        self._held = ("no_placement", state)
        return self._resume()


    def _settle_no_placement(self, state: PendingTurn) -> MoveReport | None:
        if not state.questions:
            if state.first_photo:
                # Photos taken one per turn, by a person or by the players' clock, start after
                # the first turn: an empty board then was an opening pass or exchange, and a
                # guess either way gives every later turn to the wrong player.
                state.questions.append(self._ask(
                    "no_placement", "the first clear photo shows an empty board: was it "
                    "taken before the game, or after a first turn that laid no tiles (a pass or "
                    "an exchange)?", choices=[NOT_A_TURN, "pass", "exchange"], guess=NOT_A_TURN,
                ))
            elif state.shown_before:
                # Taken again after a photo with a hand in it, mostly: that stands unanswered.
                state.questions.append(self._ask(
                    "no_placement", "a photo set aside (something over the board) already "
                    "showed the last move: was this photo the next player's pass or exchange, "
                    "or no turn at all (the same board photographed again)?",
                    choices=["pass", "exchange", NOT_A_TURN], guess=NOT_A_TURN,
                ))
            elif state.set_aside_unchanged:
                # A photo with a hand in it taken again after the move's clear one, mostly:
                # that stands unanswered, as it did before the question was asked.
                state.questions.append(self._ask(
                    "no_placement", "a photo set aside (something over the board) showed the "
                    "board as the photo before it, where this move's tiles now lie: was it a "
                    "pass or an exchange, or no turn at all (the same board photographed "
                    "again)?", choices=["pass", "exchange", NOT_A_TURN], guess=NOT_A_TURN,
                ))
            else:
                state.questions.append(self._ask(
                    "no_placement", "no tiles were laid: was it a pass, an exchange, or no "
                    "turn at all (the same board photographed twice)?",
                    choices=["pass", "exchange", NOT_A_TURN], guess="pass",
                ))
        question = state.questions[0]
        if question.answer is None and self.hold:
            return None
        answer = (question.answer or question.guess or "pass").strip()
        words = answer.split()
        if answer == NOT_A_TURN:
            source = ("nobody: the guess stands" if question.answer is None else
                      "the record" if question.answered_by == "record" else "the players")
            self._set_aside.append(
                f"the first clear photo, of an empty board, was taken before the game (said by "
                f"{source})" if state.first_photo else
                f"a photo showing the board as the one before was no turn (said by {source})")
            return NO_TURN
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


    def _never_tiles(self, event: Any) -> list[MoveReport]:
        """Squares of the last photo's move that the next photo shows empty while the rest of
        the move stays: never tiles (a finger resting on the board, a hand's edge), since
        players take back a whole move.  The plays that laid them are taken back and made
        again without them (a play left with no tile is no turn at all); their reports are
        replaced, and the returned reports say so (``undone`` for each play taken back, then
        the plays made again)."""
        import copy

        gone = {Square(r, c) for r, c in event.squares}
        events = self.game.events
        first = len(events)
        covered: set[Square] = set()
        while first > 0 and not gone <= covered:
            earlier = events[first - 1]
            if earlier.kind is not EventKind.PLAY or earlier.play is None:
                break
            first -= 1
            covered |= set(earlier.play.placement.squares)
        reports = {id(r.event): r for r in self.reports if r.event is not None}
        undone = events[first:]
        what = f"{self._listed(sorted(gone))}, taken for tiles in the photo before, "
        if not gone <= covered or any(id(e) not in reports for e in undone):
            log.warning("%sare empty in this one, and the last plays did not lay them all: "
                        "left as they are", what)
            self._set_aside.append(f"{what}are empty in this one: not taken back, as the "
                                   "plays since depend on them")
            return []
        game = copy.deepcopy(self.game)
        again: list[Event] = []
        for _ in undone:
            game.undo()
        try:
            for old in undone:
                assert old.play is not None
                tiles = {sq: t for sq, t in old.play.placement.tiles if sq not in gone}
                if tiles:
                    again.append(game.place(tiles, note=old.note))
        except GameError as exc:  # the rest is no play on its own
            message = exc.message
            log.warning("%sare empty in this one, but the play without them is refused (%s): "
                        "left as they are", what, self.in_game_names(message))
            self._set_aside.append(f"{what}are empty in this one: not taken back, as the play "
                                   f"without them is refused ({self.in_game_names(message)})")
            return []
        self.game = game
        out: list[MoveReport] = []
        for old in undone:
            report = reports[id(old)]
            self.reports.remove(report)
            for question in report.questions:
                if question.answer is None and question in self.questions:
                    self.questions.remove(question)
            out.append(MoveReport(
                turn=report.turn, player=report.player, kind="undone",
                position=report.position, word=report.word, score=-report.score,
                totals=dict(zip(game.players, game.scores, strict=True)),
                notes=[f"{what}are empty in this one (a finger or a hand's edge, not tiles): "
                       f"turn {report.turn} taken back"], event=old))
        for square in gone:
            self._laid.pop(square, None)
            self._forget_learnt(square)
        for new in again:
            assert new.play is not None
            out.append(self._report(
                "play", new, position=new.play.main.position, word=new.play.main.marked,
                notes=[f"made again without {self._listed(sorted(gone))}, which held no "
                       "tiles"]))
        self.tracker.confirm_board(self.game.board.rows())
        log.info("%sare empty in this one: %d play(s) taken back, %d made again without them",
                 what, len(undone), len(again))
        return out


class RecordAnswers:
    """Answers questions from a reference GCG record, for evaluation only.

    The record stands in for the players: it is consulted only for the questions the pipeline
    asks, turn by turn (turn N of the pipeline is the record's N-th turn event), and answers as
    the players would: the letter on a square, pass or exchange, or the placement; and, after a
    play, what no photo shows (:meth:`after_turn`).  ``consulted`` counts the questions it
    answered.
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
        elif question.kind == "split":
            answer = self._split(question)
        elif question.kind == "no_placement":
            if event.kind is EventKind.EXCHANGE:
                answer = f"exchange {event.tiles or event.count}"
            elif event.kind is EventKind.PASS:
                answer = "pass"
            elif event.kind is EventKind.PLAY:
                # The player played next: the photo showing nothing new was taken twice.
                answer = NOT_A_TURN
        if answer is not None:
            self.consulted += 1
        return answer

    def after_turn(self, turn: int) -> list[str]:
        """What the record holds right after turn ``turn`` (a play) that no photo shows: a
        challenge bonus (``challenged +5``), or the next turn lost by the challenger
        (``challenged lost-turn``)."""
        if not 1 <= turn <= len(self.turns) or self.turns[turn - 1].play is None:
            return []
        events = self.result.game.events
        at = next(i for i, e in enumerate(events) if e is self.turns[turn - 1])
        said = []
        for event in events[at + 1:]:
            if event.kind is not EventKind.CHALLENGE_BONUS:
                break
            said.append(f"{CHALLENGED} +{event.score}")
        if turn < len(self.turns) and self.turns[turn].kind is EventKind.LOST_TURN:
            said.append(f"{CHALLENGED} {LOST_TURN}")
        self.consulted += len(said)
        return said

    def _split(self, question: Question) -> str | None:
        """The choice whose moves are the record's next turns, square for square."""
        for choice, split in zip(question.choices, question.splits, strict=True):
            turns = self.turns[question.turn - 1:question.turn - 1 + len(split)]
            laid = [tuple(sorted(e.play.placement.squares)) if e.play is not None else ()
                    for e in turns]
            if laid == [tuple(sorted(move)) for move in split]:
                return choice
        return None

    def placement(self, turn: int) -> dict[Square, str] | None:
        """The record's tiles for a turn (for comparing what was read)."""
        if not 1 <= turn <= len(self.turns):
            return None
        event = self.turns[turn - 1]
        return None if event.play is None else dict(event.play.placement.tiles)




class AnswerFileError(ValueError):
    """A line of an answers file that cannot be used; the message names the line."""


class AnswerFile:
    """Answers written down beforehand, one per line, for replaying a photographed game
    unattended as the page would be answered live.

    Each line names the question it answers and gives the answer (``#`` starts a comment)::

        turn 5 blank D11 e          # the blank on D11, laid in turn 5, is an e
        turn 7 letter H4 Q          # the tile on H4 is a Q
        turn 9 no_placement exchange ABC
        turn 12 placement 8D FIRNS
        turn 14 split 2             # the second way offered (or the way's own text)
        question 17 pass            # by the question's number
        turn 20 challenged          # turn 20's play was challenged and stood (no photo shows it)

    ``challenged`` is what no question asks: the game's challenge rule says what follows (double:
    the challenger loses the next turn; five or ten: the bonus), or the line says it:
    ``turn 20 challenged +5``, ``turn 20 challenged lost-turn``.
    Squares are named as the game names them (``--lettered-rows``).  A question no line
    answers stays open (its best guess stands, marked unconfirmed).  ``unused()`` lists the
    lines no question asked for, so that a mistyped turn or square is not silently lost.

    >>> answers = AnswerFile.parse("turn 3 blank H8 e\\nquestion 4 pass\\n")
    >>> answers(Question(1, 3, "blank", "which letter?", Square.parse("H8")))
    'e'
    >>> answers(Question(4, 5, "no_placement", "pass or exchange?"))
    'pass'
    >>> AnswerFile.parse("turn three blank H8 e")
    Traceback (most recent call last):
    ...
    pipeline.questions.AnswerFileError: line 1: 'three' is not a turn number
    """

    KINDS = ("blank", "letter", "placement", "no_placement", "split", CHALLENGED)

    def __init__(self, entries: list[tuple[int, str, tuple[object, ...], str]],
                 lettered_rows: bool = False) -> None:
        #: (line, "turn" or "question", key, answer)
        self.entries = entries
        self.lettered_rows = lettered_rows
        self.used: set[int] = set()
        self.consulted = 0

    @classmethod
    def load(cls, path: str | Path, *, lettered_rows: bool = False) -> AnswerFile:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise AnswerFileError(f"cannot read {path}: {exc}") from exc
        return cls.parse(text, lettered_rows=lettered_rows)

    @classmethod
    def parse(cls, text: str, *, lettered_rows: bool = False) -> AnswerFile:
        entries: list[tuple[int, str, tuple[object, ...], str]] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if words[0] not in ("turn", "question") or len(words) < 3:
                raise AnswerFileError(
                    f"line {number}: expected 'turn N KIND [SQUARE] ANSWER' or "
                    f"'question N ANSWER', got {raw.strip()!r}")
            if not words[1].isdigit():
                raise AnswerFileError(f"line {number}: {words[1]!r} is not a "
                                      f"{words[0]} number")
            if words[0] == "question":
                entries.append((number, "question", (int(words[1]),), " ".join(words[2:])))
                continue
            kind = words[2]
            if kind not in cls.KINDS:
                raise AnswerFileError(f"line {number}: unknown question kind {kind!r} (one of "
                                      f"{', '.join(cls.KINDS)})")
            rest = words[3:]
            square: Square | None = None
            if kind in ("blank", "letter"):
                if len(rest) != 2:
                    raise AnswerFileError(f"line {number}: a {kind} answer is 'turn N {kind} "
                                          f"SQUARE LETTER'")
                square = _square_named(rest[0], lettered_rows, number)
                rest = rest[1:]
            if kind == CHALLENGED:
                if rest not in ([], [LOST_TURN]) and not (
                        len(rest) == 1 and rest[0].lstrip("+").isdigit()):
                    raise AnswerFileError(
                        f"line {number}: a challenge is 'turn N {CHALLENGED}', 'turn N "
                        f"{CHALLENGED} +5' or 'turn N {CHALLENGED} {LOST_TURN}'")
                rest = [CHALLENGED, *rest]
            if not rest:
                raise AnswerFileError(f"line {number}: no answer given")
            entries.append((number, "turn", (int(words[1]), kind, square), " ".join(rest)))
        return cls(entries, lettered_rows)

    def __call__(self, question: Question) -> str | None:
        for line, by, key, answer in self.entries:
            if by == "question":
                fits = key[0] == question.id
            else:
                turn, kind, square = key
                fits = turn == question.turn and kind == question.kind and (
                    square is None or square == question.square)
            if fits:
                self.used.add(line)
                self.consulted += 1
                return answer
        return None

    def after_turn(self, turn: int) -> list[str]:
        """The lines saying what happened after turn ``turn`` that no photo shows (a
        challenge of its play that stood)."""
        said = []
        for line, by, key, answer in self.entries:
            if by == "turn" and key[:2] == (turn, CHALLENGED):
                self.used.add(line)
                self.consulted += 1
                said.append(answer)
        return said

    def unused(self) -> list[int]:
        """Lines of the file that answered no question."""
        return [line for line, *_ in self.entries if line not in self.used]


def _square_named(text: str, lettered_rows: bool, line: int) -> Square:
    try:
        square = Square.parse(text.upper())
    except ValueError:
        raise AnswerFileError(f"line {line}: {text!r} is not a square") from None
    # Lettered rows name the row first (H4: row H, column 4): the transposed square.
    return square.transposed() if lettered_rows else square
