"""Several moves between two photos: the new tiles split into the moves that laid them.

Someone forgets the photo after a move, or a photo is set aside because a hand was over the
board: the next photo then shows the tiles of two (or more) moves.  When the new tiles cannot be
one move, :func:`scorer.rules.move_splits` finds every way to lay them as the fewest legal moves
in turn; the players alternate, so each way gives each move to a player.  One way: it is taken.
Several: a photo set aside in between (a hand over the board) chooses where it already showed
the tiles of exactly one way's first move, with the letters read on them now (a hand is taken
for tiles where it lies, and a later move may go there); else the word list, where exactly one
way forms only words in it (with the letters as read); otherwise the players are asked which
tiles went in which move (a *split* question), and until they answer the first way stands,
unconfirmed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pipeline.reports import Question
from scorer.board import Board
from scorer.rules import move_splits
from scorer.squares import SIZE, Square
from scorer.tiles import BLANK

if TYPE_CHECKING:
    from tracker import MoveCommitted

log = logging.getLogger(__name__)

Split = tuple[tuple[Square, ...], ...]


class SeveralMovesSteps:
    """Splitting a placement that cannot be one move; a part of :class:`pipeline.Pipeline`
    (it shares the pipeline's state)."""

    def _moves_in(self, event: MoveCommitted) -> list[MoveCommitted] | None:
        """The committed squares as the moves that laid them (one event per move, in order),
        or None while the players are asked (and the pipeline holds)."""
        from tracker import MoveCommitted

        squares = [Square(r, c) for r, c in event.squares]
        if len(squares) < 2:
            return [event]
        if not self._could_be_tiles(squares):
            return [event]  # refused as laid, and looked at again in the next photo
        board = Board(list(self.game.board.cells))
        splits = move_splits(board, squares)
        if len(splits) == 0 or len(splits[0]) == 1:
            return [event]  # one move, or none the rules allow: refused as laid
        chosen, how, question = self._choose_split(splits, event)
        if chosen is None:
            return None
        count = len(chosen)
        described = ", then ".join(" ".join(self.name(sq) for sq in move) for move in chosen)
        note = f"{count} moves between two photos ({described}): {how}"
        log.info("%s", note)
        parts = []
        for number, move in enumerate(chosen, start=1):
            squares_of = tuple((sq.row, sq.col) for sq in move)
            self._split_notes[squares_of] = (f"move {number} of {note}", question)
            parts.append(MoveCommitted(event.time, squares_of, reason=event.reason))
        return parts

    def _could_be_moves(self, squares: list[Square]) -> bool:
        """Whether new tiles on ``squares`` could be one move or a few in turn, as the rules
        place tiles and with faces that could be tiles left to lay."""
        return self._could_be_tiles(squares) and bool(
            move_splits(Board(list(self.game.board.cells)), squares))

    def _could_be_tiles(self, squares: list[Square]) -> bool:
        """Whether the squares' faces, as read, could all be tiles left to lay: no more faces
        without a letter (blanks, or a hand taken for tiles) than blanks are unseen, and none
        of another colour than the tiles' faces (:meth:`_unlike_a_tile`)."""
        if any(self._unlike_a_tile(square) for square in squares):
            return False
        bare = sum(self._faceless(square) for square in squares)
        unseen = self.game.unseen()
        return bare <= unseen.get(BLANK, 0) and len(squares) <= sum(unseen.values())

    def _letter_read(self, square: Square) -> str:
        """The letter read on a square that gained a tile (``""``: none read)."""
        entry = self._reads.get(square)
        return entry.guesses[square][0] if entry is not None else ""

    def _unlike_a_tile(self, square: Square) -> bool:
        """Whether a square that gained a tile shows no letter and almost nothing of the
        tiles' faces' colour (:attr:`pipeline.reading.SquaresRead.unmatched`): a pen lying
        across an empty square, taken for a blank, and split off the move beside it as a
        move of its own."""
        read = self._reads.get(square)
        return read is not None and square in read.unmatched

    def _unlike_groups(self, bare: list[Square], lettered: list[Square]) -> list[Square]:
        """Of new squares showing no letter (``bare``), those of another colour than the
        tiles' faces (:meth:`_unlike_a_tile`) and those touching them (diagonals too, step by
        step) that lie apart from the new squares showing letters (``lettered``).  Something
        over the board may lie on a cream-coloured square too (a finger's tip, a shadow's
        edge): split off the group, those would be taken for blanks played alone.  A face
        without a letter beside a lettered one may be a blank of the move: it stays."""
        group = [sq for sq in bare if self._unlike_a_tile(sq)]
        rest = [sq for sq in bare if sq not in group and self._apart([sq], lettered)]
        grown = True
        while grown:
            touching = [sq for sq in rest if not self._apart([sq], group)]
            rest = [sq for sq in rest if sq not in touching]
            group += touching
            grown = bool(touching)
        return [sq for sq in bare if sq in group]

    def _hidden_joined(self, event: MoveCommitted) -> MoveCommitted | None:
        """The committed squares less the tiles that join an earlier move: tiles something
        lying over the board (a pen) hid since before other moves were laid (the tracker's
        :attr:`tracker.TilesAdded.hidden`), seen now that it is gone, apart from this photo's
        other new tiles, where exactly one of the moves laid meanwhile takes them as the
        rules allow.  That move is made again with them, and the game replayed from it.
        None where no square is left: the photo showed nothing new but those tiles.

        Scored as a move of their own, such a tile took the turn of the next photo's pass or
        exchange, and the move it was laid with scored without it."""
        from tracker import MoveCommitted

        squares = [Square(r, c) for r, c in event.squares]
        hidden = [sq for sq in squares if sq in self._hidden_tiles]
        if not hidden:
            return event
        joined: list[Square] = []
        for square in hidden:
            laid_meanwhile = self._hidden_tiles.pop(square)
            letter = self._letter_read(square)
            rest = [sq for sq in squares if sq != square and sq not in joined]
            if letter in ("", BLANK) or not self._apart([square], rest):
                continue  # (a blank's letter is not known; beside new tiles, theirs)
            fits = []
            for index, past in enumerate(self.game.events):
                if past.play is None or not set(past.play.placement.squares) <= laid_meanwhile:
                    continue
                line = [*past.play.placement.squares, square]
                if len({sq.row for sq in line}) > 1 and len({sq.col for sq in line}) > 1:
                    continue
                if any(self.game.board[sq] is None for sq in past.play.placement.squares):
                    continue  # taken back
                game = self._replayed({square: letter}, {square: index})
                if game is not None:
                    fits.append((index, game))
            if len(fits) != 1:
                continue
            index, game = fits[0]
            self._join_earlier(square, letter, index, game)
            joined.append(square)
        if not joined:
            return event
        left = tuple((sq.row, sq.col) for sq in squares if sq not in joined)
        return MoveCommitted(event.time, left, event.reason) if left else None

    def _ask_what_lies_under(self, state: Any) -> bool:
        """Ask what was played where something lying over the board (a pen) hides squares in
        the line of this move's tiles, next to them or to the tiles they join (the move may
        run on under it, and no later photo need show it: the pen may lie there to the end of
        the game); True when a question asked is not answered yet.  Not asked again where the
        turn has a placement question already."""
        if not self.stills or state.starting or any(
                q.kind == "placement" for q in state.questions):
            return False
        hidden = {Square(r, c) for r, c in self.tracker.hidden_squares}
        hidden |= self._covered_beside
        self._covered_beside = set()
        under = _in_line_beyond(self.game.board, state.squares, hidden) if hidden else []
        if not under:
            return False
        placed = " ".join(f"{self.name(sq)}:{state.read[sq][0] or BLANK}"
                          for sq in sorted(state.squares))
        question = self._ask(
            "placement",
            f"something lies over the board on {' '.join(self.name(sq) for sq in under)}, in "
            f"line with the tiles read ({placed}): if tiles of this move lie under it, what "
            "was played?")
        state.questions.append(question)
        log.info("turn %d: %s", question.turn, question.prompt)
        return question.answer is None

    def _join_earlier(self, square: Square, letter: str, index: int, game: Any) -> None:
        """Make ``game`` (the game replayed with ``letter`` on ``square`` in the play that is
        event ``index``) the pipeline's, and that play's report say so."""
        from pipeline.reports import PendingTurn

        index_of = {id(e): i for i, e in enumerate(self.game.events)}
        self.game = game
        turn = self.turn_number
        for report in self.reports:
            if report.event is None or id(report.event) not in index_of:
                continue
            at = index_of[id(report.event)]
            report.event = game.events[at]
            if at != index:
                report.score = report.event.score
                continue
            play = report.event.play
            assert play is not None
            note = (f"{self.name(square)} {letter}, hidden by something lying over the board "
                    f"until turn {self.turn_number + 1}'s photo, joins this move")
            log.info("turn %d: %s", report.turn, note)
            report.score, report.word = report.event.score, play.main.marked
            report.position = play.main.position
            report.notes.append(note)
            turn = report.turn
        read = self._reads.get(square)
        seen = PendingTurn([square], {} if read is None else {square: read.guesses[square]},
                           [], [], [])
        self._laid[square] = self._laid_tile(seen, square, letter, turn, False)

    def _faceless(self, square: Square) -> bool:
        """Whether a square that gained a tile shows no letter (a blank, or what was taken
        for a tile: a finger, a hand's edge)."""
        return self._letter_read(square) in ("", BLANK)

    @staticmethod
    def _apart(squares: Iterable[Square], others: Iterable[Square]) -> bool:
        """Whether no square of ``squares`` touches one of ``others`` (diagonals too).

        >>> SeveralMovesSteps._apart([Square(0, 0)], [Square(2, 1)])
        True
        >>> SeveralMovesSteps._apart([Square(0, 0)], [Square(1, 1)])
        False
        """
        others = list(others)
        return all(max(abs(a.row - b.row), abs(a.col - b.col)) > 1
                   for a in squares for b in others)

    def _choose_split(self, splits: list[Split],
                      event: Any) -> tuple[Split | None, str, Question | None]:
        """The way chosen (None while the players are asked and the pipeline holds), how it
        was chosen, and the question asked (None where none was needed)."""
        if len(splits) == 1:
            return splits[0], "the only way the rules allow", None
        # A photo set aside (a hand over the board) between the two clear ones may already
        # show the first move's tiles: the ways whose first move holds every tile it showed.
        new = {sq for move in splits[0] for sq in move}
        seen = self._shown_laid(new)
        shown = [s for s in splits if seen and seen <= set(s[0])]
        if len(shown) == 1:
            return shown[0], "the photo set aside showed the first move's tiles laid", None
        # So may a photo whose change was refused (a finger beside the move taken for tiles):
        # the tiles it showed that are back with the same letters.
        refused = self._laid_before & new
        shown = [s for s in splits if refused and refused <= set(s[0])]
        if len(shown) == 1:
            return shown[0], "the photo refused before showed the first move's tiles laid", None
        worded = [s for s in splits if self._all_words_listed(s)]
        if len(worded) == 1:
            return worded[0], "the only way whose words are all in the word list", None
        question = self._split_question(splits)
        if question.answer is not None:
            chosen = self._split_answered(splits, question)
            if chosen is not None:
                source = "the record" if question.answered_by == "record" else "the players"
                return chosen, f"split by {source}", question
        if self.hold:
            self._held = ("split", (event, splits, question))
            return None, "", question
        return splits[0], "the players were asked which tiles went in which move", question

    def _taken_before(self, event: Any) -> bool:
        """Whether the first photo set aside since the last clear one (something over the
        board) showed every square of the tiles a clear photo brought (``event``) unchanged
        from that clear one: nothing over them, no tile there yet.  A photo taken while a
        player was still placing shows the tiles laid so far or the hand over where they go."""
        if not self._set_aside_views or not event.squares:
            return False
        changed = set(self._set_aside_views[0].squares)
        return not any(square in changed for square in event.squares)

    def _shown_laid(self, new: set[Square]) -> set[Square]:
        """The squares of ``new`` (the tiles the clear photo brought) that a photo set aside
        since the last clear one already showed tiled, with the letter read on them now.
        Such a photo takes a hand for tiles where it lies, and a later move may go where the
        hand was: the letter tells a tile from a hand."""
        from vision.letter_choice import read_letters
        from vision.rectified import finder_of_frame

        shown: set[Square] = set()
        for view in self._set_aside_views:
            squares = sorted(sq for sq in (Square(r, c) for r, c in view.laid)
                             if sq in new and sq not in shown
                             and not self._faceless(sq))
            if not squares or view.frame is None:
                continue
            glyphs = finder_of_frame(view.frame, view.corners, self.orientation or 0).glyphs(
                [(sq.row, sq.col) for sq in squares])
            classifier = self._classifier()
            # Tesseract only where no classifier reads (a few hundred milliseconds a call).
            known = classifier is not None and len(classifier) > 0
            guesses, _ = read_letters(glyphs, classifier, None if known else self.tesseract,
                                      None, stock=self._stock_for_unseen(classifier))
            shown |= {sq for sq, glyph, guess in zip(squares, glyphs, guesses, strict=True)
                      if glyph is not None
                      and self._letter(glyph, guess)[0] == self._letter_read(sq)}
        return shown

    def _split_question(self, splits: list[Split]) -> Question:
        choices = [" | ".join(" ".join(self.name(sq) for sq in move) for move in split)
                   for split in splits]
        existing = next((q for q in self.questions if q.kind == "split"
                         and q.choices == choices and q.turn == self.turn_number + 1), None)
        if existing is not None:
            return existing
        question = self._ask(
            "split",
            f"the new tiles are more than one move (a photo was left out?): which tiles went in "
            f"which move, in the order played ({len(splits)} ways fit the rules)?",
            choices=choices, guess=choices[0], splits=splits,
        )
        return question

    def _split_answered(self, splits: list[Split], question: Question) -> Split | None:
        answer = (question.answer or "").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(splits):
            return splits[int(answer) - 1]
        if answer in question.choices:
            return splits[question.choices.index(answer)]
        return None

    def _all_words_listed(self, split: Split) -> bool:
        """Whether every word each move forms, with the letters as read, is in the word list
        (False without a word list or where a letter was not read)."""
        if self.lexicon is None:
            return False
        board = Board(list(self.game.board.cells))
        for move in split:
            tiles = {}
            for square in move:
                letter = self._letter_read(square)
                if not letter or letter == BLANK:
                    return False
                tiles[square] = letter
            words = self._words(board, tiles)
            if not words or any(word not in self.lexicon for word in words):
                return False
            for square, letter in tiles.items():
                board.cells[square.row * 15 + square.col] = letter
        return True

    def _resume_split(self, held: tuple[Any, list[Split], Question]) -> bool:
        """A held split question answered: its moves queued; False while still unanswered."""
        event, splits, question = held
        if question.answer is None:
            return False
        self._held = None
        parts = self._moves_in(event)
        if parts is None:
            return False
        self._queue[0:0] = parts
        return True


def _in_line_beyond(board: Board, laid: Iterable[Square], hidden: set[Square]) -> list[Square]:
    """Squares of ``hidden`` that a move laying ``laid`` (one row or column; a single tile:
    either) would run on to: empty squares of its line reached from its tiles through tiles
    on the ``board``, its own and other hidden squares, sorted.

    >>> board = Board()
    >>> board.cells[7 * SIZE + 7] = "A"
    >>> hidden = {Square(7, 6), Square(7, 5), Square(9, 9)}
    >>> _in_line_beyond(board, [Square(7, 8)], hidden)
    [Square(row=7, col=5), Square(row=7, col=6)]
    >>> _in_line_beyond(board, [Square(7, 9)], hidden)
    []
    """
    laid = list(laid)
    if not laid:
        return []
    rows = {sq.row for sq in laid}
    cols = {sq.col for sq in laid}
    lines = ([(0, 1)] if len(rows) == 1 and len(cols) > 1 else
             [(1, 0)] if len(cols) == 1 and len(rows) > 1 else
             [(0, 1), (1, 0)] if len(laid) == 1 else [])
    own = set(laid)
    found: set[Square] = set()
    for dr, dc in lines:
        along = sorted(laid, key=lambda sq: (sq.row, sq.col))
        for start, step in ((along[0], -1), (along[-1], 1)):
            row, col = start.row + step * dr, start.col + step * dc
            while 0 <= row < SIZE and 0 <= col < SIZE:
                square = Square(row, col)
                if square in hidden:
                    found.add(square)
                elif square not in own and board[square] is None:
                    break
                row, col = row + step * dr, col + step * dc
        # Gaps between the move's tiles that no tile fills.
        first, last = along[0], along[-1]
        span = range((first.col if dc else first.row) + 1, (last.col if dc else last.row))
        for k in span:
            square = Square(first.row, k) if dc else Square(k, first.col)
            if square in hidden and board[square] is None:
                found.add(square)
    return sorted(found)
