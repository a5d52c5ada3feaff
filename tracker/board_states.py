"""Watching the board frame by frame and deciding when a move was made.

The tracker answers one question per frame, cheaply: *has the board changed in a way that a move
explains?*  It never reads letters; it says which squares gained (or lost) a tile, and the caller
reads those squares once (:mod:`pipeline`).

Per frame (a couple of milliseconds at 1280x720):

1. the grid is warped to a small top-down image (8 px a square) with one square of margin
   around it, where an arm reaching over the board's edge shows;
2. block means of that image are compared with the previous frame's; a few blocks that
   changed by more than ``motion_threshold`` grey levels mean something is moving (a hand, a
   shadow passing, the camera being bumped).

Once nothing has moved for ``settle_seconds`` the board has *settled* and is examined once
(tens of milliseconds):

3. the known corners are re-checked (:func:`vision.locate.check_corners`); a board that no longer
   fits them has been bumped and is found again (:func:`vision.locate.locate_board`);
4. the grid is warped at 32 px a square and compared with the last *stable* image, after
   mapping its colours by one affine colour transform (a camera's white balance and exposure)
   and dividing out a smooth illumination field fitted per colour channel (so a lamp switched
   on, a drifting exposure or the sun moving change nothing; between two stills also a shadow
   or a lamp's reflection with edges, :func:`_local_light`), and tile-or-empty is decided for
   every square (:class:`vision.occupancy.OccupancyModel`);
5. a square *gained a tile* when it was empty, holds a tile now, and its own look changed; it
   *lost a tile* in the reverse case.  Between two stills, where a lamp's reflection came or
   went, a tile is told by its letter instead (the reflection fades the colours that tell a tile
   from the board, not a letter's strokes; :func:`vision.missed_letters.letters_through_glare`).
   Changes that neither explains (a hand resting on the board, an arm across the margin, a
   shadow) mean the view is obstructed: nothing is decided, and the settled view is examined
   again a little later.

Tiles laid one by one, with pauses, are one move: new tiles start a *provisional* move, which
grows while further tiles land in the same line, and is committed after ``quiet_seconds``
without activity, when tiles appear out of its line (the next player has started), or when the
caller says so (:meth:`Tracker.commit`, e.g. a player pressed the clock).  Tiles of a
provisional move that are picked up again leave it.  All tiles of the last committed move taken
off the board is a withdrawal (a phony lost a challenge); some of them gone were never tiles (a
finger resting on the board, taken for one).

*Stills* (one photo per turn) are each settled by definition: every still is examined and is
one turn: new tiles, a withdrawal, or no placement (a pass or an exchange, which the players
label), when the still shows the board as the last one did.  A still whose view is obstructed
(a hand still placing, an arm across the board) is no turn: it is held back
(:class:`ViewObstructed`) and the next clear still is compared with the last clear one, so the
tiles laid meanwhile (perhaps more than one move) come with it.

Squares in events are ``(row, col)`` of the board read upright: the tracker is told how many
counter-clockwise quarter turns of the camera's view make the tiles upright (``orientation``,
as a calibration profile records it).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from vision.geometry import GRID_SIZE, as_corners, grid_to_image, project
from vision.glyphs import Glyph
from vision.locate import BoardNotFound, check_corners, locate_board
from vision.missed_letters import lettered_elsewhere, letters_through_glare
from vision.occlusion import EdgeCover, EdgeOcclusion
from vision.occupancy import OccupancyModel
from vision.rectified import finder_of_frame, glyphs_of, rectify_with_margin
from vision.rectify import rectify

__all__ = [
    "BoardRelocated",
    "MoveCommitted",
    "NoPlacement",
    "TilesAdded",
    "TilesRemoved",
    "TrackEvent",
    "Tracker",
    "TrackerConfig",
    "ViewObstructed",
]

log = logging.getLogger(__name__)

SIZE = GRID_SIZE
Squares = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class TrackerConfig:
    """The tracker's thresholds and pauses (times in seconds of the source's timestamps)."""

    #: Pixels per square of the per-frame motion image.
    motion_px: int = 8
    #: Pixels per square of the image examined when the board has settled.
    settle_px: int = 32
    #: Block-mean change (grey levels) between consecutive frames that counts as motion...
    motion_threshold: float = 7.0
    #: ... in at least this many half-square blocks.
    motion_blocks: int = 3
    #: Stillness needed before the board counts as settled.
    settle_seconds: float = 0.6
    #: While settled and unchanged, how often the view is examined again (follows light drift).
    reexamine_seconds: float = 2.0
    #: Per-square change (grey levels, after the illumination is divided out) that counts as a
    #: changed square.
    change_threshold: float = 22.0
    #: Change in the margin ring (an arm across the board's edge) that makes a view obstructed.
    ring_threshold: float = 28.0
    #: Changed squares neither gaining nor losing a tile, away from those that do, tolerated.
    max_unexplained: int = 1
    #: An obstructed view that stays so (the same squares changed, give or take two), still,
    #: for this long is taken as the new normal; tiles gained or lost are then decided from it
    #: unless an arm crosses the margin or the tiles lost are no move's.
    rebaseline_seconds: float = 6.0
    #: A provisional move with no activity for this long is committed.
    quiet_seconds: float = 8.0
    #: :func:`check_corners` score below which the corners no longer fit (the board moved).
    corners_fit: float = 0.45
    #: Least time between two full searches for the grid.
    locate_interval: float = 1.0
    #: Calibrated occupancy frames kept to refit the model from confirmed boards.
    occupancy_memory: int = 12


# --------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class TrackEvent:
    """Something the tracker decided, at ``time`` (the source's timestamp)."""

    time: float


@dataclass(frozen=True)
class TilesAdded(TrackEvent):
    """New tiles seen on settled ``squares``; ``frame`` and ``corners`` (image order TL, TR, BR,
    BL of the camera's view) are what to read them from.  Part of the provisional move."""

    squares: Squares = ()
    frame: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    corners: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    #: Those of ``squares`` under a lamp's reflection, whose letters show only with their
    #: contrast raised (:func:`vision.missed_letters.letters_through_glare`).
    washed: Squares = ()
    #: Those of ``squares`` that something lying over the board (a pen) hid since before
    #: other tiles were laid, and no still showed empty since: each with the squares laid
    #: meanwhile, whose moves the tile may belong to (see :meth:`Tracker.hidden_tiles`).
    hidden: tuple[tuple[tuple[int, int], Squares], ...] = ()


@dataclass(frozen=True)
class MoveCommitted(TrackEvent):
    """The provisional move is final: these are all its squares."""

    squares: Squares = ()
    reason: str = ""


@dataclass(frozen=True)
class TilesRemoved(TrackEvent):
    """Tiles taken off ``squares``: ``withdrawal`` when they are exactly the last committed
    move's tiles (a phony taken back); ``misread`` when they are some of them only (players
    take back a whole move: what is gone was never a tile, but a finger or a hand's edge
    taken for one); otherwise tiles of the provisional move picked up."""

    squares: Squares = ()
    withdrawal: bool = False
    misread: bool = False


@dataclass(frozen=True)
class NoPlacement(TrackEvent):
    """A still that shows the board as the last one did: a pass or an exchange.  ``first``: the
    first still, of an empty board, which may be the board before the game or the board after
    an opening pass or exchange (a camera that the players' clock triggers takes no photo
    before the first turn)."""

    first: bool = False


@dataclass(frozen=True)
class ViewObstructed(TrackEvent):
    """A still held back: something over the board (a hand, an arm) changed ``squares``
    without laying or lifting tiles there.  It is no turn; the next clear still is compared
    with the last clear one.  ``laid``: the squares that looked newly tiled in it (tiles laid
    before it was taken, or what covers the board taken for tiles); ``frame`` and ``corners``
    (as :class:`TilesAdded` has them) are what to read them from."""

    squares: Squares = ()
    laid: Squares = ()
    frame: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    corners: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]


@dataclass(frozen=True)
class BoardRelocated(TrackEvent):
    """The corners no longer fitted and the grid was found again."""

    corners: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]


# --------------------------------------------------------------------------------- helpers


def _upright(mask: np.ndarray, turns: int) -> np.ndarray:
    return np.rot90(mask, turns)


def _from_upright(mask: np.ndarray, turns: int) -> np.ndarray:
    return np.rot90(mask, -turns)


def _squares(mask: np.ndarray) -> Squares:
    return tuple((int(r), int(c)) for r, c in np.argwhere(mask))


def _mask(squares: Iterable[tuple[int, int]]) -> np.ndarray:
    mask = np.zeros((SIZE, SIZE), bool)
    for r, c in squares:
        mask[r, c] = True
    return mask


def in_one_line(squares: Iterable[tuple[int, int]]) -> bool:
    """Whether squares share a row or a column (one square does).

    >>> in_one_line([(7, 7), (7, 9)]), in_one_line([(7, 7), (8, 9)]), in_one_line([(3, 3)])
    (True, False, True)
    """
    squares = list(squares)
    return len({r for r, _ in squares}) <= 1 or len({c for _, c in squares}) <= 1


_ROW_GRID, _COL_GRID = np.mgrid[0:2 * SIZE + 4, 0:2 * SIZE + 4].astype(np.float64)


def _illumination_fit(stable: np.ndarray, current: np.ndarray) -> np.ndarray:
    """``current`` block means predicted from ``stable`` ones under a smooth change of light.

    Fits log(current / stable) per channel as a quadratic in the block's position, by least
    squares with two trimming passes (blocks that really changed are left out), and returns
    ``stable * exp(fit)``.  Blocks are (N, N, 3) float arrays.
    """
    n = stable.shape[0]
    rows = _ROW_GRID[:n, :n] / max(n - 1, 1) - 0.5
    cols = _COL_GRID[:n, :n] / max(n - 1, 1) - 0.5
    design = np.stack(
        [np.ones_like(rows), cols, rows, cols**2, cols * rows, rows**2], axis=-1
    ).reshape(-1, 6)
    ratio = np.log(np.maximum(current, 2.0) / np.maximum(stable, 2.0)).reshape(-1, 3)
    predicted = np.empty_like(ratio)
    for channel in range(3):
        target = ratio[:, channel]
        keep = np.ones(len(target), bool)
        solution = np.zeros(6)
        for _ in range(3):
            solution, *_ = np.linalg.lstsq(design[keep], target[keep], rcond=None)
            residual = np.abs(target - design @ solution)
            spread = 1.4826 * float(np.median(residual[keep]))
            keep = residual <= max(3.0 * spread, 0.04)
        predicted[:, channel] = design @ solution
    return stable * np.exp(predicted.reshape(current.shape))


