"""What the pipeline tells the page: turns as reported, questions for the players, corrections of
earlier moves, and the turn being settled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorer.game import Event
from scorer.squares import Square

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)


#: How a game names a square (``str`` for the standard ``G1``; a pipeline's ``name``).
SquareNames = Callable[[Square], str]


@dataclass
class Question:
    """Something the players must settle for a turn."""

    id: int
    turn: int
    #: "blank" (its letter), "letter" (a letter read without confidence), "placement" (the
    #: rules refused what was read), "no_placement" (a pass or an exchange?), "split" (which
    #: new tiles went in which move, when a photo shows more than one)
    kind: str
    prompt: str
    square: Square | None = None
    choices: list[str] = field(default_factory=list)
    guess: str | None = None
    answer: str | None = None
    #: who answered: "players", "record" (an evaluation's reference record), or None
    answered_by: str | None = None
    #: a "split" question's ways, one per choice: the moves' squares in the order played
    splits: list[tuple[tuple[Square, ...], ...]] = field(default_factory=list, repr=False)

    def to_dict(self, name: SquareNames = str) -> dict[str, Any]:
        """As plain JSON types, squares named by ``name`` (the game's naming)."""
        return {
            "id": self.id, "turn": self.turn, "kind": self.kind, "prompt": self.prompt,
            "square": None if self.square is None else name(self.square),
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

    def to_dict(self, name: SquareNames = str) -> dict[str, Any]:
        return {"square": name(self.square), "turn": self.turn, "was": self.was,
                "letter": self.letter, "reason": self.reason}


@dataclass
class MoveReport:
    """One turn as the page shows it."""

    turn: int
    player: str
    #: "play", "exchange", "pass", "withdrawn", "lost_turn" (to a challenge that failed),
    #: "unresolved" (no score could be given) or "undone" (a play taken back: tiles the photo
    #: after it showed empty were never tiles; ``turn`` is the turn it was, ``score`` what it
    #: took back, and a play made again without them may follow) or "start" (the position a
    #: game joined in progress started from: no turn, ``turn`` 0, ``word`` the tiles' count)
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

    def to_dict(self, name: SquareNames = str) -> dict[str, Any]:
        """As plain JSON types, squares named by ``name`` (the game's naming: see
        :meth:`pipeline.Pipeline.name`)."""
        return {
            "turn": self.turn, "player": self.player, "kind": self.kind,
            "position": self.position, "word": self.word, "score": self.score,
            "totals": dict(self.totals), "notes": list(self.notes),
            "questions": [q.to_dict(name) for q in self.questions],
            "unconfirmed": self.unconfirmed,
            "corrected": [c.to_dict(name) for c in self.corrected],
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
        elif self.kind == "lost_turn":
            what = "lost turn (challenge)"
        elif self.kind == "undone":
            what = f"{self.position} {self.word} taken back"
        elif self.kind == "start":
            what = f"start position of {self.word} tiles"
        else:
            what = self.kind
        flag = "  (unconfirmed)" if self.unconfirmed else ""
        return f"{self.turn:>3}. {self.player:<10} {what:<28} {self.score:+4d}   {totals}{flag}"


#: Answers a question (None: not answered).  A replay's answer source may also say what
#: happened after a turn that no photo shows, with a method ``after_turn(turn) -> list[str]``
#: (see :class:`pipeline.AnswerFile`).
AnswerSource = Callable[[Question], "str | None"]


@dataclass
class PendingTurn:
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
    #: words in no word list that no letter the glyphs leave close mends stand as laid (the
    #: turn's notes say so; a challenge decides)
    words_stand: bool = False
    #: letters of which none is left that the players were asked about
    short_asked: set[str] = field(default_factory=set)
    #: ... and whose earlier tiles the players confirmed, so that this placement's own tiles
    #: of that letter were asked about
    own_short_asked: set[str] = field(default_factory=set)
    #: tiles of earlier moves to correct before this one is placed
    corrections: list[Correction] = field(default_factory=list)
    #: what the game's record of the play says of its letters (corrections by the dictionary)
    recorded: list[str] = field(default_factory=list)
    #: a refused placement looked at again in a later photo: refused now, it is asked about
    looked_again: bool = False
    #: the first tiles seen, which no few moves lay: the position a game joined in progress
    #: starts from, once their letters are settled
    starting: bool = False
    #: a turn without tiles whose photo follows one set aside that showed the last move: most
    #: likely the same board photographed again
    shown_before: bool = False
    #: a turn without tiles: the photo set aside before the photo of the next move, which
    #: showed the board as the last clear photo did
    set_aside_unchanged: bool = False
    #: a turn without tiles whose photo is the first, of an empty board: the board before the
    #: game, or after an opening pass or exchange
    first_photo: bool = False


@dataclass(frozen=True)
class DeferredRefusal:
    """Squares whose new tiles the rules refused, to be looked at again in the next photo."""

    squares: list[Square]
    why: str
    #: they were all the photo showed new: gone in the next one, that photo was no placement
    whole_photo: bool = False
    #: the letter read on each square that showed one
    letters: dict[Square, str] = field(default_factory=dict)


class _NoTurn:
    """What settling a turn returns when it turned out to be no turn (yet)."""

    def __repr__(self) -> str:
        return "NO_TURN"


#: Returned by a step that settles a turn when there is none to report: a refused placement
#: deferred to the next photo.
NO_TURN: Any = _NoTurn()


def note_once(state: PendingTurn, text: str) -> None:
    """A note for the turn, once (a held turn is settled again when answered)."""
    if text not in state.notes:
        state.notes.append(text)

