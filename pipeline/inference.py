"""Letters from words: a blank's letter, an unsure letter and a misread found later, settled by
the word list and the tiles left where one answer fits (a part of :class:`pipeline.Pipeline`).
"""

from __future__ import annotations

import copy
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pipeline.reading import ACCEPT, UNSURE
from pipeline.reports import Correction, PendingTurn, note_once
from scorer.board import Board
from scorer.game import Event, EventKind, Game, GameError, rack_form
from scorer.rules import words_with_unknown_blanks
from scorer.squares import Square
from scorer.tiles import BLANK
from tracker import in_one_line

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

#: At most this many doubtful squares of one placement are solved for together by the
#: dictionary (more would let it make almost anything valid).
MAX_DOUBTED = 3

#: At most this many letters are offered for an earlier tile found misread (without a word
#: list every unseen letter is possible: the likeliest are offered, any may be answered).
MOST_CHOICES = 8

@dataclass
class CheckRound:
    """One round of checking a placement (see :meth:`Pipeline._check_words`)."""

    state: PendingTurn
    tiles: dict[Square, str]
    #: the game's board with the earlier tiles being corrected as they will be
    board: Board
    #: this placement's squares whose letter the players gave, or were asked
    given: set[Square]
    #: tiles unseen once this placement's are taken (negative: more than are left)
    left: Counter[str]