def _light_change(stable: np.ndarray, current: np.ndarray, threshold: float,
                  local: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``stable`` block means as they would look in ``current``'s light, and where a
    reflection came or went (per block, the log of the share of the distance to white left:
    below 0 where one came, above where one went, 0 elsewhere), by whichever model
    of the change of light leaves the fewest blocks changed by more than ``threshold``: a
    smooth field per colour channel (:func:`_illumination_fit`: a lamp, the sun), one colour
    transform before it (:func:`_colour_fit`: a camera's white balance between two photos) or
    after it; with ``local``, also that transform followed by a shadow or a reflection with
    edges (:func:`_local_light`: two photos taken by hand, the photographer's shadow or a
    lamp's reflection elsewhere in each).  Tiles laid change their blocks under any; the light
    is what the view as a whole agrees on.

    Neither order fits both kinds: on a real game's stills the white balance fitted first
    left 19 blocks changed where the field first left 99; on a rendered video with a lamp
    dimmed across the board the field first left 28 and the white balance first 286.
    """
    field_first = _illumination_fit(stable, current)
    colour_first = _colour_fit(stable, current)
    candidates = [
        field_first,
        _illumination_fit(colour_first, current),
        _colour_fit(field_first, current),
    ]
    changed = [int((np.abs(current - c).max(axis=2) > threshold).sum()) for c in candidates]
    best = int(np.argmin(changed))
    if not local:
        return candidates[best], np.zeros(current.shape[:2], np.float32)
    # Where a reflection came or went is told by the local model even where a smooth one
    # predicts the view as well (a soft reflection is nearly smooth): it washes out the
    # colour that tells a tile from the board all the same.
    shadow_first, reflection = _local_light(stable, current)
    if changed[best] > _LOCAL_FROM:
        # A shadow over half the board leads a colour transform fitted first astray (the
        # shaded half's colours pulled towards the lit half's): the light first, then the
        # white balance, or the white balance first where the light changed little.
        colour_then, colour_reflection = _local_light(colour_first, current)
        edged = [(shadow_first, reflection), (_colour_fit(shadow_first, current), reflection),
                 (colour_then, colour_reflection)]
        left = [int((np.abs(current - c).max(axis=2) > threshold).sum()) for c, _ in edged]
        # Taken only where it explains far more: it is free enough to explain away a tile
        # laid on a square of its own colour, whose letter darkens it as a shadow would.
        if min(left) <= _LOCAL_SHARE * changed[best]:
            expected, reflection = edged[int(np.argmin(left))]
            return expected, _reflection_fitting(reflection, expected, current, threshold)
    return candidates[best], _reflection_fitting(reflection, shadow_first, current, threshold)


def _reflection_fitting(reflection: np.ndarray, expected: np.ndarray, current: np.ndarray,
                        threshold: float) -> np.ndarray:
    """``reflection`` (per block) where the blocks around mostly fit the local model's
    prediction ``expected`` (within ``threshold``), else 0.  A reflection mixes every channel
    with white by one share, and what lies under it shows through; a hand or a sleeve lighter
    than the board changes the channels each its own way, and is no reflection."""
    fits = (np.abs(current - expected).max(axis=2) <= threshold).astype(np.float32)
    around = cv2.blur(fits, (_LOCAL_WINDOW, _LOCAL_WINDOW), borderType=cv2.BORDER_REPLICATE)
    return np.where(around >= 0.5, reflection, 0.0).astype(np.float32)


def _local_light(stable: np.ndarray, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``current`` block means predicted from ``stable`` ones under a change of light that
    is grey but need not be smooth: a shadow with an edge (every channel times one factor)
    or a reflection (every channel mixed with white by one share); and where a reflection
    explains the change, the log of that share (below 0 where it came, above where it went).

    Each block takes the factor (or share) that the blocks around it agree on
    (:data:`_LOCAL_WINDOW` a side, their median: it keeps a shadow's edge and ignores the few
    blocks that really changed), or its own where that lies between its neighbours' (a
    shadow's soft edge crosses it), and whichever of shade and reflection predicts the blocks
    around it better.
    A tile laid changes its block's colour, not only its light: no one factor for its three
    channels predicts it.  Neither does one predict a hand's skin, or a sleeve's cloth, over
    tiles and squares of other colours.
    """
    # (A colour transform fitted first may carry a block beyond white: its distance to white
    # is taken as none left, not as a negative one.)
    stable = np.clip(stable.astype(np.float32), 1.0, 255.0)
    current = current.astype(np.float32)
    predictions = []
    for towards_white in (False, True):
        light = 256.0 - stable if towards_white else stable
        seen = 256.0 - np.minimum(current, 255.0) if towards_white else current
        # Each block's factor, its channels weighted by their level (a dark channel's ratio
        # is mostly noise), as log in steps of 1/64 (1.6 %): medianBlur takes 8-bit images
        # for windows beyond 5.
        own = np.log(np.maximum(seen.sum(axis=2), 1.0) / light.sum(axis=2))
        coded = np.clip(np.round(own * 64.0) + 128.0, 0, 255).astype(np.uint8)
        agreed = cv2.medianBlur(coded, _LOCAL_WINDOW)
        low = cv2.erode(agreed, _AROUND, borderType=cv2.BORDER_REPLICATE)
        high = cv2.dilate(agreed, _AROUND, borderType=cv2.BORDER_REPLICATE)
        # A smooth peak (a reflection's middle) stands above all around it by as much as
        # they differ among themselves.
        reach = (high.astype(np.float32) - low) * _PEAK_REACH
        chosen = np.clip(coded, low - reach, high + reach).astype(np.float32)
        factor = np.exp(np.clip((chosen - 128.0) / 64.0, *_LOCAL_RANGE))[..., None]
        predictions.append(256.0 - light * factor if towards_white else light * factor)
        white_share = factor[..., 0]
    # Shade or reflection, as the blocks around say (a block's own fit would let a tile laid
    # choose the one that explains it).
    errors = [cv2.blur(np.minimum(np.abs(current - p).max(axis=2), 64.0),
                       (_LOCAL_WINDOW, _LOCAL_WINDOW), borderType=cv2.BORDER_REPLICATE)
              for p in predictions]
    shade = errors[0] <= errors[1]
    reflection = np.where(shade, 0.0, np.log(white_share)).astype(np.float32)
    return np.where(shade[..., None], predictions[0], predictions[1]), reflection


#: Blocks changed under a smooth change of light beyond which :func:`_light_change` tries a
#: shadow or a reflection with edges (a move of seven tiles changes 28), ...
_LOCAL_FROM = 16
#: ... and the share of those blocks it must leave changed at most to be taken.
_LOCAL_SHARE = 0.5
#: Log of the share of the distance to white a reflection leaves at most to wash a square
#: out: a tile laid under it changes the square by two fifths of what it would.
_WASHED_IN = math.log(0.4)
#: Log of the share of the distance to white a reflection leaves at most to fade a square's
#: colour enough that the occupancy takes an empty square for a tile (a green square half
#: mixed with white is as light as a tile): there, and where such a reflection went, the
#: letters decide.
_FADED_IN = math.log(0.7)
#: Blocks a side of the neighbourhood whose median factor :func:`_local_light` takes (2.5
#: squares).
_LOCAL_WINDOW = 5
#: The blocks around a block (not itself), whose factors bound its own, ...
_AROUND = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], np.uint8)
#: ... and by how much of their own spread its factor may stand beyond theirs (the middle of
#: a reflection, brighter than all around it).
_PEAK_REACH = 0.5
#: Log factors :func:`_local_light` allows: a shadow to an eighth of the light, or the light
#: eight times as strong; a reflection leaving an eighth of the distance to white, or gone
#: from a view that had it.
_LOCAL_RANGE = (math.log(0.125), math.log(8.0))


def _colour_fit(stable: np.ndarray, current: np.ndarray) -> np.ndarray:
    """``stable`` block means mapped to ``current``'s colours by one affine colour transform
    (a 3x3 matrix and an offset), fitted by least squares with trimming passes (blocks that
    really changed are left out).  Blocks are (N, N, 3) float arrays.

    A camera's white balance and exposure change between two photos per colour, not per
    channel alone: on a real game's stills the beige tiles and red squares shifted 35-60 grey
    levels against the green board between two frames, which a gain per channel read as a
    board-wide change (320 of 1,156 blocks); after this transform only the new tiles' blocks
    differ.  A smooth change of light across the board is fitted after it
    (:func:`_illumination_fit`).
    """
    points = stable.reshape(-1, 3).astype(np.float64)
    design = np.concatenate([points, np.ones((len(points), 1))], axis=1)
    target = current.reshape(-1, 3).astype(np.float64)
    keep = np.ones(len(points), bool)
    for _ in range(4):
        # Drawn towards no change of colour (the identity) as much as a twentieth of the
        # blocks would draw it: where the blocks kept show few colours (a board with few
        # tiles under a lamp that changed), the transform cannot run wild on the others.
        weight = math.sqrt(_COLOUR_PRIOR * int(keep.sum())) * _COLOUR_SCALE
        prior = np.concatenate([np.eye(3) * weight, np.zeros((3, 1))], axis=1)
        transform, *_ = np.linalg.lstsq(np.concatenate([design[keep], prior]),
                                        np.concatenate([target[keep], np.eye(3) * weight]),
                                        rcond=None)
        residual = np.abs(target - design @ transform).max(axis=1)
        spread = 1.4826 * float(np.median(residual[keep]))
        keep = residual <= max(3.0 * spread, 6.0)
    return np.maximum(design @ transform, 1.0).reshape(stable.shape).astype(np.float32)


#: How strongly :func:`_colour_fit` is drawn towards no change of colour: as much as this share
#: of the blocks fitted, each at a typical colour's level (:data:`_COLOUR_SCALE` grey levels).
_COLOUR_PRIOR = 0.05
_COLOUR_SCALE = 128.0


#: Stills held back one after the other after which the last clear view is taken to be what
#: is wrong, and dropped.
HELD_IN_A_ROW = 3

#: Margin blocks (half squares) by which what lies across the board's edge may differ between
#: two stills and be the same thing left lying there (the blocks at its edges flicker).
_LYING_SLACK = 2

#: Known tiles a still with no clear view to compare with may show gone and still be a view of
#: the game: more than a rack's worth is the board being cleared or covered, as no turn takes
#: back more (fewer are tiles its occupancy missed, under glare, say).
CLEARED_FROM = 8

#: Shifts (pixels of the settled view, 32 a square) by which one still's view of the board may
#: differ from the last one's with nothing on the board changed: a board nudged while tiles
#: were laid at its edge moved the frame's edge against the table by about that much.
_STILL_SHIFTS = (-3, 0, 3)


def _still_differences(stable: _View, view: _View, expected: np.ndarray,
                       threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Per block, how much ``view`` differs from ``stable``'s image moved by
    :data:`_STILL_SHIFTS` in each direction, with ``expected``'s change of colour and light
    (``threshold``: the change that counts), two ways:

    - *tolerant*: the least difference under any shift, block by block.  On a real game's
      stills a board nudged by a few pixels, and the table's grain at the board's edge,
      changed the margin's blocks as much as an arm would; moved, only the new tiles differ.
      This is what an obstruction is judged by.
    - *registered*: the difference under the shift that best fits the blocks around the block
      (:data:`_SHIFT_WINDOW` a side; none unless one fits clearly better).  A board moves as a
      whole; one block left free to choose matched a new tile's face to the pink and green of
      a premium square's edge moved under it (a change of 57 grey levels, 18 at the block's
      best shift) and lost the tile.  This is what a tile appearing is judged by.
    """
    gain = expected / np.maximum(stable.blocks, 1.0)
    n = stable.blocks.shape[0]
    h, w = stable.image.shape[:2]
    differences = []
    for dy in _STILL_SHIFTS:
        for dx in _STILL_SHIFTS:
            if dx == dy == 0:
                moved_blocks = stable.blocks
            else:
                moved = cv2.warpAffine(stable.image, np.float32([[1, 0, dx], [0, 1, dy]]),
                                       (w, h), borderMode=cv2.BORDER_REPLICATE)
                moved_blocks = _blocks(moved, n)
            differences.append(np.abs(view.blocks - moved_blocks * gain).max(axis=2))
    stacked = np.stack(differences)  # (shifts, n, n)
    # Changed blocks count alike under every shift (clipped), so the unchanged ones around
    # them choose.
    capped = np.minimum(stacked, 2.0 * threshold).astype(np.float32)
    costs = np.stack([cv2.blur(c, (_SHIFT_WINDOW, _SHIFT_WINDOW),
                               borderType=cv2.BORDER_REFLECT) for c in capped])
    best = np.argmin(costs, axis=0)
    unmoved = len(differences) // 2
    best[costs[unmoved] <= costs.min(axis=0) + _SHIFT_MARGIN] = unmoved
    registered = np.take_along_axis(stacked, best[None], axis=0)[0]
    return stacked.min(axis=0), registered


#: Share of the change threshold by which a square's pixels must change to confirm a tile the
#: occupancy model sees appear there (in a still).
_CONFIRMING_SHARE = 0.5

#: Blocks a side of the neighbourhood whose fit chooses a block's shift (3.5 squares).
_SHIFT_WINDOW = 7
#: Grey levels (a neighbourhood's mean difference) by which a shift must fit better than none.
_SHIFT_MARGIN = 0.5


#: Squares at most, all beside where something crosses the board's edge, that a finger covers
#: (taken for tiles, hiding one, or changed otherwise).
_FINGER_SQUARES = 4


#: Squares at most, within :data:`_HAND_REACH` of where something crosses the board's edge,
#: that the fingers of a hand reaching in to touch a tile there cover.  A hand held over the
#: board covers more.
_HAND_SQUARES = 10


#: Squares from where something crosses the board's edge (diagonals too) at most that a hand
#: reaching in to rest a finger on a tile near the edge covers: its fingers lie over the edge
#: rows, the tip on a tile up to two squares in.
_HAND_REACH = 2


#: Squares at most a finger is taken for tiles on: more at the board's edge are rather a move
#: laid there (the next photo decides).
_FINGER_TILES = 2


#: Squares from the board's edge (0: on the edge row or column) at most where a finger rests
#: on a tile a camera moved since the last view sees gone (a hand reaches in from the side).
_FINGER_REACH = 2


def _finger_squares(arm_blocks: np.ndarray, touched: np.ndarray, reach: int = 1,
                    most: int = _FINGER_SQUARES) -> np.ndarray | None:
    """Where a finger lies, when what crosses the board's edge (``arm_blocks``, the margin's
    half-square blocks that changed) touches no more than ``most`` squares within ``reach``
    of those blocks (diagonals too): those squares of ``touched`` (taken for tiles, for tiles
    gone, or changed unexplained); None for a hand over the board or an arm (more squares).
    What is touched farther in (a move, or something else) the caller judges.

    >>> arm = np.zeros((2 * SIZE + 4, 2 * SIZE + 4), bool); arm[10:13, 0] = True
    >>> touched = np.zeros((SIZE, SIZE), bool); touched[4, 0] = touched[5, 0] = True
    >>> np.argwhere(_finger_squares(arm, touched)).tolist()
    [[4, 0], [5, 0]]
    >>> touched[3:6, 1] = True                          # a hand's breadth
    >>> _finger_squares(arm, touched) is None
    True
    >>> touched[5, 2] = True                            # its fingers, a tip two squares in
    >>> int(_finger_squares(arm, touched, _HAND_REACH, _HAND_SQUARES).sum())
    6
    >>> touched[2:7, 1:3] = True                        # a hand held over the board
    >>> _finger_squares(arm, touched, _HAND_REACH, _HAND_SQUARES) is None
    True
    """
    rows, cols = np.nonzero(arm_blocks)
    beside = np.zeros((SIZE, SIZE), np.uint8)
    beside[np.clip((rows - 2) // 2, 0, SIZE - 1), np.clip((cols - 2) // 2, 0, SIZE - 1)] = 1
    beside = cv2.dilate(beside, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)) > 0
    finger = touched & beside
    return None if int(finger.sum()) > most else finger


#: Letters whose stock samples tell a letter from a label's print where no tile set is given.
_LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _blanks_in_line(bare: np.ndarray, laid: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The squares of ``bare`` (taken for tiles, showing no letter: under a reflection, an
    empty square brightened or a blank) that continue a line of the tiles ``laid`` (with the
    tiles ``known`` before): a laid tile beside them, and another tile beyond it or on their
    other side, in that line; where there are no more than a game's blanks.  A blank laid
    with a move, rather than a patch of board the reflection made tile-like (it lies
    anywhere).

    >>> laid = np.zeros((SIZE, SIZE), bool); laid[0, 7:11] = True; laid[5, 1] = True
    >>> bare = np.zeros((SIZE, SIZE), bool); bare[0, 6] = bare[5, 5] = bare[6, 1] = True
    >>> np.argwhere(_blanks_in_line(bare, laid, np.zeros_like(laid))).tolist()
    [[0, 6]]
    """
    solid = np.pad(laid | known, 2)
    near = np.pad(laid, 2)

    def along(grid: np.ndarray, dr: int, dc: int) -> np.ndarray:
        # Each square's neighbour dr rows and dc columns on.
        return grid[2 + dr : 2 + dr + SIZE, 2 + dc : 2 + dc + SIZE]

    kept = np.zeros_like(bare)
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        kept |= bare & along(near, dr, dc) & (along(solid, 2 * dr, 2 * dc)
                                              | along(solid, -dr, -dc))
    return kept if int(kept.sum()) <= _BLANKS else np.zeros_like(bare)


