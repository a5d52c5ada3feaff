"""Tiles and letters a first look misses: letters too faint to be found until their contrast is
raised, letters washed out by glare, and tiles the uncalibrated occupancy took for empty
squares that show a letter of the tiles' size.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

import numpy as np

from vision.glyphs import Glyph, GlyphFinder
from vision.medians import median
from vision.rectified import (
    PLAIN_SQUARES,
    beside_any,
    free_beside,
    neighbours,
    taken_squares,
)

if TYPE_CHECKING:
    pass


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


#: A letter on a square taken for empty is a tile's when its height lies within these shares
#: of the tiles' median letter height.
MISSED_HEIGHT = (0.8, 1.25)


#: ... and the square's middle is at least this share of the brightness of the faces of the
#: tiles found (not the darker board of most editions, with its grid lines).  There is no
#: upper bound: glare makes the tiles it falls on brighter than the others, and takes them
#: for empty squares as it washes their colour out.
MISSED_FACE = 0.8


#: ... or at least this share of the brightness of a tile found so beside it (see
#: :func:`missed_tiles`): beyond a patch of glare, tiles grow darker one after another.
FOUND_BESIDE = 0.7


#: Lettered plain squares from which the tiles' letter height and face brightness are taken,
#: where there are at least this many (:func:`missed_tiles`).
FACES_FROM_PLAIN = 3


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


def _plain_letters(
    finder: GlyphFinder, free: np.ndarray, like_a_letter: Callable[[list[Glyph]], np.ndarray],
    at_least: int = FEW_TILES,
) -> list[tuple[tuple[int, int], Glyph]]:
    """The plain squares of ``free`` showing a letter of a tile's height (:data:`LETTER_HEIGHT`)
    that a classifier finds like a letter any way up (the board is not turned upright yet),
    with no line running across it; none where fewer than :data:`FEW_TILES` such glyphs are
    found at all (the grain of a wooden board passes for a letter here and there)."""
    squares = [(int(r), int(c)) for r, c in np.argwhere(free & PLAIN_SQUARES)]
    found = finder.glyphs(squares, 0)
    letters = [(square, glyph) for square, glyph in zip(squares, found, strict=True)
               if glyph is not None and LETTER_HEIGHT[0] <= glyph.height <= LETTER_HEIGHT[1]]
    across = finder.lines_across([square for square, _ in letters], 0)
    letters = [letter for letter, line in zip(letters, across, strict=True) if not line]
    if len(letters) < at_least:
        return []
    like = np.any([like_a_letter([glyph.turned(turns) for _, glyph in letters])
                   for turns in range(4)], axis=0)
    return [letter for letter, yes in zip(letters, like, strict=True) if yes]


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
    letters = _plain_letters(finder, ~occupied, like_a_letter)
    if letters:
        typical = float(median([glyph.height for _, glyph in letters]))
        letters = [(square, glyph) for square, glyph in letters
                   if _of_tiles_size(glyph, typical)]
    seen = {square for square, _ in letters} | {
        (int(r), int(c)) for r, c in np.argwhere(occupied)}
    letters = [(square, glyph) for square, glyph in letters if beside_any(square, seen)]
    return letters if len(letters) >= FEW_TILES else []


#: Uncalibrated, where at least this many of the squares taken for tiles show no letter, and
#: more than half of them, the look taken for the tiles' face may be something else's: the
#: plain squares are then looked at for letters (:func:`letters_left_out`).  A set has two
#: blanks, and glare or a shadow's edge leaves a few more faces bare.
BARE_FACES = 10


def faces_in_doubt(glyphs: list[Glyph | None]) -> bool:
    """Whether the squares taken for tiles (their ``glyphs``) show no letter so often (at
    least :data:`BARE_FACES` of them, and more than half) that the look taken for the tiles'
    face may be something else's."""
    bare = sum(1 for glyph in glyphs if glyph is None)
    return bare >= BARE_FACES and 2 * bare > len(glyphs)


