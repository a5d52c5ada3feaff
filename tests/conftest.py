"""Session set-up shared by the tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="session", autouse=True)
def stock_letters() -> None:
    """Readers without a profile use the stock letter samples: learn them first when this
    machine has not (``setup.sh`` normally has), so that results do not depend on whether it
    had.  Without the typefaces installed the tests run with Tesseract alone."""
    from calibration.fonts import FontsMissing, learn_fonts
    from sim.typefaces import photograph_letters
    from vision.stock import stock_samples

    if stock_samples() is None:
        try:
            learn_fonts(photograph_letters)
        except FontsMissing:
            pass


@pytest.fixture
def drawn_letters() -> dict[str, np.ndarray]:
    """Normalised glyphs (24x24) drawn by hand, for classifiers to learn and read: an I (a
    bar), a T, an L and an E (a comb), each as its letter."""
    bar = np.zeros((24, 24), np.float32)
    bar[2:-2, 10:14] = 1
    tee = bar.copy()
    tee[2:5, 3:-3] = 1
    ell = bar.copy()
    ell[-5:-2, 10:-3] = 1
    comb = np.zeros((24, 24), np.float32)
    comb[2:-2, 6:10] = 1
    for row in (2, 11, 19):
        comb[row : row + 3, 6:-4] = 1
    return {"I": bar, "T": tee, "L": ell, "E": comb}
