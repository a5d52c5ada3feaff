"""The search over looks and placements (steps 7-8 of :mod:`vision.locate`): the lattice of
enough empty squares, looking no further than needed; then its placement weighed against a
farther look, the other line masks' lattices and, where doubtful, every other look."""

from __future__ import annotations

import cv2
import numpy as np

from vision.locate.corner_check import _square_side, check_corners
from vision.locate.lattice import _MIN_LATTICE_CELLS, _best_lattice, _find_cells
from vision.locate.line_response import _line_mask, _ridges
from vision.locate.location import BoardNotFound
from vision.locate.looks import (
    _ENOUGH_CELLS,
    _FARTHER,
    _FARTHEST,
    _MIN_WORK_SQUARE_PX,
    WORK_LONG_SIDE,
    _Attempt,
    _Looks,
    _MaskCells,
    at_working_size,
)
from vision.locate.placement import _photo_corners, _place, _Placement
from vision.locate.premium import _premium_scores
from vision.locate.premium_look import _premium_look


def _search(looks: _Looks) -> tuple[_Attempt, list[_MaskCells]]:
    """The best lattice of empty squares, looking no further than needed; and the cells of
    every line mask tried at the first resolution (for :func:`_agreed_look`).

    The grey image at the first resolution finds most boards.  Where it finds fewer than
    :data:`_ENOUGH_CELLS` squares on one lattice the photo is looked at again in colour (the
    look with more squares wins; it costs about twice the grey one, so a board found in grey
    with its squares mostly under tiles is not looked at again).  Squares too small at this
    resolution call for a closer look, and too few squares for a farther one (a blurred
    photo), in grey and then, where grey still finds no board, in colour; a small board too,
    where the closer look found fewer than :data:`_ENOUGH_CELLS` (under blur, a lattice of
    the wrong size).
    """
    image, grey = looks.image, looks.grey
    attempt = looks.attempt(False, WORK_LONG_SIDE)
    first_seen = list(attempt.seen)
    # Grey mixes the channels, diluting a line that differs from its squares mainly in one
    # colour; under blur and noise such a line may only be seen in its channel.
    if len(attempt.lattice.members) < _ENOUGH_CELLS and image.ndim == 3:
        in_colour = looks.attempt(True, WORK_LONG_SIDE)
        first_seen += in_colour.seen
        if len(in_colour.lattice.members) > len(attempt.lattice.members):
            attempt = in_colour
    # A board small in a large photo has squares too small at the first resolution for thin
    # lines to separate them: look closer.
    too_small = 0 < attempt.square_px < _MIN_WORK_SQUARE_PX
    if (too_small or len(attempt.lattice.members) < _MIN_LATTICE_CELLS) and (
        max(grey.shape) > WORK_LONG_SIDE
    ):
        closer = looks.attempt(False, _closer_long_side(attempt.square_px))
        if len(closer.lattice.members) >= min(len(attempt.lattice.members), _MIN_LATTICE_CELLS):
            attempt = closer
    # A blurred photo (out of focus, or the camera moved) smears thin lines away; at a lower
    # resolution the blur spans fewer pixels and the lines stand out again.  Grey first; where
    # that still finds no board, in colour (a blurred green line on green squares may stand
    # out only in its channel, as at the first resolution).
    farther_looks = [False] + ([True] if image.ndim == 3 else [])
    for in_colour in farther_looks:
        members = len(attempt.lattice.members)
        if members >= _ENOUGH_CELLS or (members >= _MIN_LATTICE_CELLS and not too_small):
            break
        farther = looks.attempt(in_colour, int(WORK_LONG_SIDE * _FARTHER))
        if (len(farther.lattice.members) > len(attempt.lattice.members)
                and farther.square_px >= _MIN_WORK_SQUARE_PX / 2):
            attempt = farther
    # Still no board: blur with sensor noise can leave the lines as weak as the noise at every
    # resolution, and only their length tells them apart.  Grey first, then in colour; where
    # the first look's squares were too small, closer too (in grey: the strokes span less of
    # a small square at the first resolution, and its lines are thinner there).
    stroke_looks = [(in_colour, WORK_LONG_SIDE) for in_colour in farther_looks]
    if too_small and max(grey.shape) > WORK_LONG_SIDE:
        stroke_looks.append((False, 2 * WORK_LONG_SIDE))
    for in_colour, long_side in stroke_looks:
        if len(attempt.lattice.members) >= _MIN_LATTICE_CELLS:
            break
        stroked = looks.attempt(in_colour, long_side, along_strokes=True)
        if long_side == WORK_LONG_SIDE:
            first_seen += stroked.seen
        if len(stroked.lattice.members) > len(attempt.lattice.members):
            attempt = stroked
    return attempt, first_seen