def letters_left_out(
    finder: GlyphFinder, free: np.ndarray, like_a_letter: Callable[[list[Glyph]], np.ndarray],
) -> list[tuple[tuple[int, int], Glyph]]:
    """The plain squares of ``free`` that show a tile's letter, however few: where the look
    taken for the tiles' face is in doubt, they show the faces' look where there are enough
    (:func:`faces_by_letters`); where no other look is found, the tiles the colour left out
    (wooden tiles beyond a lamp's glare, as pink as the board's DW squares) are known by
    their letters alone."""
    return _plain_letters(finder, free, like_a_letter, at_least=1)


def faces_by_letters(
    letters: list[tuple[tuple[int, int], Glyph]], shape: tuple[int, ...],
) -> np.ndarray | None:
    """The squares (bool, ``shape``) of the ``letters`` that :func:`letters_left_out` found
    where the squares taken for tiles mostly show none (:func:`faces_in_doubt`): None where
    they are fewer than :data:`FEW_TILES`.

    A lamp's reflection over a few dozen squares of a board with few tiles lightens them
    alike, and their look can pass for the tiles' face better than the tiles' own: the tiles
    are then read empty and the glare's squares taken for tiles showing no letter.  The
    letters say where the faces are: plain squares (a premium square's label is no tile's
    letter) showing letters of a tile's height that a classifier finds like letters (any way
    up: the board is not turned upright yet).  Whether their look explains the board better
    is for the caller to judge.

    >>> g = Glyph(np.zeros((24, 24), np.float32), np.zeros((4, 4), np.uint8), 0.5)
    >>> faces_by_letters([((7, 6), g), ((7, 7), g)], (15, 15)) is None
    True
    >>> int(faces_by_letters([((7, 6), g), ((7, 7), g), ((7, 8), g)], (15, 15)).sum())
    3
    """
    if len(letters) < FEW_TILES:
        return None
    face = np.zeros(shape, bool)
    for square, _ in letters:
        face[square] = True
    return face


