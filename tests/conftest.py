"""Session set-up shared by the tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def stock_letters() -> None:
    """Readers without a profile use the stock letter samples: learn them first when this
    machine has not (``setup.sh`` normally has), so that results do not depend on whether it
    had.  Without the typefaces installed the tests run with Tesseract alone."""
    from calibration.fonts import FontsMissing, learn_fonts
    from vision.stock import stock_samples

    if stock_samples() is None:
        try:
            learn_fonts()
        except FontsMissing:
            pass
