"""Reading the letter of a glyph: a classifier calibrated on the user's tiles.

:class:`LetterClassifier` learns the user's own tile set from labelled glyphs: a nearest-
neighbour search on histogram-of-gradient features of the normalised glyph.  It was chosen over
raw pixels and templates by measurement on real photos (``bench/eval_scrabscrap.py``).  A
profile learns each tile as photographed and under each of :data:`BLURS` (a shaken camera, a
soft focus); the classifier compares a photo's glyphs with the samples of the blurs they match
(``bench/eval_rendered.py``: rendered photos blurred by up to 7 pixels of motion are read with
calibration photos taken sharp).

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

from vision.glyphs import BLANK, GLYPH_PX, normalise


@dataclass(frozen=True)
class LetterGuess:
    """One reader's answer for one square."""

    letter: str
    #: 0 (a guess) .. 1 (certain).
    confidence: float
    #: The calibrated classifier's cosine similarity to the nearest learnt glyph (None from
    #: other readers): well above 0.8 only for letters it has learnt.
    similarity: float | None = None
    #: The classifier's likeliest letters for the glyph, best first (:data:`LIKELIEST` of
    #: them; empty from other readers): where the words on the board allow several letters,
    #: these say which one the glyph looks like.
    likeliest: tuple[str, ...] = ()
    #: The glyph's similarity to each of :attr:`likeliest` (its nearest sample of the letter):
    #: how much less it looks like a lesser guess than like the first.
    likeness: tuple[float, ...] = ()


#: How many of the classifier's likeliest letters a guess carries (the word check mends a
#: word with them, :mod:`vision.wordcheck`).
LIKELIEST = 5


#: Gradient-histogram layout: CELLS x CELLS cells of ORIENTATIONS unsigned orientation bins.
CELLS = 4


ORIENTATIONS = 9


def gradient_histograms(glyphs: np.ndarray) -> np.ndarray:
    """Histograms of oriented gradients (N, CELLS*CELLS*ORIENTATIONS) of glyphs (N, G, G).

    Each cell's histogram is weighted by the square root of the gradient magnitude and the
    orientation is unsigned (a stroke's two edges vote alike), vectorised over all glyphs at
    once.  A gradient's vote is
    shared between the two nearest orientation bins (bin k centred on k * 180 / ORIENTATIONS
    degrees), so that a stroke leaning a degree either side of upright votes the same.
    """
    n = len(glyphs)
    per_glyph = CELLS * CELLS * ORIENTATIONS
    gy, gx = np.gradient(glyphs, axis=(1, 2))
    magnitude = np.hypot(gx, gy).ravel()
    # Only pixels with a gradient vote: most of a glyph's window is empty face.
    voting = np.flatnonzero(magnitude)
    # Votes grow as the root of the gradient: the faint edges of a blurred thin stroke (an E's
    # arms) then count beside the stem's strong ones instead of vanishing under them.
    magnitude = np.sqrt(magnitude[voting])
    position = np.arctan2(gy.ravel()[voting], gx.ravel()[voting])
    position *= ORIENTATIONS / np.pi
    position[position < 0] += ORIENTATIONS  # unsigned: 0 <= position <= ORIENTATIONS
    lower = np.minimum(position.astype(np.intp), ORIENTATIONS - 1)
    upper_vote = magnitude * (position - lower)
    glyph, pixel = np.divmod(voting, GLYPH_PX * GLYPH_PX)
    base = _CELL_OF_PIXEL[pixel] + glyph * per_glyph
    hist = np.bincount(base + lower, weights=magnitude - upper_vote, minlength=n * per_glyph)
    hist += np.bincount(base + _NEXT_ORIENTATION[lower], weights=upper_vote,
                        minlength=n * per_glyph)
    return hist.reshape(n, -1).astype(np.float32)


