"""The labelled real photos beside the repository (``../shared/data/photos``), for the tests
that read them: where they are, their known boards, and a skip with the reason where a
clone has none."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.geometry import grid_to_image, project
from vision.locate import locate_board

PHOTOS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "photos"
JHEIDEL = PHOTOS / "jheidel"
#: The real tournament game photographed after every move.
GAME = PHOTOS / "scrabscrap-game01"
#: The real game's squares, in pixels of its photos (992x976, the grid about 842 pixels wide).
GAME_SQUARE_PX = 56.0


def labelled_boards(path: Path) -> dict[str, list[str]]:
    """The boards of a labels file (``## FILE ...`` then 15 rows; ``#`` lines are comments).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     labels = Path(folder) / "boards.txt"
    ...     _ = labels.write_text("# a note\\n## a.jpg taken by hand\\n" + "." * 15 + "\\n" * 15)
    ...     sorted(labelled_boards(labels))
    ['a.jpg']
    """
    boards: dict[str, list[str]] = {}
    lines = [line for line in path.read_text("utf-8").splitlines()
             if line.startswith("## ") or not line.startswith("#")]
    for k, line in enumerate(lines):
        if line.startswith("## "):
            boards[line[3:].split()[0]] = lines[k + 1:k + 16]
    return boards


#: Our own labels of the real photos that came without (the game of ``IMG_20151016_*``).
OUR_LABELS = Path(__file__).resolve().parents[1] / "bench" / "labels"


def known_board(name: str, folder: Path = JHEIDEL) -> list[str]:
    """The known board of the photo ``name`` in ``folder``'s ``boards.txt``, or in our own
    labels of that folder's photos (:data:`OUR_LABELS`)."""
    boards = labelled_boards(folder / "boards.txt")
    for ours in sorted(OUR_LABELS.glob(f"{folder.name}-*.txt")):
        boards.update(labelled_boards(ours))
    return boards[name]


def game_boards() -> dict[int, list[str]]:
    """The real game's known board after each move (blanks in lower case); the test is
    skipped, saying so, where the photos are absent."""
    if not GAME.is_dir():
        pytest.skip(f"real photos not available: {GAME} is missing")
    boards = {}
    text = (GAME / "boards_after_each_move.txt").read_text("utf-8")
    for section in text.split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = lines[1:16]
    return boards


def as_read(rows: list[str]) -> list[str]:
    """A known board as a reading shows it: a blank (its letter in lower case) as ``?``.

    >>> as_read(["..aB."])
    ['..?B.']
    """
    return ["".join("?" if ch.islower() else ch for ch in row) for row in rows]


def real_photo(path: Path) -> np.ndarray:
    """The photo at ``path``; the test is skipped, saying so, where the photos are absent."""
    if not path.is_file():
        pytest.skip(f"real photos not available: {path} is missing (../shared beside the "
                    "repository)")
    return cv2.imread(str(path))


def shadowed(image: np.ndarray, reach: float, tilt: float, depth: float = 0.45,
             turns: int = 0) -> np.ndarray:
    """``image`` with a soft shadow ``depth`` deep over the board's lower rows, up to ``reach``
    of the board (its edge slanted by ``tilt`` of the board across, soft over half a square),
    as an arm or the photographer casts it; ``turns`` quarter turns about the board's middle
    put it over another side."""
    corners = np.asarray(locate_board(image, quality=False).corners, np.float32)
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    to_photo = cv2.getPerspectiveTransform(unit, corners)
    top = 1.0 - reach
    band = np.float32([[-1, top - tilt], [2, top + tilt], [2, 2], [-1, 2]])
    for _ in range(turns):
        band = np.stack([1 - band[:, 1], band[:, 0]], axis=1)
    polygon = cv2.perspectiveTransform(band.reshape(-1, 1, 2), to_photo).reshape(-1, 2)
    mask = np.zeros(image.shape[:2], np.float32)
    cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 1.0)
    side = float(np.hypot(*(corners[1] - corners[0])))
    mask = cv2.GaussianBlur(mask, (0, 0), 0.5 * side / 15)
    return np.clip(image.astype(np.float32) * (1.0 - depth * mask)[..., None], 0, 255
                   ).astype(np.uint8)


def reflected(photo: np.ndarray, centre: tuple[float, float], turn: float,
              peak: float = 0.8, corners: np.ndarray | None = None) -> np.ndarray:
    """``photo`` with a lamp's reflection on the board (a glossy board, a plastic cover): its
    colour mixed with white, ``peak`` of white at ``centre`` (grid units: column, row) and
    falling off as a Gaussian over an ellipse of half axes 2 and 3.5 squares turned ``turn``
    radians; the grid at ``corners`` (found on the photo where not given)."""
    if corners is None:
        corners = locate_board(photo).corners
    to_board = np.linalg.inv(grid_to_image(corners))
    h, w = photo.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    on_board = project(to_board, np.stack([xs.ravel(), ys.ravel()], axis=1)).reshape(h, w, 2)
    u, v = (on_board - np.float32(centre)).transpose(2, 0, 1)
    along = u * math.cos(turn) + v * math.sin(turn)
    across = -u * math.sin(turn) + v * math.cos(turn)
    share = (peak * np.exp(-0.5 * ((along / 2.0) ** 2 + (across / 3.5) ** 2)))[..., None]
    return np.clip(photo * (1.0 - share) + 255.0 * share, 0, 255).astype(np.uint8)
