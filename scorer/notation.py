"""The rule sheet's notation of a play: ``A(D)DITiON(AL) D3 74``.

The word is spelt whole, letters already on the board in parentheses, a blank in lower case;
then the square of the first letter (column letter first = down, row number first = across, as
in GCG); then, optionally, the score.  :func:`parse_seed` reads it into what
:meth:`scorer.game.Game.play` takes; :func:`seed_notation` writes a scored play.

>>> parse_seed("A(D)DITiON(AL) D3 74")
SeedPlay(word='A.DITiON..', position='D3', score=74)
>>> from scorer.game import Game
>>> game = Game(["Ada", "Ben"])
>>> _ = game.play("8F", "HORN")
>>> seed = parse_seed("FA(R)M H6")
>>> seed_notation(game.play(seed.position, seed.word))
'FA(R)M H6 9'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from scorer.game import Event
from scorer.rules import IllegalPlay, ScoredPlay, parse_position, position_name

_SEED = re.compile(r"^\s*(\S+)\s+(\S+)(?:\s+([+-]?\d+))?\s*$")


class SeedPlay(NamedTuple):
    """A play read from the notation: GCG-style ``word`` (``.`` = on the board already)."""

    word: str
    position: str
    score: int | None


def parse_seed(text: str) -> SeedPlay:
    """Read ``WORD POSITION [SCORE]``; raises ValueError naming what is wrong.

    >>> parse_seed("qI 8G")
    SeedPlay(word='qI', position='8G', score=None)
    >>> parse_seed("HORN 8Q 14")
    Traceback (most recent call last):
    ...
    ValueError: 'HORN 8Q 14': '8Q' is not a position like 8D or D8
    """
    m = _SEED.match(text)
    if m is None:
        raise ValueError(f"{text!r}: expected WORD POSITION [SCORE], e.g. 'A(D)DITiON(AL) D3 74'")
    marked, position, score = m.groups()
    if marked.count("(") != marked.count(")") or re.search(r"\([^)]*\(|\)[^(]*\)", marked):
        raise ValueError(f"{text!r}: unbalanced parentheses in {marked!r}")
    word = re.sub(r"\(([^)]*)\)", lambda g: "." * len(g.group(1)), marked)
    if not word.replace(".", "") or not all(ch.isalpha() or ch == "." for ch in word):
        raise ValueError(f"{text!r}: {marked!r} is not a word with new tiles")
    try:
        square, direction = parse_position(position)
    except IllegalPlay:
        raise ValueError(f"{text!r}: {position!r} is not a position like 8D or D8") from None
    return SeedPlay(word, position_name(square, direction), None if score is None else int(score))


def seed_notation(play: ScoredPlay | Event) -> str:
    """``A(D)DITiON(AL) D3 74`` for a scored play (or the event that holds one)."""
    scored = play.play if isinstance(play, Event) else play
    if scored is None:
        raise ValueError("the event is not a play")
    return scored.seed_notation
