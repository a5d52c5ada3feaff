"""The whole read of one photo: find the grid, straighten it, find the tiles, read them.

:func:`read_board` runs the steps in order:

1. the grid's corners, from the calibration profile when the camera is fixed (and they still
   fit the picture), otherwise :func:`vision.locate.locate_board`;
2. a top-down image with a margin around the grid (tiles stand up from the board and the
   camera sees them shifted by parallax);
3. which squares hold a tile (the profile's occupancy model for its fixed camera, or the
   uncalibrated one; where that sees almost no tiles, letters on plain squares beside one
   another find them: :func:`tiles_by_letters`);
4. each occupied square's glyph (:class:`vision.letters.GlyphFinder`, all squares at once),
   from the photo with its motion blur or defocus undone when one shows (:mod:`vision.deblur`);
5. which way up the tiles are (the profile's orientation for its fixed camera, or
   :func:`orientation_of_glyphs`: letters are taller than wide, read best upright and carry
   their point-value digit at the lower right, all weighed together);
6. squares the uncalibrated occupancy model took for empty that show a letter of the tiles'
   size beside a tile are tiles; squares taken for tiles that show no letter are blanks,
   ``?``, when their middle looks like the tile faces around them (:func:`face_likeness`) and
   they join a lettered tile, up to the number of blanks in the tile set (the others were
   glare, shadow or a neighbour seen by parallax, unless a letter too faint to be found at
   first shows on them once their contrast is raised: :func:`faint_letters`); a lone square
   showing only a small mark is not a tile (:func:`stray_marks`);
7. the letters: the calibrated classifier for letters it knows and is sure of (without a
   profile, the stock classifier learnt from printed typefaces, :mod:`vision.stock`), and ONE
   batched Tesseract call for the glyphs whose reading Tesseract could change (overruling the
   stock classifier only with a letter the glyph looks nearly as much like); then letters
   read with next to no confidence on tiles apart from the game's words, with no surer letter
   in their group, are taken for no tiles (:func:`lone_unsure`).

Board rows are given the way the tiles read upright; ``corners`` are listed in that
orientation too (top-left of the upright board first).
"""

from __future__ import annotations

import bisect
import time
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scorer.squares import PREMIUM_LAYOUT
from scorer.tiles import TileSet
from vision.deblur import deblurred_for_letters
from vision.letters import (
    BLANK,
    Glyph,
    GlyphFinder,
    LetterClassifier,
    LetterGuess,
    crop_margin_px,
)
from vision.medians import median, percentile
from vision.stock import stock_classifier, stock_for_unseen
from vision.tesseract_reader import TesseractReader

if TYPE_CHECKING:
    from vision.models import ReadingModels

SIZE = 15
#: Rectified square size for reading letters: glyphs are about half a square tall, so 48 px
#: squares give 24 px glyphs, as large as the normalised glyph; 64 px read no better.
SQUARE_PX = 48
#: Square size at which occupancy is decided: the model measures colour and ink shares, which
#: 16 px squares give as well as 48 px ones, in a ninth of the time.
OCCUPANCY_PX = 16
#: Motion blur (in squares of the board) from which a reading warns that letters may be
#: misread: on the 300 rendered photos of ``bench/eval_rendered.py``, photos blurred so (37)
#: had 0.49 % of their squares wrong after the word check (calibrated), the others 0.06 %;
#: 24 of the 27 photos smeared that far by the camera's motion are warned of.
MOTION_WARNING = 0.15
#: Classifier confidence above which Tesseract is not asked.
ACCEPT = 0.7
#: Stock classifier confidence below which a surer Tesseract answer overrules it.  A profile's
#: classifier, learnt from the user's own tiles, is not overruled on a letter it has learnt:
#: on 300 rendered photos Tesseract's overrules broke 57 of its letters for 18 they mended
#: (``bench/eval_rendered.py``), and on the real game none mattered.
OVERRULE = 0.3
#: ... with a letter among this many of the glyph's likeliest to the stock classifier (the
#: glyph looks like it at all)...
OVERRULE_AMONG = 3
#: ... and nearly as like the glyph as the stock classifier's own letter: no less similar by
#: this much.  On the 1,800 rendered photos of six seeds of ``bench/eval_rendered.py``, of
#: Tesseract's 966 overrules, where the glyph was under 0.02 less like its letter Tesseract
#: was right 365 times and the stock classifier 30; from 0.02 to 0.04, 52 and 50; from 0.04 to
#: 0.06, 31 and 42; from 0.16, 21 and 167.
OVERRULE_GAP = 0.04
#: Similarity to a learnt glyph from which a glyph read with some confidence (at least
#: OVERRULE) is taken for a letter the classifier knows, not one it has never seen, unless
#: Tesseract (asked whenever letters are unseen and the classifier is below ACCEPT) reads an
#: unseen letter more surely: a P matched an R at 0.82 when P was not learnt yet.  On the
#: real game's photos (profile grown frame by frame) letters already learnt matched at 0.80
#: or more in 99.5 % of cases; of letters not yet learnt but read with some confidence, only
#: an Ü taken for U (0.82, its dots tell it) and a Q taken for O (0.91, read as certain, which
#: no threshold here would catch) matched above 0.74.
KNOWN_SIMILARITY = 0.8
#: :func:`vision.locate.check_corners` score below which a profile's fixed-camera corners are
#: taken to no longer fit and the grid is searched for.
CORNERS_STILL_FIT = 0.5
#: Confidence of a square left empty because it showed no letter although taken for a tile.
UNSURE = 0.5
#: Glyph height, relative to the photo's median, above which a letter carries marks above it.
MARKED_HEIGHT = 1.15
#: Occupied squares sampled to decide which way up the tiles are, without calibration.
ORIENTATION_SAMPLE = 24
#: Weight of the letters' lean (about 0.03 for upright capitals) against Tesseract's mean
#: confidence (0..1) when deciding which way up uncalibrated tiles are.
LEAN_WEIGHT = 10.0


class UnreadableImage(ValueError):
    """The picture is not an image that can be read (empty, wrong shape or type)."""


@dataclass
class BoardReading:
    """What one photo shows: 15 rows of ``.`` (empty), upper case letters and ``?`` blanks."""

    board: list[str]
    #: Grid corners in the photo, float32 (4, 2): top-left, top-right, bottom-right, bottom-left
    #: of the board as read (upright tiles).
    corners: np.ndarray
    #: Confidence 0..1 per square, (15, 15).
    confidence: np.ndarray
    seconds: float
    #: Counter-clockwise quarter turns of the photo's grid that make the tiles upright.
    orientation: int = 0
    #: How each occupied square was read: "classifier", "tesseract", "stock" (named by the
    #: stock classifier: a letter the profile has not learnt, or a glyph like none of the
    #: profile's samples), "blank", or "unread" (a ``?`` on a face a letter marks, but whose
    #: letter no glyph was found for).
    sources: dict[tuple[int, int], str] = field(default_factory=dict)
    #: The classifier's likeliest letters for each lettered square, best first (none where
    #: Tesseract read alone): what the word check chooses among (:mod:`vision.wordcheck`).
    likeliest: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    #: The glyph's similarity to each of its likeliest letters (same order): how much less it
    #: looks like a lesser guess.
    likeness: dict[tuple[int, int], tuple[float, ...]] = field(default_factory=dict)
    #: The photo's blur measured as a motion (the camera's during the exposure, or a defocus
    #: foreshortened by the camera's tilt), as undone for the letters, in squares of the board
    #: (0: none seen).  From :data:`MOTION_WARNING` on, letters are misread several times as
    #: often (:meth:`warnings`).
    motion_blur: float = 0.0
    #: Each lettered square's glyph as the classifiers saw it (:attr:`Glyph.normalised`): the
    #: word check learns from the photo's own letters in valid words what its others are.
    glyphs: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)

    def warnings(self) -> list[str]:
        """What about the photo may have made the reading wrong, for the user to act on.

        >>> reading = BoardReading(["." * 15] * 15, np.zeros((4, 2)), np.ones((15, 15)), 0.1,
        ...                        motion_blur=0.21)
        >>> reading.warnings()  # doctest: +NORMALIZE_WHITESPACE
        ['the photo is blurred (a smear of 0.21 of a square): letters may be misread; hold
          the camera still, let it focus, and take the photo again']
        >>> replace(reading, motion_blur=0.05).warnings()
        []

        A tile apart from the others, as no game leaves one:

        >>> board = ["." * 15] * 15
        >>> board[7], board[12] = "......CAT......", "..Q............"
        >>> replace(reading, board=board, motion_blur=0.0).warnings()  # doctest: +ELLIPSIS
        ['1 of the tiles read is not joined to the centre square through other tiles, ...']
        """
        found: list[str] = []
        if self.motion_blur >= MOTION_WARNING:
            found.append(f"the photo is blurred (a smear of {self.motion_blur:.2f} of a "
                         f"square): letters may be misread; hold the camera still, let it "
                         f"focus, and take the photo again")
        apart = tiles_apart(self.board)
        if apart:
            found.append(
                f"{apart} of the tiles read {'is' if apart == 1 else 'are'} not joined to the "
                f"centre square through other tiles, as every tile of a game is: a tile may be "
                f"missed, or seen where there is none; check the board")
        return found

    def to_json(self) -> dict:
        """The reading as plain JSON types."""
        return {
            "board": list(self.board),
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "confidence": [[round(float(c), 3) for c in row] for row in self.confidence],
            "seconds": round(self.seconds, 4),
        }


