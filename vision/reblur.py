"""Letters of a motion-blurred photo read by analysis by synthesis: the profile's own sharp
letters blurred as the photo is, and compared with the photo's squares as taken.

Deconvolving a blurred photo (:mod:`vision.deblur`) is unstable where the blur is long or not
the same everywhere: a camera turned during the exposure smears one part of the board along
one path and another along another (the real ``jheidel`` 164048: a third of a square, nearly
across the rows at the left of the board and at 30 to 45 degrees at the right), and beyond
the longest blur the estimate weighs (:data:`vision.deblur.REACH`).  Deconvolved with one
blur, its letters broke into shapes no sample resembled (an E read B, an N X, an A W, a V E,
all with confidence 0).  Blurring is stable: a sharp sample blurred by the right motion looks
like the photo's letter, and by a motion a little off only a little less so.

:func:`reblurred_letters` reads the squares a profile's classifier was unsure of in a photo
whose blur shows clearly:

1. the grey picture as taken (rectified, upright) at half the reading scale (the blur leaves
   nothing finer, and a quarter of the pixels to compare), each square's window placed on the
   centre of its ink (a blur keeps the centre of a letter's ink where it was);
2. the profile's sharp samples (:data:`PER_LETTER` of each letter, the newest) drawn at the
   scale of the photo's letters and blurred by each candidate blur: motions (:data:`LENGTHS`
   x :data:`ANGLES`, in squares of the board), defocus (:data:`DEFOCUS`), and none.  The
   candidates are searched rather than taken from the photo's estimate: that is one blur for
   the whole board, and no longer than the estimate weighs (164048 measures 9.5 pixels, the
   longest candidate, at 17.5 degrees: between its two parts' directions);
3. each square's blur is the one under which the squares read again around it (weighted
   by distance, :data:`NEIGHBOURHOOD`) look most like some sample: the blur of a turning
   camera changes smoothly across the board, and one glyph alone would pick the blur that
   suits a wrong letter;
4. under that blur, the letter of the sample most like the square (normalised
   cross-correlation, the window moved by up to :data:`SEARCH` pixels), and its lead over the
   next letter.

:func:`reread_unsure` replaces a doubted letter by the letter so read where that is clearly
more alike (:data:`REPLACE_BY`) and the samples fit the photo's squares at all (:data:`FITS`),
as unsure (confidence below :data:`vision.read.UNSURE_SHOWN`): a photo this blurred warrants
a warning whatever is read from it.  It costs 15 to 20 ms of one core for the 15 squares of
164048.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.deblur import blur_psf
from vision.glyphs import BLANK, GLYPH_PX, GLYPH_WINDOW
from vision.letters import LIKELIEST, SIMILARITY_STRETCH, LetterClassifier, LetterGuess
from vision.medians import percentile

#: Share of the reading scale (squares of 48 px) at which squares and samples are compared.
SCALE = 0.5
#: Candidate motions: lengths in squares of the board (a sixth to nearly two fifths of a
#: square: shorter blurs the classifier's own blurred samples read) and directions in degrees
#: (x toward y, modulo 180) on the upright board.
LENGTHS = (0.125, 0.21, 0.29, 0.375)
ANGLES = tuple(range(0, 180, 15))
#: Candidate defocus (Gaussian sigma, in squares): a photo whose blur is a lens out of focus
#: is deblurred too, and motions model it badly (a glyph alone then picks the motion that
#: suits another letter).
DEFOCUS = (0.03, 0.05, 0.07, 0.1)
#: Sharp samples of each letter compared: the newest (more add time and little else).
PER_LETTER = 4
#: Pixels (at :data:`SCALE`) by which a square's window is moved about the centre of its ink.
SEARCH = 2
#: Side of the compared window, in squares: the letter (:data:`vision.glyphs.GLYPH_WINDOW`)
#: and the smear around it, short of the tile's own edges.
WINDOW = 0.85
#: Gaussian sigma (squares of the board) of the weight of the squares around one in choosing
#: its motion.
NEIGHBOURHOOD = 2.0


@dataclass(frozen=True)
class Reblurred:
    """One square read against the blurred samples: the letters best first, their
    correlations, and the blur chosen for it: (length in squares, angle in degrees, defocus
    sigma in squares) as :func:`vision.deblur.blur_psf` takes them (length 0: a defocus,
    all 0: none)."""

    letters: tuple[str, ...]
    scores: tuple[float, ...]
    blur: tuple[float, float, float]


def _templates(glyphs: np.ndarray, side: int, square: float) -> np.ndarray:
    """Normalised glyphs (N, G, G; 1 = ink) drawn as dark ink on a light face at the photo's
    scale (a glyph's window is :data:`vision.glyphs.GLYPH_WINDOW` squares of ``square``
    pixels), centred in ``side`` x ``side``."""
    scale = GLYPH_WINDOW * square / GLYPH_PX
    shift = (side - 1) / 2 - scale * (GLYPH_PX - 1) / 2
    matrix = np.float32([[scale, 0, shift], [0, scale, shift]])
    # Shrunk to under half: smoothed first, as an area average would be.
    sigma = 0.5 / scale if scale < 0.7 else 0.0
    out = np.empty((len(glyphs), side, side), np.float32)
    for k, glyph in enumerate(glyphs):
        if sigma:
            glyph = cv2.GaussianBlur(glyph, (0, 0), sigma)
        out[k] = 1.0 - cv2.warpAffine(glyph, matrix, (side, side), flags=cv2.INTER_LINEAR,
                                      borderValue=0.0)
    return out


def _blurred(stacked: np.ndarray, count: int, pitch: int, kernel: np.ndarray) -> np.ndarray:
    """The ``count`` templates of ``stacked`` (one above the other, ``pitch`` rows apart, with
    face between them wider than any kernel's reach) blurred by ``kernel``: one filtering for
    all of them, none bleeding into the next."""
    out = cv2.filter2D(stacked, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    return out.reshape(count, pitch, -1)


def _unit(rows: np.ndarray) -> np.ndarray:
    """Rows made zero-mean and unit length (their dot products are then correlations)."""
    rows = rows - rows.mean(axis=-1, keepdims=True)
    return rows / (np.linalg.norm(rows, axis=-1, keepdims=True) + 1e-6)


def _ink_centre(crop: np.ndarray, reach: int) -> tuple[float, float]:
    """Where the ink of the square in the middle of ``crop`` is centred: the darkness below
    the face's brightness, weighted, within ``reach`` pixels of the centre found so far."""
    h, w = crop.shape
    cy, cx = (h - 1) / 2, (w - 1) / 2
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(3):
        inside = (np.abs(ys - cy) <= reach) & (np.abs(xs - cx) <= reach)
        values = crop[inside]
        face = float(percentile(values, 80, axis=0)[0])
        ink = np.clip(face - crop, 0.0, None) * inside
        ink = ink * ink
        total = float(ink.sum())
        if total <= 0:
            break
        cy = float((ys * ink).sum()) / total
        cx = float((xs * ink).sum()) / total
    return cy, cx


def reblurred_letters(
    upright_grey: np.ndarray, square_px: int, margin: int,
    squares: list[tuple[int, int]], samples: np.ndarray, labels: list[str],
) -> list[Reblurred]:
    """Each of ``squares`` (upright board) of ``upright_grey`` (the rectified photo as taken,
    turned upright, ``square_px`` squares with ``margin`` around the grid) read against the
    sharp ``samples`` (normalised glyphs, N x G x G, 1 = ink) of ``labels``, blurred by the
    motion the squares around it show best (see the module's docstring)."""
    if not squares or len(samples) == 0:
        return []
    # The newest samples of each letter.
    named = np.asarray(labels)
    chosen = np.concatenate([np.flatnonzero(named == letter)[-PER_LETTER:]
                             for letter in sorted(set(labels))]).tolist()
    letters = [labels[i] for i in chosen]
    classes = sorted(set(letters))
    class_of = np.array([classes.index(letter) for letter in letters])
    square = square_px * SCALE
    small = cv2.resize(upright_grey, None, fx=SCALE, fy=SCALE,
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    window = int(round(WINDOW * square)) | 1
    reach = max(int(math.ceil(max(LENGTHS) * square / 2)), 1)
    side = window + 2 * reach + 2
    templates = _templates(np.asarray(samples, np.float32)[chosen], side, square)
    cut = slice((side - window) // 2, (side - window) // 2 + window)
    blurs = [(0.0, 0.0, 0.0)] + [(length, float(angle), 0.0) for length in LENGTHS
                                 for angle in ANGLES] + [(0.0, 0.0, sigma) for sigma in DEFOCUS]
    # The templates one above the other, face between them (their side includes the reach
    # of the longest blur on every side), blurred by each candidate: (blurs, samples, window *
    # window), each row zero-mean and of unit length.
    stacked = np.ascontiguousarray(templates.reshape(-1, side))
    blurred = _unit(np.stack([
        (templates if length == 0 and sigma == 0 else _blurred(
            stacked, len(templates), side, blur_psf(length * square, angle, sigma * square)))
        [:, cut, cut].reshape(len(templates), -1) for length, angle, sigma in blurs]))
    # Each square's windows about the centre of its ink, moved by up to SEARCH pixels.
    half = window // 2
    moves = [(dy, dx) for dy in range(-SEARCH, SEARCH + 1) for dx in range(-SEARCH, SEARCH + 1)]
    padded = cv2.copyMakeBorder(small, window, window, window, window, cv2.BORDER_REPLICATE)
    patches = np.empty((len(squares), len(moves), window * window), np.float32)
    off = margin * SCALE + window
    for k, (r, c) in enumerate(squares):
        y0 = int(round(off + r * square))
        x0 = int(round(off + c * square))
        size = int(round(square))
        crop = padded[y0 : y0 + size, x0 : x0 + size]
        cy, cx = _ink_centre(crop, int(round(square / 3)))
        py, px = int(round(y0 + cy)), int(round(x0 + cx))
        for m, (dy, dx) in enumerate(moves):
            patch = padded[py + dy - half : py + dy + half + 1,
                           px + dx - half : px + dx + half + 1]
            patches[k, m] = patch.ravel()
    patches = _unit(patches)
    # The blur of each square, from the windows at the centres of ink alone: how like the
    # square the likest sample is under each blur (squares, blurs), weighed over the
    # neighbourhood.
    centred = patches[:, len(moves) // 2]
    best = (blurred.reshape(-1, blurred.shape[-1]) @ centred.T).T.reshape(
        len(squares), len(blurs), len(templates)).max(axis=2)
    where = np.array(squares, np.float64)
    distance2 = ((where[:, None, :] - where[None, :, :]) ** 2).sum(axis=2)
    weights = np.exp(-distance2 / (2 * NEIGHBOURHOOD**2))
    blur_of = (weights @ best).argmax(axis=1)
    # Under its blur, each square's windows against every sample: the best move.
    chosen_blurred = blurred[blur_of]  # (squares, samples, d)
    moved = np.matmul(chosen_blurred, patches.transpose(0, 2, 1)).max(axis=2)
    per_letter = np.full((len(squares), len(classes)), -1.0, np.float32)
    for j in range(len(classes)):
        per_letter[:, j] = moved[:, class_of == j].max(axis=1)
    out: list[Reblurred] = []
    for k, b in enumerate(blur_of):
        row = per_letter[k]
        order = np.argsort(-row, kind="stable")
        out.append(Reblurred(tuple(classes[j] for j in order),
                             tuple(float(row[j]) for j in order), blurs[b]))
    return out


#: How much more like the photo's square the reblurred samples of another letter must be
#: than those of the letter read for that letter to replace it: on the real blurred photo a P
#: was 0.03 less like its P than like the R, the letters read wrong 0.06 and more less like
#: theirs (or not learnt at all).
REPLACE_BY = 0.04
#: How like the squares read again their likest reblurred samples must be on average for any
#: letter to be replaced: below it the profile's letters, however blurred, do not look like
#: this photo's (another scale of tile, a blur none of the candidates models), and the
#: likest is chance.  On 200 rendered photos (``bench/eval_rendered.py --count 100``, seeds 1
#: and 2) the photos whose letters were replaced lay at 0.82 to 0.93, but one at 0.76 where 3
#: of its 6 replaced letters were right before and wrong after (U read Q, R X, P R); the real
#: blurred photo lies at 0.86.
FITS = 0.8
#: A letter read so is read unsure: its confidence grows with its lead over the next letter
#: up to this lead, to at most :data:`MOST_CONFIDENT` (below what a reading shows sure).
SURE_LEAD = 0.15
MOST_CONFIDENT = 0.45


def reread_unsure(
    upright_grey: np.ndarray, square_px: int, margin: int, squares: list[tuple[int, int]],
    guesses: list[LetterGuess], classifier: LetterClassifier, below: float,
) -> list[int]:
    """Read again, against the ``classifier``'s sharp samples blurred as the photo is
    (:func:`reblurred_letters`), the letters of ``guesses`` (one per square of ``squares``)
    read with less confidence than ``below``; where another letter is clearly more alike
    (:data:`REPLACE_BY`), or the letter read is one the samples do not hold, it replaces the
    guess in place (unsure: :data:`MOST_CONFIDENT` at most); none does where the samples fit
    the squares badly on the whole (:data:`FITS`).  Returns the indices replaced."""
    unsure = [i for i, guess in enumerate(guesses)
              if guess.letter != BLANK and guess.confidence < below]
    if not unsure or len(classifier.sharp_labels) == 0:
        return []
    read = reblurred_letters(upright_grey, square_px, margin, [squares[i] for i in unsure],
                             classifier.sharp_glyphs, classifier.sharp_labels)
    if sum(again.scores[0] for again in read) < FITS * len(read):
        return []
    replaced = []
    for i, again in zip(unsure, read, strict=True):
        score = dict(zip(again.letters, again.scores, strict=True))
        letter, best = again.letters[0], again.scores[0]
        current = score.get(guesses[i].letter)
        if letter == guesses[i].letter or (current is not None and current > best - REPLACE_BY):
            continue
        lead = best - again.scores[1] if len(again.scores) > 1 else best
        # Correlations made similarities as the classifier's are (see SIMILARITY_STRETCH):
        # the word check weighs a letter's shortfall against the next on that scale.
        likeness = tuple(round(1.0 - SIMILARITY_STRETCH * (1.0 - value), 4)
                         for value in again.scores[:LIKELIEST])
        guesses[i] = LetterGuess(letter, MOST_CONFIDENT * min(max(lead, 0.0) / SURE_LEAD, 1.0),
                                 None, again.letters[:LIKELIEST], likeness)
        replaced.append(i)
    return replaced