#: Blanks in a game's bag, at most (the tile sets' own counts: two in all of them).
_BLANKS = 2


#: Squares without a premium (and its print), the same whichever way the board is turned.
_PLAIN = np.array([[kind == "." for kind in row] for row in PREMIUM_LAYOUT])


def _lettered(view: _View, squares: np.ndarray,
              letters: frozenset[str] | None = None) -> np.ndarray:
    """Which of ``squares`` (15x15, the camera's view) show a letter in the view's photo;
    with ``letters`` (a tile set's), only a glyph the stock samples of those find like a
    letter (not the grain of a plain square, or a crease of skin)."""
    chosen = [(int(r), int(c)) for r, c in np.argwhere(squares)]
    found = glyphs_of(rectify_with_margin(view.frame, view.corners), chosen)
    shown = [(square, glyph) for square, glyph in zip(chosen, found, strict=True)
             if glyph is not None]
    if letters is not None and shown:
        from vision.letter_choice import like_a_letter
        from vision.stock import stock_classifier

        like = like_a_letter([glyph for _, glyph in shown], [stock_classifier(letters)])
        shown = [pair for pair, yes in zip(shown, like, strict=True) if yes]
    return _mask(square for square, _ in shown)


def _letters_show(view: _View, squares: np.ndarray) -> bool:
    """Whether any of ``squares`` (15x15, the camera's view) shows a letter in the view's
    photo: a tile laid there, not a finger taken for one."""
    return bool(_lettered(view, squares).any())


