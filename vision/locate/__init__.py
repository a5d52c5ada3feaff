"""Find the 15x15 playing grid in a photo of a board, without markers.

The grid lines are the one thing every edition shares, so the search uses only them:

1. On a reduced grey image, thin lines are picked out with a morphological hat filter, once for
   dark lines (the green European board) and once for light lines (English boards, whose squares
   are separated by white lines).  No edition's colours are assumed.  Where grey shows few
   squares, each colour channel is filtered and the strongest line response kept: green lines
   on green squares, blurred or in dim light, may only stand out in their channel.
2. The regions the lines enclose are the empty squares.  Regions shaped like a filled
   quadrilateral become *cells*.
3. From a seed cell and its nearest neighbours a lattice (a homography from integer square
   coordinates to the image) is grown outward, admitting cells that land on lattice sites and
   refitting as it goes (affine while small, projective once it spans a few squares).  Clutter
   (carpet, the score track, tile racks) does not sit on the lattice and is left out (where a
   few specks far off land on its sites by chance, they are dropped once it has grown).  The
   lattice's axes are then turned onto the grid lines (a diagonal can pass for an axis, and
   where a few cells off the board joined the lattice, even pack its cells tightest).
4. The lattice is refined against the lines themselves: the ridge peak is found near many points
   along each projected grid line and the homography is refitted to those peaks (a line-based
   DLT), which makes it sub-pixel accurate.  Tiles stand above the board, so at a slant their
   edges lie off the printed lines: where enough empty squares were found the fit rests on the
   lines between two of them, and other peaks count (for less) only where they agree with it
   (from the start where that fit, resting on lines bunched on part of the board, would put
   several of the empty squares found elsewhere off their squares).
   The lattice is extended line by line while the next line is seen along its length (under
   tiles the gaps between them carry it).
5. Which 16 consecutive lines in each direction are the grid is decided by line support and by
   where empty squares were found: a board's edge can look like one more line, but no squares
   lie beyond it, and no lines cross the frame's band.  On a colour photo the premium squares
   may then move the window by up to two lines, when one placement matches their layout
   clearly better than every other; where none does and the lines were seen over less than
   the grid (glare, tiles), to any window that holds them.  Glare or tiles can make a window
   half off the board stand out so: the move is undone where the premium squares' red and
   blue disagree with it.
6. Where the lines seen stop short of that window, the lattice there is the fit to the lines
   between empty squares, extrapolated; it is fitted and grown again within the window, the
   peaks near it admitted from the start and a single hidden line stepped over.
7. Where the first look's lattice holds fewer than four dozen squares, on a colour photo, the
   lattice of most squares among every line mask there (in grey; in colour where grey has
   none larger) replaces it when its window matches the premium squares' layout clearly
   better: the search stops at the first mask with two dozen squares on one lattice, and that
   can be a wrong lattice (every other square, or rows sheared by motion blur) that the lines
   do not refute.  A placement on a lattice of any size whose premium squares and lines are
   both unseen gives way so to the lattice of any other mask.
8. A placement whose lines are seen poorly on the photo, or whose window's premium squares are
   not where the layout has them, is doubtful: the other looks (grey and colour at the first
   resolution, grey farther and closer, grey along strokes, and the premium squares' colours
   of the very last look below) are placed too, and one that puts the grid elsewhere (half a
   square or more off at a corner) and fits the photo clearly better, lines and premium
   squares together, replaces it.  The search stops at the first look with enough squares,
   and few squares can make a lattice that bends.  A look made during the search that found
   more squares than the one taken is asked so too.

Boards small in a large photo (squares under 16 px at the first resolution) are searched again
at twice the resolution.  Where no look finds a lattice, one last look averages the line
response along short strokes first: out of focus and with sensor noise, faint lines are no
stronger than the noise, but longer (closer too, where the squares were too small).  Where
even that finds none, the next pools the cells of every mask tried at the first
resolution and keeps those that two masks agree on: each mask keeps a few squares and as
many specks of noise, but the squares are the same in every mask and the specks are not.
The very last two look farthest away, along strokes (a camera moved while the shutter was
open smears the lines wider than the line filter picks out at every nearer resolution; at a
third of the first, the smear is thin again), and past the lines altogether, at the premium
squares' red and blue: on a colour photo, the layout is matched to the blobs of those colours
(:func:`_premium_look`); of the two, the placement that fits the photo better is kept.  The
farthest look is also one of the other looks asked about a doubtful placement (step 8), of
which the one fitting the photo best is taken.

>>> import numpy as np
>>> locate_board(np.zeros((120, 160, 3), np.uint8))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
vision.locate.BoardNotFound: no grid of squares found: 0 square-like regions in a 160x120 ...
"""

from __future__ import annotations

from vision.geometry import rotate_corners
from vision.locate.board import locate_board
from vision.locate.corner_check import check_corners
from vision.locate.location import BoardCutOff, BoardLocation, BoardNotFound
from vision.locate.looks import WORK_LONG_SIDE as WORK_LONG_SIDE

__all__ = [
    "BoardCutOff",
    "BoardLocation",
    "BoardNotFound",
    "check_corners",
    "locate_board",
    "rotate_corners",
]
