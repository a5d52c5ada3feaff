"""A tile laid askew turns its letter with it: a glyph the classifier is unsure of is compared
turned back upright too (``LetterClassifier._turned_upright``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.letters as letters
from vision.glyphs import GLYPH_PX
from vision.letters import LetterClassifier

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT.parent / "shared" / "data" / "photos"
PHOTO = PHOTOS / "jheidel" / "IMG_20151016_170803.jpg"


def _bench(name: str):
    if name not in sys.modules:
        sys.path.insert(0, str(ROOT / "bench"))
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def turned(glyph: np.ndarray, degrees: float) -> np.ndarray:
    centre = ((GLYPH_PX - 1) / 2, (GLYPH_PX - 1) / 2)
    return cv2.warpAffine(glyph, cv2.getRotationMatrix2D(centre, degrees, 1.0),
                          (GLYPH_PX, GLYPH_PX), flags=cv2.INTER_LINEAR)


def test_letters_read_upright_are_left_as_they_are(drawn_letters):
    clf = LetterClassifier()
    clf.fit(np.stack(list(drawn_letters.values())), list(drawn_letters))
    glyphs = np.stack(list(drawn_letters.values()))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(letters, "UPRIGHT_ANGLES", ())
        plain = clf.predict(glyphs)
    assert clf.predict(glyphs) == plain
    assert [g.letter for g in plain] == list(drawn_letters)


def test_a_comb_turned_ten_degrees_is_read_turned_back(drawn_letters):
    """The drawn E turned by 10 degrees is unlike every sample as it lies; turned back it is
    the E again, and as alike as the turn's gain asks."""
    clf = LetterClassifier()
    clf.fit(np.stack(list(drawn_letters.values())), list(drawn_letters))
    askew = turned(drawn_letters["E"], 10.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(letters, "UPRIGHT_ANGLES", ())
        as_it_lies = clf.predict(askew[None])[0]
    guess = clf.predict(askew[None])[0]
    assert guess.letter == "E"
    assert guess.similarity >= as_it_lies.similarity + letters.UPRIGHT_GAIN
    assert guess.confidence > as_it_lies.confidence


def test_real_tiles_laid_askew_are_read_as_labelled():
    """jheidel 170803 (wooden tiles of a real game) with every tile's face turned 6 to 12
    degrees either way (``bench/eval_real_views.py``'s ``askew`` view): read square for
    square as labelled.  Without the turn back, its askew I's read as B's."""
    if not PHOTO.is_file():
        pytest.skip(f"real photos not available: {PHOTO} is missing")
    from vision.read import read_board

    views = _bench("eval_real_views")
    known = views.photo_sets()["jheidel-20151016"].boards[PHOTO.name]
    askew = views.tiles_askew(cv2.imread(str(PHOTO)), sum(map(ord, PHOTO.name)))
    assert read_board(askew, None, "en").board == known
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(letters, "UPRIGHT_ANGLES", ())
        unturned = read_board(askew, None, "en").board
    wrong = [(r, c) for r in range(15) for c in range(15) if unturned[r][c] != known[r][c]]
    assert len(wrong) >= 2
