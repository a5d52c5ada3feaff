"""The rendered game: a whole game played by the move generator and filmed by a rendered camera
over the table, for the demo, the tests and the benchmarks.

- **the game**: :func:`scorer.movegen.generate_game` plays a legal two-player game with the
  bundled word list (ENABLE), the same game for the same seed (:func:`demo_game`);
- **the film**: :class:`DemoCamera` renders it as a fixed camera over the table sees it
  (:func:`sim.render.animate_move`): a hand lays each move's tiles one by one, the light
  drifts, then the board lies still until the tracker's quiet period commits the move.

>>> game = demo_game(1, moves=2)
>>> [(t.player, t.kind, t.notation) for t in game.turns]
[(0, 'play', 'FADDY 8D 34'), (1, 'play', 'B(A)NKNOTE E7 78')]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scorer.squares import Square

if TYPE_CHECKING:
    import numpy as np

    from scorer.lexicon import Lexicon
    from sim.render import RenderConfig

#: The game played when no seed is given.
DEFAULT_SEED = 1
PLAYERS = ("Ada", "Ben")
FRAME_SIZE = (1280, 720)
#: Seconds between frames while a hand moves, and while the board lies still (the tracker
#: works on timestamps; still frames are sparser only to save rendering).
MOVING_DT = 0.1
STILL_DT = 0.25
#: The tracker's quiet period: a move is committed after this long without activity.
QUIET_SECONDS = 3.0
#: How long the board lies still after a move: it settles, then the quiet period passes.
AFTER_MOVE_SECONDS = QUIET_SECONDS + 1.5
#: Still board before the first move, and while a pass or an exchange is entered.
OPENING_SECONDS = 1.5
ENTERED_SECONDS = 1.5
#: Frames of a hand's approach to a square, and at it (the renderer's animation).
APPROACH_FRAMES = 8
HOLD_FRAMES = 4

#: Brightest exposure of the demo camera (see :func:`camera_config`).
MAX_EXPOSURE = 0.9

EMPTY_ROWS = ["." * 15] * 15
#: What a user lays out for the first calibration photo: every letter once and the common
#: ones again, from one English set.
ALPHABET_ROWS = (
    ["." * 15]
    + ["..ABCDEFGHIJK.."]
    + ["." * 15]
    + ["..LMNOPQRSTUV.."]
    + ["." * 15]
    + ["..WXYZEAIONRT.."]
    + ["." * 15]
    + ["..SLUDGEAIOEN.."]
    + ["." * 15] * 7
)


# ------------------------------------------------------------------------------- the game


@dataclass(frozen=True)
class DemoTurn:
    """One turn of the demo game as the generator played it."""

    number: int
    player: int
    kind: str  # "play", "pass" or "exchange"
    #: new tiles (lower case: a blank standing for that letter); empty unless a play
    tiles: dict[Square, str]
    score: int
    #: the rule sheet's notation (``FADDY 8D 34``), or ``pass`` / ``exchange 7``
    notation: str
    position: str = ""
    word: str = ""  # GCG word: played-through letters as '.'
    exchanged: int = 0
    rows_after: tuple[str, ...] = ()


@dataclass(frozen=True)
class DemoGame:
    """The generated game (whole, or its first ``moves`` plays and the turns between)."""

    seed: int
    players: tuple[str, ...]
    turns: tuple[DemoTurn, ...]
    #: True when every turn of the game is included (its end can then be settled)
    complete: bool
    ended_by: str
    final_racks: tuple[str, ...]
    final_scores: tuple[int, ...]

    @property
    def plays(self) -> list[DemoTurn]:
        return [t for t in self.turns if t.kind == "play"]

    def letters(self) -> set[str]:
        """Every letter the game's tiles show (blanks show none)."""
        return {t for turn in self.plays for t in turn.tiles.values() if t.isupper()}


