"""The letter's glyph on each tile face, isolated from the face, its digit and the board.

One file, about 870 lines, on purpose: one job, done for many squares at once; its steps share
the mosaic layout of the crops and the ink thresholds.

A tile face (ivory plastic or wood) carries one dark glyph near its centre and a small
point-value digit in its lower right corner.  :class:`GlyphFinder` finds that glyph, for many
squares at once, in crops a little larger than the squares (tiles stand up from the board, so
the camera sees them shifted by parallax, up to a third of a square near the edges of the
picture): ink is what is darker than the face right around it, the glyph is the ink component
of a letter's size in the middle of a face, the digit is told apart and dropped, and the glyph
is returned normalised to a small square array: the shading of its ink and of the fainter ink
a blur leaves of thin strokes, in a window of fixed size about its centre of ink, so that a
blurred letter keeps its shape and its scale.  A tile face with no glyph is a blank.
:func:`extract_glyph` does the same for one crop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.medians import median, percentile
from vision.runs import run_boxes

#: Side of a normalised glyph, in pixels.
GLYPH_PX = 24


#: Fraction of the square added on each side of a square's crop, so that a tile shifted by
#: parallax still lies wholly inside its crop.
CROP_MARGIN = 1 / 3


#: Label of a blank tile (an occupied square whose face carries no glyph).
BLANK = "?"


@dataclass(frozen=True)
class Glyph:
    """The glyph found on one tile."""

    #: Normalised glyph, float32 (GLYPH_PX, GLYPH_PX), 1 = full ink: the shading of the
    #: glyph's ink and of the faint ink a blur left of it, in a window of GLYPH_WINDOW squares
    #: about its centre of ink (see :func:`_shaded_glyphs`); where no shading is left, its
    #: ink's bounding box centred and scaled to fill the array (aspect ratio kept).
    normalised: np.ndarray
    #: The glyph's ink at crop resolution, uint8 0/255, cropped to its bounding box: the part
    #: above READER_INK_LEVEL, what Tesseract and the other readers of ink are handed.
    ink: np.ndarray
    #: Glyph height as a fraction of the square's side.
    height: float
    #: Where the point-value digit is, relative to the glyph's centre, in squares ((+, +) is
    #: lower right, as on an upright tile), or None if no digit was seen.
    digit: tuple[float, float] | None = None
    #: Whether small marks sit above the letter (the dots of Ä, Ö, Ü).
    marked: bool = False

    def turned(self, quarter_turns: int) -> Glyph:
        """The glyph as seen once the picture is turned counter-clockwise ``quarter_turns``
        times.  Marks are not judged again (above becomes beside): find the glyphs in the
        turned picture where they matter.

        >>> g = Glyph(np.zeros((24, 24), np.float32), np.zeros((20, 10), np.uint8), 0.5,
        ...           (0.3, 0.2))
        >>> t = g.turned(1)
        >>> t.ink.shape, t.height, t.digit
        ((10, 20), 0.25, (0.2, -0.3))
        """
        k = quarter_turns % 4
        if k == 0:
            return self
        height = self.height * (self.ink.shape[1] / self.ink.shape[0] if k % 2 else 1.0)
        digit = self.digit
        if digit is not None:
            dx, dy = digit
            for _ in range(k):
                dx, dy = dy, -dx  # np.rot90 turns counter-clockwise: (dx, dy) -> (dy, -dx)
            digit = (float(dx), float(dy))
        return Glyph(
            normalised=np.ascontiguousarray(np.rot90(self.normalised, k)),
            ink=np.ascontiguousarray(np.rot90(self.ink, k)),
            height=float(height),
            digit=digit,
            marked=self.marked,
        )


def crop_margin_px(square_px: int) -> int:
    """Margin in pixels around each square's crop for a rectified image of ``square_px``.

    >>> crop_margin_px(48)
    16
    """
    return int(round(square_px * CROP_MARGIN))


def square_crop(
    rectified: np.ndarray, row: int, col: int, square_px: int, margin: int
) -> np.ndarray:
    """The crop of one square plus ``margin`` pixels on each side.

    ``rectified`` is the top-down board image with ``margin`` pixels of picture around the
    15x15 grid (so that edge squares have their margin too).
    """
    y = row * square_px
    x = col * square_px
    return rectified[y : y + square_px + 2 * margin, x : x + square_px + 2 * margin]


#: Ink is darker than the face around it by at least this share of the face's brightness.
MIN_INK_CONTRAST = 0.12


#: A square whose darkest marks stay below this contrast shows no ink at all (a blank face).
MIN_GLYPH_CONTRAST = 0.2


#: Where a blurred stroke's edge lies, as a share of the glyph's peak contrast (half maximum).
EDGE_LEVEL = 0.5


#: Fainter ink joined to a glyph's strokes still belongs to it, down to this share of the peak.
WEAK_LEVEL = 0.3


#: The same for squares where no glyph stood out at WEAK_LEVEL (a blur ran the letter's
#: weaker ink into the tile's edge or shadow).
FALLBACK_WEAK_LEVEL = 0.4


#: The ink of a glyph handed to the other readers (:attr:`Glyph.ink`: Tesseract, the bar test,
#: the orientation's lean) stands above this share of the peak, as all of a glyph did before
#: WEAK_LEVEL was lowered: Tesseract alone read 19 squares of the real game wrong with the
#: weaker ink, 11 with this (``bench/eval_scrabscrap.py``).
READER_INK_LEVEL = 0.4


#: Pixels at least this share of the face's brightness count as face (not board, gap, shadow).
FACE_LEVEL = 0.72


#: A blurred stroke's faint spread, down to this share of the peak (and at least
#: MIN_FAINT_CONTRAST), still shows the glyph's shape: a stroke thinner than the blur keeps only
#: a fraction of its contrast (a serif letter's thin crossbar under motion blur across it keeps
#: a quarter to a third), and is lost to the thresholds above while a reader still sees it.
FAINT_LEVEL = 0.2


MIN_FAINT_CONTRAST = 0.08


#: How far (in squares) faint ink is followed from the glyph's strokes: as far as a blur spreads
#: a stroke, short of the tile's edges.
FAINT_REACH = 0.3


#: Share of the peak contrast at which the normalised glyph is full ink: the thick strokes
#: saturate, so that the faint ones weigh in their shape rather than their depth.
SATURATION = 0.6


#: Side of the window, in squares, that the normalised glyph shows around the glyph's centre of
#: ink: wide enough for a tile's letter, at the same scale for every glyph, so that a blur's
#: spread changes the glyph's appearance but not its size.
GLYPH_WINDOW = 0.6


#: Pixels around a point-value digit taken out of the faint ink, so that its blurred spread
#: does not join the letter's.
DIGIT_CLEARANCE = 2


#: The bands near a square's two ends (shares of its side) where a line across it still
#: shows and a letter never reaches (a letter is about half a square tall) ...
LINE_ENDS = ((0.04, 0.12), (0.88, 0.96))


#: ... with at least this share of its contrast in the square's middle ...
LINE_ACROSS = 0.5


#: ... which is at least this share of the square's darkest strokes (:meth:`GlyphFinder.glyphs`'
#: peak): the line is what the square shows, not a faint edge beside a letter.
LINE_SHARE = 0.5


def _grey(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _closing_kernel(square_px: int) -> np.ndarray:
    # Wider than any stroke of a tile's letter (about a tenth of a square, more when blurred),
    # narrower than the face around it.
    k = max(3, int(square_px * 0.35) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


@lru_cache(maxsize=8)
def _kernel_rectangles(square_px: int) -> tuple[tuple[np.ndarray, tuple[int, int]], ...]:
    """The closing kernel (:func:`_closing_kernel`) as rectangles, each with its anchor,
    whose union it is: one for each width its rows take, spanning the rows at least that wide
    (the kernel itself where it is no such union)."""
    kernel = _closing_kernel(square_px)
    centre = (kernel.shape[1] // 2, kernel.shape[0] // 2)
    widths = kernel.sum(axis=1)
    union = np.zeros_like(kernel)
    rectangles = []
    for width in sorted(set(widths[widths > 0].tolist())):
        rows = np.flatnonzero(widths >= width)
        left = int(np.flatnonzero(kernel[int(np.flatnonzero(widths == width)[0])])[0])
        top, height = int(rows[0]), int(rows[-1] - rows[0] + 1)
        union[top : top + height, left : left + int(width)] = 1
        rectangles.append((np.ones((height, int(width)), np.uint8),
                           (centre[0] - left, centre[1] - top)))
    if not np.array_equal(union, kernel):
        return ((kernel, centre),)
    return tuple(rectangles)


def _closed(image: np.ndarray, square_px: int) -> np.ndarray:
    """``cv2.morphologyEx(image, cv2.MORPH_CLOSE, _closing_kernel(square_px))`` of a uint8
    image, the same to the last pixel: dilated by the kernel's rectangles (the largest of
    their dilations), then eroded by them (the least of their erosions).  OpenCV's morphology
    runs along rows and columns apart for a rectangle, not for the ellipse: in half the time."""
    rectangles = _kernel_rectangles(square_px)
    kernel, anchor = rectangles[0]
    dilated = cv2.dilate(image, kernel, anchor=anchor)
    for kernel, anchor in rectangles[1:]:
        np.maximum(dilated, cv2.dilate(image, kernel, anchor=anchor), out=dilated)
    kernel, anchor = rectangles[0]
    closed = cv2.erode(dilated, kernel, anchor=anchor)
    for kernel, anchor in rectangles[1:]:
        np.minimum(closed, cv2.erode(dilated, kernel, anchor=anchor), out=closed)
    return closed


class GlyphFinder:
    """Finds the glyph on many tiles of one rectified image at once.

    Ink is found by its *contrast* with the tile face right around it: a morphological closing
    of the grey image wider than a stroke gives the face's brightness under every stroke, so that
    neither the lighting across the board nor the colour of the tiles (ivory plastic, wood) or of
    the board matters.  Each square's threshold is half of the strongest contrast in its middle
    (a blurred stroke's edge lies at half its depth), which keeps strokes their width whether the
    photo is sharp or soft.  The crops of all requested squares are laid side by side in one
    mosaic image, so that morphology and connected components run once for all of them, and the
    components are judged as arrays.

    The contrast image is computed once; :meth:`glyphs` can then be asked for any squares in any
    of the four quarter turns of the image (the closing is symmetric, so turning it commutes).
    """

    def __init__(self, rectified: np.ndarray, square_px: int, margin: int | None = None,
                 joined: bool = True) -> None:
        self.square_px = int(square_px)
        self.margin = crop_margin_px(square_px) if margin is None else int(margin)
        #: Whether marks above a letter (Ä Ö Ü) and a second letter beside it (tiles of two
        #: letters) join its glyph; without such tiles in the set, joining only picks up noise.
        self.joined = joined
        grey = _grey(rectified)
        background = _closed(grey, self.square_px)
        self.grey = grey
        # 1 - grey / background, in 1/255 steps (uint8 keeps the crops cheap); computed in
        # place, step by step as 255 - 255 * grey / max(background, 1) rounds in float32.
        contrast = grey.astype(np.float32)
        contrast *= 255.0
        contrast /= np.maximum(background, 1)
        np.subtract(255.0, contrast, out=contrast)
        np.clip(contrast, 0, 255, out=contrast)
        self.contrast = contrast.astype(np.uint8)
        # Each square's face level and ink peak (see _face_level and _ink_peak), by quarter
        # turn and square: a read asks for those of the same tiles several times (their
        # glyphs, the faces of the lettered tiles for missed ones, the lines across them).
        self._face_levels: dict[tuple[int, tuple[int, int]], int] = {}
        self._ink_peaks: dict[tuple[int, tuple[int, int]], int] = {}

    @staticmethod
    def _per_square(kept: dict[tuple[int, tuple[int, int]], int],
                    squares: Sequence[tuple[int, int]], k: int,
                    compute: Callable[[list[int]], np.ndarray]) -> np.ndarray:
        """The values (uint8) of ``squares`` in the picture turned ``k`` times, as ``kept``
        holds them; ``compute`` gives those of the squares at the positions given (in
        ``squares``) that it does not hold yet.  A square's value is of its own crop alone,
        whichever squares it is asked with."""
        keys = [(k, (int(r), int(c))) for r, c in squares]
        missing = [i for i, key in enumerate(keys) if key not in kept]
        if missing:
            for i, value in zip(missing, compute(missing).tolist(), strict=True):
                kept[keys[i]] = value
        return np.array([kept[key] for key in keys], np.uint8)

    def glyphs(
        self, squares: Sequence[tuple[int, int]], quarter_turns: int = 0,
        gains: Sequence[float] | None = None,
    ) -> list[Glyph | None]:
        """The glyph (None: a blank face or no tile) of each square of the image turned
        counter-clockwise ``quarter_turns`` times (squares in the turned image's terms).

        ``gains``, one per square, multiply its contrast first: glare adds light to a face and
        its letter alike, which divides the letter's contrast by as much as it brightens the
        face (see :func:`vision.missed_letters.letters_under_glare`)."""
        if len(squares) == 0:
            return []
        k = quarter_turns % 4
        grey = np.rot90(self.grey, k)
        contrast = np.rot90(self.contrast, k)
        s, m = self.square_px, self.margin
        side = s + 2 * m
        rows = np.array([r for r, _ in squares])
        cols = np.array([c for _, c in squares])
        grey_crops = _crops(grey, rows, cols, s, side)
        contrast_crops = _crops(contrast, rows, cols, s, side)
        if gains is not None:
            gain = np.asarray(gains, np.float32).reshape(-1, 1, 1)
            contrast_crops = np.clip(contrast_crops * gain, 0, 255).astype(np.uint8)
        # The darkest contrast in the square's own middle (a tile may sit a third of a square
        # off it) is the glyph's.
        if gains is None:
            peaks = self._per_square(self._ink_peaks, squares, k,
                                     lambda at: _ink_peak(contrast_crops[at], s, m))
        else:
            peaks = _ink_peak(contrast_crops, s, m)
        peak = peaks.astype(np.float32) / 255.0
        visible = peak >= MIN_GLYPH_CONTRAST
        if not visible.any():
            # No ink in any square's middle: no glyph anywhere (squares taken for empty, looked
            # at again for a missed tile, are mostly so).
            return [None] * len(squares)
        face_level = self._per_square(self._face_levels, squares, k,
                                      lambda at: _face_level(grey_crops[at], s, m))
        if visible.all():
            return self._glyphs_of_crops(grey_crops, contrast_crops, peak, face_level)
        # A square with no ink in its middle has no glyph, and every step below works on each
        # crop alone (the mosaics keep the crops apart): only the others are looked at, with
        # the same results (of the empty squares looked at for a missed tile, most are bare).
        shown = np.flatnonzero(visible)
        picked = self._glyphs_of_crops(grey_crops[shown], contrast_crops[shown], peak[shown],
                                       face_level[shown])
        found: list[Glyph | None] = [None] * len(squares)
        for i, glyph in zip(shown.tolist(), picked, strict=True):
            found[i] = glyph
        return found

    def _glyphs_of_crops(self, grey_crops: np.ndarray, contrast_crops: np.ndarray,
                         peak: np.ndarray, face_level: np.ndarray) -> list[Glyph | None]:
        """The glyphs in crops (N, side, side) of grey and contrast whose middles show ink:
        their peak contrast (0..1) is at least :data:`MIN_GLYPH_CONTRAST`; ``face_level`` is
        each one's :func:`_face_level`."""
        s = self.square_px
        n, side = grey_crops.shape[:2]
        face = grey_crops >= (FACE_LEVEL * face_level.astype(np.float32))[:, None, None]
        pad = _closing_kernel(s).shape[0]
        face_mosaic, layout = _mosaic(face.astype(np.uint8), pad)
        # The face with its glyph filled in (the glyph is a hole in the face, or, where the
        # face around it is broken, a gap that a closing bridges); well inside it is where ink
        # may lie.
        region = _closed(face_mosaic, s)
        region |= _holes(face_mosaic)
        inner = cv2.erode(region, np.ones((5, 5), np.uint8))
        inner_stack = _unmosaic(inner, layout, n, side)
        found = self._pick(contrast_crops, inner_stack, peak, WEAK_LEVEL)
        # Where a blur ran the weaker ink of a letter into the tile's edge (too large, or off
        # the face), the letter's ink at the old, stricter level stands alone.
        again = [i for i, glyph in enumerate(found) if glyph is None]
        if again:
            retried = self._pick(contrast_crops[again], inner_stack[again], peak[again],
                                 FALLBACK_WEAK_LEVEL)
            for i, glyph in zip(again, retried, strict=True):
                found[i] = glyph
        return found

    def _pick(self, contrast_crops: np.ndarray, inner_stack: np.ndarray, peak: np.ndarray,
              weak_share: float) -> list[Glyph | None]:
        """The glyphs in crops (N, side, side) of contrast that show ink, with where ink may
        lie in each (``inner_stack``) and their peak contrast (0..1), the weaker ink taken down
        to ``weak_share`` of the peak."""
        s = self.square_px
        n, side = contrast_crops.shape[:2]
        # Hysteresis: a glyph is the ink connected to its strongest strokes, down to a lower
        # level, so that thin strokes (serifs, a blurred crossbar) stay joined to thick ones.
        strong_level = np.maximum(MIN_INK_CONTRAST, EDGE_LEVEL * peak) * 255.0
        weak_level = np.maximum(MIN_INK_CONTRAST, weak_share * peak) * 255.0
        strong = contrast_crops > strong_level[:, None, None]
        ink = contrast_crops > weak_level[:, None, None]
        # Components only need the crops one pixel apart: a tight mosaic labels faster.
        inner_mosaic, tight = _mosaic(inner_stack, 1)
        ink_mosaic, _ = _mosaic(ink.view(np.uint8), 1)
        strong_mosaic, _ = _mosaic(strong.view(np.uint8), 1)
        # Faint ink, only where ink may lie: what a blur left of thin strokes.
        faint_level = np.maximum(MIN_FAINT_CONTRAST, FAINT_LEVEL * peak) * 255.0
        faint = (contrast_crops > faint_level[:, None, None]) & (inner_stack > 0)
        faint_mosaic, _ = _mosaic(faint.view(np.uint8), 1)
        contrast_mosaic, _ = _mosaic(contrast_crops, 1)
        reader_level = (np.maximum(MIN_INK_CONTRAST, READER_INK_LEVEL * peak) * 255.0
                        if weak_share < READER_INK_LEVEL else None)
        shading = _Shading(faint_mosaic, contrast_mosaic, contrast_crops, faint_level,
                           peak * 255.0, reader_level, strong_mosaic)
        return _assemble(ink_mosaic, strong_mosaic, inner_mosaic, tight, n, side, float(s),
                         self.joined, shading)

    def lines_across(
        self, squares: Sequence[tuple[int, int]], quarter_turns: int = 0
    ) -> np.ndarray:
        """Whether each square's darkest stroke is a line running across the whole square
        (down or across it), in the terms of :meth:`glyphs`.

        A letter ends well inside its tile's face; a folding board's hinge, a scratch or a
        cable runs on to the square's edges, where no letter reaches (:data:`LINE_ENDS`), as
        strong there as in the middle (:data:`LINE_ACROSS`).  The stroke is the strongest
        column (row) of contrast in the square's middle, less the square's median, and must
        be the square's darkest (:data:`LINE_SHARE`).
        """
        if len(squares) == 0:
            return np.zeros(0, bool)
        contrast = np.rot90(self.contrast, quarter_turns % 4)
        s, m = self.square_px, self.margin
        rows = np.array([r for r, _ in squares])
        cols = np.array([c for _, c in squares])
        with_margin = _crops(contrast, rows, cols, s, s + 2 * m)
        # The darkest strokes in the square's middle, as the glyphs are judged (a tile's
        # edge, shifted into the middle by parallax, runs across it too, but far fainter than
        # the letter on the tile).
        peak = self._per_square(self._ink_peaks, squares, quarter_turns % 4,
                                lambda at: _ink_peak(with_margin[at], s, m))
        crops = with_margin[:, m:m + s, m:m + s].astype(np.float32)
        n = len(squares)
        index = np.arange(n)
        lo, hi = int(0.2 * s), int(0.8 * s)
        across = np.zeros(n, bool)
        for lines in (crops, crops.transpose(0, 2, 1)):  # down, then across
            def profile(start: float, stop: float, lines: np.ndarray = lines) -> np.ndarray:
                band = lines[:, int(start * s):int(stop * s), :].mean(axis=1)
                return band - median(band, axis=1)[:, None]

            middle = profile(0.25, 0.75)
            line = lo + np.argmax(middle[:, lo:hi], axis=1)
            strength = middle[index, line]
            ends = np.minimum(profile(*LINE_ENDS[0])[index, line],
                              profile(*LINE_ENDS[1])[index, line])
            across |= ((strength >= MIN_INK_CONTRAST * 255) & (strength >= LINE_SHARE * peak)
                       & (ends >= LINE_ACROSS * strength))
        return across

    def _crops_of(self, image: np.ndarray, squares: Sequence[tuple[int, int]],
                  quarter_turns: int) -> np.ndarray:
        """The crops (N, side, side) of ``squares`` of ``image`` (the grey or the contrast
        picture) turned counter-clockwise ``quarter_turns`` times."""
        rows = np.array([r for r, _ in squares])
        cols = np.array([c for _, c in squares])
        s = self.square_px
        return _crops(np.rot90(image, quarter_turns % 4), rows, cols, s, s + 2 * self.margin)

    def ink_peaks(
        self, squares: Sequence[tuple[int, int]], quarter_turns: int = 0
    ) -> np.ndarray:
        """The contrast (0..1) of the darkest strokes in the middle of each square: what
        :meth:`glyphs` compares with :data:`MIN_GLYPH_CONTRAST` (in the terms of
        :meth:`glyphs`)."""
        if len(squares) == 0:
            return np.zeros(0)
        peaks = self._per_square(
            self._ink_peaks, squares, quarter_turns % 4,
            lambda at: _ink_peak(self._crops_of(self.contrast, [squares[i] for i in at],
                                                quarter_turns), self.square_px, self.margin))
        return peaks.astype(np.float64) / 255.0

    def face_brightness(
        self, squares: Sequence[tuple[int, int]], quarter_turns: int = 0
    ) -> np.ndarray:
        """The brightness (grey 0..255) of what lies in the middle of each square: a tile's
        face, or the board (in the terms of :meth:`glyphs`)."""
        if len(squares) == 0:
            return np.zeros(0)
        levels = self._per_square(
            self._face_levels, squares, quarter_turns % 4,
            lambda at: _face_level(self._crops_of(self.grey, [squares[i] for i in at],
                                                  quarter_turns), self.square_px, self.margin))
        return levels.astype(np.float64)


def _face_level(grey_crops: np.ndarray, square_px: int, margin: int) -> np.ndarray:
    """The brightness of each crop's face (80th percentile of grey): the brightest part of
    the square's own middle."""
    lo, hi = margin + int(0.15 * square_px), margin + square_px - int(0.15 * square_px)
    middle = grey_crops[:, lo:hi, lo:hi].reshape(len(grey_crops), -1)
    at = int(0.8 * middle.shape[1])
    return np.partition(middle, at, axis=1)[:, at]


def _ink_peak(contrast_crops: np.ndarray, square_px: int, margin: int) -> np.ndarray:
    """The contrast of each crop's darkest strokes (97th percentile, 1/255 steps): in the
    square's central half, where the edges of the tile (and its shadow, and the gaps to its
    neighbours) never reach."""
    lo, hi = margin + int(0.25 * square_px), margin + square_px - int(0.25 * square_px)
    middle = contrast_crops[:, lo:hi, lo:hi].reshape(len(contrast_crops), -1)
    at = int(0.97 * middle.shape[1])
    return np.partition(middle, at, axis=1)[:, at]


def _holes(mask: np.ndarray) -> np.ndarray:
    """The parts of a 0/1 mask's background that its border cannot reach (its holes)."""
    outside = (1 - mask).astype(np.uint8)
    flood = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), np.uint8)
    # The mosaic's border is background: flooding from a corner reaches all of the outside.
    cv2.floodFill(outside, flood, (0, 0), 0)
    return outside


