"""Blank tiles told from what only looks like a tile: a face like the tiles' around it is a blank;
glare, a shadow's edge, a premium label's print or a lone mark is not a tile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.glyphs import BLANK, Glyph, crop_margin_px
from vision.letters import LetterGuess
from vision.medians import median, medians_where, percentile
from vision.rectified import (
    PREMIUM_KINDS,
    SQUARE_PX,
    beside_any,
    free_beside,
    joined_to,
    taken_squares,
)

if TYPE_CHECKING:
    pass


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
    # Every square's middle gathered at once (the same pixels in the same order as one slice
    # each), from a view of the picture as a grid of the squares' middles: a turned picture's
    # own strides serve, with no copy of it.
    start = margin + inset
    across = ((image.shape[0] - start - side) // square_px + 1,
              (image.shape[1] - start - side) // square_px + 1)
    r_stride, c_stride, channel = image.strides
    grid = np.lib.stride_tricks.as_strided(
        image[start:, start:], shape=(*across, side, side, 3),
        strides=(square_px * r_stride, square_px * c_stride, r_stride, c_stride, channel),
        writeable=False)
    at = np.asarray(squares, np.intp).reshape(-1, 2)
    if len(at) and ((at.min(axis=0) < 0) | (at.max(axis=0) >= across)).any():
        raise ValueError(f"squares outside a {image.shape[1]}x{image.shape[0]} grid picture")
    out = grid[at[:, 0], at[:, 1]].reshape(len(at), side * side, 3)
    return out.astype(np.float32) @ _OPPONENT


#: Each square's premium type as a number (comparing numbers rather than strings).
_KINDS = sorted(set(PREMIUM_KINDS.ravel().tolist()))
_KIND_CODES = np.array([[_KINDS.index(kind) for kind in row] for row in PREMIUM_KINDS.tolist()])


def _distance(colours: np.ndarray, to: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(colours - to, axis=-1)`` of opponent colours (three channels), the
    same to the last bit (its squares summed in the same order), without NumPy's reduction
    over an axis of three (six times as long)."""
    difference = colours - to
    lightness, red_green, yellow_blue = difference[..., 0], difference[..., 1], difference[..., 2]
    return np.sqrt(lightness * lightness + red_green * red_green + yellow_blue * yellow_blue)


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
    face_colour = medians_where(faces, light)
    empty = np.argwhere(~occupied)
    if len(empty) == 0:
        return ones, ones
    bare_array = np.asarray(bare)
    # The three nearest empty squares of each bare square's premium type.
    distance = (np.abs(bare_array[:, None, 0] - empty[None, :, 0])
                + np.abs(bare_array[:, None, 1] - empty[None, :, 1])).astype(np.float64)
    same_kind = (_KIND_CODES[tuple(bare_array.T)][:, None]
                 == _KIND_CODES[tuple(empty.T)][None, :])
    distance[~same_kind] = np.inf
    around = np.argsort(distance, axis=1, kind="stable")[:, :3]
    referenced = np.isfinite(np.take_along_axis(distance, around, axis=1))
    known = referenced.any(axis=1)
    # Only the empty squares some bare square compares with are looked at.
    # np.unique by sorting: NumPy's own asks np.ma whether the array is masked, and the first
    # such call in a process imports numpy.ma (10 ms of a cold read).
    used = np.sort(around[referenced])
    first = np.ones(len(used), bool)
    first[1:] = used[1:] != used[:-1]
    used = used[first]
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
    to_face = _distance(pixels, face[:, None, :])
    to_empty = _distance(pixels, empty_reference[:, None, :])
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
    unlettered = ~taken_squares(lettered)
    references = np.zeros((len(bare), 3), np.float32)
    known = np.zeros(len(bare), bool)
    # Each type's unlettered squares and their colours, measured once for all the bare
    # squares of that type (a square's median colour is its own whichever squares are
    # measured with it, and a median does not depend on the order of its values).
    of_kind: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for i, square in enumerate(bare):
        kind = str(PREMIUM_KINDS[square])
        if kind not in of_kind:
            same_kind = np.argwhere(unlettered & (PREMIUM_KINDS == kind))
            colours = np.zeros((len(same_kind), 3), np.float32)
            if len(same_kind) >= 3:
                colours = median(_middles(upright, [(int(r), int(c)) for r, c in same_kind],
                                          square_px), axis=1)
            of_kind[kind] = same_kind, colours
        same_kind, colours = of_kind[kind]
        others = (same_kind[:, 0] != square[0]) | (same_kind[:, 1] != square[1])
        if others.sum() < 3:
            continue
        references[i] = median(colours[others], axis=0)
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
    taken = taken_squares(squares)
    candidates = free_beside(~taken, lettered)
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
    joined = joined_to(faced, lettered)
    faceless = [sq for sq in bare if sq not in joined]
    bare = [sq for sq in bare if sq in joined]
    if len(bare) <= blanks:
        return sorted(faceless)

    def in_word(square: tuple[int, int]) -> bool:
        return beside_any(square, lettered)

    def rank(square: tuple[int, int]) -> tuple[bool, float, float]:
        return in_word(square), sum(face.get(square, (1.0, 1.0))), float(confidence[square])

    unread = set(marked_faces(squares, glyphs, face))
    ranked = sorted((sq for sq in bare if sq not in unread), key=rank, reverse=True)
    return sorted(faceless + ranked[blanks:])


#: Share of a bare square's middle within :data:`FACE_MATCH` of the tiles' faces below which
#: it is no sure blank (:func:`unmatched_faces`).  The blanks of the real photos, as taken and
#: under a hand, glare or a shadow, match 1.0 (and all but one of 368 rendered blanks 0.9 or
#: more, :data:`MARKED_MATCH`); fingers over empty squares 0.0; a pen lying across a tile,
#: its letter lost in the pen's stroke, 0.38 to 0.71.
BLANK_MATCH = 0.8


def unmatched_faces(
    squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    face: dict[tuple[int, int], tuple[float, float]],
) -> list[tuple[int, int]]:
    """The squares taken for tiles that show no letter whose middles have almost nothing of
    the tiles' faces' colour (``face``: the two shares of :func:`face_likeness` per bare
    square; the second below :data:`BLANK_MATCH`), though nearer to it than to the board's:
    a finger resting on the board beyond the hand that was found over it (skin is nearer a
    cream face than a green square), or a pen lying across a tile, not a blank's clean face.

    >>> g = Glyph(np.zeros((24, 24), np.float32), np.zeros((4, 4), np.uint8), 0.5)
    >>> unmatched_faces([(7, 6), (7, 7), (7, 8)], [None, g, None],
    ...                 {(7, 6): (1.0, 0.0), (7, 8): (1.0, 1.0)})
    [(7, 6)]
    """
    return [sq for sq, g in zip(squares, glyphs, strict=True)
            if g is None and sq in face and face[sq][1] < BLANK_MATCH]


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
        if closer >= MARKED_FACE and MARKED_MATCH[0] <= match < MARKED_MATCH[1] and beside_any(
                square, lettered):
            found.append(square)
    return found


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
        and not beside_any(square, taken)
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
    count, labels = cv2.connectedComponents(taken_squares(squares).astype(np.uint8), connectivity=4)
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
