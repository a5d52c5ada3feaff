"""Something over the board's edge: a hand, an arm, a sleeve reaching in, told frame by frame.

Every hand that reaches over the board comes from outside it, so it crosses the margin around
the grid: the half square just beyond the grid's edge, which shows the board's frame and never a
tile's face (a tile's side shows within the half square next to the grid, not beyond).  The check
compares that outer ring of half-square blocks with the same ring in the last clear view, after a
gain per colour channel that may vary across the board (the light drifts, a lamp dims on one
side); blocks that differ by more than a threshold are covered.  A few covered blocks mean an
occlusion; most of the ring changed means the board or the camera moved, which is not.

It works on the block means the tracker already computes for motion (a frame's grid warped to 8
pixels a square with one square of margin, 34 x 34 blocks of half a square), so it costs a few
array operations on 132 blocks per frame, not a pass over the image.

>>> reference = np.full((34, 34, 3), 100.0, np.float32)
>>> check = EdgeOcclusion(reference)
>>> check(reference * 1.2).occluded              # the light changed: nothing covers the edge
False
>>> arm = reference.copy(); arm[0, 10:16] = (90, 140, 200)   # skin across the top edge
>>> found = check(arm); found.occluded, found.blocks
(True, 6)
>>> board = np.random.default_rng(0).uniform(40, 220, (34, 34, 3)).astype(np.float32)
>>> EdgeOcclusion(board)(np.roll(board, 1, axis=1)).occluded   # the board moved
False
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Block-mean difference (grey levels, after the gain) from which an edge block is covered.
COVERED_DIFFERENCE = 28.0
#: Covered edge blocks from which the view counts as occluded (one block flickers with noise
#: and compression; a finger is two).
OCCLUDED_BLOCKS = 2


@dataclass(frozen=True)
class EdgeCover:
    """What covers the board's edge in one frame: ``blocks`` of the outer ring covered."""

    occluded: bool
    blocks: int


def outer_ring(per_side: int) -> np.ndarray:
    """The outermost blocks of a ``per_side`` x ``per_side`` grid of blocks, as a mask."""
    ring = np.zeros((per_side, per_side), bool)
    ring[[0, -1], :] = True
    ring[:, [0, -1]] = True
    return ring


class EdgeOcclusion:
    """The outer ring of a clear view (``reference``: block means, (N, N, 3)), and the check of
    later frames' block means against it."""

    def __init__(self, reference: np.ndarray, threshold: float = COVERED_DIFFERENCE,
                 least_blocks: int = OCCLUDED_BLOCKS) -> None:
        self.ring = outer_ring(reference.shape[0])
        self.reference = reference[self.ring].astype(np.float32)  # (132, 3)
        rows, cols = np.nonzero(self.ring)
        scale = max(reference.shape[0] - 1, 1)
        # A gain per channel that varies linearly across the board: a lamp dimmed on one side
        # changes one side of the ring more than the other.
        self._design = np.stack([np.ones(len(rows)), cols / scale - 0.5, rows / scale - 0.5],
                                axis=1)
        self.threshold = threshold
        self.least_blocks = least_blocks

    def __call__(self, blocks: np.ndarray) -> EdgeCover:
        edge = blocks[self.ring]
        ratio = np.log(np.maximum(edge, 2.0) / np.maximum(self.reference, 2.0))
        # Fitted twice: the second time without the blocks the first fit leaves far off (the
        # covered ones), so that an arm does not pull the light's change towards itself.
        keep = np.ones(len(edge), bool)
        for _ in range(2):
            fit, *_ = np.linalg.lstsq(self._design[keep], ratio[keep], rcond=None)
            predicted = self.reference * np.exp(self._design @ fit)
            off = np.abs(edge - predicted).max(axis=1)
            keep = off <= self.threshold
            if keep.sum() < len(edge) // 2:
                break
        covered = int((off > self.threshold).sum())
        # Most of the ring changed is the board moved (bumped, the camera knocked), which
        # the examination finds the grid again for, not something over it.
        return EdgeCover(self.least_blocks <= covered <= len(edge) // 2, covered)