def _best_fitting(image: np.ndarray, placements: list[_Placement | None]) -> _Placement | None:
    """Of the placements given (None: a look that placed nothing), the one that fits the photo
    best (:func:`_placement_score`, lines seen plus premium layout matched); None if none."""
    placed = [placement for placement in placements if placement is not None]
    if not placed:
        return None
    scores = [sum(_placement_score(image, placement)) for placement in placed]
    return placed[int(np.argmax(scores))]


def _farthest_placement(looks: _Looks) -> _Placement | None:
    """The grid placed by the look farthest away along strokes, where its lattice holds
    enough squares large enough to be told apart; else None.

    A last look, after the squares that several looks agree on: motion blur (the camera moved
    by a fifth of a square while the shutter was open) smears the grid's thin lines wider than
    the line filter picks out at every nearer resolution, and on a board nearly full the few
    empty squares left are then found by no look; farthest, the smear is thin again and the
    lines' length tells them from the noise.
    """
    farthest = looks.attempt(False, int(WORK_LONG_SIDE * _FARTHEST), along_strokes=True)
    if (len(farthest.lattice.members) < _MIN_LATTICE_CELLS
            or farthest.square_px < _MIN_WORK_SQUARE_PX / 2):
        return None
    try:
        return _place(looks.image, farthest)
    except BoardNotFound:
        return None


#: Steps between lines (of the window's 2 x 15) that the lines seen may miss before the lattice
#: counts as extrapolated over much of the window: one or two outer lines are often hidden
#: under tiles.
_FAR_SHORT_OF_WINDOW = 4


def _farther_placement(looks: _Looks, attempt: _Attempt, placement: _Placement) -> _Placement:
    """``placement``, or the placement from the farther look in grey where that look finds more
    empty squares and its lines span more of its window.

    A blurred photo can still show enough squares at the first resolution for the search to
    look no farther (:data:`_ENOUGH_CELLS`), only fewer and bunched where its lines are
    sharpest: the lines beyond them, smeared, are not seen, and the lattice there is
    extrapolated, half a square off at the far corner.  Farther, the blur spans fewer pixels.
    """
    image, grey = looks.image, looks.grey
    long_side = int(WORK_LONG_SIDE * _FARTHER)
    if attempt.scale <= long_side / max(grey.shape):
        return placement
    farther = looks.attempt(False, long_side)
    if (len(farther.lattice.members) <= len(attempt.lattice.members)
            or farther.square_px < _MIN_WORK_SQUARE_PX / 2):
        return placement
    try:
        placed = _place(image, farther)
    except BoardNotFound:
        return placement
    return placed if placed.covered > placement.covered else placement