class InferenceSteps:
    """Letters from words: a blank's letter, an unsure letter and a misread found later, settled by

    A part of :class:`pipeline.Pipeline`: it shares the pipeline's state.
    """

    def _fitting_letters(self, tiles: dict[Square, str], square: Square,
                         limit: int) -> tuple[set[str], bool]:
        """The letters on ``square`` that make every word valid (blanks and unreadable tiles
        unknown too), among at most ``limit`` assignments, and whether those were all."""
        unknown = [sq for sq, t in tiles.items() if t == BLANK or sq == square]
        trial = {sq: (BLANK if sq == square else t) for sq, t in tiles.items()}
        solutions = self._solve(self.game.board, trial, unknown, self.tileset.letters,
                                limit=limit)
        return {solution[square] for solution in solutions}, len(solutions) < limit

    def _determined(self, tiles: dict[Square, str], square: Square) -> str | None:
        """The one letter that makes every word valid on ``square`` (blanks and unreadable
        tiles unknown too), or None when there is none or more than one."""
        letters, _ = self._fitting_letters(tiles, square, limit=8)
        return letters.pop() if len(letters) == 1 else None


    def _infer(self, state: PendingTurn) -> tuple[dict[Square, str], list[str]]:
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
        in_line = in_one_line((sq.row, sq.col) for sq in state.read)
        if self.lexicon is not None and (blanks or unreadable or unsure) and in_line and (
                len(blanks) + len(unreadable) + len(unsure) <= MOST_SOLVED):
            # First with the unsure letters as read, then with them unknown too.
            solutions = self._solve(board, tiles, blanks + unreadable, letters)
            if unsure and solutions:
                # Valid as read; but only a letter that no other letter could replace is
                # confirmed (CAT misread as GAT is valid too).
                fitting = {sq: self._fitting_letters(tiles, sq, limit=4 * len(letters))
                           for sq in unsure}
                confirmed = [sq for sq in unsure if fitting[sq][0] == {tiles[sq]}]
                # The word list chooses only between letters the glyph leaves close: where
                # every other letter that fits is far from it (an I read unsure where A fits
                # too), the letter stands as read.
                kept = [sq for sq in unsure if sq not in confirmed and fitting[sq][1]
                        and not self._close_here(state, sq, fitting[sq][0] - {tiles[sq]})]
                if blanks_left > len(blanks):
                    # A faceless blank can show a faint mark that reads as the very letter it
                    # stands for: while blanks are unseen, which of the two is asked, unless
                    # the tile shows its point value beside the letter (no blank has one).
                    maybe_blank += [sq for sq in confirmed + kept if not self._shows_value(sq)]
                    confirmed = [sq for sq in confirmed if sq not in maybe_blank]
                    kept = [sq for sq in kept if sq not in maybe_blank]
                if confirmed:
                    notes.append("unsure letters confirmed by the dictionary (no other letter "
                                 "fits): " + ", ".join(f"{self.name(sq)} {tiles[sq]}"
                                                       for sq in confirmed))
                if kept:
                    notes.append("unsure letters kept as read (valid, and no letter like them "
                                 "fits instead): " + ", ".join(f"{self.name(sq)} {tiles[sq]}"
                                                               for sq in kept))
                unsure = [sq for sq in unsure
                          if sq not in confirmed and sq not in kept and sq not in maybe_blank]
                if unsure:
                    solutions = []  # asked below, with the letters as read as the guess
            elif unsure:
                trial = {sq: (BLANK if sq in unsure else t) for sq, t in tiles.items()}
                solutions = self._solve(board, trial, blanks + unreadable + unsure, letters)
            faceless = [sq for sq in unsure if not self._shows_value(sq)]
            if len(solutions) == 1 and faceless and blanks_left > len(blanks):
                maybe_blank += faceless  # the letter is settled, not whether it is a blank
                for square in faceless:
                    tiles[square] = solutions[0][square]
                unsure = [sq for sq in unsure if sq not in faceless]
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


    def _check_words(self, state: PendingTurn) -> None:
        """Every word the placement forms against the word list, and its tiles against those
        still unseen, with the letters as now known (read, inferred, answered).  Called in
        rounds: each round only asks what the rounds before it could not settle.

        A blank whose letter the word list gave when other letters were not known yet is
        solved again with the letters as answered, and asked when that no longer settles it.

        Any other word not in the word list is a misread, or a word the players may play
        anyway (a name, a misspelling, a phony).  Squares whose letter the players gave (or
        were asked) are not doubted; on the others a correction *by the dictionary* is made
        only to letters the glyph leaves close (:meth:`_close`), when the evidence points at
        one change: the only one-letter change
        (to a letter still unseen) that makes every word valid that a reader proposed
        (Tesseract's second reading, or the classifier's reading before Tesseract overruled
        it); else an earlier move's tile in one of the words, with the one other letter that
        its own second reading proposes and that makes every word valid; else the only
        one-letter change there is, unless both readers read the letter as it is (then it may
        be a phony); else the only letters that make every word valid on the squares read
        without confidence or read differently by the two readers.  A clear Q made an R
        because a word wants one would hide a phony.  Otherwise the play stands as laid, with
        a note naming the words in no list: the game goes on, and a challenge decides.

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
                corrected = not state.words_stand and self._fix_words(check)
                if not corrected and not state.words_stand:
                    return  # no words to speak of: the rules refuse the placement
                if corrected:
                    check = self._check(state, self._letters(state)[0])
                # Corrected, or standing as laid (see _fix_words): the tiles left can still
                # show a misread.
                self._check_tiles_left(check)
                return
            elif not blanks:
                return
            check = self._check(state, self._letters(state)[0])
        self._check_tiles_left(check)


    def _check(self, state: PendingTurn, tiles: dict[Square, str]) -> CheckRound:
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
        return CheckRound(state, dict(tiles), board, given, left)


    def _recheck_blanks(self, check: CheckRound) -> bool | None:
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
                note_once(state, f"blank on {self.name(square)} is {letter.upper()}: the only "
                          "letter that makes every word valid with the letters answered")
            return True
        for square in inferred:
            state.asked.add(square)
            state.questions.append(self._ask(
                "blank", f"which letter is the blank on {self.name(square)}?", square=square,
                choices=sorted({s[square].lower() for s in solutions}), guess=tiles[square],
            ))
        return False


    def _fix_words(self, check: CheckRound) -> bool:
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
        # A letter another reader read in the glyph is one the glyph leaves close (if the
        # classifier ranks it at all); any other only where the classifier finds it close.
        close = {sq: self._close_here(state, sq, {c for s, c in candidates if s == sq})
                 for sq in {s for s, _ in candidates}}
        plausible = [(sq, letter) for sq, letter in candidates if letter in close[sq]]
        supported = [(sq, letter) for sq, letter in candidates if letter in readers[sq]
                     and self._plausible_here(state, sq, letter)]
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
                    if not all(c in self._close_here(state, sq, [c])
                               for sq, c in change.items()):
                        change = {}
        if change:
            valid = self._words(board, {**tiles, **change})
            for square, letter in sorted(change.items()):
                self._set_letter(state, square, letter)
                state.recorded.append(f"{self.name(square)} corrected to {letter} by the "
                                      f"dictionary (read {tiles[square]})")
                note_once(state, f"{self.name(square)}: read {tiles[square]}, corrected to "
                          f"{letter} by the dictionary: {', '.join(invalid)} not in the word "
                          f"list, {', '.join(valid)} valid ({how})")
            return True
        # No letter the glyphs leave close mends the words: the play stands as laid, a word in
        # no list included (a name, a misspelling, a phony); whether it stands is the players'
        # call, by a challenge, not the camera's.
        state.words_stand = True
        note_once(state, f"not in the word list: {', '.join(invalid)} (as laid; the players "
                  "may challenge it)")
        return False


    def _fix_earlier_words(self, check: CheckRound, invalid: list[str]) -> bool:
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
        note_once(state, f"{self.name(square)} ({_laid_when(laid.turn)}, read {laid.letter}) "
                  f"corrected to {letter} by the dictionary: {', '.join(invalid)} not in the "
                  f"word list ({how})")
        return True


    def _check_tiles_left(self, check: CheckRound) -> None:
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
        self._ask_own_when_earlier_confirmed(check)
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
            note_once(state, f"{self.name(square)}: read {was}, but no {was} is left: corrected to "
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
                note_once(state, f"no {letter} is left for this play: {self.name(square)} (laid in "
                          f"turn {laid.turn}, read {letter}) corrected to {other} by {by} "
                          f"({how})")
                continue
            state.short_asked.add(letter)
            ranked = self._rank_earlier(suspects)
            if not ranked:
                note_once(state, f"no {letter} is left for this play, and no {letter} laid earlier "
                          + ("can be another letter by the word list"
                          if self.lexicon is not None else "is left unconfirmed"))
                continue
            for square in list(dict.fromkeys(sq for sq, _ in ranked))[:missing]:
                laid = self._laid[square]
                options = [other for sq, other in ranked if sq == square][:MOST_CHOICES]
                state.questions.append(self._ask(
                    "letter",
                    f"no {letter} is left for this play, so an earlier {letter} was misread: "
                    f"which letter is the tile on {self.name(square)} "
                    f"({_laid_when(laid.turn)}, read as {letter})?",
                    square=square, choices=options + [letter], guess=options[0],
                ))


    def _ask_own_when_earlier_confirmed(self, check: CheckRound) -> None:
        """A letter of which none is left, whose earlier tiles the players were asked about
        and confirmed as read: this placement's own tile of that letter is the misread (an O
        read as the set's only Ö, already on the board).  Its own tiles of that letter are
        asked about (once): the letters its readers proposed offered first, then those its
        classifier ranks next (or every letter still unseen, without one)."""
        state, tiles = check.state, check.tiles
        for letter in sorted(t for t, n in check.left.items()
                             if n < 0 and t in state.short_asked
                             and t not in state.own_short_asked):
            asked = [q for q in state.questions
                     if q.kind == "letter" and q.square is not None
                     and q.square not in tiles and q.square in self._laid
                     and self._laid[q.square].letter == letter]
            if not asked or any((q.answer or "").strip() != letter for q in asked):
                continue
            state.own_short_asked.add(letter)
            own = [sq for sq in sorted(tiles) if sq not in check.given and tiles[sq] == letter]
            seconds = self._second_readings(own)
            confirmed = ", ".join(self.name(q.square) for q in asked if q.square is not None)
            for square in own:
                read = self._reads.get(square)
                glyph = read.glyphs.get(square) if read is not None else None
                ranking = self._classifier_ranking(glyph) if glyph is not None else None
                ranked = [*sorted(self._other_readings(square, letter, seconds)),
                          *(ranking or sorted(self.tileset.letters))]
                options = [t for t in dict.fromkeys(ranked)
                           if t != letter and t != BLANK and check.left[t] >= 1][:MOST_CHOICES]
                state.questions.append(self._ask(
                    "letter",
                    f"no {letter} is left for this play ({confirmed} confirmed as {letter}): "
                    f"which letter is the tile on {self.name(square)} (read as {letter})?",
                    square=square, choices=options + [letter],
                    guess=options[0] if options else letter,
                ))


    def _laid_squares(self, check: CheckRound, letter: str) -> list[Square]:
        """Board squares holding ``letter`` that the pipeline laid and nobody confirmed."""
        return sorted(sq for sq, laid in self._laid.items()
                      if not laid.confirmed and check.board[sq] == letter == laid.letter)


    def _earlier_alternatives(self, check: CheckRound, square: Square) -> list[str]:
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
        reader proposed (where a word in no list, not a tile count, is the evidence: the glyph
        must leave the letter close, as another reader's reading of it does)."""
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


    def _earlier_corrections(self, state: PendingTurn) -> tuple[dict[Square, Correction], bool]:
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


    def _earlier_fixes(self, state: PendingTurn) -> dict[Square, str]:
        """Earlier tiles being corrected (square -> letter) that the board does not show yet."""
        wanted, _ = self._earlier_corrections(state)
        board = self.game.board
        return {sq: c.letter for sq, c in wanted.items() if board[sq] != c.letter}


    def _correct_earlier(self, state: PendingTurn) -> bool:
        """Correct the earlier moves' tiles found misread while settling this turn (and those
        the players were asked about), replaying the game from the first of them.  True when a
        guess nobody confirmed was applied."""
        wanted, guessed = self._earlier_corrections(state)
        todo = [c for c in wanted.values() if self.game.board[c.square] != c.letter]
        # A tile the players confirmed as read is no correction, and is not doubted again.
        for confirmed in (c for c in wanted.values() if c.letter == c.was):
            if self._answered_about(state, confirmed.square):
                self._laid[confirmed.square].confirmed = True
        state.corrections = [c for c in wanted.values() if c.letter != c.was]
        if not todo:
            return guessed
        game = self._replayed({c.square: c.letter for c in todo})
        if game is None:
            note_once(state, "the earlier tiles could not be corrected in the game: "
                      + ", ".join(f"{self.name(c.square)} {c.letter}" for c in todo))
            state.corrections = [c for c in state.corrections if c not in todo]
            return guessed
        index_of = {id(e): i for i, e in enumerate(self.game.events)}
        self.game = game
        for report in self.reports:
            if report.kind == "start":
                fixed = [c for c in todo if c.turn == 0 and c.square in dict(game.start_position)]
                if fixed:
                    report.notes.append(
                        f"corrected in turn {self.turn_number + 1}: "
                        + ", ".join(f"{self.name(c.square)} is {c.letter}, not {c.was}"
                                    for c in fixed))
                continue
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
            laid.confirmed = self._answered_about(state, correction.square)
        return guessed


    @staticmethod
    def _answered_about(state: PendingTurn, square: Square) -> bool:
        """Whether the players answered a question of this turn about ``square``."""
        return any(q.square == square and q.answer is not None for q in state.questions)


    def _replayed(self, letters: dict[Square, str],
                  joining: dict[Square, int] | None = None) -> Game | None:
        """A copy of the game with the tiles on ``letters``' squares as given in the plays
        that laid them (or the position the game started from), every later event replayed;
        None when the game refuses any of it.  ``joining``: squares of ``letters`` that no
        play laid, each with the index of the play (among the game's events) that gains it."""
        events = list(self.game.events)
        origin: dict[Square, int] = dict(joining or {})
        # A tile of the position a game joined in progress started from: the game is made
        # again from that position, corrected, and every event replayed.
        start = dict(self.game.start_position)
        for square in letters:
            if square in start:
                origin[square] = -1
        for index, event in enumerate(events):
            if event.kind is EventKind.PLAY and event.play is not None:
                for square in event.play.placement.squares:
                    if square in letters:
                        origin[square] = index
        if set(origin) != set(letters):
            return None
        first = min(origin.values())
        try:
            if first < 0:
                game = Game(self.game.players, self.game.tileset, self.game.rules)
                game.set_up({**start, **{sq: c for sq, c in letters.items()
                                         if origin[sq] < 0}})
                first = 0
            else:
                game = copy.deepcopy(self.game)
                for _ in range(len(events) - first):
                    game.undo()
            for index in range(first, len(events)):
                event = events[index]
                patch = {sq: c for sq, c in letters.items() if origin[sq] == index}
                replay_with_letters(game, event, patch, self.name)
        except GameError as exc:
            # (A tile tried in a play it may have joined: no news where it does not fit.)
            (log.debug if joining else log.warning)(
                "earlier tiles %s not corrected: %s",
                ", ".join(f"{self.name(sq)} {c}" for sq, c in sorted(letters.items())),
                self.in_game_names(exc.message))
            return None
        return game


    def _set_letter(self, state: PendingTurn, square: Square, letter: str) -> None:
        """A letter settled for one of this placement's squares (a guess standing for an
        unanswered question follows it)."""
        state.tiles[square] = letter
        for question in state.questions:
            if question.square == square and question.answer is None:
                question.guess = letter


    def _fits(self, check: CheckRound, change: dict[Square, str]) -> bool:
        """Whether every letter ``change`` brings to this placement is still unseen."""
        left = Counter(check.left)
        for square, letter in change.items():
            left[rack_form(check.tiles[square])] += 1
            left[rack_form(letter)] -= 1
        return all(left[rack_form(letter)] >= 0 for letter in change.values())


    def _valid_with(self, check: CheckRound, change: dict[Square, str]) -> bool:
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



