"""A lamp's reflection over a few dozen squares of a board with few tiles: the glare's look must
not pass for the tiles' face (``vision.missed_letters.faces_by_letters``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.read import read_board

REPO = Path(__file__).resolve().parents[1]
PHOTOS = REPO.parent / "shared" / "data" / "photos"


def known_board(name: str) -> list[str]:
    lines = (PHOTOS / "jheidel" / "boards.txt").read_text("utf-8").splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(f"## {name}"))
    return lines[start + 1 : start + 16]


def glared(image: np.ndarray, corners: np.ndarray, centre: tuple[float, float],
           axes: tuple[float, float], turn: float, peak: float) -> np.ndarray:
    """``image`` mixed with white, ``peak`` at ``centre`` (in squares of the grid), falling off
    as a Gaussian over an ellipse of half ``axes`` squares turned by ``turn`` radians."""
    h, w = image.shape[:2]
    unit = np.float32([[0, 0], [15, 0], [15, 15], [0, 15]])
    to_board = np.linalg.inv(cv2.getPerspectiveTransform(unit, np.float32(corners)))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    points = np.stack([xs, ys], axis=-1).reshape(-1, 1, 2)
    on_board = cv2.perspectiveTransform(points, to_board).reshape(h, w, 2) - np.float32(centre)
    u = on_board[..., 0] * np.cos(turn) + on_board[..., 1] * np.sin(turn)
    v = -on_board[..., 0] * np.sin(turn) + on_board[..., 1] * np.cos(turn)
    share = (peak * np.exp(-0.5 * ((u / axes[0]) ** 2 + (v / axes[1]) ** 2)))[..., None]
    mixed = image.astype(np.float32) * (1 - share) + 255.0 * share
    return np.clip(mixed, 0, 255).astype(np.uint8)


def test_glare_beside_a_few_tiles_is_not_taken_for_their_face():
    """jheidel 163953 (nine tiles) with a reflection over some 80 squares beside them: before,
    the glare's squares were taken for tiles showing no letter, the nine tiles read empty and
    letters invented on premium squares; the plain squares' letters now show the faces."""
    name = "IMG_20141025_163953.jpg"
    path = PHOTOS / "jheidel" / name
    if not path.is_file():
        pytest.skip(f"real photos not available: {path} is missing")
    image = cv2.imread(str(path))
    corners = read_board(image, None, "en").corners
    seen = glared(image, corners, (11.1, 7.6), (2.0, 3.5), 2.6, 0.8)
    reading = read_board(seen, None, "en")
    assert reading.board == known_board(name)
    assert not any("showed no letter" in warning for warning in reading.warnings())