#: A lattice of fewer empty squares than this, from the first look, is confirmed by the premium
#: squares against the lattices of the other line masks there (:func:`_confirmed_placement`).
#: On 900 rendered photos (seeds 9-11 of the benchmark), the five grids placed 0.86-16 squares
#: off rested on 24-44 squares, each on a lattice that the first mask found (a checkerboard of
#: every other square, rows sheared by motion blur, a perspective bent on a blurred board);
#: the masks without noise specks, or in colour, found 37-69 on the right lattice.  About one
#: photo in twelve there has a lattice this small, and takes 0.15 s more (at most 0.25 s).
_DOUBTFUL_MEMBERS = 48
#: How much better (in :func:`_premium_scores`' units) another lattice's window must match the
#: premium layout to replace a doubtful one: two right fits of one photo differ by up to 0.02;
#: the blurred board's grid 0.86 of a square off scored 0.365 against the right one's 0.398,
#: the other wrong lattices 0.4-1.6 less than the right ones.
_CONFIRM_MARGIN = 0.025
#: A doubtful lattice's placement whose window matches the premium layout this well
#: (:func:`_premium_scores`) is taken as confirmed without the other masks' lattices: the real
#: game's late frames (a board nearly full, 43 empty squares on the lattice) score 0.41 and
#: the look cost them 180 ms of a 220 ms search for nothing; the wrong placements it was made
#: for scored -0.05 to 0.37.
_PREMIUM_CONFIRMS = 0.4
#: A placement whose premium squares score under this (:func:`_premium_scores`) and whose lines
#: are seen no better than this (:func:`check_corners`) is refuted, whatever the size of its
#: lattice: a lattice of 71 squares, many of them specks of a carpet, with a diagonal for an
#: axis, scored -0.006 and 0.00 (the right grid there 0.33 and 0.25).
_REFUTED_PREMIUM = 0.05
_REFUTED_LINES = 0.02


def _mask_lattices(look: np.ndarray) -> list[_Attempt]:
    """The lattices of the line masks of ``look`` (grey, or BGR for each colour channel) at the
    first resolution, most empty squares first: both polarities, with and without noise specks
    (where :func:`_attempt` stops at the first mask that finds enough squares)."""
    work, scale = at_working_size(look)
    work = cv2.GaussianBlur(work, (3, 3), 0)
    found = []
    for dark_lines in (True, False):
        ridges = _ridges(work, dark_lines)
        for despeckle in (False, True):
            cells = _find_cells(_line_mask(ridges, despeckle=despeckle))
            lattice = _best_lattice(cells)
            if lattice is not None and len(lattice.members) >= _MIN_LATTICE_CELLS:
                found.append(_Attempt(lattice, ridges, scale, len(cells.areas)))
    # Stable: of two lattices of as many squares, the one the search would have met first.
    return sorted(found, key=lambda other: -len(other.lattice.members))


def _confirmed_placement(
    image: np.ndarray, grey: np.ndarray, attempt: _Attempt, placement: _Placement
) -> _Placement:
    """``placement`` (of ``attempt``'s lattice), or the placement of the lattice of most empty
    squares that the line masks at the first resolution find, in grey or, where grey finds no
    more squares than ``attempt``, in colour, where that lattice holds more squares and its
    window matches the premium squares' layout clearly better (:data:`_CONFIRM_MARGIN`).
    Asked only of a colour photo whose lattice, from the first look, holds fewer than
    :data:`_DOUBTFUL_MEMBERS` squares (and enough for the search to have stopped there,
    :data:`_ENOUGH_CELLS`) and whose window does not clearly match the premium layout
    (:data:`_PREMIUM_CONFIRMS`); or whose placement is refuted, neither its premium squares nor its
    lines seen (:data:`_REFUTED_PREMIUM`, :data:`_REFUTED_LINES`), and then by the lattice
    of every other mask, most squares first, whatever their number.

    The search takes the first mask that finds enough squares on one lattice, and a lattice of
    two dozen squares can be a wrong one that still passes every check of the lines: the
    squares of a checkerboard of every other square, or, under motion blur along one axis,
    squares whose lines across are smeared, fitted by a lattice sheared along the rows.
    Refined to the lines, the window lands a square or more off (on 900 rendered photos, 5
    boards lost so, 0.86-16 squares off).  The premium squares fall where the layout has them
    only on the grid.  (A grey photo is left as it is: it has no premium squares to tell.)
    """
    first_scale = min(1.0, WORK_LONG_SIDE / max(grey.shape))
    members = len(attempt.lattice.members)
    if image.ndim != 3 or attempt.scale != first_scale or members < _ENOUGH_CELLS:
        # Under _ENOUGH_CELLS squares, every mask at the first resolution was tried already.
        return placement

    def score(placed: _Placement) -> float:
        _, scores = _premium_scores(
            image, placed.homography, placed.x0, placed.y0, placed.scale
        )
        return float(scores[0])

    placed_score = score(placement)
    refuted = (placed_score < _REFUTED_PREMIUM
               and check_corners(image, _photo_corners(placement)) < _REFUTED_LINES)
    if not refuted and (members >= _DOUBTFUL_MEMBERS or placed_score >= _PREMIUM_CONFIRMS):
        return placement
    enough = placed_score + _CONFIRM_MARGIN
    for look in (grey, image):
        lattices = _mask_lattices(look)
        if refuted:
            # Every other lattice, the refuted one (as many squares) left out.
            others = [o for o in lattices if len(o.lattice.members) != members]
        else:
            others = [o for o in lattices[:1] if len(o.lattice.members) > members]
        for other in others:
            try:
                placed = _place(image, other)
            except BoardNotFound:
                continue
            if score(placed) > enough:
                return placed
            if not refuted:
                # A lattice of more squares placed no better confirms the one found (colour,
                # which costs twice grey, is looked at only where grey has no more squares).
                return placement
    return placement