#: Letters of one placement that the word list is asked to find at most (blanks, unreadable
#: and unsure tiles together): more are not a move's tiles read badly but something else taken
#: for tiles (a hand over the board read as a dozen faceless tiles), and the search for them
#: grows with every letter (minutes for ten).  They are asked about, or refused as laid.
MOST_SOLVED = 4


def _laid_when(turn: int) -> str:
    """When a tile was laid, for a note: in a turn, or before the board was first seen (turn
    0, the position a game joined in progress started from).

    >>> _laid_when(5), _laid_when(0)
    ('laid in turn 5', 'on the board when first seen')
    """
    return f"laid in turn {turn}" if turn else "on the board when first seen"


def replay_with_letters(game: Game, event: Event, letters: dict[Square, str],
                        name: Callable[[Square], str] = str) -> None:
    """Make ``event`` again in ``game`` (the turn's player to move), with the tiles on
    ``letters``' squares changed (named by ``name`` in the play's note); GameError when the
    game refuses it."""
    if event.kind is EventKind.PLAY:
        assert event.play is not None
        tiles = dict(event.play.placement.tiles)
        tiles.update(letters)
        note = event.note
        if letters:
            fixed = ", ".join(f"{name(sq)} {c}" for sq, c in sorted(letters.items()))
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