_CELL_OF_PIXEL = (
    (np.arange(GLYPH_PX)[:, None] // (GLYPH_PX // CELLS) * CELLS
     + np.arange(GLYPH_PX)[None, :] // (GLYPH_PX // CELLS)).ravel() * ORIENTATIONS
).astype(np.intp)


_NEXT_ORIENTATION = (np.arange(ORIENTATIONS) + 1) % ORIENTATIONS


def features(glyphs: np.ndarray) -> np.ndarray:
    """Feature vectors (N, D) float32 of normalised glyphs (N, GLYPH_PX, GLYPH_PX).

    Gradient histograms tolerate the stroke-width and small-shift differences that lighting
    and parallax cause; a coarse copy of the glyph keeps the ink layout (accents).  Rows are
    unit length so that dot products are cosine similarities.
    """
    glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
    if len(glyphs) == 0:
        return np.zeros((0, _feature_size()), np.float32)
    # Shading is compressed (its square root): a blur leaves a thin stroke a quarter of a thick
    # one's ink, which this lifts to half, so that thin strokes weigh in the features.
    glyphs = np.sqrt(np.clip(glyphs, 0.0, 1.0))
    hog = gradient_histograms(glyphs)
    # An 8x8 copy: the mean of each 3x3 block.
    coarse = glyphs.reshape(-1, 8, GLYPH_PX // 8, 8, GLYPH_PX // 8).mean(axis=(2, 4))
    coarse = coarse.reshape(len(glyphs), 64)
    coarse = coarse - coarse.mean(axis=1, keepdims=True)
    hog /= np.linalg.norm(hog, axis=1, keepdims=True) + 1e-6
    coarse /= np.linalg.norm(coarse, axis=1, keepdims=True) + 1e-6
    out = np.hstack([hog, 0.5 * coarse]).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-6
    return out


def _feature_size() -> int:
    return CELLS * CELLS * ORIENTATIONS + 64


#: Changes whenever :func:`features` computes something else: features saved with a profile
#: are only used while it is the same.
FEATURES_VERSION = 3


#: Blur tag of samples as photographed.
AS_PHOTOGRAPHED = ""


#: Blur tag of samples from profiles made before glyphs were drawn from their shading: binary
#: ink scaled to its own box (see :func:`boxed`).
BOXED = "boxed"


#: Similarity (mean over a photo's glyphs) by which a blur may trail the blur that the photo's
#: glyphs match best and still be compared with: the blurs far from the photo's own are left
#: out (measured on rendered photos: a margin of 0.01 to 1 changes a few letters in a thousand,
#: 0.2 did best).
BLUR_MATCH_MARGIN = 0.2


#: Glyphs drawn from their shading (smooth, at one scale) match their own letter's samples far
#: more closely than box-scaled binary ones did, and other letters a little more closely: their
#: features' distances (1 - cosine) are multiplied by this, so that similarities and
#: confidences keep the meaning they had (well above 0.8 only for a letter learnt).
SIMILARITY_STRETCH = 3.0


@dataclass(frozen=True)
class Blur:
    """A blur that a photo may give the tiles, in squares of the rectified board: a straight
    motion of ``motion`` squares in direction ``angle`` (degrees, x toward y), or a defocus
    of Gaussian sigma ``defocus``.

    >>> Blur(motion=0.15, angle=45).tag
    'motion 0.15 45'
    >>> Blur.parse("defocus 0.04")
    Blur(motion=0.0, angle=0.0, defocus=0.04)
    """

    motion: float = 0.0
    angle: float = 0.0
    defocus: float = 0.0

    @property
    def tag(self) -> str:
        """How samples blurred this way are labelled in a profile."""
        if self.motion:
            return f"motion {self.motion:g} {self.angle:g}"
        return f"defocus {self.defocus:g}"

    @classmethod
    def parse(cls, tag: str) -> Blur:
        """The blur of a :attr:`tag`."""
        words = tag.split()
        try:
            if words[0] == "motion" and len(words) == 3:
                return cls(motion=float(words[1]), angle=float(words[2]))
            if words[0] == "defocus" and len(words) == 2:
                return cls(defocus=float(words[1]))
        except (IndexError, ValueError):
            pass
        raise ValueError(f"not a blur: {tag!r}")

    def apply(self, image: np.ndarray, square_px: int) -> np.ndarray:
        """``image`` (a rectified board of ``square_px`` squares) blurred this way."""
        if self.defocus:
            return cv2.GaussianBlur(image, (0, 0), self.defocus * square_px)
        length = self.motion * square_px
        reach = int(np.ceil(length / 2)) + 1
        kernel = np.zeros((2 * reach + 1, 2 * reach + 1), np.float32)
        dx = np.cos(np.radians(self.angle)) * length / 2
        dy = np.sin(np.radians(self.angle)) * length / 2
        # A line drawn with sub-pixel ends (4 fractional bits), antialiased.
        ends = [(int(round((reach + sx * dx) * 16)), int(round((reach + sx * dy) * 16)))
                for sx in (-1, 1)]
        cv2.line(kernel, ends[0], ends[1], 1.0, 1, cv2.LINE_AA, 4)
        return cv2.filter2D(image, -1, kernel / kernel.sum())


#: The blurs that calibration samples are also learnt under: a camera held by hand, or tiles
#: read from a video while the board is touched, move a few pixels (at 1280x720 a square is 25
#: to 40 pixels: motion of 2 to 7 pixels is 0.05 to 0.28 squares), and focus is not always
#: right: a defocus of 1.6 pixels is 0.04 to 0.065 squares, which the rectification's
#: resampling widens.  Eight directions, so that every motion lies within 11 degrees of one.
BLURS: tuple[Blur, ...] = tuple(
    Blur(motion=length, angle=angle)
    for length in (0.08, 0.15, 0.21, 0.27)
    for angle in (0, 22.5, 45, 67.5, 90, 112.5, 135, 157.5)
) + tuple(Blur(defocus=sigma) for sigma in (0.02, 0.04, 0.06, 0.08, 0.1))


def boxed(glyphs: np.ndarray) -> np.ndarray:
    """Normalised glyphs (N, G, G) as profiles made before version 2 kept them: their ink (half
    of full ink and more) cut to its box and scaled to fill the array, aspect ratio kept.

    >>> g = np.zeros((1, GLYPH_PX, GLYPH_PX), np.float32); g[0, 4:20, 10:14] = 1
    >>> b = boxed(g)[0]
    >>> float(b[:, 12].min()), float(b[:, 2].max())
    (1.0, 0.0)
    """
    out = np.zeros((len(glyphs), GLYPH_PX, GLYPH_PX), np.float32)
    for i, glyph in enumerate(glyphs):
        ys, xs = np.nonzero(glyph >= 0.5)
        if len(ys):
            out[i] = normalise(glyph[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] >= 0.5)
    return out


class LetterClassifier:
    """Nearest-neighbour letter classifier over the user's own labelled glyphs.

    Samples may be tagged with the blur they were learnt under (:class:`Blur` tags; untagged
    samples are as photographed).  The glyphs of one photo share its blur, so each call to
    :meth:`predict` first finds the blurs whose samples the glyphs match best on the whole, and
    compares each glyph with those samples only: a letter whose
    thin strokes a blur has all but wiped out (a T's crossbar) is then not taken for the
    letter it now resembles (I) under another blur.  Samples tagged :data:`BOXED` (from older
    profiles) are compared with the glyphs scaled to their box as those were.

    Confidence compares the best class's similarity with the best other class's: two letters
    that look alike to the classifier give a low confidence, and a glyph unlike every sample
    (a letter never seen) gives a low one too, so that the caller can ask another reader.

    The stock classifier also looks at a glyph unlike every sample moved about its window
    (:meth:`_recentred`): measured with ``bench/eval_rendered.py --count 100``, letters read
    wrong fell from 50 to 43 uncalibrated and from 38 to 36 calibrated (the R read as K of
    serif typefaces above all), and the real N of ``jheidel`` 164052 that read as M reads N.

    Every classifier also looks at a glyph it is unsure of turned back by up to 12 degrees
    (:meth:`_turned_upright`): a tile laid askew turns its letter.  Measured on the real photos
    with every tile turned 6 to 12 degrees (``bench/eval_real_views.py``, view ``askew``):
    game01 11 squares wrong of 2025 without, 1 with; jheidel 2015 6 of 450 without, 0 with.
    """

    def __init__(self) -> None:
        self._features = np.zeros((0, _feature_size()), np.float32)
        self._labels: np.ndarray = np.zeros(0, dtype=str)
        self._classes: list[str] = []
        self._blurs: list[str] = []
        #: Samples are sorted by (blur, letter); where each (blur, letter) run starts, and its
        #: blur's and letter's indices.
        self._run_starts = np.zeros(0, np.int64)
        self._run_blur = np.zeros(0, np.int64)
        self._run_class = np.zeros(0, np.int64)
        self._boxed = np.zeros(0, bool)
        #: Learnt from printed typefaces (:mod:`vision.stock`), not from the user's own tiles:
        #: its unsure readings get a second opinion from Tesseract.
        self.stock = False
        #: The samples learnt as photographed, as glyphs (where they were given as glyphs),
        #: and their letters: a blurred photo's letters are compared with them blurred as the
        #: photo is (:mod:`vision.reblur`).
        self.sharp_glyphs = np.zeros((0, GLYPH_PX, GLYPH_PX), np.float32)
        self.sharp_labels: list[str] = []

    @property
    def letters(self) -> set[str]:
        """Labels this classifier has seen at least once: its classes, the labels' distinct
        values (not the stock classifier's 20,000 labels made Python strings, a millisecond
        each time a read asks)."""
        return set(self._classes)

    def __len__(self) -> int:
        return len(self._labels)

    def fit(self, glyphs: np.ndarray | None, labels: Sequence[str],
            blurs: Sequence[str] | None = None,
            sample_features: np.ndarray | None = None) -> None:
        """Learn from normalised glyphs (N, GLYPH_PX, GLYPH_PX) and their letters, each learnt
        under a blur (its tag; :data:`AS_PHOTOGRAPHED` when ``blurs`` is not given).
        ``sample_features``, the glyphs' :func:`features` computed before, saves computing
        them again (``glyphs`` may then be None)."""
        if glyphs is None:
            if sample_features is None:
                raise ValueError("neither glyphs nor their features were given")
            count = len(sample_features)
        else:
            glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
            count = len(glyphs)
        if count != len(labels):
            raise ValueError(f"{count} glyphs but {len(labels)} labels")
        # An array of tags is kept as it is: the stock classifier's 20,000, made a list, took
        # 8 ms to be made an array again.
        blurs = [AS_PHOTOGRAPHED] * len(labels) if blurs is None else (
            blurs if isinstance(blurs, np.ndarray) else list(blurs))
        if len(blurs) != len(labels):
            raise ValueError(f"{len(blurs)} blurs but {len(labels)} labels")
        if glyphs is not None:
            sharp = [i for i, blur in enumerate(blurs) if blur == AS_PHOTOGRAPHED
                     and labels[i] != BLANK]
            self.sharp_glyphs = glyphs[sharp]
            self.sharp_labels = [str(labels[i]) for i in sharp]
        if sample_features is None:
            sample_features = features(glyphs)
        elif sample_features.shape != (count, _feature_size()):
            raise ValueError(f"features {sample_features.shape} do not match {count} "
                             f"glyphs of {_feature_size()} features")
        # Vectorised: the stock classifier learns from some 18,000 samples.
        label_array = np.asarray(labels if isinstance(labels, np.ndarray) else list(labels),
                                 dtype=str)
        classes, class_of = _letters_inverse(label_array)
        blur_names, blur_of = _unique_inverse(np.asarray(blurs, dtype=str))
        self._classes = classes.tolist()
        self._blurs = blur_names.tolist()
        class_of, blur_of = class_of.astype(np.int64), blur_of.astype(np.int64)
        blur_index = {blur: i for i, blur in enumerate(self._blurs)}
        key = blur_of * max(1, len(self._classes)) + class_of
        sample_features = np.asarray(sample_features, np.float32)
        if (key[1:] < key[:-1]).any():
            order = np.argsort(key, kind="stable")
            key, sample_features = key[order], sample_features[order]
            label_array, blur_of, class_of = label_array[order], blur_of[order], class_of[order]
        # else already in order (the stock samples are saved so): kept as given, not copied.
        self._features = sample_features
        # Older profiles' samples are box-scaled binary ink: glyphs are scaled so to meet them.
        self._boxed = blur_of == blur_index.get(BOXED, -1)
        self._labels = label_array
        starts = np.flatnonzero(np.diff(key, prepend=-1)) if len(key) else np.zeros(0, np.int64)
        self._run_starts = starts.astype(np.int64)
        self._run_blur = blur_of[starts]
        self._run_class = class_of[starts]

    def similarities(self, glyphs: np.ndarray) -> np.ndarray:
        """Similarity (N, samples) of each glyph to each learnt sample: the cosine of their
        features, stretched (see :data:`SIMILARITY_STRETCH`) but for :data:`BOXED` samples."""
        glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
        sims = features(glyphs) @ self._features.T
        _stretch(sims)
        if self._boxed.any():
            sims[:, self._boxed] = features(boxed(glyphs)) @ self._features[self._boxed].T
        return sims

    def best_similarity(self, glyphs: np.ndarray, every: int = 1) -> np.ndarray:
        """Each glyph's similarity (N,) to its nearest sample of any letter and blur: the
        largest of :meth:`similarities`, the same to the last bit (the stretch is monotonic,
        so the largest cosine is stretched alone rather than every one).

        ``every`` > 1 compares with every so many samples only (in the classifier's order, by
        blur and letter: a few typefaces of each letter under each blur), where a rough answer
        does: how letter-like glyphs look turned one way or another."""
        glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
        if self._boxed.any() or len(self._labels) == 0:
            return self.similarities(glyphs).max(axis=1)
        return _stretch((features(glyphs) @ self._features[::max(1, every)].T).max(axis=1))

    def predict(self, glyphs: np.ndarray | Iterable[np.ndarray]) -> list[LetterGuess]:
        """A letter and a confidence for each normalised glyph (the glyphs of one photo)."""
        glyphs = np.asarray(list(glyphs) if not isinstance(glyphs, np.ndarray) else glyphs)
        if len(glyphs) == 0:
            return []
        if len(self._labels) == 0:
            return [LetterGuess(BLANK, 0.0) for _ in range(len(glyphs))]
        per_class = self._per_class(np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX))
        best, own, rival = self._nearest_of(per_class)
        top = np.argsort(-per_class, axis=1, kind="stable")[:, :LIKELIEST]
        # Python numbers for the guesses made one at a time (the same values as NumPy's).
        likeness = np.take_along_axis(per_class, top, axis=1).tolist()
        return [
            LetterGuess(letter, _confidence(o, r), o, tuple(self._classes[i] for i in row),
                        tuple(round(value, 4) for value in values))
            for letter, o, r, row, values in zip(best, own.tolist(), rival.tolist(),
                                                 top.tolist(), likeness, strict=True)
        ]

    def ranking(self, glyphs: np.ndarray) -> list[list[str]]:
        """For normalised glyphs (N, GLYPH_PX, GLYPH_PX) of one photo, every learnt letter,
        likeliest first (by the nearest sample of the blurs the photo matches).

        >>> clf = LetterClassifier()
        >>> bar = np.zeros((GLYPH_PX, GLYPH_PX), np.float32); bar[2:-2, 10:14] = 1
        >>> tee = bar.copy(); tee[2:5, 3:-3] = 1
        >>> clf.fit(np.stack([bar, tee]), ["I", "T"])
        >>> clf.ranking(np.stack([tee]))
        [['T', 'I']]
        """
        glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
        if len(glyphs) == 0 or len(self._labels) == 0:
            return [[] for _ in range(len(glyphs))]
        order = np.argsort(-self._per_class(glyphs), axis=1, kind="stable")
        return [[self._classes[i] for i in row] for row in order]

    def _per_class(self, glyphs: np.ndarray) -> np.ndarray:
        """Similarity (N, letters) of each glyph to each letter's nearest sample, among the
        blurs the glyphs match (-2 for a letter with no sample there)."""
        # Best sample per (blur, letter): a letter seen once must win against a letter seen
        # fifty times when its one sample is the closest.
        if self._boxed.any():
            runs = np.maximum.reduceat(self.similarities(glyphs), self._run_starts, axis=1)
        else:
            # The stretch is monotonic: the largest cosine of each run, stretched, is the
            # largest similarity, to the last bit (a pass over every glyph and sample spared).
            glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
            if self.stock and len(glyphs) > BLURS_FROM_GLYPHS:
                return self._per_class_of_many(glyphs)
            runs = _stretch(_nearest_of_runs(features(glyphs), self._features,
                                             self._run_starts))
        table = self._table(runs)
        allowed = self._blurs_allowed(table.max(axis=2))
        return self._refined(glyphs, table[:, allowed].max(axis=1), allowed)

    def _per_class_of_many(self, glyphs: np.ndarray) -> np.ndarray:
        """:meth:`_per_class` of more glyphs than :data:`BLURS_FROM_GLYPHS`: the blurs the
        photo matches are chosen by that many glyphs spread over the list, compared with every
        sample; the other glyphs are compared with those blurs' samples only (a sharp photo's
        are half the stock samples, a blurred one's a fifth)."""
        found = features(glyphs)
        # Spread more than a glyph apart, so each glyph at most once (and not np.unique, whose
        # first call imports numpy.ma: 6 ms of a cold read).
        chosen = np.linspace(0, len(glyphs) - 1, BLURS_FROM_GLYPHS).round().astype(np.int64)
        first = self._table(_stretch(_nearest_of_runs(found[chosen], self._features,
                                                      self._run_starts)))
        allowed = self._blurs_allowed(first.max(axis=2))
        is_rest = np.ones(len(glyphs), bool)
        is_rest[chosen] = False
        rest = np.flatnonzero(is_rest)
        per_class = np.empty((len(glyphs), len(self._classes)), np.float32)
        per_class[chosen] = first[:, allowed].max(axis=1)
        if len(rest):
            per_class[rest] = self._table(*self._runs_of_blurs(found[rest], allowed))[
                :, allowed].max(axis=1)
        return self._refined(glyphs, per_class, allowed)

    def _refined(self, glyphs: np.ndarray, per_class: np.ndarray,
                 allowed: np.ndarray) -> np.ndarray:
        """``per_class`` with the glyphs that look like no letter moved about their window,
        and those the classifier is unsure of turned upright, where either is more alike."""
        off_centre = np.flatnonzero(per_class.max(axis=1) < RECENTRE_BELOW)
        # Only the stock samples know every letter in many typefaces: moved about, a glyph of
        # a letter a profile has not learnt (or the photo's own letters lack) would find one
        # it has (a Q moved to match the photo's O's).
        if len(off_centre) and self.stock and not self._boxed.any():
            per_class[off_centre] = self._recentred(
                np.asarray(glyphs, np.float32)[off_centre], per_class[off_centre], allowed)
        # A tile laid askew turns its letter with it: an I at 10 degrees was read as a B (0.8
        # alike, the I 0.79).  A glyph the classifier is unsure of is compared turned back too.
        if UPRIGHT_ANGLES and not self._boxed.any():
            # A glyph already within UPRIGHT_GAIN of the most alike a glyph can be cannot
            # gain so much turned: it is not turned (a quarter of the unsure glyphs of the
            # real game's photos, the same result).
            unsure = np.flatnonzero((_confidences(per_class) < UPRIGHT_BELOW)
                                    & (per_class.max(axis=1) + UPRIGHT_GAIN <= _MOST_ALIKE))
            if len(unsure):
                per_class[unsure] = self._turned_upright(
                    np.asarray(glyphs, np.float32)[unsure], per_class[unsure], allowed)
        return per_class

    def _turned_upright(self, glyphs: np.ndarray, per_class: np.ndarray,
                        allowed: np.ndarray) -> np.ndarray:
        """``per_class`` of glyphs the classifier is unsure of, from each glyph turned about its
        centre by the angle (:data:`UPRIGHT_ANGLES`) at which it looks most like a letter,
        where that is clearly more alike (by :data:`UPRIGHT_GAIN`, and at least
        :data:`UPRIGHT_ALIKE`): the letter of a tile laid askew, turned upright again.  A
        glyph's window is centred on its ink, so turning it about the window's centre turns
        the letter about itself."""
        centre = ((GLYPH_PX - 1) / 2, (GLYPH_PX - 1) / 2)
        turns = [cv2.getRotationMatrix2D(centre, angle, 1.0) for angle in UPRIGHT_ANGLES]
        turned = np.stack([cv2.warpAffine(glyph, turn, (GLYPH_PX, GLYPH_PX),
                                          flags=cv2.INTER_LINEAR)
                           for glyph in glyphs for turn in turns])
        # Only the samples of the blurs the photo matches are compared (a sharp photo's are
        # half of the stock samples).
        rows = self._table(*self._runs_of_blurs(features(turned), allowed))[
            :, allowed].max(axis=1).reshape(
            len(glyphs), len(turns), -1)
        own = rows.max(axis=2)
        pick = own.argmax(axis=1)
        at = np.arange(len(glyphs))
        best_own = own[at, pick]
        gained = (best_own >= per_class.max(axis=1) + UPRIGHT_GAIN) & (
            best_own >= UPRIGHT_ALIKE)
        return np.where(gained[:, None], rows[at, pick], per_class)

    def _runs_of_blurs(self, found: np.ndarray, allowed: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For glyphs' features, the similarity to the nearest sample of each (blur, letter)
        run of the ``allowed`` blurs, and each of those runs' blur and letter.  The samples
        are compared where they lie, one stretch of consecutive runs at a time: gathering them
        into an array of their own first copied megabytes into fresh memory, a cold read's
        slowest part of the comparison."""
        runs = np.flatnonzero(allowed[self._run_blur])
        ends = np.append(self._run_starts[1:], len(self._labels))
        parts = []
        for group in np.split(runs, np.flatnonzero(np.diff(runs) != 1) + 1):
            if len(group) == 0:
                continue
            first, last = int(self._run_starts[group[0]]), int(ends[group[-1]])
            parts.append(_nearest_of_runs(found, self._features[first:last],
                                          self._run_starts[group] - first))
        similar = (np.concatenate(parts, axis=1) if parts
                   else np.zeros((len(found), 0), np.float32))
        return _stretch(similar), self._run_blur[runs], self._run_class[runs]

    def _table(self, runs: np.ndarray, run_blur: np.ndarray | None = None,
               run_class: np.ndarray | None = None) -> np.ndarray:
        """The nearest sample's similarity per (glyph, blur, letter) from each run's (every
        run of the samples, or the runs whose blurs and letters are given)."""
        table = np.full((len(runs), len(self._blurs), len(self._classes)), -2.0, np.float32)
        table[:, self._run_blur if run_blur is None else run_blur,
              self._run_class if run_class is None else run_class] = runs
        return table

    def _recentred(self, glyphs: np.ndarray, per_class: np.ndarray,
                   allowed: np.ndarray) -> np.ndarray:
        """``per_class`` of glyphs that look like no letter, from each glyph moved to where
        it looks most like one (:data:`RECENTRE_STEPS`), where that is clearly more alike
        (by :data:`RECENTRE_GAIN`): a shadow or a neighbour's edge beside a tile pulls the
        centre of a glyph's ink aside, and the glyph, cut off at one side of its window, then
        looks like no letter (a real N on a tile askew was read M, 0.01 alike, and is an N
        0.74 alike moved by 3 pixels)."""
        best = per_class.copy()
        best_own = per_class.max(axis=1)
        centre = np.zeros((len(glyphs), 2))
        for step in RECENTRE_STEPS:
            moves = [(dx, dy) for dx in (-step, 0, step) for dy in (-step, 0, step)
                     if dx or dy]
            moved = np.stack([_moved(g, cx + dx, cy + dy)
                              for g, (cx, cy) in zip(glyphs, centre, strict=True)
                              for dx, dy in moves])
            runs = _stretch(_nearest_of_runs(features(moved), self._features,
                                             self._run_starts))
            rows = self._table(runs)[:, allowed].max(axis=1).reshape(len(glyphs), len(moves), -1)
            own = rows.max(axis=2)
            pick = own.argmax(axis=1)
            for k, m in enumerate(pick):
                if own[k, m] > best_own[k]:
                    best[k], best_own[k] = rows[k, m], own[k, m]
                    centre[k] += moves[m]
        gained = (best_own >= per_class.max(axis=1) + RECENTRE_GAIN) & (
            best_own >= RECENTRE_ALIKE)
        return np.where(gained[:, None], best, per_class)

    def likeness(self, glyphs: np.ndarray) -> tuple[list[str], np.ndarray]:
        """For normalised glyphs (N, GLYPH_PX, GLYPH_PX) of one photo, the letters learnt and
        each glyph's similarity to each one's nearest sample (N, letters)."""
        glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
        return list(self._classes), self._per_class(glyphs)

    def similarity_to(self, glyphs: np.ndarray, letters: Sequence[str]) -> np.ndarray:
        """For normalised glyphs (N, GLYPH_PX, GLYPH_PX) of one photo, each one's similarity
        to the nearest sample of the letter given for it (-2 for a letter never learnt)."""
        glyphs = np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)
        if len(glyphs) == 0 or len(self._labels) == 0:
            return np.full(len(glyphs), -2.0, np.float32)
        per_class = self._per_class(glyphs)
        index = {letter: i for i, letter in enumerate(self._classes)}
        return np.array([per_class[k, index[letter]] if letter in index else -2.0
                         for k, letter in enumerate(letters)], np.float32)

    def nearest(self, glyphs: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """For normalised glyphs (N, GLYPH_PX, GLYPH_PX) of one photo, the nearest letter of
        each, its similarity and the nearest other letter's (-2 when there is none)."""
        return self._nearest_of(
            self._per_class(np.asarray(glyphs, np.float32).reshape(-1, GLYPH_PX, GLYPH_PX)))

    def _nearest_of(self, per_class: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        if len(self._classes) > 1:
            top2 = np.argpartition(-per_class, 1, axis=1)[:, :2]
            first = np.take_along_axis(per_class, top2, axis=1)
            swap = first[:, 1] > first[:, 0]
            best = np.where(swap, top2[:, 1], top2[:, 0])
            own = np.max(first, axis=1)
            rival = np.min(first, axis=1)
        else:
            best = np.zeros(len(per_class), np.int64)
            own, rival = per_class[:, 0], np.full(len(per_class), -2.0, np.float32)
        return [self._classes[b] for b in best], own, rival

    def _blurs_allowed(self, per_blur: np.ndarray) -> np.ndarray:
        """Which blurs' samples the glyphs are compared with, from each glyph's best
        similarity under each blur (N, blurs): those whose mean is within BLUR_MATCH_MARGIN
        of the best mean (as photographed is one of them), and always older profiles'."""
        score = per_blur.mean(axis=0)
        allowed = score >= score.max() - BLUR_MATCH_MARGIN
        if BOXED in self._blurs:
            allowed[self._blurs.index(BOXED)] = True
        return allowed


#: How many of a photo's glyphs choose the blurs its glyphs are compared under, where it shows
#: more (with the stock classifier: :meth:`LetterClassifier._per_class_of_many`).  On the
#: labelled real photos of ``bench/eval_real.py``, as taken and dimmed, shaken, small, at
#: 1080p and compressed (``bench/eval_real_views.py``), the blurs chosen so differ from those
#: that all the glyphs choose in one to four of 38, at the edge of the margin; every square
#: of the 216 readings reads the same letter, and 29 squares' confidences moved, either way.
BLURS_FROM_GLYPHS = 32


#: A glyph whose nearest sample is less alike than this is looked at moved about its window
#: (:meth:`LetterClassifier._recentred`); the profile's own letters match theirs 0.8 and more.
RECENTRE_BELOW = 0.5


#: The moves tried, coarse to fine, in pixels of the normalised glyph: each step tries the
#: eight neighbours of the best place so far, up to 4 pixels (a sixth of the glyph) away.
RECENTRE_STEPS = (3, 1)


#: How much more alike a moved glyph must be to count as the glyph, and how alike at least
#: (where :func:`_confidence` begins to be more than none).
RECENTRE_GAIN = 0.2
RECENTRE_ALIKE = 0.6


#: A glyph read with less confidence than this (:func:`_confidence`) is compared turned back
#: as well (:meth:`LetterClassifier._turned_upright`).
UPRIGHT_BELOW = 0.6


#: The angles (degrees, counter-clockwise) a glyph is turned by: tiles laid by hand lie up to
#: a dozen degrees askew, the typefaces' photos that the stock samples come from up to 4, and
#: a letter 2 or 3 degrees off a sample still matches it.
UPRIGHT_ANGLES = (-10.0, -5.0, 5.0, 10.0)


#: How much more alike a turned glyph must be to count as the glyph, and how alike at least:
#: a blurred photo's glyphs (all less than 0.5 alike) are left as they are, where turning
#: found a letter for some that a whole word's tiles did not show.
UPRIGHT_GAIN = 0.08
UPRIGHT_ALIKE = 0.6
#: The largest similarity a glyph can have to a sample (identical features: 1), with room for
#: the rounding of a float32 cosine over the features.
_MOST_ALIKE = 1.001


def _moved(glyph: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``glyph`` moved ``dx`` pixels right and ``dy`` down (empty where it came from)."""
    matrix = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(glyph, matrix, (GLYPH_PX, GLYPH_PX), flags=cv2.INTER_LINEAR)


def _unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of a 1-D array; where the values are sorted
    already (the stock samples' blur tags are), from where they change, without sorting
    20,000 strings again.

    >>> names, inverse = _unique_inverse(np.array(["", "", "defocus 0.02", "motion 0.08 0"]))
    >>> names.tolist(), inverse.tolist()
    (['', 'defocus 0.02', 'motion 0.08 0'], [0, 0, 1, 2])
    >>> [a.tolist() for a in _unique_inverse(np.array(["b", "a", "b"]))]
    [['a', 'b'], [1, 0, 1]]
    """
    if len(values) == 0:
        return np.unique(values, return_inverse=True)
    change = np.empty(len(values), bool)
    change[0] = True
    np.any(_code_points(values[1:]) != _code_points(values[:-1]), axis=1, out=change[1:])
    names = values[change]
    # Sorted where each run's value comes after the one before: a value's runs are then one.
    if (names[1:] <= names[:-1]).any():
        return np.unique(values, return_inverse=True)
    return names, np.cumsum(change) - 1


def _code_points(strings: np.ndarray) -> np.ndarray:
    """Each of a 1-D array of NumPy strings as a row of its code points (NUL-padded as NumPy
    keeps them): rows compare equal where the strings do, compared as numbers in a fraction
    of the time of 20,000 string comparisons."""
    return np.ascontiguousarray(strings).view(np.uint32).reshape(len(strings), -1)


def _letters_inverse(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(labels, return_inverse=True)`` of a 1-D array of strings; letters of one
    code point each sorted as their code points, as NumPy sorts such strings.

    >>> letters, inverse = _letters_inverse(np.array(["B", "Ä", "A", "B"]))
    >>> letters.tolist(), inverse.tolist()
    (['A', 'B', 'Ä'], [1, 2, 0, 1])
    """
    if labels.dtype == np.dtype("<U1"):
        codes, inverse = np.unique(_code_points(labels)[:, 0], return_inverse=True)
        return codes.view(labels.dtype), inverse
    return np.unique(labels, return_inverse=True)


def _nearest_of_runs(found: np.ndarray, samples: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The largest cosine (N, runs) of each glyph's features ``found`` (N, D) with the
    ``samples`` (S, D) of each run starting at ``starts``: ``np.maximum.reduceat(found @
    samples.T, starts, axis=1)``, the same to the last bit, but the product made samples by
    glyphs.  OpenBLAS multiplies a few dozen glyphs with 20,000 samples in that order in two
    thirds of the time (5.0 ms against 7.2 for 32 glyphs, one core), the runs then being whole
    rows.

    >>> found = np.float32([[1, 0], [0, 1]]); samples = np.float32([[1, 0], [0.6, 0.8], [0, 1]])
    >>> _nearest_of_runs(found, samples, np.array([0, 2])).tolist()
    [[1.0, 0.0], [0.800000011920929, 1.0]]
    """
    return np.maximum.reduceat(samples @ found.T, starts, axis=0).T


def _stretch(cosines: np.ndarray) -> np.ndarray:
    """Cosines (float32) made similarities in place (see :data:`SIMILARITY_STRETCH`), as
    ``1.0 - SIMILARITY_STRETCH * (1.0 - cosines)`` computes them but with no temporary array
    (three of the size of every glyph against every sample, 10 MB for the stock samples)."""
    np.subtract(1.0, cosines, out=cosines)
    cosines *= SIMILARITY_STRETCH
    np.subtract(1.0, cosines, out=cosines)
    return cosines


def _runs(sorted_labels: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct labels of a sorted label array and where each one's run starts.

    >>> _runs(np.array(["A", "A", "B", "C", "C"], dtype=object))
    (['A', 'B', 'C'], array([0, 2, 3]))
    """
    if len(sorted_labels) == 0:
        return [], np.zeros(0, np.int64)
    change = np.nonzero(sorted_labels[1:] != sorted_labels[:-1])[0] + 1
    starts = np.concatenate([[0], change]).astype(np.int64)
    return [str(sorted_labels[i]) for i in starts], starts


def _confidence(own: float, rival: float) -> float:
    """Confidence from the similarity to the chosen letter and to the nearest other letter.

    Same-letter glyphs of one tile set score about 0.9 and above; different letters rarely
    above 0.75.  A glyph far from everything learnt gets little confidence however large the
    margin, which is what makes unseen letters fall back to another reader.
    """
    return float(_clipped((own - rival) / SURE_MARGIN)
                 * _clipped((own - SURE_FROM) / SURE_SPAN))


#: :func:`_confidence`'s scales: the margin over the nearest other letter that is full
#: confidence, and the similarity from which it begins and the span over which it grows.
SURE_MARGIN = 0.15
SURE_FROM = 0.6
SURE_SPAN = 0.25


def _confidences(per_class: np.ndarray) -> np.ndarray:
    """:func:`_confidence` of every row of ``per_class`` (glyphs, letters) at once."""
    if per_class.shape[1] < 2:
        return np.zeros(len(per_class))
    top = -np.partition(-per_class, 1, axis=1)[:, :2]
    margin = np.clip((top[:, 0] - top[:, 1]) / SURE_MARGIN, 0.0, 1.0)
    closeness = np.clip((top[:, 0] - SURE_FROM) / SURE_SPAN, 0.0, 1.0)
    return margin * closeness


def _clipped(value: float) -> float:
    """``np.clip(value, 0.0, 1.0)`` of one number, as NumPy clips (NaN and -0.0 kept), without
    NumPy's call (a guess is made for every glyph, twice).

    >>> [_clipped(v) for v in (-1.0, -0.0, 0.25, 1.5)]
    [0.0, -0.0, 0.25, 1.0]
    """
    if value != value:
        return value
    value = value if value >= 0.0 else 0.0
    return value if value <= 1.0 else 1.0