#: A placement whose lines are seen worse than this (:func:`check_corners`), or on a colour
#: photo whose window matches the premium layout worse than this (:func:`_premium_scores`), is
#: doubtful: the other looks at the photo are placed too, and the best placement kept
#: (:func:`_second_opinion`).
_DOUBTFUL_LINES = 0.25
_DOUBTFUL_PREMIUM = 0.1
#: How much better (lines seen plus premium layout matched) another look's placement must be.
#: The five grids so found on 5,400 rendered photos fitted 0.16-1.0 better than the lost ones
#: they replaced; on a deluxe board under glare, 87 tiles on it (its premium squares and lines
#: telling nothing, both grids scoring 0.23-0.30), a grid a square off fitted 0.08 better.
_OPINION_MARGIN = 0.12
#: How far apart (at a corner, in squares) another look's grid must lie to be another grid
#: rather than the same one fitted a little differently.  Fitted to fewer lines between empty
#: squares, the same grid can lie a quarter of a square off on tiles' edges, and those are seen
#: as lines too: on 2,100 rendered photos, six grids so replaced went from 0.01-0.13 to
#: 0.10-0.29 of a square off.
_OPINION_APART = 0.5


def _placement_score(image: np.ndarray, placement: _Placement) -> tuple[float, float]:
    """How well ``placement`` fits the photo: its lines seen (:func:`check_corners`) and, on a
    colour photo, how well its window matches the premium layout (:func:`_premium_scores`;
    0 on a grey photo)."""
    lines = check_corners(image, _photo_corners(placement))
    if image.ndim != 3:
        return lines, 0.0
    _, scores = _premium_scores(image, placement.homography, placement.x0, placement.y0,
                                placement.scale)
    return lines, float(scores[0])


