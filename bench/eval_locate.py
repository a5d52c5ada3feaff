"""How close the located grid's corners come to the true ones, on the rendered photos of
``bench/eval_rendered.py`` (the same cases: same positions, editions and cameras).

Only :func:`vision.locate.locate_board` runs, so this takes a fraction of the whole reading's
time.  Each photo's error is the largest corner distance in squares of the true grid (the
corners in image order, as ``locate_board`` gives them).  Reported: the median, the 90th
percentile, how many photos lie beyond a tenth, a fifth and three tenths of a square, how many
beyond half a square (``eval_rendered.py`` counts those as lost) and how many have no grid found.

The renderer bends the picture with barrel distortion (``k1``), which no homography follows
exactly; so each photo also gets the error of the best homography through its true grid
(least squares over the 256 line crossings), and the report says how often the located grid
lies more than 0.05 of a square beyond that.

Usage: ``.venv/bin/python bench/eval_locate.py [--count 300] [--seed 1] [--only N,N,...]
[--cache DIR] [--worst 20] [--size 1920x1080]``; ``--cache`` keeps the rendered photos for
the next run (of the same size).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.eval_rendered import Case, cases  # noqa: E402
from sim.render import render_board  # noqa: E402
from vision.geometry import order_corners  # noqa: E402
from vision.locate import BoardNotFound, locate_board  # noqa: E402

EDITIONS = ("green", "red", "classic", "deluxe", "green_print")
#: Line crossings of the 15x15 grid, in squares.
CROSSINGS = np.stack(np.meshgrid(np.arange(16.0), np.arange(16.0)), axis=-1).reshape(-1, 2)
OUTER = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float64)


def corner_error(found: np.ndarray, true: np.ndarray) -> float:
    """Largest corner distance in squares of the true grid (both in image order)."""
    side = float(np.hypot(*(np.roll(true, -1, axis=0) - true).T).mean()) / 15
    return float(np.hypot(*(found - true).T).max()) / side


def photo_of(case: Case, cache: Path | None) -> tuple[np.ndarray, np.ndarray, float]:
    """The photo, its true grid corners in image order and the best homography's error."""
    stored = None if cache is None else cache / f"{case.number}.npz"
    if stored is not None and stored.exists():
        with np.load(stored) as saved:
            return saved["image"], saved["corners"], float(saved["best"])
    photo = render_board(list(case.rows), tileset="en", edition=case.edition,
                         seed=case.config.scene_seed, config=case.config)
    crossings = photo.grid_to_image(CROSSINGS).astype(np.float64)
    best_fit, _ = cv2.findHomography(CROSSINGS, crossings, 0)
    fitted = cv2.perspectiveTransform(OUTER.reshape(-1, 1, 2), best_fit).reshape(-1, 2)
    # Both in the board's order here.
    best = corner_error(fitted, photo.corners.astype(np.float64))
    corners = order_corners(photo.corners).astype(np.float64)
    if stored is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(stored, image=photo.image, corners=corners, best=best)
    return photo.image, corners, best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="photo numbers to locate, comma-separated")
    parser.add_argument("--cache", type=Path, help="directory to keep rendered photos in")
    parser.add_argument("--worst", type=int, default=20, help="how many worst photos to list")
    parser.add_argument("--size", default="1280x720", help="the photos' size, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    size = tuple(int(side) for side in args.size.lower().split("x"))
    only = None if args.only is None else {int(n) for n in args.only.split(",")}

    errors: dict[int, float] = {}
    best: dict[int, float] = {}
    seconds = 0.0
    for case in cases(args.count, args.seed, EDITIONS, size):
        if only is not None and case.number not in only:
            continue
        image, true, best[case.number] = photo_of(case, args.cache)
        started = time.perf_counter()
        try:
            errors[case.number] = corner_error(locate_board(image).corners, true)
        except BoardNotFound:
            errors[case.number] = np.inf
        seconds += time.perf_counter() - started

    error = np.array(list(errors.values()))
    found = error[np.isfinite(error)]
    beyond_best = error - np.array([best[n] for n in errors])
    print(f"{len(error)} photos, locate_board {1000 * seconds / max(len(error), 1):.0f} ms each")
    if len(found):
        print(f"corner error in squares: median {np.median(found):.3f}, "
              f"90th percentile {np.percentile(found, 90):.3f}")
    print("  beyond 0.1: {}, beyond 0.2: {}, beyond 0.3: {}, lost (beyond 0.5): {}, "
          "not found: {}".format(*((error > bar).sum() for bar in (0.1, 0.2, 0.3, 0.5)),
                                 int(np.isinf(error).sum())))
    print(f"  more than 0.05 beyond the best homography: {(beyond_best > 0.05).sum()} "
          f"(the best homography itself beyond 0.1: {sum(b > 0.1 for b in best.values())})")
    worst = sorted(errors, key=lambda n: -errors[n])[: args.worst]
    print("worst (error / best homography's):",
          " ".join(f"{n}:{errors[n]:.2f}/{best[n]:.2f}" for n in worst))


if __name__ == "__main__":
    main()
