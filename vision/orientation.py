"""Which way up the tiles are, from their glyphs alone: letters are taller than wide, read best
upright, lean as upright capitals do and carry their point-value digit at the lower right.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.glyphs import Glyph, GlyphFinder
from vision.letters import LetterClassifier
from vision.rectified import SQUARE_PX
from vision.tesseract_reader import TesseractReader

if TYPE_CHECKING:
    pass



#: Occupied squares sampled to decide which way up the tiles are, without calibration.
ORIENTATION_SAMPLE = 24


#: Weight of the letters' lean (about 0.03 for upright capitals) against Tesseract's mean
#: confidence (0..1) when deciding which way up uncalibrated tiles are.
LEAN_WEIGHT = 10.0


#: A point-value digit sits off a corner of the letter, about a third of a square along each
#: axis from the letter's centre; what was taken for a digit elsewhere (a piece of the gap
#: beside a tile, a neighbour's edge) does not count.  Offsets in squares, along each axis.
DIGIT_OFFSET = (0.2, 0.45)


#: ... and about as far along one axis as along the other (largest difference, in squares).
DIGIT_DIAGONAL = 0.15


def digit_votes(glyphs: list[Glyph | None]) -> np.ndarray:
    """For each of the four quarter turns, how many glyphs show their point-value digit at the
    lower right once turned (digits where a digit sits, see :data:`DIGIT_OFFSET`).

    >>> from vision.glyphs import Glyph
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

    >>> from vision.glyphs import Glyph
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

    >>> from vision.glyphs import Glyph
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


#: Margin of mean similarity between the two likeliest turns from which half the sample of
#: glyphs settles the orientation without the other half (comparing the glyphs with the
#: classifier's samples is most of the time the orientation takes): more than three times
#: :data:`CLASSIFIER_SURE`.  On the real photos of ``bench/eval_real.py``, each turned four
#: ways, half the stock classifier's sample put the right turn first by 0.12 to 0.34 (the
#: motion-blurred 164048 by 0.06 to 0.10: weighed with the whole sample); on 100 rendered
#: photos read with and without a profile, by 0.08 to 0.44, 197 of 200 by 0.11 or more.  The
#: whole sample chose the same turn every time.
HALF_SAMPLE_CLEAR = 0.11


#: Glyphs compared with the calibrated classifier's, at most (spread over the board).
CLASSIFIER_ORIENTATION_GLYPHS = 96


#: ... with the stock classifier's, which has seven times as many samples to compare with.
STOCK_ORIENTATION_GLYPHS = 32


#: The stock classifier's glyphs are compared with every third of its samples (a third of its
#: typefaces, spread over letters and blurs): a letter upright looks like some typeface's.  On
#: the real photos of ``bench/eval_real.py`` (every third of the game's), each turned four
#: ways, the turn chosen is the same as with every sample, by the same margins to within
#: 0.02 (the motion-blurred 164048 by 0.056 rather than 0.070 at least: above
#: :data:`CLASSIFIER_SURE` still); a cold 1080p read spends 7 ms less.
STOCK_ORIENTATION_EVERY = 3


def _sample(found: list[Glyph], count: int) -> list[Glyph]:
    """At most ``count`` of the glyphs, spread evenly over the list."""
    if len(found) <= count:
        return found
    return [found[i] for i in np.linspace(0, len(found) - 1, count).round().astype(int)]


def _similarity_scores(sample: list[Glyph], classifier: LetterClassifier,
                       candidates: list[int]) -> np.ndarray:
    """For each candidate turn, the mean similarity of the ``sample`` glyphs turned so to
    their nearest sample of the classifier (upright letters match best)."""
    turned = np.stack([_turned(g, k)[0] for k in candidates for g in sample])
    every = STOCK_ORIENTATION_EVERY if classifier.stock else 1
    return classifier.best_similarity(turned, every).reshape(len(candidates), -1).mean(axis=1)


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
        count = STOCK_ORIENTATION_GLYPHS if classifier.stock else CLASSIFIER_ORIENTATION_GLYPHS
        # Half the sample first: where it tells the turns far apart, the whole one would too.
        half = _sample(found, count // 2)
        scores = _similarity_scores(half, classifier, candidates)
        ranked = np.sort(scores)
        if len(half) < min(len(found), count) and ranked[-1] - ranked[-2] < HALF_SAMPLE_CLEAR:
            scores = _similarity_scores(_sample(found, count), classifier, candidates)
            ranked = np.sort(scores)
        if ranked[-1] - ranked[-2] < CLASSIFIER_SURE:
            scores = scores + TIE_BREAK_WEIGHT * orientation_scores(found, candidates, tesseract)
        return candidates[int(np.argmax(scores))]
    axis, _ = orientation_votes(found)
    if abs(axis[0]) >= AXIS_KNOWN:
        candidates = [k for k in range(4) if axis[k] > 0]
    return candidates[int(np.argmax(orientation_scores(found, candidates, tesseract)))]
