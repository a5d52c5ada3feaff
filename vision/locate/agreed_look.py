"""The next-to-last look, where no look finds a lattice: the lattice of the cells that two line
masks agree on, placed where the premium squares confirm its window."""

from __future__ import annotations

import cv2
import numpy as np

from vision.locate.corner_check import check_corners
from vision.locate.lattice import _MIN_LATTICE_CELLS, _best_lattice, _Cells, _Lattice
from vision.locate.line_response import _ridges
from vision.locate.location import BoardNotFound
from vision.locate.looks import WORK_LONG_SIDE, _Attempt, _MaskCells
from vision.locate.placement import _photo_corners, _place, _Placement
from vision.locate.window import _premium_standout

#: Farthest a cell of another line mask may lie from a cell, in sides of that cell, for the two
#: to be one region seen twice (centres of one square in different masks lie a few pixels
#: apart: the line mask bites a little more or less into it).
_AGREEING_OFFSET = 0.25
#: Largest ratio of the areas of two cells taken for one region (either way round).
_AGREEING_AREAS = 1.6
#: Most cells agreed on that the last look searches for a lattice: a photo textured all over
#: (carpet, cloth, sensor noise blurred into blobs) has thousands, its texture's regions
#: being the same from mask to mask too, and the search among them would take seconds.  (The
#: masks of the board lost to blur and noise that this look was made for agree on 627.)
_MOST_AGREED = 1000
#: Least :func:`check_corners` score of the last look's grid (0: its lines are seen no better
#: than chance).  On the rendered photos that look found, fits 0.05-0.18 of a square off
#: scored 0.08-0.22, fits a quarter of a square off or more 0.00.
_AGREED_QUALITY = 0.05
#: Cells compared at a time in :func:`_agreed_cells` (bounds the memory of the pairwise
#: distances on a photo full of specks).
_AGREEING_CHUNK = 512


def _agreed_cells(seen: list[_MaskCells]) -> tuple[_Cells, np.ndarray] | None:
    """The cells that another line mask found too, and for each whether its mask's lines were
    dark; None where more than :data:`_MOST_AGREED` are (counting stops there).

    Out of focus with sensor noise, each mask keeps the shape of a few squares only, bitten by
    noise elsewhere, and lets through as many specks of noise shaped like squares: no mask has
    a dozen squares side by side.  But a square is the same region in every mask that keeps
    it (grey or colour, dark lines or light, each gain on the strokes), while a speck of one
    mask is rarely one of another.  Pooled, the squares that two masks agree on are many more
    than any one mask keeps, and the specks few.
    """
    centres = np.vstack([m.cells.centres for m in seen])
    areas = np.concatenate([m.cells.areas for m in seen])
    source = np.concatenate([np.full(len(m.cells.areas), k) for k, m in enumerate(seen)])
    dark = np.concatenate([np.full(len(m.cells.areas), m.dark_lines) for m in seen])
    # Left to right, so that each chunk of cells need only be compared with the cells within
    # reach of its columns.
    order = np.argsort(centres[:, 0], kind="stable")
    centres, areas, source, dark = centres[order], areas[order], source[order], dark[order]
    reach = _AGREEING_OFFSET * np.sqrt(areas)
    farthest = float(reach.max()) if len(reach) else 0.0
    agreed = np.zeros(len(areas), bool)
    for start in range(0, len(areas), _AGREEING_CHUNK):
        part = slice(start, start + _AGREEING_CHUNK)
        xs = centres[part, 0]
        near = slice(int(np.searchsorted(centres[:, 0], xs[0] - farthest, "left")),
                     int(np.searchsorted(centres[:, 0], xs[-1] + farthest, "right")))
        offsets = centres[part, None, :] - centres[None, near, :]
        ratio = areas[part, None] / areas[None, near]
        same = (
            (np.hypot(offsets[..., 0], offsets[..., 1]) < reach[part, None])
            & (source[part, None] != source[None, near])
            & (ratio < _AGREEING_AREAS) & (ratio * _AGREEING_AREAS > 1)
        )
        agreed[part] = same.any(axis=1)
        if np.count_nonzero(agreed) > _MOST_AGREED:
            return None
    return _Cells(centres[agreed], areas[agreed]), dark[agreed]


def _agreed_look(
    image: np.ndarray, grey: np.ndarray, seen: list[_MaskCells]
) -> _Placement | None:
    """The grid placed on the lattice of the cells that several line masks at the first
    resolution agree on (:func:`_agreed_cells`), where the placement passes two checks; else
    None.

    The last look, tried only where every other finds no lattice, so it costs nothing where
    they do.  The lattice is placed at the photo's resolution (up to twice the first one),
    in colour, on the lines of the polarity most of its cells came from: faint lines blurred
    among noise are best located where they span most pixels and in the channel where they
    stand out (on the photo this look was made for, 0.06 of a square off so, 0.08 in grey,
    0.10 at the first resolution).

    Lines this faint tell the grid's outer line from the frame's edge beside it no better than
    they tell the other lines apart: on 9 variants of the rendered photo this look was made
    for (other scenes, blur, noise, tilt), each in colour and in grey, 2 of the 4 grids it
    placed in grey were a line off, and 1 of the 6 in colour 8.5 squares off.  So the premium
    squares must confirm the window (its layout matching the squares clearly better than the
    windows up to two lines off, see :func:`_premium_standout`), which needs colour: a grey
    photo is left to the other looks.  And the lines fitted must be seen on the photo better
    than chance (:data:`_AGREED_QUALITY`): a fit gone a quarter of a square off scores nothing.
    """
    if image.ndim != 3 or not seen:
        return None
    agreed = _agreed_cells(seen)
    if agreed is None:
        return None
    cells, dark = agreed
    lattice = _best_lattice(cells)
    if lattice is None or len(lattice.members) < _MIN_LATTICE_CELLS:
        return None
    dark_lines = 2 * int(dark[lattice.members].sum()) >= len(lattice.members)
    scale = min(1.0, WORK_LONG_SIDE / max(grey.shape))
    finer = min(1.0, 2 * WORK_LONG_SIDE / max(grey.shape))
    # Pixel centres: a resize maps x to (x + 0.5) * scale - 0.5, at either resolution.
    ratio = finer / scale
    to_finer = np.array([[ratio, 0, 0.5 * ratio - 0.5], [0, ratio, 0.5 * ratio - 0.5], [0, 0, 1]])
    work = image
    if finer < 1.0:
        work = cv2.resize(image, None, fx=finer, fy=finer, interpolation=cv2.INTER_AREA)
    ridges = _ridges(cv2.GaussianBlur(work, (3, 3), 0), dark_lines)
    finer_lattice = _Lattice(to_finer @ lattice.homography, lattice.sites, lattice.members)
    try:
        placement = _place(image, _Attempt(finer_lattice, ridges, finer, len(cells.areas)))
    except BoardNotFound:
        return None
    confirmed = _premium_standout(
        image, placement.homography, placement.x0, placement.y0, placement.scale
    ) == (0, 0)
    if not confirmed or check_corners(image, _photo_corners(placement)) < _AGREED_QUALITY:
        return None
    return placement
