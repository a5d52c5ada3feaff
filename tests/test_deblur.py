"""Measuring a photo's blur and undoing it before the letters are read (vision.deblur)."""

from __future__ import annotations

import shutil
from dataclasses import replace

import cv2
import numpy as np
import pytest

import vision.read as read
from vision.deblur import (
    CLEAR,
    board_box,
    deblurred_for_letters,
    estimate_blur,
    motion_psf,
    structure_function,
)
from vision.render import RenderConfig, RenderedPhoto, render_board

#: Words full of the letters a blur across their thin strokes spoils (D L P H E F B).
ROWS = (
    ["." * 15] * 3
    + ["...HELD.PLED...", "." * 15, "...DEPTH.FLED..", "." * 15, "..PLUMB.HOPED..",
       "." * 15, "...LEFT.BLEED..", "." * 15, "...THE.DELL...."]
    + ["." * 15] * 3
)


def _photo(seed: int, motion: float, angle: float) -> RenderedPhoto:
    """A photo of :data:`ROWS` from ``RenderConfig.random(seed)`` with this motion blur (none
    when 0: then a light defocus), not sharpened."""
    config = replace(RenderConfig.random(seed, max_tilt=20, hand_probability=0.0),
                     motion_blur=motion, motion_angle=angle,
                     defocus=0.3 if motion else 0.5, sharpen=0.0)
    return render_board(ROWS, tileset="en", edition="classic", seed=config.scene_seed,
                        config=config)


def _estimate(photo: RenderedPhoto):
    grey = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    x0, y0, x1, y1 = board_box(photo.corners, grey.shape)
    return estimate_blur(grey[y0:y1, x0:x1], photo.corners - np.float32([x0, y0]))


@pytest.mark.parametrize(("seed", "angle"), [(5, 0.0), (5, 45.0), (11, 90.0)])
def test_motion_estimated_near_the_renderers(seed: int, angle: float) -> None:
    # The renderer draws a 6 px line between whole pixels, both ends included: 7 pixels at 0
    # and 90 degrees, 5 at 45 (5.7 px apart), as spread out as a segment of 6.8 px drawn the
    # way motion_psf draws it.
    blur = _estimate(_photo(seed, 6.0, angle))
    off = abs((blur.angle - angle + 90.0) % 180.0 - 90.0)
    assert off <= 12.0, blur
    assert 5.5 <= blur.length <= 8.0, blur
    assert blur.clarity >= CLEAR


@pytest.mark.parametrize("seed", [8, 11])
def test_sharp_photo_left_as_it_is(seed: int) -> None:
    photo = _photo(seed, 0.0, 0.0)
    assert _estimate(photo).clarity < CLEAR
    assert deblurred_for_letters(photo.image, photo.corners, read.SQUARE_PX) is None


def test_structure_function_of_a_motion_blur_is_lowest_along_it() -> None:
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 50, (300, 300)).astype(np.float32)
    blurred = cv2.filter2D(noise, -1, motion_psf(7.0, 90.0))
    d = structure_function(blurred)
    centre = d.shape[0] // 2
    # Three pixels along the motion (down) against three across it (right).
    assert d[centre + 3, centre] < 0.5 * d[centre, centre + 3]


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
def test_motion_blurred_letters_read_after_deblurring(monkeypatch: pytest.MonkeyPatch) -> None:
    # The benchmark's photo 206 of --seed 1 (a serif font, 5.8 px of motion across the board
    # at 102 degrees), showing ROWS: uncalibrated, 18 squares were read wrong without the
    # deblurring, 5 with it.
    config = RenderConfig.random(100_003 + 206, max_tilt=35, size=(1280, 720),
                                 hand_probability=0.0)
    photo = render_board(ROWS, tileset="en", edition="classic", seed=config.scene_seed,
                         config=config)

    def wrong(board: list[str]) -> int:
        return sum(a != b for want, got in zip(ROWS, board, strict=True)
                   for a, b in zip(want, got, strict=True))

    after = wrong(read.read_board(photo.image, None, "en").board)
    monkeypatch.setattr(read, "deblurred_for_letters", lambda *args, **kwargs: None)
    before = wrong(read.read_board(photo.image, None, "en").board)
    assert before >= 12
    assert after <= 7