def tiles_apart(board: Sequence[str]) -> int:
    """How many tiles of ``board`` (15 rows, ``.`` empty) are not joined to the centre square
    through tiles beside each other: all of them when the centre is empty.

    A game's first word covers the centre and every later one joins the words already there,
    so a position of a game has none; a tile read where there is none (glare, a label's
    print), or one missed in a word, leaves some apart.

    >>> board = ["." * 15] * 15
    >>> board[7] = "......CAT......"
    >>> tiles_apart(board)
    0
    >>> board[7] = "......CA.S....."
    >>> board[2] = ".....Q........."
    >>> tiles_apart(board)
    2
    """
    tiles = np.array([[ch != "." for ch in row] for row in board], np.uint8)
    if not tiles.any():
        return 0
    _, labels = cv2.connectedComponents(tiles, connectivity=4)
    centre = labels[SIZE // 2, SIZE // 2] if tiles[SIZE // 2, SIZE // 2] else -1
    return int((tiles.astype(bool) & (labels != centre)).sum())


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
    """Top-down grid image of ``15 * square_px`` plus the crop margin on every side."""
    from vision.rectify import rectify

    return rectify(image, corners, square_px=square_px, margin=crop_margin_px(square_px))


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
    tiles (see :class:`vision.letters.GlyphFinder`).
    """
    joined = tileset is None or _turn_sensitive(tileset)
    return GlyphFinder(rectified, square_px, joined=joined).glyphs(squares)


#: A point-value digit sits off a corner of the letter, about a third of a square along each
#: axis from the letter's centre; what was taken for a digit elsewhere (a piece of the gap
#: beside a tile, a neighbour's edge) does not count.  Offsets in squares, along each axis.
DIGIT_OFFSET = (0.2, 0.45)
#: ... and about as far along one axis as along the other (largest difference, in squares).
DIGIT_DIAGONAL = 0.15


def digit_votes(glyphs: list[Glyph | None]) -> np.ndarray:
    """For each of the four quarter turns, how many glyphs show their point-value digit at the
    lower right once turned (digits where a digit sits, see :data:`DIGIT_OFFSET`).

    >>> from vision.letters import Glyph
    >>> def g(digit): return Glyph(np.zeros((24, 24), np.float32), np.zeros((1, 1)), 0.5, digit)
    >>> digit_votes([g((0.3, -0.3)), g((0.35, -0.3)), g((0.45, 0.0)), None]).tolist()
    [0, 0, 0, 2]
    """
    offsets = np.array([g.digit for g in glyphs if g is not None and g.digit is not None])
    votes = np.zeros(4, np.int64)
    if len(offsets) == 0:
        return votes
    dx, dy = offsets[:, 0], offsets[:, 1]
    ax, ay = np.abs(dx), np.abs(dy)
    low, high = DIGIT_OFFSET
    placed = (ax >= low) & (ax <= high) & (ay >= low) & (ay <= high) & (
        np.abs(ax - ay) <= DIGIT_DIAGONAL)
    dx, dy = dx[placed], dy[placed]
    for k in range(4):
        votes[k] = int(((dx > 0) & (dy > 0)).sum())
        # np.rot90 turns the picture counter-clockwise: (dx, dy) -> (dy, -dx).
        dx, dy = dy, -dx
    return votes


#: Digits that must agree on one turn before the digits count at all: a small, blurred board
#: shows few real digits, while noise passes for one here and there (on rendered photo 292 of
#: seed 15, two such "digits" for the wrong turn outweighed Tesseract's clear preference).
DIGITS_AGREEING = 3


def digit_shares(glyphs: list[Glyph | None]) -> np.ndarray:
    """For each quarter turn, the share of the glyphs whose digit then sits at the lower right
    (:func:`digit_votes`); all zero unless at least :data:`DIGITS_AGREEING` agree on a turn.

    >>> from vision.letters import Glyph
    >>> def g(digit): return Glyph(np.zeros((24, 24), np.float32), np.zeros((1, 1)), 0.5, digit)
    >>> digit_shares([g((0.3, 0.3))] * 3 + [g(None)]).tolist()
    [0.75, 0.0, 0.0, 0.0]
    >>> digit_shares([g((0.3, 0.3))] * 2 + [g((0.3, -0.3))] + [g(None)]).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    found = [g for g in glyphs if g is not None]
    votes = digit_votes(found)
    if not found or votes.max() < DIGITS_AGREEING:
        return np.zeros(4)
    return votes / len(found)


def find_orientation(
    rectified: np.ndarray,
    occupied: np.ndarray,
    classifier: LetterClassifier | None,
    tesseract: TesseractReader,
    square_px: int = SQUARE_PX,
) -> int:
    """Counter-clockwise quarter turns of ``rectified`` that make its tiles upright.

    See :func:`orientation_of_glyphs`; this finds the occupied squares' glyphs first.
    """
    squares = [tuple(map(int, rc)) for rc in np.argwhere(occupied)]
    glyphs = GlyphFinder(rectified, square_px).glyphs(squares)
    return orientation_of_glyphs(glyphs, classifier, tesseract)


def _turned(glyph: Glyph, quarter_turns: int) -> tuple[np.ndarray, np.ndarray]:
    """A glyph's normalised array and ink turned counter-clockwise (both stay centred)."""
    return np.rot90(glyph.normalised, quarter_turns), np.rot90(glyph.ink, quarter_turns)


def orientation_votes(glyphs: list[Glyph | None]) -> tuple[np.ndarray, np.ndarray]:
    """Two cues to which way up the tiles are, for each of the four quarter turns.

    ``axis``: the mean log aspect ratio (height over width) of the glyphs once turned; the
    capital letters of every tile font are taller than wide on average, so the two turns
    that stand them up score above zero.  ``lean``: how much more of each glyph's ink lies in
    its left half once turned (the stems of B D E F K L P R stand at the left).

    >>> from vision.letters import Glyph
    >>> ell = np.zeros((20, 12), np.uint8); ell[:, :3] = 255; ell[-3:, :] = 255
    >>> g = Glyph(np.zeros((24, 24), np.float32), ell, 0.5)
    >>> axis, lean = orientation_votes([g, g])
    >>> int(np.argmax(axis + lean))
    0
    """
    axis = np.zeros(4)
    lean = np.zeros(4)
    found = [g for g in glyphs if g is not None]
    if not found:
        return axis, lean
    heights = np.array([g.ink.shape[0] for g in found], np.float64)
    widths = np.array([g.ink.shape[1] for g in found], np.float64)
    tall = float(np.mean(np.log(heights / np.maximum(widths, 1))))
    # Share of ink right of the middle minus left of it, and below minus above, per glyph.
    right, below = [], []
    for g in found:
        ink = g.ink > 0
        h, w = ink.shape
        ys, xs = np.nonzero(ink)
        right.append((xs.mean() + 0.5) / w - 0.5 if len(xs) else 0.0)
        below.append((ys.mean() + 0.5) / h - 0.5 if len(ys) else 0.0)
    dx, dy = float(np.mean(right)), float(np.mean(below))
    for k in range(4):
        axis[k] = tall if k % 2 == 0 else -tall
        lean[k] = -dx
        # np.rot90 turns the picture counter-clockwise: (dx, dy) -> (dy, -dx).
        dx, dy = dy, -dx
    return axis, lean


#: Mean log aspect ratio beyond which the glyphs' axis (upright or lying) is taken as known
#: (upright capitals measure 0.2 to 0.8; a board of wide letters, M W, and blur along the
#: letters' width bring it near zero, where all four turns are weighed).
AXIS_KNOWN = 0.15
#: Weight of the share of glyphs whose digit sits at the lower right once turned, against
#: Tesseract's mean confidence (0..1): a digit where a digit sits is rarely anything else, but
#: small tiles show few of them.  (On 294 rendered photos, weights of 3 to 5 left one or two
#: boards turned, depending on how glyphs and digits are found; 5 with the present finder.)
DIGIT_WEIGHT = 5.0
#: Difference of mean similarity between the two likeliest turns below which the calibrated
#: classifier is not taken as sure (upright letters match the learnt ones about 0.13 better
#: than turned ones; blur and letters that read alike both ways can close the gap).
CLASSIFIER_SURE = 0.03
#: Weight of the uncalibrated evidence (Tesseract, lean, digits) added to the classifier's
#: similarities when it is not sure.  The evidence then decides unless nearly tied: between
#: the upright turn and the upside-down one it differs by 2.8 in the median on rendered
#: photos, and a difference of 0.12 outweighs the classifier's largest unsure margin.
TIE_BREAK_WEIGHT = 0.25
#: Glyphs compared with the calibrated classifier's, at most (spread over the board).
CLASSIFIER_ORIENTATION_GLYPHS = 96
#: ... with the stock classifier's, which has seven times as many samples to compare with.
STOCK_ORIENTATION_GLYPHS = 32


def _sample(found: list[Glyph], count: int) -> list[Glyph]:
    """At most ``count`` of the glyphs, spread evenly over the list."""
    if len(found) <= count:
        return found
    return [found[i] for i in np.linspace(0, len(found) - 1, count).round().astype(int)]


def orientation_scores(
    found: list[Glyph], candidates: list[int], tesseract: TesseractReader | None
) -> np.ndarray:
    """The uncalibrated evidence for each candidate turn: Tesseract's mean confidence on a
    sample of glyphs turned so (when given), the letters' lean (:func:`orientation_votes`)
    and the share of glyphs whose point-value digit then sits at the lower right, where enough
    digits agree (:func:`digit_shares`)."""
    _, lean = orientation_votes(found)
    digits = digit_shares(found)
    scores = np.array([LEAN_WEIGHT * lean[k] + DIGIT_WEIGHT * digits[k] for k in candidates])
    if tesseract is not None:
        sample = _sample(found, ORIENTATION_SAMPLE)
        # One sheet per turn: Tesseract fits each line of a sheet as a whole, so glyphs of
        # another turn beside them would sway how the glyphs of this one are read.
        for i, k in enumerate(candidates):
            guesses = tesseract.read([_turned(g, k)[1] for g in sample])
            scores[i] += float(np.mean([guess.confidence for guess in guesses]))
    return scores


def orientation_of_glyphs(
    glyphs: list[Glyph | None],
    classifier: LetterClassifier | None,
    tesseract: TesseractReader | None,
) -> int:
    """Counter-clockwise quarter turns that make the tiles of these glyphs upright.

    The glyphs were found in the picture as it stands.  With a calibrated classifier all four
    turns are weighed by the glyphs' mean similarity to the user's own (upright) glyphs, and
    where that leaves the two likeliest turns close, by the uncalibrated evidence too.
    Without one, capital letters being taller than wide tells the axis first
    (:func:`orientation_votes`), and along it Tesseract's reading of a sample in each turn,
    the letters' lean to the left and the point-value digits at the lower right are weighed
    together (:func:`orientation_scores`).  The axis is not trusted with a classifier: blur
    along the letters makes them wider than tall (one rendered board of 300 was read turned
    so), while the learnt glyphs, blurred ones among them, still match only upright.
    """
    found = [g for g in glyphs if g is not None]
    if not found:
        return 0
    candidates = [0, 1, 2, 3]
    if classifier is not None and len(classifier) > 0:
        sample = _sample(found, STOCK_ORIENTATION_GLYPHS if classifier.stock
                         else CLASSIFIER_ORIENTATION_GLYPHS)
        turned = np.stack([_turned(g, k)[0] for k in candidates for g in sample])
        best = classifier.similarities(turned).max(axis=1).reshape(len(candidates), -1)
        scores = best.mean(axis=1)
        ranked = np.sort(scores)
        if ranked[-1] - ranked[-2] < CLASSIFIER_SURE:
            scores = scores + TIE_BREAK_WEIGHT * orientation_scores(found, candidates, tesseract)
        return candidates[int(np.argmax(scores))]
    axis, _ = orientation_votes(found)
    if abs(axis[0]) >= AXIS_KNOWN:
        candidates = [k for k in range(4) if axis[k] > 0]
    return candidates[int(np.argmax(orientation_scores(found, candidates, tesseract)))]


def _tile_letters_raised(
    finder: GlyphFinder, squares: list[tuple[int, int]], gains: np.ndarray, turns: int,
    typical_height: float,
) -> dict[tuple[int, int], Glyph]:
    """The letters of the tiles' size (:data:`MISSED_HEIGHT` of ``typical_height``) found on
    ``squares`` whose contrast is raised by ``gains`` (only those above 1 are looked at)."""
    raised = gains > 1.0
    if not raised.any():
        return {}
    looked_at = [sq for sq, look in zip(squares, raised, strict=True) if look]
    found = finder.glyphs(looked_at, turns, gains=gains[raised])
    return {square: glyph for square, glyph in zip(looked_at, found, strict=True)
            if glyph is not None and _of_tiles_size(glyph, typical_height)}


#: A tile showing no letter, among more such tiles than the set has blanks, is looked at once
#: more with its contrast raised until its darkest strokes reach this contrast (0..1)...
FAINT_PEAK = 0.4
#: ... by at most this factor ...
FAINT_GAIN_MAX = 6.0
#: ... where its darkest strokes reach at least this contrast (a blank's face shows none).
FAINT_FLOOR = 0.04


def faint_letters(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    turns: int, blanks: int, like_a_letter: Callable[[list[Glyph]], np.ndarray],
) -> dict[tuple[int, int], Glyph]:
    """Letters too faint to be found at first on tiles showing none, where there are more
    such tiles than the tile set has blanks.

    Strong glare (a light's reflection over a patch of tiles) or a blur smearing the letters
    into the faces leaves them a fraction of their contrast, below the level at which a letter
    is looked for; many tiles together then show no letter, which :func:`not_blanks` would take
    for glare on empty squares.  Each is looked at once more with its contrast raised to
    :data:`FAINT_PEAK`; what is found counts only if it is a letter of the tiles' size
    (:data:`MISSED_HEIGHT`) that a classifier finds like a letter (``like_a_letter``), since
    a blank's grain and a premium label's print are raised with it.  Only where the bare tiles
    outnumber the blanks, and even on plain squares only with the classifier's word: on the
    300 rendered photos of seed 13 (``bench/eval_rendered.py``), looking at every bare tile
    read 16 more of the 390 blanks as letters, and on those of seed 12, taking a letter of the
    tiles' size on a plain square without the classifier's word read 6 more."""
    heights = [g.height for g in glyphs if g is not None]
    bare = [sq for sq, g in zip(squares, glyphs, strict=True) if g is None]
    if len(heights) < 3 or len(bare) <= blanks:
        return {}
    return dict(_letters_raised_to_peak(finder, bare, turns, float(median(heights)),
                                        like_a_letter))


def _letters_raised_to_peak(
    finder: GlyphFinder, squares: list[tuple[int, int]], turns: int, typical_height: float,
    like_a_letter: Callable[[list[Glyph]], np.ndarray],
) -> list[tuple[tuple[int, int], Glyph]]:
    """The letters of the tiles' size (``typical_height`` the tiles' typical letter's) that
    a classifier finds like a letter on ``squares`` once each one's contrast is raised until
    its darkest strokes reach :data:`FAINT_PEAK` (by at most :data:`FAINT_GAIN_MAX`; squares
    with no ink to raise, below :data:`FAINT_FLOOR`, as they are)."""
    if not squares:
        return []
    peaks = finder.ink_peaks(squares, turns)
    gains = np.minimum(FAINT_PEAK / np.maximum(peaks, 1e-6), FAINT_GAIN_MAX)
    gains[peaks < FAINT_FLOOR] = 1.0  # no ink to raise: a blank, or the bare board
    letters = _tile_letters_raised(finder, squares, gains, turns, typical_height)
    if not letters:
        return []
    like = like_a_letter(list(letters.values()))
    return [(square, glyph) for (square, glyph), yes in zip(letters.items(), like, strict=True)
            if yes]


#: Each square's premium type, as :data:`scorer.squares.PREMIUM_LAYOUT` names it.
_KINDS = np.array([[kind for kind in row] for row in PREMIUM_LAYOUT])
#: Plain squares (no premium label printed on them), where a letter can only be a tile's.
_PLAIN = _KINDS == "."
#: A letter on a square taken for empty is a tile's when its height lies within these shares
#: of the tiles' median letter height.
MISSED_HEIGHT = (0.8, 1.25)
#: ... and the square's middle is at least this share of the brightness of the faces of the
#: tiles found (not the darker board of most editions, with its grid lines).  There is no
#: upper bound: glare makes the tiles it falls on brighter than the others, and takes them
#: for empty squares as it washes their colour out.
MISSED_FACE = 0.8


def _of_tiles_size(glyph: Glyph, typical_height: float) -> bool:
    """Whether ``glyph`` is as tall as a tile's letter, the tiles' typical letter being
    ``typical_height`` tall (within :data:`MISSED_HEIGHT` of it)."""
    return MISSED_HEIGHT[0] * typical_height <= glyph.height <= MISSED_HEIGHT[1] * typical_height


#: Uncalibrated, where colour took fewer squares than this for tiles, the plain squares are
#: looked at for letters (:func:`tiles_by_letters`), and that many at least must show one.
FEW_TILES = 3
#: Height of a tile's letter as a share of the square's side: on the rendered photos of seed
#: 14 (``bench/eval_rendered.py``, four fonts) 99 % of the tiles' glyphs lie within 0.42-0.83.
LETTER_HEIGHT = (0.4, 0.85)


def tiles_by_letters(
    finder: GlyphFinder, occupied: np.ndarray,
    like_a_letter: Callable[[list[Glyph]], np.ndarray],
) -> list[tuple[tuple[int, int], Glyph]]:
    """Plain squares taken for empty that show a letter, where colour found almost no tiles.

    Strong glare over the middle of the board bleaches the squares the first words lie on
    until tiles and board differ in colour no more than the board does from its bleached
    middle to its corners: the occupancy model then sees no tiles at all, and
    :func:`missed_tiles` has no letters to take the tiles' size from.  A plain square has no
    print, so a letter of a tile's height (:data:`LETTER_HEIGHT`) that a classifier finds
    like a letter, on a square beside another such square (words have two letters or more),
    is a tile; :func:`missed_tiles` then finds the others from them.  Squares of the rectified
    picture as it stands: the board is not turned upright yet, so a glyph counts as a letter
    seen any way up.  Nothing is returned where fewer than :data:`FEW_TILES` are found: the
    grain of a wooden board can pass for a letter here and there, never for words.
    """
    free = [(int(r), int(c)) for r, c in np.argwhere(~occupied & _PLAIN)]
    found = finder.glyphs(free, 0)
    letters = [(square, glyph) for square, glyph in zip(free, found, strict=True)
               if glyph is not None and LETTER_HEIGHT[0] <= glyph.height <= LETTER_HEIGHT[1]]
    across = finder.lines_across([square for square, _ in letters], 0)
    letters = [letter for letter, line in zip(letters, across, strict=True) if not line]
    if len(letters) < FEW_TILES:
        return []
    like = np.any([like_a_letter([glyph.turned(turns) for _, glyph in letters])
                   for turns in range(4)], axis=0)
    letters = [letter for letter, yes in zip(letters, like, strict=True) if yes]
    if letters:
        typical = float(median([glyph.height for _, glyph in letters]))
        letters = [(square, glyph) for square, glyph in letters
                   if _of_tiles_size(glyph, typical)]
    seen = {square for square, _ in letters} | {
        (int(r), int(c)) for r, c in np.argwhere(occupied)}
    letters = [(square, glyph) for square, glyph in letters if _beside_any(square, seen)]
    return letters if len(letters) >= FEW_TILES else []


def missed_tiles(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    occupied: np.ndarray, turns: int,
    like_a_letter: Callable[[list[Glyph]], np.ndarray] | None = None,
) -> list[tuple[tuple[int, int], Glyph]]:
    """Squares taken for empty, beside a lettered tile, that show a letter of the tiles' size
    in their middle, on a face at least about as bright as the tiles' faces, with that letter
    (squares in the upright board's terms, like ``squares``).  On a premium square the letter
    may be its label's: there it must be ``like_a_letter`` (without it, premium squares are
    left alone).  With ``like_a_letter``, squares that glare has clipped to white are looked at
    once more with their contrast raised to a letter's (:func:`_washed_letters`)."""
    lettered = [sq for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    heights = [g.height for g in glyphs if g is not None]
    if len(heights) < 3:
        return []
    typical = float(median(heights))
    face = float(median(finder.face_brightness(lettered, turns)))
    free = ~occupied if like_a_letter is not None else ~occupied & _PLAIN
    missed: list[tuple[tuple[int, int], Glyph]] = []
    # A tile lies beside another (words have two letters or more): a letter on a square with
    # no tile beside it is a neighbour's seen by parallax, or a mark on the board.  Tiles
    # missed together (a patch of glare) are found from the edge in: each one found lets its
    # neighbours be looked at.
    while lettered:
        empty = _free_beside(free, lettered)
        free &= ~_taken(empty)  # each square looked at once
        brightness = finder.face_brightness(empty, turns)
        # A tile under glare (brighter than the tiles' faces) has its letter's contrast
        # raised by as much (see letters_under_glare).
        found = finder.glyphs(empty, turns, gains=glare_gains(brightness, face))
        new = [
            (square, glyph) for square, glyph, light in zip(empty, found, brightness, strict=True)
            if glyph is not None
            and _of_tiles_size(glyph, typical)
            and light >= MISSED_FACE * face
        ]
        if like_a_letter is not None:
            new += _washed_letters(finder, [
                square for square, glyph, light in zip(empty, found, brightness, strict=True)
                if glyph is None and light >= max(MISSED_FACE * face, CLIPPED_FACE)
            ], turns, typical, like_a_letter)
        # A line running across the board (a folding board's hinge) is no letter.
        across = finder.lines_across([square for square, _ in new], turns)
        new = [letter for letter, line in zip(new, across, strict=True) if not line]
        on_premium = [letter for letter in new if not _PLAIN[letter[0]]]
        if on_premium and like_a_letter is not None:
            letters = like_a_letter([glyph for _, glyph in on_premium])
            labels = {square for (square, _), like in zip(on_premium, letters, strict=True)
                      if not like}
            new = [(square, glyph) for square, glyph in new if square not in labels]
        missed += new
        lettered = [square for square, _ in new]
    return sorted(missed)


#: A square whose middle is at least this bright (grey 0..255, as
#: :meth:`GlyphFinder.face_brightness` measures it) is clipped at white, or nearly: glare there
#: may have washed a letter out by more than the face's brightness tells
#: (:func:`_washed_letters`).
CLIPPED_FACE = 240.0


def _washed_letters(
    finder: GlyphFinder, squares: list[tuple[int, int]], turns: int, typical_height: float,
    like_a_letter: Callable[[list[Glyph]], np.ndarray],
) -> list[tuple[tuple[int, int], Glyph]]:
    """The letters found on ``squares`` (taken for empty, clipped at white or nearly,
    :data:`CLIPPED_FACE`, and showing no letter) once their contrast is raised as
    :func:`faint_letters` raises a bare tile's (:func:`_letters_raised_to_peak`).

    Glare on a face that is light already cannot brighten it by the factor it washes the
    letter out (it is clipped at white): :func:`glare_gains` raises such a letter by 1.2 when
    it needs 3 (a deluxe board's cream tiles under a lamp, I R K at 0.14 to 0.18 of contrast
    with their faces, were read as empty squares).  Only squares near white are looked at so:
    on the 1,200 rendered photos of seeds 15, 16, 19 and 20 (``bench/eval_rendered.py``), the 5
    letters so found on darker squares (103 to 221 bright: premium labels' print, a board's
    grain) were all false, the 10 on squares 252 to 255 bright all tiles."""
    return _letters_raised_to_peak(finder, squares, turns, typical_height, like_a_letter)


#: A tile whose face is brighter than the lettered tiles' typical face by at least this
#: factor may be under glare, and its letter is looked for again with its contrast raised by
#: that factor (:func:`letters_under_glare`), up to :data:`GLARE_GAIN_MAX`.
GLARE_GAIN_MIN = 1.15
GLARE_GAIN_MAX = 2.5


def glare_gains(brightness: np.ndarray, face: float) -> np.ndarray:
    """How much to raise the contrast of squares whose middles are ``brightness`` bright,
    the tiles' typical face being ``face``: by the factor glare brightened them (from
    :data:`GLARE_GAIN_MIN`, up to :data:`GLARE_GAIN_MAX`), else 1.

    >>> glare_gains(np.array([100.0, 110.0, 150.0, 400.0]), 100.0).tolist()
    [1.0, 1.0, 1.5, 2.5]
    """
    gains = np.minimum(brightness / max(face, 1.0), GLARE_GAIN_MAX)
    return np.where(gains >= GLARE_GAIN_MIN, gains, 1.0)


def letters_under_glare(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    turns: int,
) -> dict[tuple[int, int], Glyph]:
    """Letters on tiles taken for tiles but showing none, found again under glare.

    Glare adds the same light to a tile's face and to its letter: the letter's contrast with
    the face (what the glyph finder thresholds) falls by the factor the face is brightened,
    below the level at which a letter is looked for, though the letter is as plain to the eye
    as any.  A bare tile brighter than the lettered tiles' typical face is looked at again
    with its contrast raised by that factor; what is found counts only if it is a letter of
    the tiles' size (:data:`MISSED_HEIGHT`), so that a blank's grain, raised with it, is not
    taken for one.  Squares in the upright board's terms, like ``squares``.
    """
    heights = [g.height for g in glyphs if g is not None]
    bare = [sq for sq, g in zip(squares, glyphs, strict=True) if g is None]
    if len(heights) < 3 or not bare:
        return {}
    lettered = [sq for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    typical_face = float(median(finder.face_brightness(lettered, turns)))
    gains = glare_gains(finder.face_brightness(bare, turns), typical_face)
    return _tile_letters_raised(finder, bare, gains, turns, float(median(heights)))


#: Share of a square's middle, each side, left out when judging its face (a tile shifted by
#: parallax, the gaps around it).
FACE_INSET = 0.2
#: A bare square (taken for a tile, showing no letter) is a blank only if at least this share
#: of its middle is nearer in colour to the faces of the lettered tiles around it than to the
#: empty squares of its premium type around it: glare, a shadow or a neighbour's edge seen by
#: parallax can pass for a tile in the colour statistics of occupancy, not pixel by pixel.
#: (On rendered photos blanks score 0.8 or more in 95 % of cases, such squares 0.3 or less in
#: half of them.)
BLANK_FACE = 0.3
#: Colour distance (see :data:`_OPPONENT`) within which a pixel matches the tile face, for
#: ranking blanks.
FACE_MATCH = 20.0
#: BGR (0..255) to lightness, red-green and yellow-blue, each about 0..100 like CIE Lab's
#: (which OpenCV first builds tables for, a tenth of a second in a fresh process).
_OPPONENT = (100 / 255) * np.array(
    [[1 / 3, 0.0, -1.0], [1 / 3, -1.0, 0.5], [1 / 3, 1.0, 0.5]], np.float32
)


def _middles(image: np.ndarray, squares: list[tuple[int, int]], square_px: int) -> np.ndarray:
    """The middle pixels (N, P, 3) of squares of a BGR rectified image with crop margin, in
    opponent colours (:data:`_OPPONENT`)."""
    margin = crop_margin_px(square_px)
    inset = int(FACE_INSET * square_px)
    side = square_px - 2 * inset
    out = np.empty((len(squares), side * side, 3), np.uint8)
    for i, (r, c) in enumerate(squares):
        y, x = margin + r * square_px + inset, margin + c * square_px + inset
        out[i] = image[y : y + side, x : x + side].reshape(-1, 3)
    return out.astype(np.float32) @ _OPPONENT


def _nearest(squares: list[tuple[int, int]], pool: np.ndarray, count: int) -> np.ndarray:
    """Indices (N, count) of the ``count`` squares of ``pool`` (M, 2) nearest each square."""
    distance = np.abs(np.asarray(squares)[:, None, :] - pool[None, :, :]).sum(axis=2)
    return np.argsort(distance, axis=1, kind="stable")[:, :count]


def face_likeness(
    rectified: np.ndarray, turns: int, bare: list[tuple[int, int]],
    lettered: list[tuple[int, int]], occupied: np.ndarray, square_px: int = SQUARE_PX,
) -> tuple[np.ndarray, np.ndarray]:
    """How much each ``bare`` square looks like a tile face: the share of its middle nearer
    in colour to the faces of the three nearest lettered tiles than to the three nearest
    empty squares of its premium type, and the share within :data:`FACE_MATCH` of those faces.

    ``rectified`` is the photo's rectified grid with crop margin as it stands, ``turns`` the
    quarter turns that make it upright; squares and ``occupied`` are in upright terms.  Both
    shares are 1 for every square when no lettered tile or no empty square gives a reference,
    and 0 for a square that shows its premium type's tint washed out by glare
    (:func:`glare_tinted`).
    """
    ones = np.ones(len(bare))
    if not bare or not lettered:
        return ones, ones
    upright = np.rot90(rectified, turns)
    faces = _middles(upright, lettered, square_px)
    # A lettered tile's face is its brighter part (the letter is darker).
    light = faces[..., 0] >= percentile(faces[..., 0], 60, axis=1)
    face_colour = np.stack([median(f[m], axis=0) for f, m in zip(faces, light, strict=True)])
    empty = np.argwhere(~occupied)
    if len(empty) == 0:
        return ones, ones
    bare_array = np.asarray(bare)
    # The three nearest empty squares of each bare square's premium type.
    distance = np.abs(bare_array[:, None, :] - empty[None, :, :]).sum(axis=2).astype(np.float64)
    same_kind = _KINDS[tuple(bare_array.T)][:, None] == _KINDS[tuple(empty.T)][None, :]
    distance[~same_kind] = np.inf
    around = np.argsort(distance, axis=1, kind="stable")[:, :3]
    referenced = np.isfinite(np.take_along_axis(distance, around, axis=1))
    known = referenced.any(axis=1)
    # Only the empty squares some bare square compares with are looked at.
    used = np.unique(around[referenced])
    empty_colour = np.zeros((len(empty), 3), np.float32)
    if len(used):
        empty_colour[used] = median(
            _middles(upright, [tuple(e) for e in empty[used]], square_px), axis=1)
    empty_reference = np.zeros((len(bare), 3), np.float32)
    full = referenced.all(axis=1)
    if full.any():
        empty_reference[full] = median(empty_colour[around[full]], axis=1)
    for i in np.flatnonzero(known & ~full):  # fewer than three squares of its kind are empty
        empty_reference[i] = median(empty_colour[around[i][referenced[i]]], axis=0)
    face = median(face_colour[_nearest(bare, np.asarray(lettered), 3)], axis=1)
    pixels = _middles(upright, bare, square_px)
    to_face = np.linalg.norm(pixels - face[:, None, :], axis=2)
    to_empty = np.linalg.norm(pixels - empty_reference[:, None, :], axis=2)
    closer = np.where(known, np.mean(to_face < to_empty, axis=1), 1.0)
    match = np.where(known, np.mean(to_face < FACE_MATCH, axis=1), 1.0)
    # Glare makes an empty square as light as a face, pixel by pixel nearer to the face than
    # to its type's unlit squares, but leaves it its type's tint: no face at all.
    tinted = glare_tinted(upright, bare, lettered, median(pixels, axis=1), face, square_px)
    return np.where(tinted, 0.0, closer), np.where(tinted, 0.0, match)


#: Glare mixes the colour of what lies under it with white, which has no chroma (the two
#: opponent axes of :data:`_OPPONENT`): an empty square under glare keeps its premium type's
#: tint, scaled down, and a tile's face keeps the face's.  A bare square whose chroma its
#: type's tint so scaled explains better than the faces' tint, by at least this share of its
#: type's chroma, is an empty square under glare (:func:`glare_tinted`).  On 600 rendered
#: photos (``bench/eval_rendered.py``, seeds 12 and 13), the 761 blanks taken for tiles
#: scored 0.20 at most (0.17 on premium squares; the highest, blanks on a green board tinted
#: by its light); of the 24 empty squares read as blanks, 12 (11 on premium squares) scored 0.30 to
#: 0.72, the others, on plain squares of about the faces' tint or of none, 0.13 at most.  On
#: seed 4, not looked at for this: 381 blanks 0.15 at most, 3 of 7 such squares 0.32 to 0.51.
GLARE_TINT = 0.25
#: ... and of at least this much chroma: the premium types' own measured 12 to 60 there, the
#: plain squares of the black, tan and red boards 0 to 12, too little a tint to tell by.
GLARE_TINT_FLOOR = 16.0


def unexplained_chroma(chroma: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """How far each chroma (N, 2) lies from ``tint`` (N, 2) scaled down by glare (times 0
    to 1: glare adds white, which has none).

    >>> unexplained_chroma(np.array([[-6.0, -6.0], [-6.0, -6.0], [3.0, 4.0]]),
    ...                    np.array([[-20.0, -20.0], [3.0, 4.0], [3.0, 4.0]])).round(1).tolist()
    [0.0, 8.5, 0.0]
    """
    share = (chroma * tint).sum(axis=1) / np.maximum((tint**2).sum(axis=1), 1e-6)
    return np.linalg.norm(chroma - np.clip(share, 0.0, 1.0)[:, None] * tint, axis=1)


def glare_tinted(
    upright: np.ndarray, bare: list[tuple[int, int]], lettered: list[tuple[int, int]],
    colour: np.ndarray, face: np.ndarray, square_px: int = SQUARE_PX,
) -> np.ndarray:
    """Whether each ``bare`` square (median ``colour`` of its middle, opponent colours) is an
    empty square under glare: its chroma is its premium type's tint washed out, far better
    than the tint of the faces around it (``face``), by :data:`GLARE_TINT`.

    A type's tint is the median colour of its other squares without a letter (at least three),
    empty or bare alike: glare may have washed out every empty square of a type.  A blank
    among them can only pull the tint towards the faces', keeping squares as blanks.
    ``upright`` is the rectified grid with crop margin, turned upright.
    """
    unlettered = ~_taken(lettered)
    colours: dict[tuple[int, int], np.ndarray] = {}
    references = np.zeros((len(bare), 3), np.float32)
    known = np.zeros(len(bare), bool)
    for i, square in enumerate(bare):
        others = [(int(r), int(c)) for r, c in np.argwhere(unlettered & (_KINDS == _KINDS[square]))
                  if (r, c) != square]
        if len(others) < 3:
            continue
        unseen = [sq for sq in others if sq not in colours]
        if unseen:
            colours.update(zip(unseen, median(_middles(upright, unseen, square_px), axis=1),
                               strict=True))
        references[i] = median(np.stack([colours[sq] for sq in others]), axis=0)
        known[i] = True
    if not known.any():
        return known
    chroma, tint, face_tint = colour[:, 1:], references[:, 1:], face[:, 1:]
    gain = unexplained_chroma(chroma, face_tint) - unexplained_chroma(chroma, tint)
    scale = np.maximum(np.linalg.norm(tint, axis=1), GLARE_TINT_FLOOR)
    return known & (gain >= GLARE_TINT * scale)


#: An empty square beside a lettered tile is taken for a blank when at least this share of its
#: middle is nearer in colour to the tiles' faces around it than to the empty squares of its
#: premium type (:func:`face_likeness`), and ...
BLANK_BY_FACE = 0.95
#: ... at least this share of it lies within :data:`FACE_MATCH` of those faces.  (On 300
#: rendered photos, with the tiles known: 345 of 384 blanks pass, and 3 of the 17,229 empty
#: squares beside a tile.)
BLANK_BY_FACE_MATCH = 0.5


def blanks_by_face(
    rectified: np.ndarray, turns: int, squares: list[tuple[int, int]],
    glyphs: list[Glyph | None], blanks: int,
) -> list[tuple[int, int]]:
    """Squares taken for empty that are blanks by their colour: beside a lettered tile, with a
    middle all but wholly of the tiles' face colour and unlike the empty squares of its
    premium type (:data:`BLANK_BY_FACE`), at most as many as the ``blanks`` of the set that
    are not among ``squares`` already (bare tiles), likeliest first.

    A blank on a board of about its colour (wooden tiles on a tan or red board) passes for an
    empty square in the occupancy's colour statistics; side by side with its neighbours,
    square by square, its face still matches theirs.
    """
    left = blanks - sum(g is None for g in glyphs)
    lettered = [sq for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    if left <= 0 or len(lettered) < 3:
        return []
    taken = _taken(squares)
    candidates = _free_beside(~taken, lettered)
    if not candidates:
        return []
    closer, match = face_likeness(rectified, turns, candidates, lettered, taken)
    chosen = [(float(a + b), sq) for sq, a, b in zip(candidates, closer, match, strict=True)
              if a >= BLANK_BY_FACE and b >= BLANK_BY_FACE_MATCH]
    return sorted(sq for _, sq in sorted(chosen, reverse=True)[:left])


#: A bare square beside a lettered tile, nearer in colour to the tiles' faces than to the empty
#: squares in at least this share of its middle, ...
MARKED_FACE = 0.95
#: ... with less than the second but at least the first of these shares of it within
#: :data:`FACE_MATCH` of those faces, carries a mark a blank has not: a letter that motion
#: blur kept from being found.  (On 300 rendered photos, seed 1, all but one of the 368 blanks
#: given to :func:`not_blanks` have 0.9 or more of their middle within it; a face with less
#: than half of it like a tile's is as much a shadow or a neighbour's edge seen by parallax.)
MARKED_MATCH = (0.5, 0.9)


def not_blanks(
    squares: list[tuple[int, int]], glyphs: list[Glyph | None], confidence: np.ndarray,
    blanks: int, face: dict[tuple[int, int], tuple[float, float]] | None = None,
) -> list[tuple[int, int]]:
    """The squares taken for tiles that show no letter and are not blanks: those whose middle
    does not look like a tile's face (``face``: the two shares of :func:`face_likeness` per
    bare square, when known), those not joined to a lettered tile (a blank is part of a word),
    and those beyond the ``blanks`` the tile set has: the blanks kept are those lying beside a
    lettered tile, then those most like a face, then the surest tiles.  A marked face
    (:func:`marked_faces`) holds a letter left unread: it is kept, and not counted among the
    blanks.

    >>> sure = np.full((15, 15), 0.9); sure[6, 7] = 0.6
    >>> g = Glyph(np.zeros((24, 24), np.float32), np.zeros((4, 4), np.uint8), 0.5)
    >>> not_blanks([(6, 7), (7, 7), (7, 8), (7, 9), (12, 3)], [None, g, None, None, None],
    ...            sure, 2)
    [(7, 9), (12, 3)]
    >>> not_blanks([(7, 7), (7, 8), (7, 9), (12, 3)], [g, None, None, None], sure, 2,
    ...            {(7, 8): (0.1, 0.0), (7, 9): (1.0, 0.9), (12, 3): (1.0, 0.9)})
    [(7, 8), (7, 9), (12, 3)]

    Three bare squares in a word, two blanks in the set: the marked one stays a tile.

    >>> not_blanks([(7, 6), (7, 7), (7, 8), (8, 7)], [None, g, None, None], sure, 2,
    ...            {(7, 6): (1.0, 1.0), (7, 8): (1.0, 1.0), (8, 7): (1.0, 0.6)})
    []
    """
    lettered = {sq for sq, g in zip(squares, glyphs, strict=True) if g is not None}
    bare = [sq for sq, g in zip(squares, glyphs, strict=True) if g is None]
    face = face or {}
    # Every tile of a game belongs to a word of two letters or more, and a set has too few
    # blanks to make a word of blanks alone: a blank joins a lettered tile, directly or
    # through the other blank.  A bare square cut off from every lettered tile is the board
    # lightened by glare.
    faced = [sq for sq in bare if face.get(sq, (1.0, 1.0))[0] >= BLANK_FACE]
    joined = _joined_to(faced, lettered)
    faceless = [sq for sq in bare if sq not in joined]
    bare = [sq for sq in bare if sq in joined]
    if len(bare) <= blanks:
        return sorted(faceless)

    def in_word(square: tuple[int, int]) -> bool:
        return _beside_any(square, lettered)

    def rank(square: tuple[int, int]) -> tuple[bool, float, float]:
        return in_word(square), sum(face.get(square, (1.0, 1.0))), float(confidence[square])

    unread = set(marked_faces(squares, glyphs, face))
    ranked = sorted((sq for sq in bare if sq not in unread), key=rank, reverse=True)
    return sorted(faceless + ranked[blanks:])


def marked_faces(
    squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    face: dict[tuple[int, int], tuple[float, float]],
) -> list[tuple[int, int]]:
    """The squares taken for tiles that show no letter yet hold one: beside a lettered tile,
    with a tile's face (:data:`MARKED_FACE`) that is marked (:data:`MARKED_MATCH`), as a
    letter smeared by motion blur leaves it (``face``: the two shares of
    :func:`face_likeness` per bare square).  Not blanks, whose faces are clean.

    >>> g = Glyph(np.zeros((24, 24), np.float32), np.zeros((4, 4), np.uint8), 0.5)
    >>> marked_faces([(7, 6), (7, 7), (8, 7), (12, 3)], [None, g, None, None],
    ...              {(7, 6): (1.0, 1.0), (8, 7): (1.0, 0.6), (12, 3): (1.0, 0.6)})
    [(8, 7)]
    """
    lettered = {sq for sq, g in zip(squares, glyphs, strict=True) if g is not None}
    found = []
    for square, glyph in zip(squares, glyphs, strict=True):
        if glyph is not None or square not in face:
            continue
        closer, match = face[square]
        if closer >= MARKED_FACE and MARKED_MATCH[0] <= match < MARKED_MATCH[1] and _beside_any(
                square, lettered):
            found.append(square)
    return found


def _taken(squares: list[tuple[int, int]]) -> np.ndarray:
    """The board's squares (15x15 bool) that ``squares`` lists."""
    taken = np.zeros((SIZE, SIZE), bool)
    taken[tuple(np.array(squares, np.int64).reshape(-1, 2).T)] = True
    return taken


def _free_beside(free: np.ndarray, lettered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The squares of the mask ``free`` (15x15) that have a ``lettered`` square beside them: a
    tile lies beside another, as words have two letters or more.

    >>> free = np.ones((15, 15), bool); free[7, 7] = False
    >>> _free_beside(free, [(7, 7)])
    [(6, 7), (7, 6), (7, 8), (8, 7)]
    """
    beside = set(lettered)
    return [(int(r), int(c)) for r, c in np.argwhere(free)
            if _beside_any((int(r), int(c)), beside)]


def _neighbours(square: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The four squares beside ``square`` (some may lie off the board)."""
    r, c = square
    return (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)


def _beside_any(square: tuple[int, int], squares: Collection[tuple[int, int]]) -> bool:
    """Whether one of ``squares`` lies beside ``square``.

    >>> _beside_any((7, 7), {(7, 8)}), _beside_any((7, 7), {(8, 8)})
    (True, False)
    """
    return any(n in squares for n in _neighbours(square))


def _joined_to(
    squares: list[tuple[int, int]], lettered: set[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Those of ``squares`` linked to a ``lettered`` square through a chain of ``squares``.

    >>> sorted(_joined_to([(7, 8), (7, 9), (2, 2)], {(7, 7)}))
    [(7, 8), (7, 9)]
    """
    left = set(squares)
    reached = {sq for sq in left if _beside_any(sq, lettered)}
    frontier = list(reached)
    while frontier:
        for n in _neighbours(frontier.pop()):
            if n in left and n not in reached:
                reached.add(n)
                frontier.append(n)
    return reached


#: A glyph less than this share of the tiles' median letter height is a mark, not a letter.
MARK_HEIGHT = 0.5


def stray_marks(
    squares: list[tuple[int, int]], glyphs: list[Glyph | None]
) -> list[tuple[int, int]]:
    """The squares taken for tiles that have no other taken square beside them (a tile is part
    of a word) and show only a mark far smaller than the letters on the tiles
    (:data:`MARK_HEIGHT`): a piece of a premium square's label, made to stand out by glare.

    >>> def g(height): return Glyph(np.zeros((24, 24), np.float32), np.zeros((1, 1)), height)
    >>> stray_marks([(1, 1), (7, 7), (7, 8), (7, 9), (11, 3)],
    ...             [g(0.1), g(0.5), g(0.1), g(0.5), g(0.5)])
    [(1, 1)]
    """
    taken = set(squares)
    heights = [g.height for g in glyphs if g is not None]
    if len(heights) < 3:
        return []
    typical = float(median(heights))
    return [
        square for square, glyph in zip(squares, glyphs, strict=True)
        if glyph is not None and glyph.height < MARK_HEIGHT * typical
        and not _beside_any(square, taken)
    ]


#: A letter read with less confidence than this on a tile with no tile beside it is taken for
#: something else (a premium label or the board's print lightened by glare, a neighbour's
#: letter seen through blur).  On 900 rendered photos of ``bench/eval_rendered.py`` (seeds
#: 1, 4 and 7, both readers), 14 such squares held no tile and 2 a tile (one read right); with
#: 0.3, one more tile read right was lost and nothing gained.
LONE_UNSURE = 0.1


def lone_unsure(
    squares: list[tuple[int, int]], guesses: Sequence[LetterGuess]
) -> list[tuple[int, int]]:
    """The squares of groups of tiles apart from the board's largest whose letters are all
    read with little confidence (:data:`LONE_UNSURE`) or blanks, and lone squares read so:
    every tile of a game is part of a word of two letters or more, and every word joins the
    others, so a group apart is one whose link the photo hid, or no tiles at all (a premium
    label lightened by glare taken for a letter, with glare beside it taken for blanks), and
    letters the reader doubts there are more likely no tiles.  Lone blanks are left alone
    (:func:`not_blanks` judges them).

    >>> guess = lambda letter, confidence: LetterGuess(letter, confidence)
    >>> lone_unsure([(1, 1), (5, 5), (7, 7), (7, 8), (11, 3)],
    ...             [guess("E", 0.05), guess("S", 0.9), guess("A", 0.0), guess("T", 0.0),
    ...              guess("?", 0.0)])
    [(1, 1)]

    Apart from CAT, a doubted S between two blanks is no tile, nor are the blanks:

    >>> lone_unsure([(7, 6), (7, 7), (7, 8), (10, 14), (11, 14), (12, 14)],
    ...             [guess("C", 0.9), guess("A", 0.8), guess("T", 0.9), guess("?", 1.0),
    ...              guess("S", 0.0), guess("?", 1.0)])
    [(10, 14), (11, 14), (12, 14)]
    """
    if not squares:
        return []
    count, labels = cv2.connectedComponents(_taken(squares).astype(np.uint8), connectivity=4)
    group = [int(labels[square]) for square in squares]
    sizes = np.bincount(group, minlength=count)
    largest = int(np.argmax(sizes))
    doubted = np.ones(count, bool)
    for g, guess in zip(group, guesses, strict=True):
        if guess.letter != BLANK and guess.confidence >= LONE_UNSURE:
            doubted[g] = False
    return [square for square, g, guess in zip(squares, group, guesses, strict=True)
            if (sizes[g] == 1 and guess.letter != BLANK and guess.confidence < LONE_UNSURE)
            or (sizes[g] > 1 and g != largest and doubted[g])]


#: A letter found on a premium square taken for empty (:func:`missed_tiles`) is a tile's only
#: where a classifier finds it at least this like a letter it knows: a premium label's letters
#: (a deluxe board's "DL") are in another typeface and lie 0.2 to 0.3 from any.  Tiles missed
#: there under glare on the rendered photos were 0.72 and 0.88 like their letters.
LABEL_UNLIKE = 0.5


def like_a_letter(glyphs: Sequence[Glyph], classifiers: Sequence[LetterClassifier | None]
                  ) -> np.ndarray:
    """Whether each glyph is at least :data:`LABEL_UNLIKE` like some letter of some of the
    ``classifiers`` (none known: no glyph is): a tile's letter rather than a premium label's.

    >>> like_a_letter([], [None]).tolist()
    []
    """
    best = np.full(len(glyphs), -2.0)
    if not glyphs:
        return best >= LABEL_UNLIKE
    stacked = np.stack([glyph.normalised for glyph in glyphs])
    for classifier in classifiers:
        if classifier is None:
            continue
        letters, similarity = classifier.likeness(stacked)
        if letters:
            best = np.maximum(best, similarity.max(axis=1))
    return best >= LABEL_UNLIKE


def _turn_sensitive(tiles: TileSet) -> bool:
    """Whether glyphs must be found in the upright picture: letters with marks above them, or
    tiles of several letters, are told by what lies above or beside the letter.

    >>> _turn_sensitive(TileSet.named("en")), _turn_sensitive(TileSet.named("de"))
    (False, True)
    """
    return any(len(t) > 1 or unicodedata.normalize("NFD", t) != t for t in tiles.letters)


def _rotate_square(square: tuple[int, int], quarter_turns: int) -> tuple[int, int]:
    """Where square (row, col) goes when the board image turns counter-clockwise.

    >>> _rotate_square((0, 14), 1), _rotate_square((2, 3), 2), _rotate_square((2, 3), 4)
    ((0, 0), (12, 11), (2, 3))
    """
    r, c = square
    for _ in range(quarter_turns % 4):
        r, c = SIZE - 1 - c, r
    return r, c


def read_letters(
    glyphs: list[Glyph | None],
    classifier: LetterClassifier | None,
    tesseract: TesseractReader | None,
    tileset: TileSet | None = None,
    confirm: bool = False,
    stock: Callable[[], LetterClassifier | None] | None = None,
    stock_where_unlike: Callable[[], LetterClassifier | None] | None = None,
) -> tuple[list[LetterGuess], list[str]]:
    """A letter (``?`` for a blank) and confidence for each occupied square's glyph.

    The classifier answers where it is sure; every other glyph whose reading Tesseract could
    change goes to Tesseract, all in one call.  Tesseract can overrule the stock classifier
    where that all but guesses, never a profile's classifier on a letter the profile has
    learnt (see :func:`_combine`).  A letter the classifier has never seen comes from
    Tesseract or the stock classifier (``stock``, below).  With ``tileset``, marks seen
    above a glyph decide between a letter and its umlaut (:func:`with_marks`).

    With ``confirm`` and the stock classifier (:mod:`vision.stock`), the letters it read with
    some confidence but below :data:`ACCEPT` are shown to Tesseract in a call of their own,
    whose answer only raises the confidence of a letter it agrees with: a tracker asks the
    players about unsure letters, and the stock classifier is unsure of many a letter of tiles
    it never saw that Tesseract reads the same.  (In the same call as the unsure glyphs, the
    extra glyphs changed how Tesseract read those: more letters went wrong on rendered and
    real photos alike.)

    ``stock`` gives the stock classifier (loaded only when needed, a few tens of milliseconds
    in a fresh process), which names letters that a calibrated ``classifier`` has never learnt
    (:func:`_unseen_from_stock`).  Where it knows every such letter, Tesseract is not asked
    about them (unless ``confirm``): only the glyphs that may be of such a letter and that it
    is unsure of go to Tesseract, and with ``confirm`` those the calibrated classifier all but
    guesses, for Tesseract to confirm.

    ``stock_where_unlike`` gives the stock classifier too, for the glyphs that look like none
    of a calibrated ``classifier``'s samples (:func:`_closer_in_stock`).
    """
    guesses: list[LetterGuess | None] = [None] * len(glyphs)
    sources = [""] * len(glyphs)
    unsure: list[int] = []
    known = classifier is not None and len(classifier) > 0
    calibrated = classifier.predict(
        np.stack([g.normalised for g in glyphs if g is not None])
    ) if known and any(g is not None for g in glyphs) else []
    from_stock = set() if not calibrated or stock_where_unlike is None else _closer_in_stock(
        glyphs, calibrated, stock_where_unlike)
    # Tesseract is asked only where its answer could change the reading (see _combine): where
    # the classifier all but guesses, or where the letter may be one it has never seen.
    unseen = set() if tesseract is None else (
        set(tesseract.tileset.letters) - {BLANK} - (classifier.letters if known else set())  # type: ignore[union-attr]
    )
    # The stock classifier, where it knows every letter the profile has not learnt, names
    # those instead of Tesseract (sure of them, and a tenth of the time) in a board read; a
    # tracker (``confirm``) keeps Tesseract loaded and asks it, as each letter it confirms
    # spares the players a question.
    by_stock = None
    if unseen and known and not confirm and stock is not None and not classifier.stock:  # type: ignore[union-attr]
        by_stock = stock()
        if by_stock is not None and not unseen <= by_stock.letters:
            by_stock = None
    unseen_possible = bool(unseen) and by_stock is None
    it = iter(calibrated)
    below_accept: list[int] = []
    ranked: list[LetterGuess | None] = [None] * len(glyphs)  # the classifier's, where it ranked
    for i, glyph in enumerate(glyphs):
        if glyph is None:
            guesses[i], sources[i] = LetterGuess(BLANK, 1.0), "blank"
            continue
        guess = next(it) if known else None
        guesses[i] = guess
        if guess is not None and guess.likeliest:
            ranked[i] = guess
        if guess is not None and guess.confidence >= ACCEPT:
            sources[i] = "classifier"
        else:
            below_accept.append(i)
    maybe_unseen: set[int] = set()
    if by_stock is not None:
        maybe_unseen = _unseen_from_stock(below_accept, glyphs, guesses, sources,
                                          classifier, lambda: by_stock)  # type: ignore[arg-type]
    # Tesseract may overrule the stock classifier where that all but guesses; a profile's
    # classifier it can only confirm (worth asking for a tracker, whose players are asked
    # about unsure letters) or tell a letter the profile has not learnt.
    ask_below = OVERRULE if confirm or (known and classifier.stock) else 0.0  # type: ignore[union-attr]
    for i in below_accept:
        guess = guesses[i]
        if sources[i]:
            continue
        if guess is not None and not unseen_possible and i not in maybe_unseen and (
            guess.confidence >= ask_below
        ):
            sources[i] = "classifier"
        else:
            unsure.append(i)
    if unsure and tesseract is not None:
        # Alone on its sheet, a glyph is read far worse than among others (see
        # TesseractReader): where the reader remembers too few, letters read surely here
        # go before it.
        sure = [(glyphs[i].ink, g) for i, g in enumerate(guesses)  # type: ignore[union-attr]
                if sources[i] == "classifier" and g is not None]
        answers = tesseract.read([glyphs[i].ink for i in unsure], sure)  # type: ignore[union-attr]
        for i, answer in zip(unsure, answers, strict=True):
            guesses[i], sources[i] = _combine(guesses[i], answer, classifier)
        if known and stock is not None and by_stock is None and not classifier.stock:  # type: ignore[union-attr]
            _unseen_from_stock(unsure, glyphs, guesses, sources, classifier, stock)  # type: ignore[arg-type]
    for i in unsure:
        if not sources[i]:
            sources[i] = "classifier"
    for i in from_stock:
        if sources[i] == "classifier":
            sources[i] = "stock"
    if confirm and known and classifier.stock and tesseract is not None:  # type: ignore[union-attr]
        middling = [i for i, g in enumerate(guesses) if sources[i] == "classifier"
                    and g is not None and OVERRULE <= g.confidence < ACCEPT]
        if middling:
            answers = tesseract.read([glyphs[i].ink for i in middling])  # type: ignore[union-attr]
            for i, answer in zip(middling, answers, strict=True):
                guess = guesses[i]
                if guess is not None and answer.letter == guess.letter:
                    guesses[i] = LetterGuess(guess.letter,
                                             max(guess.confidence, answer.confidence),
                                             guess.similarity)
    # Whichever reader's letter stands, the classifier's likeliest letters go with it: they
    # are what the glyph looks like, for the words on the board to choose among.
    final = [LetterGuess(BLANK, 0.0) if g is None
             else g if r is None
             else replace(g, likeliest=r.likeliest, likeness=r.likeness)
             for g, r in zip(guesses, ranked, strict=True)]
    if tileset is not None:
        marked = marks_above(glyphs)
        final = [
            LetterGuess(with_marks(g.letter, m, tileset), g.confidence, likeliest=g.likeliest,
                        likeness=g.likeness)
            if g.letter != BLANK else g
            for g, m in zip(final, marked, strict=True)
        ]
    return final, sources


#: A glyph whose nearest sample among a profile's lies below this similarity looks like none
#: of the user's tiles (a blur heavier than the profile learnt, glare): the stock classifier,
#: learnt from many typefaces, names it where it finds a closer sample.  On rendered photos of
#: heavy motion blur its letters were right more often; on sharp ones no glyph lies so far.
UNLIKE_OWN = 0.5


def _closer_in_stock(
    glyphs: list[Glyph | None], calibrated: list[LetterGuess],
    stock_of: Callable[[], LetterClassifier | None],
) -> set[int]:
    """Replace in place the guesses (``calibrated``, one per glyph that is not None) of the
    glyphs unlike the profile's samples (:data:`UNLIKE_OWN`) by the stock classifier's where
    its nearest sample is closer; the indices into ``glyphs`` of those replaced."""
    shown = [i for i, g in enumerate(glyphs) if g is not None]
    far = [k for k, guess in enumerate(calibrated)
           if guess.likeness and guess.likeness[0] < UNLIKE_OWN]
    if not far:
        return set()
    stock = stock_of()
    if stock is None:
        return set()
    # All the photo's glyphs, as the stock classifier matches the photo's blur on all of them.
    named = stock.predict(np.stack([glyphs[i].normalised for i in shown]))  # type: ignore[union-attr]
    replaced = set()
    for k in far:
        guess = named[k]
        if guess.letter != BLANK and guess.likeness and (
                guess.likeness[0] > calibrated[k].likeness[0]):
            calibrated[k] = guess
            replaced.add(shown[k])
    return replaced


def marks_above(glyphs: list[Glyph | None]) -> list[bool]:
    """Whether each glyph carries marks above its letter (the dots of Ä, Ö, Ü).

    Dots far enough from the letter are separate ink (``Glyph.marked``); dots that touch it
    make the glyph taller than the photo's other letters: on real tiles umlauts stand 1.27
    times the median letter height and every other letter at most 1.09 times.

    >>> from vision.letters import Glyph
    >>> def g(height): return Glyph(np.zeros((24, 24), np.float32), np.zeros((1, 1)), height)
    >>> marks_above([g(0.46), g(0.47), g(0.58), None, g(0.45)])
    [False, False, True, False, False]
    """
    heights = [g.height for g in glyphs if g is not None]
    typical = float(median(heights)) if len(heights) >= 3 else None
    return [
        g is not None and (g.marked or (typical is not None and g.height > MARKED_HEIGHT * typical))
        for g in glyphs
    ]


def with_marks(letter: str, marked: bool, tileset: TileSet) -> str:
    """The tile-set letter matching the marks seen above a glyph.

    Readers tend to lose an umlaut's two small dots; when the glyph's own ink shows marks
    above the letter, the letter with those marks is meant.  (No marks seen proves nothing:
    dots touching the letter join its stroke.)  Only letters of the tile set are returned.

    >>> de = TileSet.named("de")
    >>> with_marks("A", True, de), with_marks("Ö", False, de), with_marks("E", True, de)
    ('Ä', 'Ö', 'E')
    """
    base = unicodedata.normalize("NFD", letter)
    if marked and len(base) == 1:
        above = [
            tile for tile in tileset.letters
            if len(decomposed := unicodedata.normalize("NFD", tile)) == 2
            and decomposed[0] == letter and unicodedata.combining(decomposed[1]) == 230
        ]
        return above[0] if len(above) == 1 else letter
    return letter


def _unseen_from_stock(
    unsure: list[int], glyphs: list[Glyph | None], guesses: list[LetterGuess | None],
    sources: list[str], classifier: LetterClassifier,
    stock_of: Callable[[], LetterClassifier | None],
) -> set[int]:
    """Where the stock classifier surely reads a letter that the calibrated one has never
    learnt, that letter, unless the glyph matches the user's own samples of the letter chosen
    so far (:data:`KNOWN_SIMILARITY`): Tesseract's letter is then not the glyph's either, had
    the user's tiles of it been learnt.  (On the real game, Tesseract read an Ö as S and a Z as
    Y that no profile had learnt yet; the stock classifier read them right, with confidence
    0.95 and 0.84.)  ``guesses`` and ``sources`` are changed in place.

    Returns the glyphs left that may still be of an unseen letter: the stock classifier's
    guess is one, or the glyph matches none of the user's samples of the letter chosen."""
    lettered = [i for i in unsure if glyphs[i] is not None]
    if not lettered:
        return set()
    stock = stock_of()
    unseen = set() if stock is None else set(stock.letters) - classifier.letters - {BLANK}
    if stock is None or not unseen:
        return set()
    shapes = np.stack([glyphs[i].normalised for i in lettered])  # type: ignore[union-attr]
    named = stock.predict(shapes)
    chosen = [g.letter if g is not None else BLANK for g in (guesses[i] for i in lettered)]
    own = classifier.similarity_to(shapes, chosen)
    maybe: set[int] = set()
    for i, guess, similarity in zip(lettered, named, own, strict=True):
        if guess.letter in unseen and guess.confidence >= ACCEPT and (
            similarity < KNOWN_SIMILARITY
        ):
            guesses[i], sources[i] = guess, "stock"
        elif guess.letter in unseen or similarity < KNOWN_SIMILARITY:
            maybe.add(i)
    return maybe


def _combine(
    calibrated: LetterGuess | None, uncalibrated: LetterGuess, classifier: LetterClassifier | None
) -> tuple[LetterGuess, str]:
    if calibrated is None or calibrated.letter == BLANK:
        return uncalibrated, "tesseract"
    if uncalibrated.letter == calibrated.letter:
        surest = max(calibrated.confidence, uncalibrated.confidence)
        return LetterGuess(calibrated.letter, surest), "classifier"
    if uncalibrated.letter == BLANK:
        return calibrated, "classifier"
    if classifier is not None and uncalibrated.letter not in classifier.letters and (
        (calibrated.similarity or 0.0) < KNOWN_SIMILARITY
        or uncalibrated.confidence > calibrated.confidence
    ):
        return uncalibrated, "tesseract"  # a letter never seen: only Tesseract can know it
    # Both readers know the letter they propose.  A profile's classifier, learnt from the
    # user's own tiles, is right far more often than Tesseract even where it all but guesses:
    # it keeps its letter.  The stock classifier is overruled where it all but guesses, with
    # a letter the glyph looks like to it at all (among its likeliest).
    if classifier is not None and not classifier.stock:
        return calibrated, "classifier"
    if calibrated.confidence < OVERRULE and uncalibrated.confidence > calibrated.confidence and (
        not calibrated.likeliest or _nearly_as_like(calibrated, uncalibrated.letter)
    ):
        return uncalibrated, "tesseract"
    return calibrated, "classifier"


def _nearly_as_like(guess: LetterGuess, letter: str) -> bool:
    """Whether ``letter`` is among the :data:`OVERRULE_AMONG` likeliest of a classifier's
    ``guess`` and the glyph no more than :data:`OVERRULE_GAP` less like it than like the
    likeliest (without similarities, being among them is enough).

    >>> guess = LetterGuess("E", 0.1, 0.8, ("E", "F", "L"), (0.8, 0.78, 0.6))
    >>> _nearly_as_like(guess, "F"), _nearly_as_like(guess, "L"), _nearly_as_like(guess, "O")
    (True, False, False)
    """
    ranked = guess.likeliest[:OVERRULE_AMONG]
    if letter not in ranked:
        return False
    if len(guess.likeness) < len(ranked):
        return True
    return guess.likeness[0] - guess.likeness[ranked.index(letter)] <= OVERRULE_GAP


def read_board(
    image: np.ndarray, profile: ReadingModels | None = None, tileset: str | TileSet = "en",
    stock: bool = True,
) -> BoardReading:
    """Read the board in one photo (BGR).

    ``profile`` holds the models learnt for one camera, board and tile set
    (:class:`vision.models.ReadingModels`, which a calibration profile is).  Without a profile
    the letters are read by the stock classifier learnt from printed
    typefaces (:mod:`vision.stock`, when it is built and ``stock`` is left True) and by
    Tesseract where that is unsure, otherwise by Tesseract alone.

    Raises :class:`UnreadableImage` for something that is not a picture and
    :class:`vision.locate.BoardNotFound` when no grid is found in it.
    """
    from vision.locate import check_corners, locate_board

    started = time.perf_counter()
    image = check_image(image)
    tiles = TileSet.named(profile.tileset) if profile is not None else (
        tileset if isinstance(tileset, TileSet) else TileSet.named(tileset)
    )
    corners = profile.corners if profile is not None else None
    if corners is not None and check_corners(image, corners) < CORNERS_STILL_FIT:
        corners = None  # the camera or the board moved since calibration
    # The profile's orientation belongs to its camera position: a photo taken from elsewhere
    # may show the board turned any way.
    fixed_camera = corners is not None
    if corners is None:
        corners = locate_board(image, quality=False).corners
    corners = np.asarray(corners, np.float32)
    rectified = rectify_with_margin(image, corners)
    # The profile's occupancy model learnt the colours of its own camera, light and white
    # balance; a photo from elsewhere is judged by the uncalibrated model.
    occupied, occupancy_confidence = occupancy_of(
        inner(rectified), profile if fixed_camera else None
    )
    if profile is not None:
        classifier: LetterClassifier | None = profile.classifier()
    else:
        classifier = stock_classifier(set(tiles.letters)) if stock else None
    tesseract = TesseractReader(tiles)
    # Letters are read from the photo with its blur undone (occupancy and the faces' colours
    # keep the photo as taken); a sharp photo is left as it is.
    deblurred = deblurred_for_letters(image, corners, SQUARE_PX)
    letters_image = rectified if deblurred is None else rectify_with_margin(
        deblurred.grey, deblurred.corners)
    finder = GlyphFinder(letters_image, SQUARE_PX, joined=_turn_sensitive(tiles))

    def letters_known(found: list[Glyph]) -> np.ndarray:
        # The stock samples are loaded only where a premium square asks for them.
        return like_a_letter(
            found, [classifier, stock_classifier(set(tiles.letters)) if stock else None])

    calibrated_occupancy = fixed_camera and profile is not None and bool(profile.occupancy)
    if not calibrated_occupancy and occupied.sum() < FEW_TILES:
        for square, _ in tiles_by_letters(finder, occupied, letters_known):
            occupied[square] = True
            occupancy_confidence[square] = UNSURE
    turns = profile.orientation if fixed_camera and profile is not None else None
    as_seen: dict[tuple[int, int], Glyph | None] = {}
    if turns is None:
        seen_squares = [tuple(map(int, rc)) for rc in np.argwhere(occupied)]
        found = finder.glyphs(seen_squares)
        turns = orientation_of_glyphs(found, classifier, tesseract)
        as_seen = {_rotate_square(sq, turns): g for sq, g in zip(seen_squares, found, strict=True)}
    occupied = np.rot90(occupied, turns)
    occupancy_confidence = np.rot90(occupancy_confidence, turns)
    squares = [tuple(map(int, rc)) for rc in np.argwhere(occupied)]
    if as_seen and (turns == 0 or not _turn_sensitive(tiles)):
        # The glyphs found to tell the orientation, turned with the picture.
        glyphs = [None if as_seen[sq] is None else as_seen[sq].turned(turns)  # type: ignore[union-attr]
                  for sq in squares]
    else:
        glyphs = finder.glyphs(squares, turns)
    for square, glyph in letters_under_glare(finder, squares, glyphs, turns).items():
        glyphs[squares.index(square)] = glyph
    confidence = occupancy_confidence.astype(np.float64).copy()
    for square, glyph in faint_letters(finder, squares, glyphs, turns,
                                       tiles.counts.get(BLANK, 0), letters_known).items():
        glyphs[squares.index(square)] = glyph
    if not calibrated_occupancy:
        # The uncalibrated occupancy model can take a tile for an empty square when tiles and
        # board are alike in colour (wooden tiles on a tan board); a letter standing in the
        # middle of a square, as tall as the letters on the tiles found, is a tile (on a
        # premium square, only where a classifier finds it like a letter: not a label's).
        for square, glyph in missed_tiles(finder, squares, glyphs, occupied, turns,
                                          letters_known):
            squares.append(square)
            glyphs.append(glyph)
            confidence[square] = UNSURE
        order = sorted(range(len(squares)), key=lambda i: squares[i])
        squares = [squares[i] for i in order]
        glyphs = [glyphs[i] for i in order]
    # A square taken for a tile whose only stroke is a line running across it (a folding
    # board's hinge, darkening the square) holds no tile.
    shown = [i for i, g in enumerate(glyphs) if g is not None]
    across = finder.lines_across([squares[i] for i in shown], turns)
    for i in sorted((i for i, line in zip(shown, across, strict=True) if line), reverse=True):
        confidence[squares[i]] = UNSURE
        del squares[i], glyphs[i]
    bare = [sq for sq, g in zip(squares, glyphs, strict=True) if g is None]
    lettered = [sq for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    taken = _taken(squares)
    closer, match = face_likeness(rectified, turns, bare, lettered, taken)
    face = {sq: (float(a), float(b)) for sq, a, b in zip(bare, closer, match, strict=True)}
    removed = not_blanks(squares, glyphs, confidence, tiles.counts.get(BLANK, 0), face)
    for square in removed + stray_marks(squares, glyphs):
        # Taken for a tile but showing no letter (beyond the blanks the set has, or not in a
        # word), or only a mark far smaller than a letter with no tile beside it: a square
        # lightened by glare or a shadow's edge, or a premium label's print, rather than a tile.
        index = squares.index(square)
        del squares[index], glyphs[index]
        confidence[square] = UNSURE
    # Faces marked by a letter that no glyph was found in: letters unread (shown as "?" for
    # the words on the board to name), not blanks.
    unread = marked_faces(squares, glyphs, face)
    for square in unread:
        confidence[square] = UNSURE
    for square in blanks_by_face(rectified, turns, squares, glyphs,
                                 tiles.counts.get(BLANK, 0) + len(unread)):
        index = bisect.bisect(squares, square)
        squares.insert(index, square)
        glyphs.insert(index, None)
        confidence[square] = UNSURE
    # A profile that has not learnt every letter yet: the stock classifier may name the others.
    fallback = stock_for_unseen(classifier, set(tiles.letters)) if stock else None
    guesses, sources = read_letters(
        glyphs, classifier, tesseract, tiles, stock=fallback,
        stock_where_unlike=(lambda: stock_classifier(set(tiles.letters)))
        if stock and profile is not None else None)
    for square in unread:
        sources[squares.index(square)] = "unread"
    for square in lone_unsure(squares, guesses):
        index = squares.index(square)
        del squares[index], guesses[index], sources[index], glyphs[index]
        confidence[square] = UNSURE
    rows = [["."] * SIZE for _ in range(SIZE)]
    for (r, c), guess in zip(squares, guesses, strict=True):
        rows[r][c] = guess.letter
        confidence[r, c] = min(confidence[r, c], guess.confidence)
    return BoardReading(
        board=["".join(row) for row in rows],
        corners=np.roll(corners, -turns, axis=0),
        confidence=confidence,
        seconds=time.perf_counter() - started,
        orientation=turns,
        sources=dict(zip(squares, sources, strict=True)),
        likeliest={square: guess.likeliest for square, guess in zip(squares, guesses,
                                                                    strict=True)
                   if guess.likeliest},
        likeness={square: guess.likeness for square, guess in zip(squares, guesses, strict=True)
                  if guess.likeness},
        motion_blur=0.0 if deblurred is None else deblurred.motion_squares,
        glyphs={square: glyph.normalised for square, glyph in zip(squares, glyphs, strict=True)
                if glyph is not None},
    )


def occupancy_grid(rectified_grid: np.ndarray) -> np.ndarray:
    """The margin-free rectified grid at the occupancy model's scale (:data:`OCCUPANCY_PX`)."""
    side = SIZE * OCCUPANCY_PX
    return cv2.resize(rectified_grid, (side, side), interpolation=cv2.INTER_AREA)


def occupancy_of(
    rectified_grid: np.ndarray, profile: ReadingModels | None
) -> tuple[np.ndarray, np.ndarray]:
    """Which squares of a margin-free rectified grid hold a tile, with confidences.

    The profile's calibrated occupancy model when it has one, else the uncalibrated model.
    """
    from vision.occupancy import OccupancyModel

    if profile is not None and profile.occupancy:
        model = OccupancyModel.from_dict(profile.occupancy)
    else:
        model = OccupancyModel()
    return model.predict(occupancy_grid(rectified_grid))
