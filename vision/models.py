"""What a reader is handed of what was learnt about one camera, board and tile set.

:func:`vision.read.read_board` takes any object with these attributes; a
:class:`calibration.profile.Profile` is one.  Vision never loads or learns these models itself:
calibration fits them with vision's own features and hands them in.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from vision.letters import LetterClassifier


class ReadingModels(Protocol):
    """The learnt models of one camera, board and tile set, as a reader uses them."""

    #: the tile set's code (``"en"``, ``"de"``, ...)
    tileset: str
    #: the grid's corners in the fixed camera's picture (upright board's order), if known
    corners: np.ndarray | None
    #: quarter turns that make the fixed camera's view upright, if known
    orientation: int | None
    #: the calibrated occupancy model (:meth:`vision.occupancy.OccupancyModel.to_dict`), if any
    occupancy: dict[str, Any] | None

    def classifier(self) -> LetterClassifier | None:
        """The classifier of the letters learnt so far (None before any is)."""
        ...
