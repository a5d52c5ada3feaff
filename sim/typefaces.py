"""Rendered photos of a board of letters printed in a given typeface, from which
:func:`calibration.fonts.learn_fonts` learns the stock letters.

Each photo is taken as a user takes a calibration photo: held still and in focus, from a
camera position, light and board edition that change from typeface to typeface.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from sim.render import RenderConfig, render_board

#: Board editions the photos are taken on, in turn (their premium colours and tile faces).
EDITIONS = ("green", "red", "classic", "deluxe", "green_print")
#: Seeds of the photos' camera, light and noise (a retake comes from another seed).
FIRST_SEED = 50_000


def photograph_letters(rows: tuple[str, ...], tileset: str, font_file: Path, font_number: int,
                       attempt: int) -> np.ndarray:
    """A photo (BGR) of ``rows`` on tiles printed in ``font_file``'s typeface.

    ``font_number`` and ``attempt`` choose the camera, light, noise and edition, so that the
    same call gives the same photo on every machine.
    """
    base = RenderConfig.random(FIRST_SEED + 97 * font_number + 1000 * attempt, max_tilt=25,
                               hand_probability=0.0)
    # Held still and in focus, as a calibration photo is taken: the blurs are learnt from it
    # (vision.letters.BLURS).
    config = replace(base, font=str(font_file), motion_blur=0.0,
                     defocus=min(base.defocus, 0.8))
    photo = render_board(list(rows), tileset=tileset,
                         edition=EDITIONS[font_number % len(EDITIONS)],
                         seed=base.scene_seed, config=config)
    return photo.image
