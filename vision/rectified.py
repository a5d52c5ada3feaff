"""The photo straightened for reading: a top-down image of the grid with a margin, its squares'
glyphs, and which squares hold a tile; the scales at which letters and occupancy are read.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from scorer.tiles import TileSet
from vision.deblur import deblurred_for_letters
from vision.glyphs import Glyph, GlyphFinder, crop_margin_px
from vision.medians import percentile

if TYPE_CHECKING:
    from vision.models import ReadingModels


SIZE = 15


#: Rectified square size for reading letters: glyphs are about half a square tall, so 48 px
#: squares give 24 px glyphs, as large as the normalised glyph; 64 px read no better.
SQUARE_PX = 48


#: Square size at which occupancy is decided: the model measures colour and ink shares, which
#: 16 px squares give as well as 48 px ones, in a ninth of the time.
OCCUPANCY_PX = 16


#: Confidence of a square left empty because it showed no letter although taken for a tile.
UNSURE = 0.5


def check_image(image: object) -> np.ndarray:
    """The image as a BGR uint8 array, or :class:`UnreadableImage` saying what is wrong."""
    if not isinstance(image, np.ndarray):
        raise UnreadableImage(f"expected an image array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise UnreadableImage(f"expected an 8-bit image, got {image.dtype}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or min(image.shape[:2]) < 32:
        raise UnreadableImage(f"not a colour picture: shape {image.shape}")
    if image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def rectify_with_margin(
    image: np.ndarray, corners: np.ndarray, square_px: int = SQUARE_PX
) -> np.ndarray:
    """Top-down grid image of ``15 * square_px`` plus the crop margin on every side; of a
    colour photo, with a veil over it lifted (:func:`veil_lifted`).  A grey picture is left
    as it is: it is a blurred photo's, restored, whose blur alone lifts its darkest (the ink
    spread into the face), and stretched as if veiled it showed letters on empty squares."""
    from vision.rectify import rectify

    straightened = rectify(image, corners, square_px=square_px, margin=crop_margin_px(square_px))
    return straightened if straightened.ndim == 2 else veil_lifted(straightened, square_px)


#: The darkest half percent of a board's grid (letters' ink, grid lines, a premium square's
#: print) lies at 0 to 35 (of 255) in every channel on every labelled real photo, as taken and
#: seen dimmer, brighter, under glare, a shadow, a warm or cool light, grainy
#: (``bench/eval_real_views.py``).  A photo through a veil (a fogged lens, a scratched plastic
#: cover, a webcam's washed-out picture) lifts it to 90 and more in every channel, and squeezes
#: every colour and ink depth together: the uncalibrated occupancy, whose scales are fixed,
#: found no tile at all on a board of twenty.  From this level on, a veil is taken off...
VEIL_FROM = 60
#: ... where the darkest is clearly darker than the grid's median (at most this share of it,
#: the channels summed): ink under the veil.  A light board with nothing dark on it at all
#: is not veiled, only light.
VEIL_INK_SHARE = 0.75
#: The level a veiled board's darkest is brought down to: a real photo's ink.
VEIL_INK = 20
#: Share of the grid's pixels taken as its darkest.
_DARKEST_SHARE = 0.005


def veil_lifted(rectified: np.ndarray, square_px: int = SQUARE_PX) -> np.ndarray:
    """``rectified`` (from :func:`rectify_with_margin`, grey or BGR) as it is, or, where the
    darkest of its grid lies at :data:`VEIL_FROM` or above in every channel and well below its
    median (ink seen through a veil), each channel stretched so that its darkest comes to
    :data:`VEIL_INK` and white stays white: a veil of light adds to every level alike, and
    this takes it off.

    >>> side = 15 * 48 + 2 * crop_margin_px(48)
    >>> board = np.full((side, side), 180, np.uint8)
    >>> board[::7, ::7] = 20  # ink
    >>> veil_lifted(board) is board
    True
    >>> veiled = board // 2 + 110  # ink at 120, the board at 200
    >>> lifted = veil_lifted(veiled)
    >>> int(lifted[3, 3]), int(lifted[0, 0])
    (159, 20)
    >>> light = np.full((side, side), 200, np.uint8); light[::7] = 185  # no ink at all
    >>> veil_lifted(light) is light
    True
    """
    # Every third pixel each way: a twentieth of the time of all (0.3 ms, not 7), the darkest
    # half percent still thousands of pixels.
    sample = np.ascontiguousarray(inner(rectified, square_px)[::3, ::3])
    darkest, middle = [], []
    for channel in range(1 if sample.ndim == 2 else sample.shape[2]):
        counts = np.cumsum(cv2.calcHist([sample], [channel], None, [256], [0, 256]).ravel())
        darkest.append(int(np.searchsorted(counts, _DARKEST_SHARE * counts[-1])))
        middle.append(int(np.searchsorted(counts, 0.5 * counts[-1])))
    # Ink is told by its lightness (the channels together): a wooden board is dark in blue.
    if min(darkest) < VEIL_FROM or sum(darkest) > VEIL_INK_SHARE * sum(middle):
        return rectified
    levels = np.arange(256, dtype=np.float32)
    tables = [np.clip(VEIL_INK + (levels - low) * (255.0 - VEIL_INK) / (255.0 - low), 0, 255)
              .astype(np.uint8) for low in darkest]
    if rectified.ndim == 2:
        return cv2.LUT(rectified, tables[0])
    return cv2.LUT(rectified, np.stack(tables, axis=1).reshape(256, 1, 3))


def inner(rectified: np.ndarray, square_px: int = SQUARE_PX) -> np.ndarray:
    """The grid alone (no margin) of an image from :func:`rectify_with_margin`."""
    margin = crop_margin_px(square_px)
    side = SIZE * square_px
    return rectified[margin : margin + side, margin : margin + side]


def glyphs_of(
    rectified: np.ndarray, squares: list[tuple[int, int]], square_px: int = SQUARE_PX,
    tileset: TileSet | None = None,
) -> list[Glyph | None]:
    """The glyph (or None, a blank face) on each of ``squares`` of an upright rectified image.

    With ``tileset``, marks above and letters beside join a glyph only if the set has such
    tiles (see :class:`vision.glyphs.GlyphFinder`).  A noisy picture (a dim room) is smoothed
    first (:func:`quieted`), as :func:`vision.read.read_board` does: the moves a game's
    pipeline reads and the samples a profile learns are drawn as a photo's letters are.
    """
    joined = tileset is None or turn_sensitive(tileset)
    return GlyphFinder(quieted(rectified), square_px, joined=joined).glyphs(squares)


def finder_of_frame(
    frame: np.ndarray, corners: np.ndarray, quarter_turns: int,
    tileset: TileSet | None = None, rectified: np.ndarray | None = None,
) -> GlyphFinder:
    """The glyph finder over the upright board at ``corners`` in a photo (the photo's grid
    turned counter-clockwise ``quarter_turns`` times), as :func:`vision.read.read_board`
    makes it: in the photo with its blur undone where one shows
    (:func:`vision.deblur.deblurred_for_letters`; a photo taken by hand while it moved smears
    a letter's thin strokes into its face, and the glyph is lost), else in the photo as taken
    and smoothed where noisy (:func:`quieted`; ``rectified``, the photo's
    :func:`rectify_with_margin` where the caller has made it).  The blur is measured once, for
    the squares of one move."""
    joined = tileset is None or turn_sensitive(tileset)
    deblurred = deblurred_for_letters(frame, corners, SQUARE_PX)
    if deblurred is None or not deblurred.undone:
        if rectified is None:
            rectified = rectify_with_margin(frame, corners)
        return GlyphFinder(quieted(np.rot90(rectified, quarter_turns)), SQUARE_PX, joined=joined)
    # A restored picture is read as restored: smoothing it would undo what was restored.
    view = np.ascontiguousarray(np.rot90(
        rectify_with_margin(deblurred.grey, deblurred.corners), quarter_turns))
    return GlyphFinder(view, SQUARE_PX, joined=joined)


def occupancy_grid(rectified_grid: np.ndarray) -> np.ndarray:
    """The margin-free rectified grid at the occupancy model's scale (:data:`OCCUPANCY_PX`)."""
    side = SIZE * OCCUPANCY_PX
    return cv2.resize(rectified_grid, (side, side), interpolation=cv2.INTER_AREA)


def occupancy_of(
    rectified_grid: np.ndarray, profile: ReadingModels | None,
    unseen: np.ndarray | None = None, face: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Which squares of a margin-free rectified grid hold a tile, with confidences.

    The profile's calibrated occupancy model when it has one, else the uncalibrated model;
    ``unseen`` squares (covered by a hand) take no part in learning the photo's looks, and
    the uncalibrated model takes the ``face`` squares' look for the tiles' face.
    """
    from vision.occupancy import OccupancyModel

    if profile is not None and profile.occupancy:
        model = OccupancyModel.from_dict(profile.occupancy)
    else:
        model = OccupancyModel()
    return model.predict(occupancy_grid(rectified_grid), unseen, face)


class UnreadableImage(ValueError):
    """The picture is not an image that can be read (empty, wrong shape or type)."""


def turn_sensitive(tiles: TileSet) -> bool:
    """Whether glyphs must be found in the upright picture: letters with marks above them, or
    tiles of several letters, are told by what lies above or beside the letter.

    >>> turn_sensitive(TileSet.named("en")), turn_sensitive(TileSet.named("de"))
    (False, True)
    """
    return any(len(t) > 1 or unicodedata.normalize("NFD", t) != t for t in tiles.letters)


#: Each square's premium type, as :data:`scorer.squares.PREMIUM_LAYOUT` names it.
PREMIUM_KINDS = np.array([[kind for kind in row] for row in PREMIUM_LAYOUT])


#: Plain squares (no premium label printed on them), where a letter can only be a tile's.
PLAIN_SQUARES = PREMIUM_KINDS == "."


def taken_squares(squares: list[tuple[int, int]]) -> np.ndarray:
    """The board's squares (15x15 bool) that ``squares`` lists."""
    taken = np.zeros((SIZE, SIZE), bool)
    taken[tuple(np.array(squares, np.int64).reshape(-1, 2).T)] = True
    return taken


def free_beside(free: np.ndarray, lettered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The squares of the mask ``free`` (15x15) that have a ``lettered`` square beside them: a
    tile lies beside another, as words have two letters or more.

    >>> free = np.ones((15, 15), bool); free[7, 7] = False
    >>> free_beside(free, [(7, 7)])
    [(6, 7), (7, 6), (7, 8), (8, 7)]
    """
    beside = set(lettered)
    return [(int(r), int(c)) for r, c in np.argwhere(free)
            if beside_any((int(r), int(c)), beside)]


def neighbours(square: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The four squares beside ``square`` (some may lie off the board)."""
    r, c = square
    return (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)


def beside_any(square: tuple[int, int], squares: Collection[tuple[int, int]]) -> bool:
    """Whether one of ``squares`` lies beside ``square``.

    >>> beside_any((7, 7), {(7, 8)}), beside_any((7, 7), {(8, 8)})
    (True, False)
    """
    return any(n in squares for n in neighbours(square))


def joined_to(
    squares: list[tuple[int, int]], lettered: set[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Those of ``squares`` linked to a ``lettered`` square through a chain of ``squares``.

    >>> sorted(joined_to([(7, 8), (7, 9), (2, 2)], {(7, 7)}))
    [(7, 8), (7, 9)]
    """
    left = set(squares)
    reached = {sq for sq in left if beside_any(sq, lettered)}
    frontier = list(reached)
    while frontier:
        for n in neighbours(frontier.pop()):
            if n in left and n not in reached:
                reached.add(n)
                frontier.append(n)
    return reached


def rotate_square(square: tuple[int, int], quarter_turns: int) -> tuple[int, int]:
    """Where square (row, col) goes when the board image turns counter-clockwise.

    >>> rotate_square((0, 14), 1), rotate_square((2, 3), 2), rotate_square((2, 3), 4)
    ((0, 0), (12, 11), (2, 3))
    """
    r, c = square
    for _ in range(quarter_turns % 4):
        r, c = SIZE - 1 - c, r
    return r, c


#: Noise (its standard deviation in the flattest tenth of the picture) as a share of the
#: picture's contrast (5th to 95th percentile of grey) above which letters are read from a
#: smoothed picture.  Handheld 12 MP photos in daylight and the fixed camera's photos measure
#: 0.3-1.7 %; the same photos darkened to a dim room's levels with sensor noise 1.9-4.0 %,
#: where the glyphs' faint ink followed the noise (an I read as F, L or E; C as G; D as Q).
NOISY = 0.018


#: The high-pass kernel whose response to white noise of deviation s has deviation 6 s
#: (Immerkaer's estimator), flat areas and straight edges giving none.
_NOISE_KERNEL = np.float32([[1, -2, 1], [-2, 4, -2], [1, -2, 1]])


def noise_share(grey: np.ndarray) -> float:
    """The noise of a grey picture as a share of its contrast: the deviation of the high-pass
    response in the flattest tenth of its 8x8 blocks (texture and edges raise the others),
    over the spread of its grey levels.

    >>> rng = np.random.default_rng(0)
    >>> board = np.kron(rng.integers(60, 200, (8, 8)), np.ones((32, 32))).astype(np.uint8)
    >>> noisy = np.clip(board + rng.normal(0, 6, board.shape), 0, 255).astype(np.uint8)
    >>> round(noise_share(board), 3), round(noise_share(noisy), 2)
    (0.0, 0.04)
    """
    response = np.abs(cv2.filter2D(grey.astype(np.float32), -1, _NOISE_KERNEL))
    h, w = (response.shape[0] // 8) * 8, (response.shape[1] // 8) * 8
    blocks = response[:h, :w].reshape(h // 8, 8, w // 8, 8).mean(axis=(1, 3))
    # The mean absolute value of a normal variable is sqrt(2 / pi) times its deviation.
    # (NumPy's percentiles to the last bit, without its import of numpy.ma: 8 ms of every
    # cold read, and a partition of the whole picture.)
    deviation = float(percentile(blocks.ravel(), 10, axis=0)[0]) * np.sqrt(np.pi / 2) / 6
    low, high = grey_percentiles(grey, (5, 95))
    return float(deviation / max(float(high - low), 1.0))


def grey_percentiles(grey: np.ndarray, q: tuple[float, ...]) -> np.ndarray:
    """``np.percentile(grey, q)`` of a uint8 picture, to the last bit, from its histogram: the
    k-th smallest value is the first whose cumulative count exceeds k (no sort or partition of
    the pixels), interpolated linearly as NumPy does (from the nearer neighbour).

    >>> grey = np.array([[0, 10], [20, 255]], np.uint8)
    >>> grey_percentiles(grey, (5, 95)).tolist() == np.percentile(grey, [5, 95]).tolist()
    True
    """
    count = grey.size
    if 0 < count < 2**24 and grey.ndim <= 2:
        # OpenCV's histogram in a quarter of np.bincount's time (which widens every pixel to
        # an index first); its float32 counts are whole numbers, exact below 2**24.
        counts = cv2.calcHist([grey.reshape(grey.shape[0], -1)], [0], None, [256], [0, 256])
        cumulative = counts.ravel().astype(np.int64).cumsum()
    else:
        cumulative = np.bincount(grey.ravel(), minlength=256).cumsum()
    virtual = (count - 1) * np.true_divide(np.asarray(q, np.float64), 100)
    below = np.floor(virtual).astype(np.intp)
    # Past the last index NumPy takes the largest value for both neighbours.
    last = virtual >= count - 1
    below_rank = np.where(last, count - 1, below)
    above_rank = np.where(last, count - 1, below + 1)
    previous = np.searchsorted(cumulative, below_rank, side="right").astype(np.uint8)
    following = np.searchsorted(cumulative, above_rank, side="right").astype(np.uint8)
    gamma = virtual - below
    difference = following - previous
    result = np.add(previous, difference * gamma)
    np.subtract(following, difference * (1 - gamma), out=result, where=gamma >= 0.5,
                casting="unsafe", dtype=type(result.dtype))
    return result


def quieted(rectified: np.ndarray, grey: np.ndarray | None = None) -> np.ndarray:
    """``rectified`` smoothed where its noise is above :data:`NOISY` (edge-preserving: a
    bilateral filter), else ``rectified`` itself.  ``grey``: its grey picture, where the caller
    has made it already."""
    if grey is None:
        grey = rectified if rectified.ndim == 2 else cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    if noise_share(grey) <= NOISY:
        return rectified
    return cv2.bilateralFilter(rectified, 5, 20.0, 3.0)