def missed_tiles(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    occupied: np.ndarray, turns: int,
    like_a_letter: Callable[[list[Glyph]], np.ndarray] | None = None,
) -> list[tuple[tuple[int, int], Glyph]]:
    """Squares taken for empty, beside a lettered tile or a face showing no letter beside
    one (a blank in its word), that show a letter of the tiles' size in their middle, on a
    face at least about as bright as the tiles' faces, with that letter (squares in the
    upright board's terms, like ``squares``).  On a premium square the letter may be its
    label's: there it must be ``like_a_letter`` (without it, premium squares are left alone).
    With ``like_a_letter``, squares that glare has clipped to white are looked at once more
    with their contrast raised to a letter's (:func:`_washed_letters`)."""
    shown = [(sq, g) for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    if len(shown) < 3:
        return []
    lettered = {square for square, _ in shown}
    # A face showing no letter beside a lettered tile is a blank in its word, or a tile whose
    # letter glare washed out: a tile missed beside it is as likely as beside a lettered one
    # (a P above a blank under a lamp's glare, its face lightened as much as the board's, was
    # read as an empty square with no tile beside it to look from).
    seeds = sorted(lettered) + [square for square, glyph in zip(squares, glyphs, strict=True)
                                if glyph is None and beside_any(square, lettered)]
    # The letters' height and the faces' brightness from the lettered squares that are plain,
    # where there are enough: under glare, a premium square's label shows print that passes
    # for a letter, smaller than a tile's, on a square brighter than the tiles outside the
    # glare (which then looked too dark, and their letters too large, to be tiles).
    plain = [(square, glyph) for square, glyph in shown if PLAIN_SQUARES[square]]
    reference = plain if len(plain) >= FACES_FROM_PLAIN else shown
    typical = float(median([glyph.height for _, glyph in reference]))
    face = float(median(finder.face_brightness([square for square, _ in reference], turns)))
    # The brightness of each tile found here: light falls off smoothly (a lamp's glare, a
    # window), and the tiles missed together beyond a patch of glare, found from its edge
    # outwards, grow darker one after another, each about as bright as the one found beside it.
    found_light: dict[tuple[int, int], float] = {}
    free = ~occupied if like_a_letter is not None else ~occupied & PLAIN_SQUARES
    missed: list[tuple[tuple[int, int], Glyph]] = []
    # A tile lies beside another (words have two letters or more): a letter on a square with
    # no tile beside it is a neighbour's seen by parallax, or a mark on the board.  Tiles
    # missed together (a patch of glare) are found from the edge in: each one found lets its
    # neighbours be looked at.
    while seeds:
        empty = free_beside(free, seeds)
        free &= ~taken_squares(empty)  # each square looked at once
        brightness = finder.face_brightness(empty, turns)
        light_of = dict(zip(empty, brightness.tolist(), strict=True))
        # A tile under glare (brighter than the tiles' faces) has its letter's contrast
        # raised by as much (see letters_under_glare).
        found = finder.glyphs(empty, turns, gains=glare_gains(brightness, face))
        beside_found = [max((found_light.get(n, 0.0) for n in neighbours(square)),
                            default=0.0) for square in empty]
        new = [
            (square, glyph) for square, glyph, light, near in zip(empty, found, brightness,
                                                                  beside_found, strict=True)
            if glyph is not None
            and _of_tiles_size(glyph, typical)
            and (light >= MISSED_FACE * face
                 or (near > 0 and light >= FOUND_BESIDE * min(near, face)))
        ]
        if like_a_letter is not None:
            new += _washed_letters(finder, [
                square for square, glyph, light in zip(empty, found, brightness, strict=True)
                if glyph is None and light >= max(MISSED_FACE * face, CLIPPED_FACE)
            ], turns, typical, like_a_letter)
        # A line running across the board (a folding board's hinge) is no letter.
        across = finder.lines_across([square for square, _ in new], turns)
        new = [letter for letter, line in zip(new, across, strict=True) if not line]
        on_premium = [letter for letter in new if not PLAIN_SQUARES[letter[0]]]
        if on_premium and like_a_letter is not None:
            letters = like_a_letter([glyph for _, glyph in on_premium])
            labels = {square for (square, _), like in zip(on_premium, letters, strict=True)
                      if not like}
            new = [(square, glyph) for square, glyph in new if square not in labels]
        missed += new
        seeds = [square for square, _ in new]
        found_light.update((square, light_of[square]) for square in seeds)
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
    bare, gains = _bare_gains(finder, squares, glyphs, turns)
    if not bare:
        return {}
    return _tile_letters_raised(finder, bare, gains, turns, float(median(heights)))


def letters_through_glare(
    finder: GlyphFinder, squares: list[tuple[int, int]], typical_height: float,
    like_a_letter: Callable[[list[Glyph]], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``squares``, under a lamp's reflection: whether it shows a letter of the
    tiles' size (``typical_height`` the tiles' typical letter's), found as it is or once its
    contrast is raised as :func:`faint_letters` raises a bare tile's; and whether it is washed
    out to white (:data:`BLIND_FACE`), where no letter could show.

    A reflection brightens an empty square as much as a tile: the colour that tells a tile
    from the board fades with it, and only the letter's dark strokes keep enough contrast to
    be found.  On game01's photos under a reflection 0.8 white at its middle, drawn afresh for
    each of 26 photos and five seeds (``bench/eval_real_views.py``'s glare), the 53 tiles laid
    where it was at least 0.4 white all showed a letter, and none of the 2,711 empty squares
    there did (one tile more was a blank, which shows none).  Squares in the finder's terms."""
    if not squares:
        return np.zeros(0, bool), np.zeros(0, bool)
    found = finder.glyphs(squares)
    bare = [sq for sq, g in zip(squares, found, strict=True) if g is None]
    raised = dict(_letters_raised_to_peak(finder, bare, 0, typical_height, like_a_letter))
    lettered = np.array([g is not None or sq in raised
                         for sq, g in zip(squares, found, strict=True)], bool)
    return lettered, finder.face_brightness(squares) >= BLIND_FACE


#: A square whose middle is at least this bright (grey 0..255) under a reflection is washed out
#: to white: a letter there has no contrast left (:func:`letters_through_glare`).
BLIND_FACE = 250.0


def letters_washed_out(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    known: list[tuple[int, int]], blanks: int, like_a_letter: Callable[[list[Glyph]], np.ndarray],
    washed: Collection[tuple[int, int]] = (),
) -> dict[tuple[int, int], Glyph]:
    """Letters on the new tiles of ``squares`` showing none, found again as
    :func:`vision.read.read_board` finds them on a whole board (:func:`letters_under_glare`,
    then :func:`faint_letters` where more tiles show no letter than ``blanks`` are left, and
    on the tiles known to lie under a lamp's reflection, ``washed``, whatever the blanks),
    compared with tiles ``known`` to show letters elsewhere on the board (the tiles a game laid
    before).  A move's few new tiles may all lie under one reflection, with no lettered tile
    among them to tell the face's usual brightness and the letters' height; the first move has
    no tiles before it, and is compared with its own tiles that show a letter.  Squares in
    the upright board's terms (the finder's, unturned)."""
    if all(g is not None for g in glyphs):
        return {}
    around = lettered_elsewhere(finder, known, squares)
    if len(around) + sum(g is not None for g in glyphs) < 3:
        return {}
    every = list(squares) + [sq for sq, _ in around]
    found: list[Glyph | None] = list(glyphs) + [g for _, g in around]
    found_again = letters_under_glare(finder, every, found, 0)
    for square, glyph in found_again.items():
        found[every.index(square)] = glyph
    found_again.update(faint_letters(finder, every, found, 0, blanks, like_a_letter))
    still_bare = [sq for sq, g in zip(squares, found[:len(squares)], strict=True)
                  if g is None and sq in washed and sq not in found_again]
    heights = [g.height for g in found if g is not None]
    found_again.update(_letters_raised_to_peak(finder, still_bare, 0, float(median(heights)),
                                               like_a_letter))
    return found_again


def lettered_elsewhere(finder: GlyphFinder, known: Collection[tuple[int, int]],
                       squares: Collection[tuple[int, int]] = ()
                       ) -> list[tuple[tuple[int, int], Glyph]]:
    """Tiles ``known`` on the board (not among ``squares``) with the letters they show: at
    most :data:`KNOWN_SAMPLE`, spread across the board, so that their median face and letter
    height are unglared wherever one reflection lies."""
    chosen = sorted(set(known) - set(squares))
    chosen = chosen[:: max(1, len(chosen) // KNOWN_SAMPLE)]
    return [(sq, g) for sq, g in zip(chosen, finder.glyphs(chosen), strict=True)
            if g is not None]


#: How many of the tiles known elsewhere on the board :func:`lettered_elsewhere` samples,
#: at most (their faces' median is steady by then; each costs a glyph search).
KNOWN_SAMPLE = 24


def faces_under_glare(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    turns: int,
) -> list[tuple[int, int]]:
    """The tiles showing no letter whose faces glare brightened (by
    :data:`GLARE_GAIN_MIN` or more over the lettered tiles' typical face) to nearly white
    (:data:`WASHED_FACE`).

    What glare adds to a face it takes from its letter's contrast: where no letter is found
    even with the contrast raised (:func:`letters_under_glare`), the tile may be a blank or
    a letter washed out, and only the players can say which (an N and an S under a lamp on
    game01's green board, 236 to 242 bright, read as blanks, sure).  A blank is brighter than
    the lettered faces by itself (no letter darkens it: the blank of jheidel's wooden tiles,
    110 bright, by 1.31), but glare alone makes a face nearly white."""
    bare, gains = _bare_gains(finder, squares, glyphs, turns)
    if not bare:
        return []
    bright = finder.face_brightness(bare, turns)
    return [square for square, gain, level in zip(bare, gains, bright, strict=True)
            if gain > 1.0 and level >= WASHED_FACE]


#: Brightness (grey 0..255, :meth:`GlyphFinder.face_brightness`) from which a bare face
#: brightened by glare may hide a letter washed out (:func:`faces_under_glare`): nine
#: tenths of white.
WASHED_FACE = 230.0


def _bare_gains(
    finder: GlyphFinder, squares: list[tuple[int, int]], glyphs: list[Glyph | None],
    turns: int,
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The tiles showing no letter, and how much glare brightened each
    (:func:`glare_gains`); none without three lettered tiles to compare with."""
    lettered = [sq for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    bare = [sq for sq, g in zip(squares, glyphs, strict=True) if g is None]
    if len(lettered) < 3 or not bare:
        return [], np.ones(0)
    typical_face = float(median(finder.face_brightness(lettered, turns)))
    return bare, glare_gains(finder.face_brightness(bare, turns), typical_face)