def _near_one(squares: np.ndarray) -> np.ndarray:
    """The squares (15x15 mask) within one of ``squares``, diagonals too."""
    return cv2.dilate(squares.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0


def _near(squares: np.ndarray) -> np.ndarray:
    """The squares (15x15 mask) within two of ``squares``, diagonals too."""
    return cv2.dilate(squares.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0


def _foreign(change: np.ndarray, unexplained: np.ndarray, arm_blocks: np.ndarray) -> np.ndarray:
    """The squares of ``change`` (15x15) that belong to something other than tiles: each
    patch of changed squares (touching, diagonals too) that holds a square no tile explains
    (``unexplained``), or that reaches the board's edge where an arm crosses the margin
    (``arm_blocks``: the margin's half-square blocks, 34x34, changed away from any tile).

    A finger resting on the board changes a patch of squares, a few of which look like tiles;
    the patch as a whole is the finger.  Tiles laid elsewhere stand apart from it.

    >>> change = np.zeros((15, 15), bool); change[0, 0:2] = change[6:11, 0] = True
    >>> unexplained = np.zeros((15, 15), bool); unexplained[10, 0] = True
    >>> np.argwhere(_foreign(change, unexplained, np.zeros((34, 34), bool))).tolist()
    [[6, 0], [7, 0], [8, 0], [9, 0], [10, 0]]
    """
    touches_arm = _per_square(cv2.dilate(arm_blocks.astype(np.uint8),
                                         np.ones((5, 5), np.uint8))) > 0
    _, labels = cv2.connectedComponents(change.astype(np.uint8), connectivity=8)
    patches = np.unique(labels[(unexplained | touches_arm) & change])
    return np.isin(labels, patches[patches > 0])


#: Each half-square block's surface (:data:`scorer.squares.PREMIUM_LAYOUT`'s kinds, numbered),
#: and the number that stands for a tile's face.
_KINDS = sorted({kind for row in PREMIUM_LAYOUT for kind in row})
_SURFACE_BLOCKS = np.kron(np.array([[_KINDS.index(kind) for kind in row]
                                    for row in PREMIUM_LAYOUT]), np.ones((2, 2), int))
_FACE = len(_KINDS)


def _washed_alone(blocks: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The squares (15x15) a lamp's reflection washes out in one view (``blocks``, (34, 34)
    block means with the margin), told without another view to compare with: where the
    blocks around leave at most :data:`_FADED_IN` of the distance to white that their
    surface leaves elsewhere on the board, every channel alike, over at least
    :data:`_WASHED_AREA` squares.

    Every empty square of a premium kind, and every tile face (``known``: the squares known
    to hold one), has one colour wherever it lies; a reflection mixes it with white.  Each
    block is measured against the median of its kind over the board (most of it is not under
    the reflection), and takes the median of the blocks around it (:data:`_LOCAL_WINDOW` a
    side, nothing washed beyond the grid): a move's new tiles, lighter than the squares they
    lie on, are a line too thin to carry it, a reflection's pool is not.  A hand or a sleeve
    lighter than the board changes each channel its own way, and is no reflection.
    """
    inner = blocks[2:-2, 2:-2].astype(np.float32)
    kinds = np.where(np.kron(known, np.ones((2, 2), bool)), _FACE, _SURFACE_BLOCKS)
    base = np.empty_like(inner)
    for kind in np.unique(kinds):
        chosen = kinds == kind
        base[chosen] = np.median(inner[chosen], axis=0)
    light = np.maximum(256.0 - base, 1.0)
    left = np.log(np.maximum(256.0 - np.minimum(inner, 255.0), 1.0).sum(axis=2)
                  / light.sum(axis=2))
    coded = np.clip(np.round(left * 64.0) + 128.0, 0, 255).astype(np.uint8)
    reach = _LOCAL_WINDOW // 2
    agreed = cv2.medianBlur(cv2.copyMakeBorder(coded, reach, reach, reach, reach,
                                               cv2.BORDER_CONSTANT, value=128),
                            _LOCAL_WINDOW)[reach:-reach, reach:-reach]
    share = np.exp((agreed.astype(np.float32) - 128.0) / 64.0)
    fits = (np.abs(inner - (256.0 - light * share[..., None])).max(axis=2)
            <= _WHITE_MIX_FIT).astype(np.float32)
    around = cv2.blur(fits, (_LOCAL_WINDOW, _LOCAL_WINDOW), borderType=cv2.BORDER_REPLICATE)
    washed = ((share <= math.exp(_FADED_IN)) & (around >= 0.5)).reshape(
        SIZE, 2, SIZE, 2).any(axis=(1, 3))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(washed.astype(np.uint8),
                                                            connectivity=8)
    large = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= _WASHED_AREA)
    return np.isin(labels, large[large > 0])


#: Grey levels by which a block may differ from its surface mixed with white, in
#: :func:`_washed_alone` (as a change that counts, :attr:`TrackerConfig.change_threshold`).
_WHITE_MIX_FIT = 22.0
#: Squares a reflection washes out at least, for :func:`_washed_alone`: one 0.5 white at its
#: middle, of half axes 2 and 3.5 squares, washes out about 22; two moves laid crosswise around
#: a square washed out four in a real game's photo, a move along the board's edge three.
_WASHED_AREA = 6


def _per_square(blocks: np.ndarray) -> np.ndarray:
    """The largest of each square's four half-square values, (15, 15), from a (34, 34) array
    of the grid's blocks with its margin."""
    return blocks[2:-2, 2:-2].reshape(SIZE, 2, SIZE, 2).max(axis=(1, 3))


def _blocks(image: np.ndarray, per_side: int) -> np.ndarray:
    """Block means of a square image, (per_side, per_side, channels) float32."""
    return cv2.resize(image, (per_side, per_side), interpolation=cv2.INTER_AREA).astype(
        np.float32
    )


# --------------------------------------------------------------------------------- tracker


@dataclass
class _View:
    """One settled view: the warped grid with its margin, at ``settle_px`` a square."""

    time: float
    frame: np.ndarray
    corners: np.ndarray
    image: np.ndarray  # (17 * px, 17 * px, 3): the grid with one square of margin
    blocks: np.ndarray  # (34, 34, 3) half-square block means, margin included
    #: (15, 15) squares a lamp's reflection washed out in this view, where it is the
    #: reference: a tile laid there later changes them little (a washed green square and a
    #: cream tile are alike).  Where one came since the last view, or (a first view, or one
    #: kept from the last) as the view alone shows it (:func:`_washed_alone`).  None: not
    #: known.
    washed: np.ndarray | None = None


@dataclass(frozen=True)
class _HeldStill:
    """A still held back as obstructed, and what changed in it."""

    time: float
    frame: np.ndarray
    signature: np.ndarray  # (15, 15) bool, the camera's view
    unexplained: np.ndarray | None = None  # (15, 15) bool: the squares changed without a tile
    #: (34, 34) bool: the margin's blocks changed away from any tile (an arm, or something
    #: lying across the board's edge)
    arm_blocks: np.ndarray | None = None


class Tracker:
    """Decides, from a stream of frames or a sequence of stills, when tiles were laid or
    taken back (see the module notes).

    ``corners`` are the grid's corners in the camera's view (TL, TR, BR, BL as the image shows
    them), e.g. a profile's fixed-camera corners; without them (or when they do not fit) the
    grid is searched for.  ``occupancy`` is a calibrated model (a profile's) or None for the
    uncalibrated one.  ``known`` is the board as it stands (upright rows; anything but ``.`` is
    a tile) when tracking starts.
    """

    def __init__(
        self,
        *,
        corners: np.ndarray | Sequence | None = None,
        orientation: int = 0,
        occupancy: OccupancyModel | None = None,
        known: Sequence[str] | None = None,
        stills: bool = False,
        config: TrackerConfig | None = None,
        letters: Iterable[str] | None = None,
    ) -> None:
        self.config = config or TrackerConfig()
        #: The tile set's letters: their stock samples tell a letter from a premium label's
        #: print under a reflection.
        self.letters = frozenset(letters if letters is not None else _LATIN)
        self.corners = None if corners is None else as_corners(corners)
        self.orientation = int(orientation) % 4
        self.occupancy = occupancy or OccupancyModel()
        self.stills = stills
        known_upright = np.zeros((SIZE, SIZE), bool)
        if known is not None:
            known_upright = np.array([[ch != "." for ch in row] for row in known], bool)
        #: Squares known to hold a tile, in the camera's view.
        self.known = _from_upright(known_upright, self.orientation).copy()
        self.provisional: set[tuple[int, int]] = set()  # camera's view
        self.last_move: set[tuple[int, int]] = set()  # camera's view
        self.stable: _View | None = None
        # per-frame state
        self._previous_blocks: np.ndarray | None = None
        self._still_since: float | None = None
        self._last_activity: float | None = None
        self._examined_at: float | None = None
        self._obstructed_since: float | None = None
        self._obstruction: np.ndarray | None = None
        self._last_locate: float | None = None
        self._occupancy_memory: list[tuple[np.ndarray, np.ndarray]] = []
        self._held_still: _HeldStill | None = None
        #: the last still, where a finger at the board's edge lay over or beside squares
        #: taken for tiles that were left out (the next still shows them clear)
        self._finger_still: _HeldStill | None = None
        self._last_still: np.ndarray | None = None
        #: the stable view before the last one, and stills held back since the last decided
        self._stable_before: _View | None = None
        #: whether the last clear view's frame was compared with the one before (a still
        #: from a camera moved since, found again, is compared on its tiles alone)
        self._stable_frame_clear = True
        #: The stable view is one whose new tiles were refused, kept as no earlier view came
        #: (see :meth:`reconsider`).
        self._stable_on_trial = False
        self._held_in_a_row = 0
        #: the known squares when the stable view (and the one before it) was taken
        self._known_at_stable = self.known.copy()
        self._known_before = self.known.copy()
        #: the edge of the last clear view, and what covers it in the latest frame
        self._edge: EdgeOcclusion | None = None
        self.edge_cover: EdgeCover | None = None
        self._covered_since: float | None = None
        #: squares the next still examines whether or not their look changed (camera's view)
        self._recheck = np.zeros((SIZE, SIZE), bool)
        #: squares something over the board hid in a still, no still having shown them empty
        #: since, each with the squares decided to hold tiles meanwhile (camera's view)
        self._hidden: dict[tuple[int, int], set[tuple[int, int]]] = {}
        self.counters = {
            "frames": 0, "settles": 0, "obstructed": 0, "held_back": 0, "duplicates": 0,
            "edge_covered": 0, "relocated": 0, "lost": 0,
        }

    # ------------------------------------------------------------------ public

    @property
    def provisional_squares(self) -> Squares:
        """The provisional move's squares (upright), sorted."""
        return self.to_upright(self.provisional)

    def update(self, time: float, frame: np.ndarray) -> list[TrackEvent]:
        """Take one frame; returns what it decided (usually nothing)."""
        self.counters["frames"] += 1
        if self.stills:
            if self._last_still is not None and np.array_equal(frame, self._last_still):
                # The same picture again, pixel for pixel (a file given twice): two photos
                # of an unchanged board always differ in their noise.
                self.counters["duplicates"] += 1
                return []
            self._last_still = frame.copy()
            return self._examine(time, frame, still=True)
        events: list[TrackEvent] = []
        if self.corners is None and not self._locate(time, frame):
            return events
        assert self.corners is not None
        motion_image = rectify(frame, self.corners, self.config.motion_px, self.config.motion_px)
        blocks = _blocks(motion_image, 2 * (SIZE + 2))
        previous, self._previous_blocks = self._previous_blocks, blocks
        # Sensor noise and compression flicker single blocks by about the threshold; a hand,
        # a tile or a moved board changes many.
        moving = previous is None or int(
            (np.abs(blocks - previous).max(axis=2) > self.config.motion_threshold).sum()
        ) >= self.config.motion_blocks
        if moving:
            self._still_since = None
            self._last_activity = time
        elif self._still_since is None:
            self._still_since = time
        # Something over the board's edge (a hand resting, an arm): the view is examined once
        # it has gone, or once it has stayed still for twice the time to settle (an arm that
        # stays, or a board nudged so that part of its edge moved: the examination tells).
        self.edge_cover = None if self._edge is None else self._edge(blocks)
        if self.edge_cover is not None and self.edge_cover.occluded:
            self.counters["edge_covered"] += 1
            self._covered_since = time if self._covered_since is None else self._covered_since
        else:
            self._covered_since = None
        covered_briefly = self._covered_since is not None and (
            time - self._covered_since < 2 * self.config.settle_seconds)
        settled = (
            self._still_since is not None
            and not covered_briefly
            and time - self._still_since >= self.config.settle_seconds
            and (
                self._examined_at is None
                or self._examined_at < self._still_since
                or time - self._examined_at >= self.config.reexamine_seconds
            )
        )
        if settled:
            self._examined_at = time
            events.extend(self._examine(time, frame, still=False))
            if self.stable is not None and self.stable.time == time:
                # A clear view: its edge is what later frames' edges are compared with.
                self._edge = EdgeOcclusion(blocks)
        if (
            self.provisional
            and self._last_activity is not None
            and time - self._last_activity >= self.config.quiet_seconds
            and self._still_since is not None
        ):
            events.extend(self.commit(time, reason="quiet"))
        return events

    def commit(self, time: float, reason: str = "requested") -> list[TrackEvent]:
        """Make the provisional move final now (e.g. the player pressed the clock)."""
        if not self.provisional:
            return []
        squares = self.to_upright(self.provisional)
        self.last_move = set(self.provisional)
        self.provisional = set()
        return [MoveCommitted(time, squares, reason)]

    def finish(self, time: float) -> list[TrackEvent]:
        """The source ended: a still held back as obstructed is decided on where its view is
        clear (no later still will show the board), and what is provisional is committed."""
        events: list[TrackEvent] = []
        if self._held_still is not None:
            held, self._held_still = self._held_still, None
            events.extend(self._examine(held.time, held.frame, still=True, force=True))
        elif self._finger_still is not None:
            # The last still's finger lay beside tiles it was taken to cover; no later still
            # will show them clear: they are decided on as that still shows them (a move of
            # a tile or two laid at the edge, the hand still beside it).
            held, self._finger_still = self._finger_still, None
            events.extend(self._examine(held.time, held.frame, still=True, force=True))
        return events + self.commit(time, reason="end of source")

    def confirm_board(self, rows: Sequence[str]) -> None:
        """The board as the game now has it (upright rows): corrects the known squares after a
        move was corrected by the players, and teaches the occupancy model this view."""
        known_upright = np.array([[ch != "." for ch in row] for row in rows], bool)
        known = _from_upright(known_upright, self.orientation)
        # Provisional tiles are on the board but not yet in the game.
        self.known = known | _mask(self.provisional)
        if self.stable is not None:
            px = self.config.settle_px
            grid = self.stable.image[px:-px, px:-px]
            small = cv2.resize(grid, (SIZE * 16, SIZE * 16), interpolation=cv2.INTER_AREA)
            self._occupancy_memory.append((small, self.known.copy()))
            self._occupancy_memory = self._occupancy_memory[-self.config.occupancy_memory :]

    def reconsider(self, squares: Iterable[tuple[int, int]]) -> None:
        """Squares (upright) whose new tiles could not be a move: they are no longer taken
        to hold tiles, and the next still examines them again whether or not their look
        changes, so a tile really there comes back with that still's new tiles, and what went
        away (a hand, a finger) is forgotten."""
        mask = _from_upright(_mask(squares), self.orientation)
        self.known &= ~mask
        self._recheck |= mask
        # The view that showed them is no reference for the next still (it may show a hand):
        # the one before it is.  Where none came before, it stays, on trial (compared with
        # nothing, the next still's occupancy alone would decide every square, and under a
        # lamp's reflection it takes empty squares for tiles): if the next still differs from
        # it where no tile explains, it showed a hand, and that still is compared with the
        # tiles known instead.
        if self.stills and self._stable_before is None and self.stable is not None:
            self._stable_frame_clear = False
            self._stable_on_trial = True
        elif self._stable_before is not None or self.stable is not None:
            self.stable, self._stable_before = self._stable_before, None
            self._known_at_stable = self._known_before
        self.last_move -= set(_squares(mask))
        self.provisional -= set(_squares(mask))

    def refit_occupancy(self, base: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> bool:
        """Refit the occupancy model on confirmed views (plus ``base``: small 16 px grids with
        their occupied masks, e.g. a profile's calibration frames); True if refitted."""
        pairs = list(base) + self._occupancy_memory
        if not pairs:
            return False
        boards = [["".join("x" if o else "." for o in row) for row in mask] for _, mask in pairs]
        model = OccupancyModel().fit([image for image, _ in pairs], boards)
        if model.calibrated:
            self.occupancy = model
            return True
        return False

    # ------------------------------------------------------------------ internals

    def to_upright(self, squares: Iterable[tuple[int, int]]) -> Squares:
        """Squares of the camera's view as squares of the upright board, sorted."""
        return _squares(_upright(_mask(squares), self.orientation))

    def _locate(self, time: float, frame: np.ndarray) -> bool:
        if self._last_locate is not None and time - self._last_locate < (
            self.config.locate_interval
        ) and not self.stills:
            return False
        self._last_locate = time
        try:
            location = locate_board(frame)
        except BoardNotFound as exc:
            self.counters["lost"] += 1
            log.info("board not found at %.2f s: %s", time, exc)
            return False
        self.corners = self._registered(frame, location.corners)
        self._previous_blocks = None
        self._edge = None  # the view moved: its edge is compared again from the next clear one
        return True

    def _registered(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The grid found, moved by whole squares and, for stills, turned by quarter turns if
        that fits the known tiles better.

        On a board crowded along an edge the search can take the frame's edge for a grid line
        and return a grid one square off; the tiles known to be on the board tell which
        placement of the grid is right.  A phone held flat over the table cannot tell which way
        is up, and saves one photo in portrait and the next in landscape: the grid found in
        the picture is then the board turned, and the known tiles tell how far.  Where they lie
        alike every way (a first word across the centre), the last clear view does: the same
        tiles' faces and letters in the same places.
        """
        # Where too few tiles are known, those whose change is looked at again stand in: the
        # first photo of a game joined in progress is all such tiles, and the next, turned,
        # is turned back to them.  (Not beside known tiles: they can be a hand's squares,
        # which a grid moved a square would fit instead of the tiles.)
        reference = self.known
        if int(reference.sum()) < 3:
            reference = self.known | self._recheck
        if int(reference.sum()) < 3:
            return corners
        fits: list[tuple[float, int, tuple[int, int], np.ndarray, np.ndarray]] = []
        agreement: dict[tuple[int, tuple[int, int]], int] = {}
        to_image = grid_to_image(corners)
        for dy in (0, -1, 1):
            for dx in (0, -1, 1):
                shifted = project(to_image, np.array(
                    [[dx, dy], [SIZE + dx, dy], [SIZE + dx, SIZE + dy], [dx, SIZE + dy]],
                    np.float64,
                )).astype(np.float32)
                grid = rectify(frame, shifted, 16)
                seen, _ = self.occupancy.predict(grid)
                # The grid turned a quarter is its corners taken one further: its squares are
                # the picture's squares turned (rot90), read once.
                for turn in range(4) if self.stills else (0,):
                    occupied = np.rot90(seen, turn)
                    # Agreement on the known tiles, then on the rest; the grid as found wins
                    # ties.
                    score = float((occupied & reference).sum()) - float(
                        (occupied & ~reference).sum()
                    ) * 0.5 - 0.1 * (dx != 0 or dy != 0) - 0.2 * (turn != 0)
                    fits.append((score, turn, (dx, dy), np.roll(shifted, -turn, axis=0),
                                 np.rot90(grid, turn)))
                    agreement[(turn, (dx, dy))] = int((occupied & reference).sum())
        # A grid moved a square must show more of the known tiles than the grid as found (the
        # same way up): one that only shows fewer squares besides (a hand over the board,
        # partly moved off the grid) loses tiles, and they would look taken back.
        fits = [fit for fit in fits if fit[2] == (0, 0)
                or agreement[(fit[1], fit[2])] > agreement[(fit[1], (0, 0))]]
        best = max(fits, key=lambda fit: fit[0])
        turned_alike = [fit for fit in fits if fit[2] == best[2] and fit[0] >= best[0] - 0.5]
        if len({fit[1] for fit in turned_alike}) > 1 and self.stable is not None:
            best = min(turned_alike,
                       key=lambda fit: self._unlike_last_view(fit[4], reference))
        score, turn, shift, shifted, _ = best
        if turn == 0 and shift == (0, 0):
            # The grid as found, not its copy projected back: it was never moved (the log
            # said "one square off" of every grid found, right or not).
            return corners
        if turn:
            log.info("photo turned %d quarter(s) from the last one; the grid turned to fit the "
                     "known tiles", turn)
        if shift != (0, 0):
            log.info("grid found one square off (%+d across, %+d down); moved to fit the known "
                     "tiles", *shift)
        return shifted

    def _unlike_last_view(self, grid: np.ndarray, tiles: np.ndarray) -> float:
        """How unlike the last clear view a grid (16 pixels a square) looks on ``tiles``
        (the tiles the grid was fitted to: the known ones, or with fewer than three known those
        looked at again): the mean difference of their grey, each view's levels normalised
        (the light and the exposure differ from photo to photo).  On the known tiles alone,
        with none known early in a game, every turn came out NaN (the mean of nothing) and
        the first was taken, whichever it was."""
        assert self.stable is not None
        px = self.config.settle_px
        last = cv2.resize(self.stable.image[px:-px, px:-px], (SIZE * 16, SIZE * 16),
                          interpolation=cv2.INTER_AREA)
        on_tiles = cv2.resize(tiles.astype(np.uint8), (SIZE * 16, SIZE * 16),
                              interpolation=cv2.INTER_NEAREST) > 0
        differences = []
        for image in (grid, last):
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)[on_tiles].astype(np.float32)
            differences.append((grey - grey.mean()) / max(float(grey.std()), 1.0))
        return float(np.abs(differences[0] - differences[1]).mean())

    def _occupied(self, view: _View) -> np.ndarray:
        """Which squares of a settled view the occupancy model sees a tile on."""
        px = self.config.settle_px
        grid = view.image[px:-px, px:-px]
        occupied, _ = self.occupancy.predict(
            cv2.resize(grid, (SIZE * 16, SIZE * 16), interpolation=cv2.INTER_AREA))
        return occupied

    def _view(self, time: float, frame: np.ndarray) -> _View:
        assert self.corners is not None
        px = self.config.settle_px
        image = rectify(frame, self.corners, px, px)
        return _View(time, frame, self.corners.copy(), image, _blocks(image, 2 * (SIZE + 2)))

    def _examine(self, time: float, frame: np.ndarray, still: bool,
                 force: bool = False) -> list[TrackEvent]:
        """Examine a settled view; see the module notes.  ``force``: a still held back as
        obstructed is decided on anyway (the source ended on it)."""
        self.counters["settles"] += 1
        events: list[TrackEvent] = []
        fits = self.corners is not None and check_corners(frame, self.corners) >= (
            self.config.corners_fit
        )
        if not fits:
            had = self.corners is not None
            if not self._locate(time, frame):
                if still:
                    # A still in which no board is found is no turn at all.
                    log.warning("no board found in still at %.0f", time)
                return events
            if had:
                self.counters["relocated"] += 1
                assert self.corners is not None
                events.append(BoardRelocated(time, self.corners.copy()))
        view = self._view(time, frame)
        occupied = self._occupied(view)
        relocated = bool(events) and isinstance(events[-1], BoardRelocated)
        # Squares a lamp's reflection washes out in this view (see _View.washed).
        washed = np.zeros((SIZE, SIZE), bool)
        if self.stable is None:
            # Nothing to compare with yet: the tiles not known to be there are new.
            changed = appeared = occupied & ~self.known
            glared = unglared = faded = faded_out = np.zeros((SIZE, SIZE), bool)
            if still:
                # A reflection in it is told by the view alone: the letters decide there.
                faded = washed = _washed_alone(view.blocks, self.known)
            unseen = self.known & ~occupied
            if still and int(unseen.sum()) >= CLEARED_FROM:
                # More known tiles gone than any turn takes back (the final board gathered
                # up after stills set aside): compared with the tiles known, set aside too.
                changed = changed | unseen
            ring_changed = np.zeros((2 * SIZE + 4, 2 * SIZE + 4), bool)
        elif relocated:
            # The views before and after a bump differ in geometry, so pixels are not
            # compared; what can be is which squares hold a tile in each.
            changed = appeared = occupied != self._occupied(self.stable)
            glared = unglared = faded = faded_out = np.zeros((SIZE, SIZE), bool)
            ring_changed = np.zeros((2 * SIZE + 4, 2 * SIZE + 4), bool)
        else:
            expected, reflection = _light_change(self.stable.blocks, view.blocks,
                                                 self.config.change_threshold, local=still)
            # Squares a lamp's reflection washes out in this still, which the last view
            # showed: a tile laid there changed them by a fraction of what it would; and
            # squares the last view saw washed out, which this still shows: a tile laid
            # there then was not seen, nor its change now.
            glared = _per_square(reflection <= _WASHED_IN) > 0
            unglared = _per_square(reflection >= -_WASHED_IN) > 0
            faded = _per_square(reflection <= _FADED_IN) > 0
            faded_out = _per_square(reflection >= -_FADED_IN) > 0
            washed = faded.copy()
            if still and self.stable.washed is not None:
                # A reflection that neither came nor went (a lamp over a camera on a stand)
                # washes out the same squares in this still as in the last, where this still
                # shows it too (one that went by less than the change that tells is gone).
                washed |= self.stable.washed & ~faded_out & _washed_alone(view.blocks,
                                                                         self.known)
                faded_out |= self.stable.washed & ~faded
            if still:
                difference, registered = _still_differences(
                    self.stable, view, expected, self.config.change_threshold)
            else:
                difference = registered = np.abs(view.blocks - expected).max(axis=2)  # (34, 34)
            changed = _per_square(difference) > self.config.change_threshold
            # A tile appearing where the model sees one is judged by the registered view.
            registered_inner = _per_square(registered)
            appeared = changed | (registered_inner > self.config.change_threshold)
            if still:
                # A square the model saw empty in the last view and sees a tile on now has
                # changed by the model's own account; the pixels need only confirm it.  A
                # tile's face on a premium square of its own brightness (a dim camera, a
                # pink square) changed its block means by less than the threshold.
                appeared |= occupied & ~self._occupied(self.stable) & (
                    registered_inner > _CONFIRMING_SHARE * self.config.change_threshold)
            ring_changed = difference > self.config.ring_threshold
            ring_changed[2:-2, 2:-2] = False
            if still and not self._stable_frame_clear:
                # The last clear view came from elsewhere (its frame was compared with
                # nothing: a finger in it went unseen), so a change there says nothing of
                # this one.
                ring_changed[:] = False
        added = occupied & ~self.known & (appeared | self._recheck | unglared)
        missed = self._recheck & ~occupied & ~self.known & _PLAIN
        if still and missed.any():
            # A tile the last still showed, looked at again, that the occupancy takes for an
            # empty square here (a tile at the board's edge seen by parallax half on the next
            # square, on a board of its own colour): its letter says it is there.  A premium
            # square's own print would too.  It showed its letter in the still refused, too:
            # squares a hand covered there show the board's grain now, no letter.
            shown = _lettered(view, missed, self.letters)
            if shown.any() and self.stable is not None:
                shown &= _lettered(self.stable, shown, self.letters)
            added |= shown
        removed = ~occupied & self.known & changed
        # Squares under a reflection where nothing shows whether a tile was laid.
        unseen_there = glared
        lit = faded | faded_out
        through = None
        # New tiles under a reflection, told by their letters: what changed there is explained.
        lettered_new = np.zeros((SIZE, SIZE), bool)
        if still and lit.any():
            # Where a reflection came or went the colour that tells a tile from the board
            # fades in one of the views (an empty square brightened is taken for a tile, a
            # tile's change is a fraction of its own); its letter's strokes do not.  Beside
            # it, a light fitted to the reflection may explain a tile's change away: a tile
            # the occupancy sees there is confirmed by its letter.  (The tiles are decided
            # so once the view is clear: what covers the board is judged by all it changed.)
            beside = _near(lit) & ~lit & occupied & ~self.known & ~added
            through = self._letters_through_glare(view, lit | beside, added)
            if through is not None:
                lettered, unseen_there = through
                # A square washed out to white that shows a letter all the same hides none.
                unseen_there = unseen_there & ~lettered
                removed &= ~(lit & lettered)
                # Where a reflection went, this still shows the board clear: a letter there
                # is a tile's only where the occupancy sees one too (the print of a premium
                # square, its contrast raised, passed for a letter in a real game's photo).
                lettered &= washed | occupied
                lettered_new = (lit | beside) & lettered & ~self.known
        seen_added = added.copy()
        # Squares examined again (a refused placement's) explain their own change: a tile
        # still there, or what was taken for one gone.
        # So do squares the game settled since the stable view was taken (a placement the
        # players gave, with a tile the view had missed).
        settled_since = self.known != self._known_at_stable
        near = _near_one(added | removed | self._recheck | settled_since | lettered_new)
        # Where a reflection came or went the light is known less well than anywhere: its
        # middle changes a square that holds what it held (a tile there is decided on as
        # the still shows it, or the still is held back beside the tiles laid).
        unexplained = changed & ~near & ~glared & ~unglared & (not relocated)
        # The margin next to squares that gained or lost a tile shows those tiles' sides.
        near_ring = cv2.resize(
            np.pad(near.astype(np.uint8), 1), (2 * SIZE + 4, 2 * SIZE + 4),
            interpolation=cv2.INTER_NEAREST,
        ) > 0
        near_ring = cv2.dilate(near_ring.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        if still:
            # A tile's side shows in the half square next to the grid, never beyond: a
            # change there is a finger or a hand reaching in (a still has no motion to
            # tell it by).
            near_ring[[0, -1], :] = False
            near_ring[:, [0, -1]] = False
        arm_blocks = ring_changed & ~near_ring
        arm = bool(arm_blocks.any())
        removal_ok = self._removal_fits(removed, added)
        # A reflection over the tiles laid, or beside them, may hide one of the move's where
        # no letter could show (its own middle changes squares too, which is no move).
        laid = added | removed | (changed & ~glared & ~unglared)
        reflected = bool((unseen_there & _near_one(laid)).any())
        obstructed = (
            arm or int(unexplained.sum()) > self.config.max_unexplained or not removal_ok
            or reflected
        )
        finger = self._finger_apart(arm_blocks, added, removed, unexplained,
                                    view) if still and arm else None
        if finger is None and still and relocated and not removal_ok:
            finger = self._finger_over_tiles(added, removed)
        self._finger_still = None
        if finger is None and still and force and arm:
            # The source ended on this still (see finish): no later still will show clear
            # the tiles laid beside a finger, even right beside it; what the finger itself
            # was taken for shows no letter, which the reading tells.
            if not removal_ok:
                removed = np.zeros_like(removed)
            tip = _finger_squares(arm_blocks, added | removed | unexplained)
            if tip is not None and not (unexplained & ~tip).any():
                finger = tip
        if finger is not None and force:
            # The tiles beside the finger are taken as shown; a tile it seemed to hide is
            # still there.
            log.info("still at %.0f: a finger at the board's edge in the last still, the "
                     "tiles beside it taken as shown", time)
            removed &= ~finger
            obstructed = False
            finger = None
        elif finger is not None:
            if (finger & added).any():
                self._finger_still = _HeldStill(time, frame, finger & added)
            # A finger resting on the board's edge (on a tile, perhaps), nothing else changed
            # but tiles laid apart from it: the view is decided without the finger's squares
            # (the board as the last photo showed it is a pass or an exchange, asked as
            # ever), not set aside, as the turn it shows would be lost with it.  Its view is
            # no reference for the next photo.
            log.info("still at %.0f: a finger at the board's edge (over %d squares), the rest "
                     "decided", time, int(finger.sum()))
            added &= ~finger
            removed &= ~finger
            obstructed = False
        if still and obstructed and self._stable_on_trial and not force:
            self.stable, self._stable_on_trial = None, False
            self.counters["settles"] -= 1
            return [*events, *self._examine(time, frame, still)]
        if obstructed and not still:
            self.counters["obstructed"] += 1
            signature = changed | removed | added
            # The same obstruction: all but a couple of squares alike (its edges flicker).
            if (
                self._obstruction is None
                or int((self._obstruction ^ signature).sum()) > 2
                or self._obstructed_since is None
            ):
                self._obstruction, self._obstructed_since = signature, time
                return events
            if time - self._obstructed_since < self.config.rebaseline_seconds:
                return events
            # The same view for a long while: the new normal.  Tiles are only decided on
            # where the view says so clearly (nothing unexplained next to them).
            log.info("view obstructed since %.1f s taken as the new normal at %.1f s",
                     self._obstructed_since, time)
            if arm or not removal_ok:
                added = np.zeros_like(added)
                removed = np.zeros_like(removed)
        self._obstruction = self._obstructed_since = None
        set_aside: np.ndarray | None = None
        lying = False
        if still and obstructed:
            self.counters["obstructed"] += 1
            signature = changed | removed | added
            same = self._held_still is not None and int(
                (self._held_still.signature ^ signature).sum()) <= 2
            held = self._held_still
            same_arm = arm and held is not None and held.arm_blocks is not None and int(
                (held.arm_blocks ^ arm_blocks).sum()) <= _LYING_SLACK
            if held is not None and not same and (not arm or same_arm):
                # Tiles laid elsewhere since, and the rest as it was: something left lying on
                # the board (across its edge too: a pen reaching over the margin changed it
                # as an arm would, in the same blocks each time, where an arm is never twice
                # the same).
                if unexplained.any():
                    # The same squares unexplained.
                    lying = same = held.unexplained is not None and int(
                        (held.unexplained ^ unexplained).sum()) <= 1
                elif same_arm:
                    # A pen so thin that the squares it lies on pass for tiles leaves nothing
                    # unexplained: what touches the margin's same blocks is the same thing if
                    # all it covered before still looks changed, and all it covers now that
                    # it did not are tiles laid against it since (showing letters, or blanks
                    # in their line).
                    before = _foreign(held.signature, np.zeros_like(unexplained),
                                      held.arm_blocks)
                    now = _foreign(changed | added, unexplained, arm_blocks)
                    grown = now & ~before
                    shown = (_lettered(view, grown & added, self.letters)
                             if (grown & added).any() else np.zeros_like(grown))
                    laid_since = shown | _blanks_in_line(grown & ~shown, shown, self.known)
                    lying = same = bool(before.any()) and int(
                        (before & ~now).sum()) <= 1 and bool((grown == laid_since).all())
            if not same and not force:
                # Something over the board (a hand still placing, an arm, a sleeve): this
                # still is no turn; the next clear one is compared with the last clear one.
                self._held_still = _HeldStill(time, frame, signature, unexplained, arm_blocks)
                self.counters["held_back"] += 1
                self._held_in_a_row += 1
                if self._held_in_a_row >= HELD_IN_A_ROW:
                    # Every still differs from the last clear view at its edge: that view is
                    # what is wrong (a hand in it nobody could compare away).  The next
                    # still is compared with the tiles known, as the first one is.
                    log.info("%d stills in a row held back: the last clear view is dropped",
                             self._held_in_a_row)
                    self.stable = None
                    self._held_in_a_row = 0
                self._hide(signature)
                log.info("still at %.0f held back: the view is obstructed (%s)", time,
                         "an arm across the board's edge" if arm else
                         f"{int(unexplained.sum())} squares changed without a tile"
                         if int(unexplained.sum()) > self.config.max_unexplained
                         or not removal_ok else "a reflection beside the tiles laid")
                return [*events, ViewObstructed(time, self.to_upright(_squares(signature)),
                                                self.to_upright(_squares(added)),
                                                view.frame, view.corners)]
            # The same obstruction in two stills running is part of the scene (a box at the
            # board's edge), or the source ended on it: decided where the view is clear, and
            # squares the change cannot explain are left to the players rather than guessed.
            if not removal_ok:
                removed = np.zeros_like(removed)
            foreign = _foreign(changed | added, unexplained, arm_blocks)
            # Tiles beside it that show their letters (a move laid under a pen left lying
            # across the board) are looked at again in the next still, whose tiles they join
            # once it is clear there: left out for good, such a move was lost, as the view
            # that hid it became the reference.  A finger taken for tiles shows no letter.
            if (added & foreign).any() and (lying or not arm):
                set_aside = _lettered(view, added & foreign, self.letters)
            added &= ~foreign
            if lying or not arm:
                self._hide(foreign)
            if force and not (added | removed).any():
                # The source ended on a still set aside that shows nothing new where it is
                # clear: no turn, as a still set aside is none (a hand over the final board,
                # its tiles being gathered up; a pass whose only photo has a hand in it is
                # lost either way).
                log.info("still at %.0f: the last still, set aside, shows nothing new: no "
                         "turn", time)
                self._held_still = None
                return events
        self._held_still = None
        self._recheck[:] = False
        if set_aside is not None:
            self._recheck |= set_aside
        if through is not None:
            new_there = lit & ~self.known & ~unseen_there
            left_out = seen_added & ~added  # (a finger's, something over the board's)
            bare = added & new_there & ~lettered
            added = (added & ~new_there) | ((new_there | beside) & lettered & ~left_out)
            added |= _blanks_in_line(bare, added, self.known)
        if still:
            # A square a still shows empty hides nothing any more.
            for square in _squares(~occupied & ~added):
                self._hidden.pop(square, None)
        # A view with something lying across the board's edge is no reference either:
        # compared with it, the next still sees the thing taken away as an arm (held back),
        # and a blank laid against it (set aside, showing no letter) as there before.
        events.extend(self._decide(time, view, added, removed, still,
                                   reference=finger is None and not (lying and arm),
                                   frame_compared=not relocated, washed=washed))
        return events

    @property
    def hidden_squares(self) -> Squares:
        """Squares (upright) that something lying over the board hides, no still having shown
        them empty since, and no tile known there, sorted."""
        return self.to_upright(sq for sq in self._hidden if not self.known[sq])

    def _hide(self, squares: np.ndarray) -> None:
        """Note ``squares`` (camera's view) as hidden by something over the board, where no
        tile is known and they are not noted already."""
        for square in _squares(squares & ~self.known):
            self._hidden.setdefault(square, set())

    def hidden_tiles(
        self, new: set[tuple[int, int]]
    ) -> dict[tuple[int, int], set[tuple[int, int]]]:
        """Of the tiles ``new`` (camera's view) just seen, those on squares something lying over
        the board hid since before other tiles were laid, each with those tiles (camera's
        view), which no longer count as hidden: a tile laid with a move under a pen left on
        the board shows only once the pen is taken away, photos later.

        >>> tracker = Tracker(stills=True)
        >>> tracker._hide(np.eye(SIZE, dtype=bool))
        >>> tracker._laid_while_hidden({(0, 1), (0, 2)})
        >>> tracker.hidden_tiles({(3, 3), (5, 6)})
        {(3, 3): {(0, 1), (0, 2)}}
        >>> tracker.hidden_tiles({(3, 3)})
        {}
        """
        found = {sq: set(self._hidden[sq]) for sq in new if self._hidden.get(sq)}
        for square in new:
            self._hidden.pop(square, None)
        return found

    def _laid_while_hidden(self, new: set[tuple[int, int]]) -> None:
        """Tiles ``new`` (camera's view) decided on while squares were hidden."""
        for square, since in self._hidden.items():
            if square not in new:
                since |= new

    def _letters_through_glare(self, view: _View, squares: np.ndarray, laid: np.ndarray
                               ) -> tuple[np.ndarray, np.ndarray] | None:
        """Which of ``squares`` (15x15, the camera's view, under a reflection) show a letter,
        and which are washed out to white (:func:`vision.missed_letters.letters_through_glare`);
        None where fewer than three tiles elsewhere (known, or ``laid`` in this view) show the
        letters' height."""
        from vision.letter_choice import like_a_letter
        from vision.stock import stock_classifier

        turns = self.orientation
        finder = finder_of_frame(view.frame, view.corners, turns)
        known = _squares(_upright((self.known | laid) & ~squares, turns))
        heights = [glyph.height for _, glyph in lettered_elsewhere(finder, known)]
        chosen = list(_squares(_upright(squares, turns)))
        stock = stock_classifier(self.letters)

        def like(glyphs: list[Glyph]) -> np.ndarray:
            return like_a_letter(glyphs, [stock])

        if len(heights) < 3:
            # The first move, under the reflection itself: the letters that show there as
            # they are (its edge, where it is faint) tell their height.
            shown = [glyph for glyph in finder.glyphs(chosen) if glyph is not None]
            if shown:
                heights += [glyph.height for glyph, yes in zip(shown, like(shown), strict=True)
                            if yes]
        if len(heights) < 3:
            return None
        lettered, white = letters_through_glare(finder, chosen, float(np.median(heights)), like)
        return (_from_upright(_mask(sq for sq, yes in zip(chosen, lettered, strict=True) if yes),
                              turns),
                _from_upright(_mask(sq for sq, yes in zip(chosen, white, strict=True) if yes),
                              turns))

    def _finger_apart(self, arm_blocks: np.ndarray, added: np.ndarray, removed: np.ndarray,
                      unexplained: np.ndarray, view: _View | None = None) -> np.ndarray | None:
        """The squares of a finger resting at the board's edge (see :func:`_finger_squares`),
        or of the fingers of a hand reaching in to rest one on a tile up to two squares in,
        where everything else the still shows is clear: no change unexplained away from it,
        no tile gone away from it but a whole withdrawn move, and tiles laid at least two
        squares from it (a move running under a finger waits for the next photo).  None
        otherwise.  A hand's squares taken for tiles show no letter in ``view`` (a move laid
        by the hand does).

        >>> tracker = Tracker(stills=True)
        >>> arm = np.zeros((2 * SIZE + 4, 2 * SIZE + 4), bool); arm[23:32, 0] = True
        >>> laid, none = np.zeros((SIZE, SIZE), bool), np.zeros((SIZE, SIZE), bool)
        >>> laid[10, 0] = laid[10, 1] = laid[12, 0] = True   # no line: a finger
        >>> np.argwhere(tracker._finger_apart(arm, laid, none, none)).tolist()
        [[10, 0], [10, 1], [12, 0]]
        >>> laid[10, 1] = False; laid[11, 0] = True           # three in a column: a move
        >>> tracker._finger_apart(arm, laid, none, none) is None
        True
        """
        touched = added | removed | unexplained
        finger = self._clear_beside(_finger_squares(arm_blocks, touched), added, removed,
                                    unexplained)
        if finger is not None:
            # Taken for tiles on more squares than a finger is (no line: not for that alone a
            # move), a letter on one is a tile of a move the hand is laying.
            laid = finger & added
            if int(laid.sum()) > _FINGER_TILES and view is not None and _letters_show(view, laid):
                return None
            return finger
        if view is None:
            return None
        # Whether the squares a hand was taken for tiles on are a move the photo tells by
        # their letters, not by their line.
        hand = self._clear_beside(_finger_squares(arm_blocks, touched, _HAND_REACH,
                                                  _HAND_SQUARES), added, removed, unexplained,
                                  lines_laid=False)
        if hand is None or ((hand & added).any() and _letters_show(view, hand & added)):
            return None
        return hand

    def _clear_beside(self, finger: np.ndarray | None, added: np.ndarray, removed: np.ndarray,
                      unexplained: np.ndarray, lines_laid: bool = True) -> np.ndarray | None:
        """``finger`` where the still shows everything else clear (see
        :meth:`_finger_apart`), else None; ``lines_laid``: where it was taken for tiles on
        more than two squares in one line, rather a move (None)."""
        if finger is None or (unexplained & ~finger).any():
            return None
        laid = finger & added
        if lines_laid and int(laid.sum()) > _FINGER_TILES and in_one_line(
                map(tuple, np.argwhere(laid))):
            # Rather a move laid along the edge, where the hand crossed it.  Squares taken for
            # tiles that are no line (a fingertip and its knuckle, either side of a tile) are
            # no move.
            return None
        gone = removed & ~finger
        if gone.any() and not self._removal_fits(gone, added & ~finger):
            return None
        if (added & ~finger & _near(finger)).any():
            return None
        return finger

    def _finger_over_tiles(self, added: np.ndarray, removed: np.ndarray) -> np.ndarray | None:
        """Where a camera moved since the last clear view (held by hand: no margin to compare)
        sees a tile or two near the board's edge gone, and no withdrawn move explains it: a
        finger resting on them (:data:`_FINGER_TILES` at most, side by side, within
        :data:`_FINGER_REACH` squares of the edge), with the squares beside them it was taken
        for tiles on; None otherwise, or where tiles laid elsewhere come within two squares
        of it (a move running under a finger waits for the next photo).

        >>> tracker = Tracker(stills=True)
        >>> gone, laid = np.zeros((SIZE, SIZE), bool), np.zeros((SIZE, SIZE), bool)
        >>> gone[3, 14] = laid[4, 14] = True
        >>> np.argwhere(tracker._finger_over_tiles(laid, gone)).tolist()
        [[3, 14], [4, 14]]
        >>> laid[7, 7] = True                                # a move far from it: decided
        >>> np.argwhere(tracker._finger_over_tiles(laid, gone)).tolist()
        [[3, 14], [4, 14]]
        >>> gone[3, 14], gone[7, 6] = False, True              # in the middle: not a finger
        >>> tracker._finger_over_tiles(laid, gone) is None
        True
        """
        count = int(removed.sum())
        if not 0 < count <= _FINGER_TILES:
            return None
        rows, cols = np.nonzero(removed)
        depth = np.minimum(np.minimum(rows, cols), np.minimum(SIZE - 1 - rows, SIZE - 1 - cols))
        if int(depth.max()) > _FINGER_REACH or max(np.ptp(rows), np.ptp(cols)) > 1:
            return None  # too far in, or tiles apart (one finger covers neighbours at most)
        beside = cv2.dilate(removed.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        finger = removed | (added & beside)
        if int(finger.sum()) > _FINGER_SQUARES or (added & ~finger & _near(finger)).any():
            return None
        return finger

    def _removal_fits(self, removed: np.ndarray, added: np.ndarray) -> bool:
        """Tiles may leave the board only as a whole withdrawn move, from the provisional, or
        from the last committed move where they were never tiles (see :class:`TilesRemoved`;
        stills only, with no tile appearing near them, as where a finger moved over the board:
        it hides a tile and is taken for others beside it)."""
        gone = set(_squares(removed))
        if not gone:
            return True
        if gone <= self.provisional:
            return True
        if self.provisional or not gone <= self.last_move:
            return False
        if gone == self.last_move:
            return True
        if not self.stills:
            return False  # a player still moving the tiles of a move just made
        return not (added & _near(removed)).any()

    def _decide(
        self, time: float, view: _View, added: np.ndarray, removed: np.ndarray, still: bool,
        reference: bool = True, frame_compared: bool = True, washed: np.ndarray | None = None,
    ) -> list[TrackEvent]:
        """What a clear view shows: tiles laid or taken off, or no placement; ``reference``:
        the view is the one the next is compared with (not one with a finger in it), whose
        frame was compared with the last (``frame_compared``: not a view found again);
        ``washed``: the squares under a lamp's reflection."""
        events: list[TrackEvent] = []
        gone = set(_squares(removed))
        new = set(_squares(added))
        if gone:
            misread = not (gone <= self.provisional) and gone < self.last_move
            withdrawal = not (gone <= self.provisional) and not misread
            if withdrawal:
                self.last_move = set()
            elif misread:
                self.last_move -= gone
            else:
                self.provisional -= gone
            self.known &= ~removed
            events.append(TilesRemoved(time, self.to_upright(gone), withdrawal, misread))
        if new:
            if self.provisional and not in_one_line(self.provisional | new):
                events.extend(self.commit(time, reason="next move began"))
            self.provisional |= new
            self.known |= added
            under = () if washed is None else self.to_upright(_squares(added & washed))
            hidden = tuple(
                (self.to_upright({square})[0], self.to_upright(since))
                for square, since in sorted(self.hidden_tiles(new).items()))
            self._laid_while_hidden(new)
            events.append(TilesAdded(time, self.to_upright(new), view.frame, view.corners,
                                     under, hidden))
            if still:
                events.extend(self.commit(time, reason="still"))
        starting = self.stable is None and not self.known.any()
        if still and not gone and not new:
            events.append(NoPlacement(time, first=starting))
        if reference:
            self._stable_before, self.stable = self.stable, replace(view, washed=washed)
            self._stable_on_trial = False
            self._known_before, self._known_at_stable = self._known_at_stable, self.known.copy()
            self._stable_frame_clear = frame_compared
        self._held_in_a_row = 0
        return events

    def with_config(self, **changes: object) -> None:
        """Change thresholds while running (e.g. a shorter quiet period from the page)."""
        self.config = replace(self.config, **changes)  # type: ignore[arg-type]
