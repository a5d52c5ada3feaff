"""Reading the letter on a tile: glyph isolation and a classifier calibrated on the user's tiles.

A tile face is a light, unsaturated square with one dark glyph near its centre and a small
point-value digit in its lower right corner.  :func:`extract_glyph` finds that glyph in a crop
a little larger than the square (tiles stand up from the board, so the camera sees them shifted
by parallax, up to a third of a square near the edges of the picture), drops the digit and
returns it normalised to a small square array.  A tile face with no glyph is a blank.

:class:`LetterClassifier` learns the user's own tile set from labelled glyphs: a nearest-
neighbour search on histogram-of-gradient features of the normalised glyph.  It was chosen over
raw pixels and templates by measurement on real photos (``bench/eval_scrabscrap.py``).

>>> import numpy as np
>>> clf = LetterClassifier()
>>> bar = np.zeros((GLYPH_PX, GLYPH_PX), np.float32); bar[2:-2, 10:14] = 1
>>> ring = np.zeros((GLYPH_PX, GLYPH_PX), np.float32); ring[2:-2, 2:-2] = 1
>>> ring[6:-6, 6:-6] = 0
>>> clf.fit(np.stack([bar, ring]), ["I", "O"])
>>> [(p.letter, round(p.confidence, 2)) for p in clf.predict(np.stack([ring, bar]))]
[('O', 1.0), ('I', 1.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

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

    #: Normalised glyph, float32 (GLYPH_PX, GLYPH_PX), 1 = ink; the glyph's bounding box is
    #: centred and scaled so that its longer side fills the array (aspect ratio kept).
    normalised: np.ndarray
    #: The glyph's ink at crop resolution, uint8 0/255, cropped to its bounding box.
    ink: np.ndarray
    #: Glyph height as a fraction of the square's side.
    height: float
    #: Where the point-value digit is, relative to the glyph's centre, in squares ((+, +) is
    #: lower right, as on an upright tile), or None if no digit was seen.
    digit: tuple[float, float] | None = None
    #: Whether small marks sit above the letter (the dots of Ä, Ö, Ü).
    marked: bool = False


@dataclass(frozen=True)
class LetterGuess:
    """One reader's answer for one square."""

    letter: str
    #: 0 (a guess) .. 1 (certain).
    confidence: float


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