def demo_game(seed: int = DEFAULT_SEED, moves: int | None = None,
              lexicon: Lexicon | None = None,
              players: Sequence[str] = PLAYERS) -> DemoGame:
    """The game for ``seed``: a whole game by the move generator with the bundled word list,
    cut after ``moves`` plays when given."""
    from scorer.lexicon import Lexicon
    from scorer.movegen import generate_game

    words = lexicon if lexicon is not None else Lexicon.default()
    generated = generate_game(seed, words)
    turns: list[DemoTurn] = []
    plays = 0
    for turn in generated.turns:
        if moves is not None and plays >= moves:
            break
        if turn.play is not None:
            plays += 1
            turns.append(DemoTurn(
                turn.number, turn.player, "play", dict(turn.play.placement.tiles), turn.score,
                turn.play.seed_notation, turn.play.position, turn.play.gcg_word,
                rows_after=tuple(turn.board.rows()),
            ))
        else:
            count = len(turn.exchanged)
            notation = f"exchange {count}" if turn.kind == "exchange" else "pass"
            turns.append(DemoTurn(turn.number, turn.player, turn.kind, {}, 0, notation,
                                  exchanged=count, rows_after=tuple(turn.board.rows())))
    complete = len(turns) == len(generated.turns)
    return DemoGame(
        seed, tuple(players), tuple(turns), complete, generated.ended_by,
        tuple("".join(r) for r in generated.final_racks), tuple(generated.final_scores),
    )


# ------------------------------------------------------------------------------- the film


def camera_config(seed: int, size: tuple[int, int] = FRAME_SIZE) -> RenderConfig:
    """The demo camera for ``seed``: a varied realistic one (tilt, lens, light, table, tiles,
    noise, JPEG) on a stand, so the board is whole in view and roughly upright.

    Two things are left out.  A glare spot: :func:`sim.render.animate_move` moves it across
    the picture as the light drifts, which no lamp does.  Over-exposure: the exposure is kept
    where the white tiles do not clip, as a camera's automatic exposure keeps them (a clipped
    tile does not change with the light as the rest of the picture does, and the tracker then
    takes the view as obstructed while the light drifts)."""
    from sim.render import RenderConfig

    base = RenderConfig.random(seed, max_tilt=20, size=size)
    return replace(
        base, hand=False, motion_blur=0.0, glare=0.0, exposure=min(base.exposure, MAX_EXPOSURE),
        board_scale=max(base.board_scale, 0.8), board_offset=(0.0, 0.0),
        rotation=base.rotation if abs(base.rotation) < 10 else 0.0,
    )


class DemoCamera:
    """The game filmed by one fixed camera, as ``(timestamp, frame)`` pairs.

    Timestamps run on across calls; the light keeps drifting from one move to the next.
    """

    def __init__(self, seed: int, size: tuple[int, int] = FRAME_SIZE) -> None:
        self.seed = seed
        self.config = camera_config(seed, size)
        self.rows: list[str] = list(EMPTY_ROWS)
        self.time = 0.0
        self.frames = 0

    def calibration_photo(self) -> np.ndarray:
        """A photo of the alphabet laid out on the board, from this camera."""
        from sim.render import render_board

        return render_board(ALPHABET_ROWS, seed=self.seed, config=self.config).image

    def _drifted(self) -> RenderConfig:
        # animate_move turns the light 1.5 degrees a frame from the config it is given; start
        # each move where the last one left off, and let the exposure breathe slowly.
        c = self.config
        return replace(
            c, gradient_angle=(c.gradient_angle + 1.5 * self.frames) % 360.0,
            exposure=c.exposure * (1.0 + 0.06 * math.sin(self.time / 20.0)),
        )

    def _timed(self, frames: Iterator[np.ndarray],
               moving: int) -> Iterator[tuple[float, np.ndarray]]:
        for index, image in enumerate(frames):
            stamp = self.time
            self.time += MOVING_DT if index < moving else STILL_DT
            self.frames += 1
            yield stamp, image

    def still(self, seconds: float) -> Iterator[tuple[float, np.ndarray]]:
        """The board as it stands, nobody touching it."""
        from sim.render import animate_move

        count = max(1, int(round(seconds / STILL_DT)))
        frames = animate_move(self.rows, self.rows, self.seed, config=self._drifted(),
                              still_frames=count)
        yield from self._timed(frames, 0)

    def move(self, rows_after: Sequence[str]) -> Iterator[tuple[float, np.ndarray]]:
        """A hand laying the tiles that ``rows_after`` adds, then the board lying still for
        :data:`AFTER_MOVE_SECONDS`."""
        from sim.render import animate_move

        placed = sum(1 for old, new in zip("".join(self.rows), "".join(rows_after), strict=True)
                     if old == "." and new != ".")
        moving = placed * (APPROACH_FRAMES + HOLD_FRAMES) + (APPROACH_FRAMES if placed else 0)
        still = max(1, int(round(AFTER_MOVE_SECONDS / STILL_DT)))
        frames = animate_move(self.rows, list(rows_after), self.seed, config=self._drifted(),
                              approach_frames=APPROACH_FRAMES, hold_frames=HOLD_FRAMES,
                              still_frames=still)
        yield from self._timed(frames, moving)
        self.rows = list(rows_after)
