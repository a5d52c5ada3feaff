"""A real photo through a veil (a fogged lens, a scratched plastic cover, a webcam's washed-out
picture): every level lifted toward a light grey.  The veil is taken off the straightened board
(:func:`vision.rectified.veil_lifted`) and the tiles are found as in the photo as taken."""

from __future__ import annotations

import numpy as np

from tests.real_photos import JHEIDEL, known_board, real_photo
from vision.glyphs import crop_margin_px
from vision.locate import locate_board
from vision.read import read_board
from vision.rectified import SQUARE_PX, VEIL_FROM, inner, veil_lifted
from vision.rectify import rectify


def veiled(image: np.ndarray, contrast: float = 0.55) -> np.ndarray:
    """``contrast`` of the levels left, the rest a light grey (``255 * 0.8 * (1 - contrast)``)."""
    veil = 255.0 * (1.0 - contrast) * 0.8
    return np.clip(image.astype(np.float32) * contrast + veil, 0, 255).astype(np.uint8)


def test_a_veiled_photo_reads_as_the_photo_as_taken():
    """The uncalibrated occupancy, its scales fixed, took the A on the centre square and the
    D at the end of a word for empty squares, sure (0.85, 0.96): the veil squeezed every
    colour and ink depth together."""
    name = "IMG_20141025_163939.jpg"
    image = real_photo(JHEIDEL / name)
    reading = read_board(veiled(image), None, "en")
    assert reading.board == known_board(name)


def test_no_labelled_real_photo_as_taken_is_veiled():
    # Where the darkest of a photo's board lies decides whether a veil is taken off: every
    # real photo keeps its ink far below the level (0 to 35; 90 and more through the veil).
    for name in ("IMG_20141025_163920.jpg", "IMG_20141025_164035.jpg",
                 "IMG_20151016_170219.jpg"):
        image = real_photo(JHEIDEL / name)
        corners = locate_board(image, quality=False).corners
        for seen, veil in ((image, False), (veiled(image), True)):
            straightened = rectify(seen, corners, SQUARE_PX, crop_margin_px(SQUARE_PX))
            assert (veil_lifted(straightened) is not straightened) == veil, name
            darkest = np.percentile(inner(straightened).reshape(-1, 3), 0.5, axis=0).min()
            assert (darkest >= VEIL_FROM) == veil, (name, darkest)