def _crops(image: np.ndarray, rows: np.ndarray, cols: np.ndarray, square_px: int,
           side: int) -> np.ndarray:
    """Copies (N, side, side) of the crops at squares (rows, cols) of a grid with margin."""
    image = np.ascontiguousarray(image)
    r_stride, c_stride = image.strides[:2]
    across = ((image.shape[0] - side) // square_px + 1, (image.shape[1] - side) // square_px + 1)
    if rows.max() >= across[0] or cols.max() >= across[1] or min(across) < 1:
        raise ValueError(
            f"squares up to ({rows.max()}, {cols.max()}) do not fit a {image.shape[1]}x"
            f"{image.shape[0]} image of {square_px} px squares with crops of {side} px"
        )
    grid = np.lib.stride_tricks.as_strided(
        image, shape=(*across, side, side),
        strides=(square_px * r_stride, square_px * c_stride, r_stride, c_stride),
        writeable=False,
    )
    return grid[rows, cols]


@dataclass(frozen=True)
class _Layout:
    columns: int
    pitch: int
    pad: int


@dataclass(frozen=True)
class _Shading:
    """What the normalised glyphs are drawn from: the crops' faint ink and contrast (mosaics
    laid out as the ink's), and each crop's faint level and peak contrast (1/255 steps)."""

    faint: np.ndarray
    contrast: np.ndarray
    #: The same contrast as crops (N, side, side), as the mosaic was laid out from.
    contrast_crops: np.ndarray
    faint_level: np.ndarray
    peak: np.ndarray
    #: Each crop's level (1/255 steps) of the ink handed to the other readers (see
    #: READER_INK_LEVEL; None: the glyph's own ink), and the strong ink mosaic.
    reader_level: np.ndarray | None = None
    strong: np.ndarray | None = None


def _mosaic(stack: np.ndarray, pad: int) -> tuple[np.ndarray, _Layout]:
    """The crops (N, side, side) side by side, ``pad`` zero pixels apart."""
    n, side = stack.shape[0], stack.shape[1]
    columns = max(1, int(np.ceil(np.sqrt(n))))
    rows = -(-n // columns)
    pitch = side + pad
    mosaic = np.zeros((rows * pitch + pad, columns * pitch + pad), stack.dtype)
    view = mosaic[pad:, pad:].reshape(rows, pitch, columns, pitch)[:, :side, :, :side]
    # The full rows of crops at once, then the last row's (copied straight in, not through a
    # padded stack).
    full = n // columns
    view[:full] = stack[: full * columns].reshape(full, columns, side, side).transpose(0, 2, 1, 3)
    if full < rows:
        view[full, :, : n - full * columns] = stack[full * columns :].transpose(1, 0, 2)
    return mosaic, _Layout(columns, pitch, pad)


def _unmosaic(mosaic: np.ndarray, layout: _Layout, n: int, side: int) -> np.ndarray:
    """The crops (n, side, side) of a mosaic made by :func:`_mosaic`."""
    rows = -(-n // layout.columns)
    pad, pitch = layout.pad, layout.pitch
    view = mosaic[pad:pad + rows * pitch, pad:pad + layout.columns * pitch]
    view = view.reshape(rows, pitch, layout.columns, pitch)[:, :side, :, :side]
    return view.transpose(0, 2, 1, 3).reshape(rows * layout.columns, side, side)[:n]


def _mosaic_crops(mosaic: np.ndarray, layout: _Layout, crops: np.ndarray,
                  side: int) -> np.ndarray:
    """Copies (len(crops), side, side) of the crops numbered ``crops`` of a mosaic made by
    :func:`_mosaic` (only those copied: :func:`_unmosaic` copies every crop)."""
    rows = -(-(int(crops.max()) + 1) // layout.columns)
    pad, pitch = layout.pad, layout.pitch
    view = mosaic[pad:pad + rows * pitch, pad:pad + layout.columns * pitch]
    view = view.reshape(rows, pitch, layout.columns, pitch)[:, :side, :, :side]
    return view[crops // layout.columns, :, crops % layout.columns, :]


#: Share of a mask's pixels set below which :func:`_components_with_stats` gathers the
#: statistics itself, run by run (on 811x811 mosaics of a real game's 1080p frame, NumPy 2.4:
#: 2.1 ms against OpenCV's 4.2 at 21 %, 2.6 against 4.1 at 58 % once dilated; pixel by
#: pixel, as before runs, 5.8 at 21 %).  Runs are as many as pixels in a mask of specks.
SPARSE_SHARE = 0.25


def _components_with_stats(
    mask: np.ndarray, on: np.ndarray
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)`` of a 0/1 uint8 mask whose
    pixels set are ``on`` (flat indices, ascending): the same labels, statistics and centres.
    Where few pixels are set (:data:`SPARSE_SHARE`) the statistics are gathered from those
    pixels alone, a row's run of them at a time: OpenCV's own pass over every pixel took three
    quarters of the labelling's time on a mosaic of crops of squares with no ink, and more
    than this on sparser ones.

    >>> mask = np.zeros((5, 7), np.uint8); mask[1:3, 1:3] = 1; mask[3, 4:6] = 1
    >>> count, labels, stats, centres = _components_with_stats(mask, np.flatnonzero(mask))
    >>> count, stats[1:].tolist(), centres[1:].tolist()
    (3, [[1, 1, 2, 2, 4], [4, 3, 2, 1, 2]], [[1.5, 1.5], [4.5, 3.0]])
    """
    if len(on) > SPARSE_SHARE * mask.size:
        return cv2.connectedComponentsWithStats(mask, connectivity=8)  # type: ignore[return-value]
    count, labels = cv2.connectedComponents(mask, connectivity=8, ltype=cv2.CV_32S)
    height, width = mask.shape
    stats = np.zeros((count, 5), np.int32)
    centres = np.zeros((count, 2), np.float64)
    # The set pixels in runs along the rows (a run is of one component, its pixels being
    # neighbours): the statistics are gathered run by run, a sixth as many as pixels.
    starts = np.empty(len(on), bool)
    starts[:1] = True
    np.not_equal(np.diff(on), 1, out=starts[1:])
    if len(on) and mask[:, 0].any():
        starts |= on % width == 0  # no run goes on from a row's end to the next row's start
    first = np.flatnonzero(starts)
    begin = on[first]
    length = np.diff(first, append=len(on))
    ys = begin // width
    xs = begin - ys * width
    label = labels.ravel()[begin]
    # Sums of whole numbers far below 2**53: exact in float64.
    area = np.bincount(label, weights=length, minlength=count).astype(np.int64)
    stats[:, cv2.CC_STAT_AREA] = area
    # Each run's sums of its pixels' coordinates: the whole pixel coordinates' sums.
    x_sums = length * xs + length * (length - 1) // 2
    y_sums = length * ys
    if count > 1:
        # Every label but the background's has a pixel set.
        stats[1:, :4] = run_boxes(label, xs, ys, length, count, mask.shape)[1:]
        # Sums of whole pixel coordinates, exact (as OpenCV's in float64): the centres are
        # OpenCV's to the last bit.
        for axis, sums in enumerate((x_sums, y_sums)):
            total = np.zeros(count, np.int64)
            np.add.at(total, label, sums)
            centres[1:, axis] = total[1:] / area[1:]
    # The background: its area and centre from the whole image's, its box from the rows and
    # columns with a pixel not set (a mosaic's border is background all round).
    background = height * width - len(on)
    stats[0, cv2.CC_STAT_AREA] = background
    if background:
        if mask[0].all() or mask[-1].all() or mask[:, 0].all() or mask[:, -1].all():
            clear = mask == 0
            rows, columns = np.flatnonzero(clear.any(axis=1)), np.flatnonzero(clear.any(axis=0))
        else:
            rows, columns = np.array([0, height - 1]), np.array([0, width - 1])
        stats[0, :4] = (columns[0], rows[0], columns[-1] - columns[0] + 1,
                        rows[-1] - rows[0] + 1)
        centres[0] = ((height * width * (width - 1) / 2 - float(x_sums.sum())) / background,
                      (width * height * (height - 1) / 2 - float(y_sums.sum())) / background)
    else:  # as OpenCV leaves a label with no pixel
        stats[0, :2] = (-1, np.iinfo(np.int32).max)
        centres[0] = np.nan
    return count, labels, stats, centres


def _assemble(ink: np.ndarray, strong: np.ndarray, inner: np.ndarray, layout: _Layout, n: int,
              side: int, s: float, joined: bool, shading: _Shading) -> list[Glyph | None]:
    """Pick each crop's glyph among the ink components of the mosaic (see :func:`extract_glyph`
    for the rules).

    Components are those of the weaker ``ink`` (so that a letter's thin strokes hold together);
    a letter's holds some ``strong`` ink.  A point-value digit that the weaker ink joins to a
    wide letter is told apart as a small strong piece beside a corner of the letter's main
    piece.  The normalised glyph is drawn from the ``shading`` (see :func:`_shaded_glyphs`).
    """
    # Per-pixel sums over the ink pixels only (a small share of the mosaic).  The masks are
    # 0/1: read as booleans, NumPy finds their pixels set in a fifth of the time.
    on_ink = np.flatnonzero(ink.view(bool))
    count, labels, stats, centres = _components_with_stats(ink, on_ink)
    if count <= 1:
        return [None] * n
    flat = labels.ravel()
    ink_label = flat[on_ink]  # each ink pixel's component
    inside = np.bincount(ink_label, weights=inner.ravel()[on_ink].astype(np.float64),
                         minlength=count)
    on_strong = np.flatnonzero(strong.view(bool))
    pieces, piece_labels, piece_stats, piece_centres = _components_with_stats(strong, on_strong)
    # Strong ink lies within the faint ink: each strong piece belongs to one component.
    parent = np.zeros(pieces, np.int64)
    parent[piece_labels.ravel()[on_strong]] = flat[on_strong]
    parent[0] = 0
    has_strong = np.bincount(parent, minlength=count) > 0
    pieces_of: dict[int, list[int]] = {}
    parent_of = parent.tolist()
    for piece in np.flatnonzero(parent).tolist():
        pieces_of.setdefault(parent_of[piece], []).append(piece)
    stats = stats.astype(np.int64)
    area = stats[:, cv2.CC_STAT_AREA]
    inside_share = inside / np.maximum(area, 1)
    x0 = stats[:, cv2.CC_STAT_LEFT] - layout.pad
    y0 = stats[:, cv2.CC_STAT_TOP] - layout.pad
    crop = (y0 // layout.pitch) * layout.columns + (x0 // layout.pitch)
    x = x0 % layout.pitch
    y = y0 % layout.pitch
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    cx = centres[:, 0] - layout.pad - (x0 - x)
    cy = centres[:, 1] - layout.pad - (y0 - y)
    distance = np.hypot(cx - side / 2, cy - side / 2)
    # Sizes are judged on the longer side: the picture may show the tile turned any way.
    longer = np.maximum(w, h)
    candidate = (
        (area >= s * s * 0.01) & (longer >= s * 0.25) & (longer <= s * 0.8)
        & (x > 0) & (y > 0) & (x + w < side) & (y + h < side)  # not cut by the crop
        & (distance <= s * 0.45)
        & (inside_share >= 0.9)  # on a face, not a shadow or gap along a tile's edge
        & has_strong
    )
    candidate[0] = False
    ids = np.nonzero(candidate)[0]
    # Each crop's tallest central component first; then, since the letters of one tile set
    # stand about equally tall, the component nearest that common size and the middle (a stretch
    # of the gap beside a tile shifted by parallax can be the longest thing in the crop).
    best = _best_per_crop(ids, crop, longer - 1.5 * distance, n)
    if (best >= 0).sum() >= 3:
        typical = float(np.median(longer[best[best >= 0]]))
        best = _best_per_crop(ids, crop, -np.abs(longer - typical) - distance, n)
    # Components of each crop, for marks, neighbouring letters and the digit.
    small = (area >= 3) & (np.arange(count) > 0)
    # Python numbers for the work on each component below (taken from the arrays one at a
    # time, they cost most of this function's own time).
    x_of, y_of, w_of, h_of, area_of, crop_of = (
        a.tolist() for a in (x, y, w, h, area, crop))
    share_of, cx_of, cy_of = inside_share.tolist(), cx.tolist(), cy.tolist()
    by_crop: dict[int, list[int]] = {}
    for k in np.flatnonzero(small).tolist():
        by_crop.setdefault(crop_of[k], []).append(k)
    #: Each crop's glyph so far (its mask, ink, height, digit and marks), or None.
    parts: list[tuple[np.ndarray, np.ndarray, float, tuple[float, float] | None, bool] | None]
    parts = [None] * n
    #: (crop, components kept, boxes of the digit's ink) of each glyph found, for the shading.
    found: list[tuple[int, list[int], list[tuple[int, int, int, int]]]] = []
    #: Where each glyph found's mask lies in the mosaic (top, left).
    origins: list[tuple[int, int]] = []
    # Which components of the faint ink each ink component's pixels lie in: (ink label,
    # faint label) pairs, sorted, made once where a digit is looked for.
    faint_pairs: tuple[np.ndarray, np.ndarray] | None = None

    def faint_of(ks: list[int]) -> set[int]:
        """The components of the faint ink that the pixels of ink components ``ks`` lie in."""
        nonlocal faint_pairs
        if faint_pairs is None:
            faint_labels = cv2.connectedComponents(shading.faint, connectivity=8)[1]
            faint = faint_labels.ravel()[on_ink].astype(np.int64)
            on_faint = faint > 0
            base = int(faint.max()) + 1
            pairs = _distinct(ink_label[on_faint].astype(np.int64) * base + faint[on_faint])
            faint_pairs = (pairs // base, pairs % base)
        ink, faint_label = faint_pairs
        return {f for k in ks for f in faint_label[np.searchsorted(ink, k, "left"):
                                                    np.searchsorted(ink, k, "right")].tolist()}

    for i, g in enumerate(best.tolist()):
        if g < 0:
            continue
        oy = layout.pad + (i // layout.columns) * layout.pitch
        ox = layout.pad + (i % layout.columns) * layout.pitch
        digit_boxes = _joined_digits(pieces_of.get(g, []), piece_stats, piece_centres, ox, oy, s)
        gx, gy, gw, gh, garea = x_of[g], y_of[g], w_of[g], h_of[g], area_of[g]
        keep = [g]
        marked = False
        for k in by_crop.get(i, []):
            if k == g or share_of[k] < 0.9:
                continue
            kx, ky, kw, kh, karea = x_of[k], y_of[k], w_of[k], h_of[k], area_of[k]
            above = (
                ky + kh <= gy + 2 and ky >= gy - 0.4 * gh and kx >= gx - 3
                and kx + kw <= gx + gw + 3 and 3 <= karea <= 0.2 * garea
                and kw <= 0.8 * gw and kh <= 0.35 * gh
                # Dots and accents (two dots may run together), not a thin stretch of the
                # tile's edge above.
                and (kw <= 2.5 * kh or kh >= 0.15 * gh)
            )
            # A second letter of a multi-letter tile; not a thin line (a gap between tiles).
            beside = (
                kh >= 0.7 * gh and abs((ky + kh / 2) - (gy + gh / 2)) < 0.2 * gh
                and min(abs(kx - (gx + gw)), abs(gx - (kx + kw))) < 0.3 * gh
                and kx > 0 and kx + kw < side and kw >= 0.3 * kh
            )
            if joined and (above or beside):
                keep.append(k)
                marked = marked or above
        # The kept components' box; cut to the ink left once a joined digit is taken out.
        left = min(x_of[k] for k in keep)
        top = min(y_of[k] for k in keep)
        right = max(x_of[k] + w_of[k] for k in keep)
        bottom = max(y_of[k] + h_of[k] for k in keep)
        window = labels[oy + top : oy + bottom, ox + left : ox + right]
        mask = window == g if len(keep) == 1 else np.isin(window, keep)
        if digit_boxes:
            for bx0, by0, bx1, by1 in digit_boxes:
                mask[max(0, by0 - 1 - top) : max(0, by1 + 1 - top),
                     max(0, bx0 - 1 - left) : max(0, bx1 + 1 - left)] = False
            ys, xs = np.nonzero(mask)
            if len(ys) == 0:
                continue
            mask = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            top, bottom = top + int(ys.min()), top + int(ys.max()) + 1
            left, right = left + int(xs.min()), left + int(xs.max()) + 1
        glyph_mask = mask
        centre = np.array([(left + right) / 2, (top + bottom) / 2])
        total = np.zeros(2)
        weight = 0.0
        digit_ink = list(digit_boxes)
        # The faint ink the letter's components lie in, found at the first digit asked about.
        letter_faint: set[int] | None = None
        for bx0, by0, bx1, by1 in digit_boxes:
            size = float((bx1 - bx0) * (by1 - by0))
            total += (np.array([(bx0 + bx1) / 2, (by0 + by1) / 2]) - centre) / s * size
            weight += size
        for k in by_crop.get(i, []):
            # The digit sits near the face's edge, where the eroded face is thin.
            if k in keep or share_of[k] < 0.7 or area_of[k] < 4:
                continue
            longer, shorter = max(w_of[k], h_of[k]), min(w_of[k], h_of[k])
            if not (0.08 * s <= longer <= 0.4 * s) or (longer > 3 * shorter and longer > 0.22 * s):
                continue  # not a digit's size, or a thin stretch of a gap between tiles
            offset = (np.array([cx_of[k], cy_of[k]]) - centre) / s
            length = float(np.hypot(*offset))
            # Diagonally off the letter: a gap or a neighbour's letter lies straight beside it.
            if not (0.2 <= length <= 0.6 and min(abs(offset[0]), abs(offset[1])) >= 0.08):
                continue
            # Joined to the letter by its faint ink: a stroke of the letter that a blur across
            # it left weaker than the rest (an L's foot, an E's arm), not the digit.
            if letter_faint is None:
                letter_faint = faint_of(keep)
            if faint_of([k]) & letter_faint and not (
                    bool(has_strong[k]) and _off_the_corner(
                        (x_of[k], y_of[k], w_of[k], h_of[k]), (left, top, right, bottom))
                    and _thinner(labels[oy + y_of[k] : oy + y_of[k] + h_of[k],
                                        ox + x_of[k] : ox + x_of[k] + w_of[k]] == k,
                                 labels[oy + top : oy + bottom, ox + left : ox + right] == g)):
                continue
            total += offset * area_of[k]
            weight += area_of[k]
            digit_ink.append((x_of[k], y_of[k], x_of[k] + w_of[k], y_of[k] + h_of[k]))
        digit = None if weight == 0 else (float(total[0] / weight), float(total[1] / weight))
        found.append((i, keep, digit_ink))
        origins.append((oy + top, ox + left))
        # The ink handed to the other readers is set below, for every glyph at once.
        parts[i] = (glyph_mask, glyph_mask, float(bottom - top) / s, digit, marked)
    # The ink handed to the other readers, of every glyph at once.
    inks = [parts[i][0] for i, _, _ in found]  # type: ignore[index]
    if found and shading.reader_level is not None and shading.strong is not None:
        inks = _readers_ink(inks, origins, shading.contrast, shading.strong,
                            [float(shading.reader_level[i]) for i, _, _ in found])
    for (i, _, _), reader_mask in zip(found, inks, strict=True):
        glyph_mask, _, height, digit, marked = parts[i]  # type: ignore[misc]
        parts[i] = (glyph_mask, reader_mask.astype(np.uint8) * 255, height, digit, marked)
    # The normalised glyph is the shading's; the mask's own (normalise) where none is left.
    shaded: dict[int, np.ndarray | None] = {}
    if found:
        shapes = [parts[i][1].shape for i, _, _ in found]  # type: ignore[index]
        seeds = _kept_pixels(found, count, on_ink, ink_label, ink.shape)
        shaded = dict(zip((i for i, _, _ in found),
                          _shaded_glyphs(seeds, layout, side, s, found, shading, shapes),
                          strict=True))
    out: list[Glyph | None] = []
    for i, part in enumerate(parts):
        if part is None:
            out.append(None)
            continue
        glyph_mask, reader_ink, height, digit, marked = part
        normalised = shaded.get(i)
        out.append(Glyph(
            normalised=normalise(glyph_mask) if normalised is None else normalised,
            ink=reader_ink,
            height=height,
            digit=digit,
            marked=marked,
        ))
    return out


def _readers_ink(masks: list[np.ndarray], origins: list[tuple[int, int]], contrast: np.ndarray,
                 strong: np.ndarray, levels: list[float]) -> list[np.ndarray]:
    """For each glyph, the part of its mask whose contrast stands above its level and is
    joined there to its strong ink, cut to its box (the whole mask where none is): the ink
    handed to the other readers.  ``masks`` are the glyphs' masks, whose top left corners lie
    at ``origins`` in the mosaics of ``contrast`` and ``strong`` ink; ``levels`` their levels.

    The parts above each level are laid one under another, a row of background apart
    (8-connected components do not cross it), and labelled in one pass rather than one per
    glyph (a hundred calls of OpenCV and a dozen NumPy steps each, on windows of a thousand
    pixels): each glyph's components are those of its own window, so the same pixels are kept
    and cut to the same box."""
    heights = np.array([mask.shape[0] for mask in masks])
    tops = np.concatenate(([1], 1 + np.cumsum(heights[:-1] + 1)))
    width = max(mask.shape[1] for mask in masks)
    above = np.zeros((int(tops[-1] + heights[-1] + 1), width + 2), bool)
    anchors = np.zeros_like(above)
    for mask, (y, x), level, top in zip(masks, origins, levels, tops.tolist(), strict=True):
        h, w = mask.shape
        window = above[top : top + h, 1 : 1 + w]
        np.logical_and(mask, contrast[y : y + h, x : x + w] > level, out=window)
        np.logical_and(window, strong[y : y + h, x : x + w] > 0, out=anchors[top : top + h,
                                                                            1 : 1 + w])
    count, labels, stats, _ = cv2.connectedComponentsWithStats(above.view(np.uint8),
                                                               connectivity=8)
    anchored = np.zeros(count, bool)
    anchored[labels[anchors]] = True
    anchored[0] = False
    # Each glyph's kept pixels' box: the union of the boxes of its anchored components.
    kept = np.flatnonzero(anchored)
    left = stats[kept, cv2.CC_STAT_LEFT]
    upper = stats[kept, cv2.CC_STAT_TOP]
    right = left + stats[kept, cv2.CC_STAT_WIDTH]
    lower = upper + stats[kept, cv2.CC_STAT_HEIGHT]
    glyph = np.searchsorted(tops, upper, side="right") - 1
    n = len(masks)
    box = np.stack([np.full(n, above.shape[1]), np.full(n, above.shape[0]),
                    np.zeros(n, np.int64), np.zeros(n, np.int64)])
    np.minimum.at(box[0], glyph, left)
    np.minimum.at(box[1], glyph, upper)
    np.maximum.at(box[2], glyph, right)
    np.maximum.at(box[3], glyph, lower)
    has = np.zeros(n, bool)
    has[glyph] = True
    out: list[np.ndarray] = []
    for k, (x0, y0, x1, y1) in enumerate(box.T.tolist()):
        # No part above the level joined to strong ink: the whole mask.
        out.append(anchored[labels[y0:y1, x0:x1]] if has[k] else masks[k])
    return out


def _kept_pixels(found: list[tuple[int, list[int], list[tuple[int, int, int, int]]]],
                 count: int, on_ink: np.ndarray, ink_label: np.ndarray,
                 shape: tuple[int, ...]) -> np.ndarray:
    """The pixels (uint8 0/1, of the mosaic's ``shape``) of the components kept for the glyphs
    ``found``: ink pixels (``on_ink``, of components ``ink_label``), set among them alone
    rather than looked up for every pixel of the mosaic."""
    kept = np.zeros(count, bool)
    kept[[k for _, keep, _ in found for k in keep]] = True
    seeds = np.zeros(shape, np.uint8)
    seeds.ravel()[on_ink[kept[ink_label]]] = 1
    return seeds


def _shaded_glyphs(
    seeds: np.ndarray, layout: _Layout, side: int, s: float,
    found: list[tuple[int, list[int], list[tuple[int, int, int, int]]]], shading: _Shading,
    ink_shapes: list[tuple[int, ...]],
) -> list[np.ndarray | None]:
    """The normalised glyph of each crop in ``found`` (crop, its kept components, its digit's
    boxes): the contrast of the glyph's ink and of the faint ink reached from it, scaled so
    that SATURATION of the crop's peak is full ink, in a window of GLYPH_WINDOW squares (more
    for a glyph that does not fit, such as two letters) about the centre of that ink, resampled
    to GLYPH_PX.  ``ink_shapes`` are the shapes of the glyphs' ink boxes.

    The faint ink is followed from the kept components (their pixels: ``seeds``) a limited
    distance (a geodesic dilation), so that it cannot run along a tile's bevel to the far side
    of the face.
    """
    faint = shading.faint.copy()
    for i, _, boxes in found:
        oy = layout.pad + (i // layout.columns) * layout.pitch
        ox = layout.pad + (i % layout.columns) * layout.pitch
        for x0, y0, x1, y1 in boxes:
            faint[oy + max(0, y0 - DIGIT_CLEARANCE) : oy + y1 + DIGIT_CLEARANCE,
                  ox + max(0, x0 - DIGIT_CLEARANCE) : ox + x1 + DIGIT_CLEARANCE] = 0
    reached = _reached(seeds, faint, int(round(FAINT_REACH * s)))
    # The shading of every glyph's crop at once (as float32 throughout, the levels rounded to
    # float32 as a single crop's arithmetic rounds them).
    crops = np.array([i for i, _, _ in found])
    level = shading.faint_level[crops].astype(np.float64)
    scale_to_ink = np.maximum(SATURATION * shading.peak[crops].astype(np.float64) - level, 1.0)
    # From the crops themselves (the mosaic's are the same pixels), step by step in place:
    # the same arithmetic, without copying the whole mosaic out of its layout first.
    shades = shading.contrast_crops[crops].astype(np.float32)
    shades -= level.astype(np.float32)[:, None, None]
    shades /= scale_to_ink.astype(np.float32)[:, None, None]
    np.clip(shades, 0.0, 1.0, out=shades)
    shades *= _mosaic_crops(reached, layout, crops, side)
    out: list[np.ndarray | None] = []
    for (_, keep, _), ink_shape, values in zip(found, ink_shapes, shades, strict=True):
        total = float(values.sum())
        if total <= 0:
            out.append(None)
            continue
        # The same pixels, in the same order, as np.nonzero(values) gives (a quarter of its
        # time on a crop; found among booleans, a half of that again).
        flat = np.flatnonzero(values != 0)
        ys, xs = flat // values.shape[1], flat % values.shape[1]
        weights = values.ravel()[flat]
        cy, cx = float(ys @ weights) / total, float(xs @ weights) / total
        # Marks and a second letter joined to the letter widen the window to fit them.
        window = GLYPH_WINDOW * s if len(keep) == 1 else max(GLYPH_WINDOW * s, 1.1 * max(ink_shape))
        scale = GLYPH_PX / window
        # Pixel centres: the window's centre (cx, cy) lands on the array's centre.
        shift_x = (GLYPH_PX - 1) / 2 - scale * cx
        shift_y = (GLYPH_PX - 1) / 2 - scale * cy
        matrix = np.float32([[scale, 0, shift_x], [0, scale, shift_y]])
        out.append(cv2.warpAffine(values, matrix, (GLYPH_PX, GLYPH_PX), flags=cv2.INTER_LINEAR))
    return out


def _reached(seeds: np.ndarray, faint: np.ndarray, steps: int) -> np.ndarray:
    """The 0/1 ``seeds`` with the pixels of ``faint`` reached from them in up to ``steps``
    steps (8-neighbours) through ``faint`` alone: ``steps`` times dilated and cut to
    ``faint``, stopped early where a step adds nothing (every step left would give the same:
    a sharp photo's faint ink lies a step or two from its strokes, the reach is a dozen)."""
    reached = seeds
    step = np.ones((3, 3), np.uint8)
    for _ in range(steps):
        grown = cv2.dilate(reached, step) & faint
        if np.array_equal(grown, reached):
            break
        reached = grown
    return reached | seeds


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D array, ascending (``np.unique(values)``: NumPy's own asks
    np.ma whether the array is masked, and the first such call in a process imports
    numpy.ma, 10 ms of a cold read).  Values after one another are mostly the same (pixels of
    one component, in raster order): one of each run is sorted, far fewer than the values.

    >>> _distinct(np.array([5, 5, 5, 2, 2, 5, 9, 2])).tolist()
    [2, 5, 9]
    """
    runs = np.ones(len(values), bool)
    runs[1:] = values[1:] != values[:-1]
    ordered = np.sort(values[runs])
    first = np.ones(len(ordered), bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


def _off_the_corner(piece: tuple[int, int, int, int], letter: tuple[int, int, int, int]) -> bool:
    """Whether an ink component (``piece``: x, y, width, height) stands off a corner of the
    letter's box (``letter``: left, top, right, bottom), as the point-value digit does: wholly
    beyond the box on one axis (touching it at most) and past the box's end on the other.  A
    stroke of the letter a blur left weak (an L's foot, an E's arm) lies within the box on one
    axis at least; a Q's tail standing apart from its bowl does not, hence :func:`_thinner`.

    >>> _off_the_corner((30, 30, 3, 9), (10, 8, 30, 34))   # right of it, below its end
    True
    >>> _off_the_corner((20, 30, 8, 3), (10, 8, 28, 34))   # within it across
    False
    >>> _off_the_corner((28, 30, 8, 4), (10, 8, 28, 34))   # beside it, on its line
    False
    """
    x, y, w, h = piece
    left, top, right, bottom = letter
    beyond_x = x >= right or x + w <= left
    beyond_y = y >= bottom or y + h <= top
    past_y = y + h > bottom + 1 or y < top - 1
    past_x = x + w > right + 1 or x < left - 1
    return (beyond_x and past_y) or (beyond_y and past_x)


#: A piece of ink whose strokes are at most this share of the letter's as wide is printed
#: smaller than the letter: the digit (a real wooden tile's 1 beside its O: 0.59; the detached
#: tail of a German set's Q: 1.0).
DIGIT_STROKE_SHARE = 0.75


def _thinner(piece: np.ndarray, letter: np.ndarray) -> bool:
    """Whether the strokes of the ``piece`` mask are thinner than the ``letter`` mask's by
    :data:`DIGIT_STROKE_SHARE`: the piece's widest point against the letter's strokes (the 90th
    percentile of the letter's distance to its edge, its junctions left out), both doubled.

    >>> letter = np.zeros((20, 20), bool); letter[2:18, 4:10] = True   # a stem 6 wide
    >>> thin = np.zeros((8, 4), bool); thin[:, 1:3] = True              # a bar 2 wide
    >>> _thinner(thin, letter), _thinner(letter[2:18, 4:10], letter)
    (True, False)
    """
    def distances(mask: np.ndarray) -> np.ndarray:
        inside = cv2.distanceTransform(np.pad(mask, 1).astype(np.uint8), cv2.DIST_L2, 3)
        return inside[inside > 0]

    own, letters = distances(piece), distances(letter)
    if len(own) == 0 or len(letters) == 0:
        return False
    return float(own.max()) <= DIGIT_STROKE_SHARE * float(percentile(letters, 90, axis=0)[0])


def _best_per_crop(ids: np.ndarray, crop: np.ndarray, score: np.ndarray, n: int) -> np.ndarray:
    """For each of ``n`` crops the component among ``ids`` with the highest score (-1: none)."""
    best = np.full(n, -1)
    if len(ids) == 0:
        return best
    order = ids[np.lexsort((-score[ids], crop[ids]))]
    first = np.ones(len(order), bool)
    first[1:] = crop[order][1:] != crop[order][:-1]
    best[crop[order][first]] = order[first]
    return best


def _joined_digits(pieces: list[int], stats: np.ndarray, centres: np.ndarray, ox: int, oy: int,
                   s: float) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1, crop pixels) of the strong pieces of one component that are a
    point-value digit joined to the letter by faint ink: small, off a corner of the main
    piece (beyond one of its sides and level with the far end of the other)."""
    if len(pieces) < 2:
        return []
    areas = stats[pieces, cv2.CC_STAT_AREA]
    main = pieces[int(np.argmax(areas))]
    mx0, my0 = stats[main, cv2.CC_STAT_LEFT], stats[main, cv2.CC_STAT_TOP]
    mx1, my1 = mx0 + stats[main, cv2.CC_STAT_WIDTH], my0 + stats[main, cv2.CC_STAT_HEIGHT]
    mw, mh = mx1 - mx0, my1 - my0
    boxes = []
    for piece in pieces:
        if piece == main:
            continue
        pw, ph = stats[piece, cv2.CC_STAT_WIDTH], stats[piece, cv2.CC_STAT_HEIGHT]
        if max(pw, ph) > 0.3 * s or stats[piece, cv2.CC_STAT_AREA] > 0.3 * stats[main, 4]:
            continue
        px, py = centres[piece]
        beyond_x = px < mx0 or px > mx1
        beyond_y = py < my0 or py > my1
        level_y = py < my0 + 0.25 * mh or py > my1 - 0.25 * mh
        level_x = px < mx0 + 0.25 * mw or px > mx1 - 0.25 * mw
        if (beyond_x and level_y) or (beyond_y and level_x):
            left, top = stats[piece, cv2.CC_STAT_LEFT] - ox, stats[piece, cv2.CC_STAT_TOP] - oy
            boxes.append((int(left), int(top), int(left + pw), int(top + ph)))
    return boxes


def extract_glyph(crop: np.ndarray, square_px: int) -> Glyph | None:
    """The glyph on the tile in ``crop`` (a square plus margin), or None for a blank face.

    The glyph is the ink component nearest the centre that lies well inside a tile face and
    has a letter's size; accents above it (Ä, Ö, Ü) and further letters beside it of the same
    height (multi-letter tiles) join it; the point-value digit, much smaller and to the lower
    right, does not.  (:class:`GlyphFinder` does the same for many squares at once.)
    """
    margin = (crop.shape[0] - square_px) // 2
    return GlyphFinder(crop, square_px, margin).glyphs([(0, 0)])[0]


def normalise(mask: np.ndarray) -> np.ndarray:
    """Centre a glyph's mask in a square and scale it to GLYPH_PX, keeping its aspect ratio.

    >>> tall = normalise(np.ones((10, 5), bool))
    >>> tall.shape, float(tall[:, 12].min()), float(tall[:, 1].max())
    ((24, 24), 1.0, 0.0)
    """
    h, w = mask.shape
    side = max(h, w)
    padded = np.zeros((side, side), np.float32)
    oy, ox = (side - h) // 2, (side - w) // 2
    padded[oy : oy + h, ox : ox + w] = mask
    return cv2.resize(padded, (GLYPH_PX, GLYPH_PX), interpolation=cv2.INTER_AREA)