def _second_opinion(looks: _Looks, attempt: _Attempt, placement: _Placement) -> _Placement:
    """``placement`` (of ``attempt``'s lattice), or, where it is doubtful (its lines seen
    worse than :data:`_DOUBTFUL_LINES` or its premium squares not where the layout has them,
    :data:`_DOUBTFUL_PREMIUM`), the placement of another look at the photo (grey and colour at
    the first resolution, grey farther and closer, grey along strokes, nearer and farthest,
    the premium squares' colours: :func:`_premium_look`) that puts the grid elsewhere
    (:data:`_OPINION_APART`) and fits the photo clearly better (lines seen plus premium
    layout matched, by :data:`_OPINION_MARGIN`).  Where it is not doubtful, the looks
    already made that found more empty squares than ``attempt`` are asked the same: squares
    too small at first call for a closer look, which wins with fewer squares and can find a
    wrong lattice.

    The search stops at the first look whose lattice holds enough squares, and where few of
    the empty squares are found (light lines, blurred, among noise) their lattice can bend:
    cells a square apart admitted at neighbouring sites, a perspective that makes 14 steps of
    the lattice cover 15 squares.  Refined to the lines, such a grid lies right along one edge
    and two squares off at the far corner, where its lines fall between the printed ones.
    Another resolution, or colour, finds other squares and the right lattice.  So do they
    where the first look's lines, a column of tiles hiding the grid's first line, put the
    window a column off, or where camera motion smears the lines across the rows and a
    lattice of a dozen squares is sheared along them.  The looks already made are not made
    again; a doubtful placement (about one photo in twenty of the benchmark's) costs up to
    five more and the premium squares' look.
    """
    image, grey = looks.image, looks.grey
    lines, premium = _placement_score(image, placement)
    members = len(attempt.lattice.members)
    if lines < _DOUBTFUL_LINES or (image.ndim == 3 and premium < _DOUBTFUL_PREMIUM):
        wanted = [(False, WORK_LONG_SIDE, False), (False, int(WORK_LONG_SIDE * _FARTHER), False)]
        if image.ndim == 3:
            wanted.append((True, WORK_LONG_SIDE, False))
        if max(grey.shape) > WORK_LONG_SIDE:
            wanted.append((False, 2 * WORK_LONG_SIDE, False))
        wanted.append((False, WORK_LONG_SIDE, True))
        # Farthest, along strokes: a camera's motion smears the lines wider than the line
        # filter picks out nearer, and a lattice found there among the few squares still
        # seen can bend.
        wanted.append((False, int(WORK_LONG_SIDE * _FARTHEST), True))
        others: list[_Attempt | None] = [looks.attempt(*look) for look in wanted]
        # The very last look's placement too (None stands for it): the premium squares can
        # place a board whose lines, smeared, no look finds enough of.
        others.append(None)
    else:
        # Not doubtful, but where the search took a closer look with fewer squares than the
        # first (squares too small at first), the first look's placement is asked too.
        others = [made for made in looks.made.values()
                  if len(made.lattice.members) > members]
        if not others:
            return placement
    # The best fit of those clearly better than the doubtful placement, not the first found
    # clearly better than the one before: a look that fits a little better than a bent grid
    # would otherwise stand against one that fits best.
    best, best_score, enough = placement, lines + premium, lines + premium + _OPINION_MARGIN
    corners = _photo_corners(placement)
    side = _square_side(corners)
    for other in others:
        if other is None:
            placed = _premium_look(image)
            if placed is None:
                continue
        else:
            if other.look == attempt.look or len(other.lattice.members) < _MIN_LATTICE_CELLS:
                continue
            try:
                placed = _place(image, other)
            except BoardNotFound:
                continue
        apart = np.hypot(*(_photo_corners(placed) - corners).T).max() / side
        if apart <= _OPINION_APART:
            continue
        score = sum(_placement_score(image, placed))
        if score > enough and score > best_score:
            best, best_score = placed, score
    return best


#: Side, in working pixels, that a closer look makes the first look's squares...
_CLOSER_SQUARE_PX = 20
#: ... looking at most this much closer (a square not measured: this much).
_CLOSEST = 2.0


def _closer_long_side(square_px: float) -> int:
    """The working resolution of a closer look: just enough for squares of
    :data:`_CLOSER_SQUARE_PX` (the work grows with the square of the resolution: a 12 MP phone
    photo of a board a third of its width, looked at twice as close, cost a quarter of a
    second; at 1.4 times, an eighth)."""
    factor = _CLOSEST if square_px <= 0 else min(_CLOSEST, _CLOSER_SQUARE_PX / square_px)
    return int(WORK_LONG_SIDE * max(1.0, factor))