def face_and_ink(crop: np.ndarray, square_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks (uint8 0/1) of the tile faces and of the dark ink on them, in one crop.

    Faces are light and unsaturated; the board around them is saturated (green, red, blue)
    or dark.  Ink is whatever is darker than the face, by Otsu's threshold on the brightness of
    the face region, so that lighting changes across the board do not matter.
    """
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    sat = hsv[..., 1]
    val = hsv[..., 2]
    face = ((sat < 90) & (val > 100)).astype(np.uint8)
    # Closing fills the glyph's strokes into the face without bridging to the next tile.
    k = max(3, int(square_px * 0.3) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    region = cv2.morphologyEx(face, cv2.MORPH_CLOSE, disc)
    values = val[region > 0]
    if values.size < square_px * square_px * 0.3:
        return region, np.zeros_like(region)
    threshold, _ = cv2.threshold(
        values.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU
    )
    ink = ((region > 0) & (val < threshold)).astype(np.uint8)
    return region, ink


def extract_glyph(crop: np.ndarray, square_px: int) -> Glyph | None:
    """The glyph on the tile in ``crop`` (a square plus margin), or None for a blank face.

    The glyph is the ink component nearest the centre that lies well inside a tile face and
    has a letter's size; accents above it (Ä, Ö, Ü) and further letters beside it of the same
    height (multi-letter tiles) join it; the point-value digit, much smaller and to the lower
    right, does not.
    """
    region, ink = face_and_ink(crop, square_px)
    if not ink.any():
        return None
    count, labels, stats, centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    inner = cv2.erode(region, np.ones((5, 5), np.uint8))
    height, width = ink.shape
    cx, cy = width / 2, height / 2
    s = float(square_px)
    best, best_score = 0, -np.inf
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        if area < s * s * 0.01 or h < s * 0.25 or w > s * 0.8 or h > s * 0.75:
            continue
        if x == 0 or y == 0 or x + w >= width or y + h >= height:
            continue  # cut by the crop: a neighbour's glyph or the board's edge
        distance = float(np.hypot(centres[k][0] - cx, centres[k][1] - cy))
        if distance > s * 0.45:
            continue
        if inner[labels == k].mean() < 0.9:
            continue  # shadow or gap along a tile's edge, not ink on its face
        score = h - 1.5 * distance
        if score > best_score:
            best, best_score = k, score
    if best == 0:
        return None
    x, y, w, h, area = stats[best]
    keep = labels == best
    marked = False
    for k in range(1, count):
        if k == best:
            continue
        x2, y2, w2, h2, a2 = stats[k]
        above = (
            y2 + h2 <= y + 2 and y2 >= y - 0.4 * h and x2 >= x - 3 and x2 + w2 <= x + w + 3
            and 3 <= a2 <= 0.2 * area and w2 <= 0.8 * w and h2 <= 0.35 * h
        )
        beside = (
            h2 >= 0.7 * h and abs((y2 + h2 / 2) - (y + h / 2)) < 0.2 * h
            and min(abs(x2 - (x + w)), abs(x - (x2 + w2))) < 0.3 * h
            and x2 > 0 and x2 + w2 < width
        )
        if (above or beside) and inner[labels == k].mean() >= 0.9:
            keep |= labels == k
            marked = marked or above
    digit = _digit_offset(stats, centres, labels, inner, keep, (x + w / 2, y + h / 2), s)
    ys, xs = np.nonzero(keep)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    glyph = keep[y0:y1, x0:x1]
    return Glyph(
        normalised=normalise(glyph),
        ink=glyph.astype(np.uint8) * 255,
        height=float(y1 - y0) / s,
        digit=digit,
        marked=marked,
    )


def _digit_offset(
    stats: np.ndarray, centres: np.ndarray, labels: np.ndarray, inner: np.ndarray,
    glyph_mask: np.ndarray, glyph_centre: tuple[float, float], square_px: float,
) -> tuple[float, float] | None:
    """Offset of the point-value digit from the glyph's centre, in squares (None if unseen).

    The digit is the small ink on the same face beside the glyph; its side tells which way up
    the tile is, whatever the letter.
    """
    total = np.zeros(2)
    weight = 0.0
    glyph_ids = set(np.unique(labels[glyph_mask]).tolist())
    for k in range(1, len(stats)):
        if k in glyph_ids:
            continue
        x, y, w, h, area = stats[k]
        if not (0.08 * square_px <= max(w, h) <= 0.4 * square_px) or area < 4:
            continue
        offset = (centres[k] - np.asarray(glyph_centre)) / square_px
        if np.hypot(*offset) > 0.6 or np.hypot(*offset) < 0.2:
            continue
        if inner[labels == k].mean() < 0.9:
            continue
        total += offset * area
        weight += area
    if weight == 0:
        return None
    dx, dy = total / weight
    return float(dx), float(dy)


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


#: Gradient-histogram layout: CELLS x CELLS cells of ORIENTATIONS unsigned orientation bins.
CELLS = 4
ORIENTATIONS = 9


def gradient_histograms(glyphs: np.ndarray) -> np.ndarray:
    """Histograms of oriented gradients (N, CELLS*CELLS*ORIENTATIONS) of glyphs (N, G, G).

    Each cell's histogram is weighted by gradient magnitude and the orientation is unsigned
    (a stroke's two edges vote alike), vectorised over all glyphs at once.
    """
    n = len(glyphs)
    gy, gx = np.gradient(glyphs, axis=(1, 2))
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi)
    bins = np.minimum((angle / np.pi * ORIENTATIONS).astype(np.int64), ORIENTATIONS - 1)
    cell = GLYPH_PX // CELLS
    cell_index = (np.arange(GLYPH_PX) // cell)
    flat_cell = (cell_index[:, None] * CELLS + cell_index[None, :]).ravel()
    index = (flat_cell[None, :] * ORIENTATIONS + bins.reshape(n, -1))
    index += (np.arange(n) * CELLS * CELLS * ORIENTATIONS)[:, None]
    hist = np.bincount(
        index.ravel(), weights=magnitude.ravel(), minlength=n * CELLS * CELLS * ORIENTATIONS
    )
    return hist.reshape(n, -1).astype(np.float32)


def features(glyphs: np.ndarray) -> np.ndarray:
    """Feature vectors (N, D) float32 of normalised glyphs (N, GLYPH_PX, GLYPH_PX).

    Gradient histograms tolerate the stroke-width and small-shift differences that lighting
    and parallax cause; a coarse copy of the glyph keeps the ink layout (accents).  Rows are
    unit length so that dot products are cosine similarities.
    """
    glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
    if len(glyphs) == 0:
        return np.zeros((0, _feature_size()), np.float32)
    hog = gradient_histograms(glyphs)
    coarse = np.stack(
        [cv2.resize(g, (8, 8), interpolation=cv2.INTER_AREA).ravel() for g in glyphs]
    )
    coarse = coarse - coarse.mean(axis=1, keepdims=True)
    hog /= np.linalg.norm(hog, axis=1, keepdims=True) + 1e-6
    coarse /= np.linalg.norm(coarse, axis=1, keepdims=True) + 1e-6
    out = np.hstack([hog, 0.5 * coarse]).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-6
    return out


def _feature_size() -> int:
    return CELLS * CELLS * ORIENTATIONS + 64


class LetterClassifier:
    """Nearest-neighbour letter classifier over the user's own labelled glyphs.

    Confidence compares the best class's similarity with the best other class's: two letters
    that look alike to the classifier give a low confidence, and a glyph unlike every sample
    (a letter never seen) gives a low one too, so that the caller can ask another reader.
    """

    def __init__(self) -> None:
        self._features = np.zeros((0, _feature_size()), np.float32)
        self._labels: np.ndarray = np.zeros(0, dtype=object)

    @property
    def letters(self) -> set[str]:
        """Labels this classifier has seen at least once."""
        return set(self._labels.tolist())

    def __len__(self) -> int:
        return len(self._labels)

    def fit(self, glyphs: np.ndarray, labels: Sequence[str]) -> None:
        """Learn from normalised glyphs (N, GLYPH_PX, GLYPH_PX) and their letters."""
        glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
        if len(glyphs) != len(labels):
            raise ValueError(f"{len(glyphs)} glyphs but {len(labels)} labels")
        self._features = features(glyphs)
        self._labels = np.array(list(labels), dtype=object)

    def similarities(self, glyphs: np.ndarray) -> np.ndarray:
        """Cosine similarity (N, samples) of each glyph to each learnt sample."""
        return features(glyphs) @ self._features.T

    def predict(self, glyphs: np.ndarray | Iterable[np.ndarray]) -> list[LetterGuess]:
        """A letter and a confidence for each normalised glyph."""
        glyphs = np.asarray(list(glyphs) if not isinstance(glyphs, np.ndarray) else glyphs)
        if len(glyphs) == 0:
            return []
        if len(self._labels) == 0:
            return [LetterGuess(BLANK, 0.0) for _ in range(len(glyphs))]
        sims = self.similarities(glyphs)
        classes = sorted(self.letters)
        # Best sample per class (1-nearest neighbour per letter): a letter seen once must win
        # against a letter seen fifty times when its one sample is the closest.
        per_class = np.stack([sims[:, self._labels == c].max(axis=1) for c in classes], axis=1)
        order = np.argsort(-per_class, axis=1)
        out: list[LetterGuess] = []
        for row, ranked in zip(per_class, order, strict=True):
            own = float(row[ranked[0]])
            rival = float(row[ranked[1]]) if len(ranked) > 1 else 0.0
            out.append(LetterGuess(classes[ranked[0]], _confidence(own, rival)))
        return out


def _confidence(own: float, rival: float) -> float:
    """Confidence from the similarity to the chosen letter and to the nearest other letter.

    Same-letter glyphs of one tile set score about 0.9 and above; different letters rarely
    above 0.75.  A glyph far from everything learnt gets little confidence however large the
    margin, which is what makes unseen letters fall back to another reader.
    """
    margin = np.clip((own - rival) / 0.15, 0.0, 1.0)
    closeness = np.clip((own - 0.6) / 0.25, 0.0, 1.0)
    return float(margin * closeness)
