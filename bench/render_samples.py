"""Contact sheet of varied rendered board photos, and the time each frame takes.

    .venv/bin/python bench/render_samples.py [OUT.jpg] [--count 12] [--seed 0] [--corners]
    .venv/bin/python bench/render_samples.py --locate 30 [--seed 100]

Writes a grid of ``--count`` renders (editions, tile sets, cameras and light drawn from the seed)
to OUT (default: render_samples.jpg in the system's temporary folder) and prints, for each, the
config summary, then the median milliseconds of a cold render (flat board built) and of a warm
frame with a new camera (flat board cached) and of a frame with the same camera (the projected
scene cached too: what a video frame from a fixed camera costs), wall clock and CPU time.

``--locate N`` instead runs :func:`vision.locate.locate_board` on N renders and reports how often
it finds the grid: a find counts when every corner it gives is within a quarter of a square of
the true one (the corner order is ignored, since the locator orders corners as seen on screen).
Failures are listed with the settings that made them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.editions import EDITIONS  # noqa: E402
from sim.render import (  # noqa: E402
    RenderConfig,
    config_summary,
    render_board,
    render_flat,
    render_frame,
)

# Positions to draw: a mid-game English board and a German one with umlauts and blanks.
POSITIONS: dict[str, list[str]] = {
    "en": [
        "...............",
        "...............",
        "..........Q....",
        "..........U....",
        ".....JAB..I....",
        ".......OXEN....",
        ".......W..E....",
        "...FIGHTS.s....",
        "......E........",
        "....MAZE.......",
        "......E........",
        "...DRONE.......",
        "...............",
        "...............",
        "...............",
    ],
    "de": [
        "...............",
        "...............",
        "...SPRUNG......",
        "...I.....U.....",
        "....HALMS......",
        "........M......",
        "....V..OIE..S..",
        "...FIRNS....T..",
        "..K.T.......R..",
        ".MÖSEN......E..",
        "..D.NYS.....U..",
        "FLEH..ST....N.C",
        "..R.E.......E.E",
        "WANKT...HEUENdE",
        ".....AROM.....T",
    ],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?",
                        default=str(Path(tempfile.gettempdir()) / "render_samples.jpg"))
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--columns", type=int, default=4)
    parser.add_argument("--max-tilt", type=float, default=35.0)
    parser.add_argument("--corners", action="store_true", help="mark the returned grid corners")
    parser.add_argument("--locate", type=int, default=0, metavar="N",
                        help="try the board locator on N renders instead of drawing a sheet")
    args = parser.parse_args(argv)
    if args.locate:
        return locate_report(args.locate, args.seed, args.max_tilt)

    editions = sorted(EDITIONS)
    thumbs: list[np.ndarray] = []
    cold_ms: list[float] = []
    warm_ms: list[float] = []
    warm_cpu_ms: list[float] = []
    moved_ms: list[float] = []
    moved_cpu_ms: list[float] = []
    for i in range(args.count):
        seed = args.seed + i
        edition = editions[i % len(editions)]
        tileset = "de" if edition.startswith("green") else "en"
        config = RenderConfig.random(seed, max_tilt=args.max_tilt)
        start = time.perf_counter()
        photo = render_board(POSITIONS[tileset], tileset=tileset, edition=edition, seed=seed,
                             config=config)
        cold_ms.append((time.perf_counter() - start) * 1000)
        flat = render_flat(POSITIONS[tileset], tileset=tileset, edition=edition, seed=seed,
                           config=config)
        start, cpu = time.perf_counter(), time.process_time()
        render_frame(flat, config, seed=seed + 1)
        warm_ms.append((time.perf_counter() - start) * 1000)
        warm_cpu_ms.append((time.process_time() - cpu) * 1000)
        moved = replace(config, rotation=config.rotation + 0.5)
        start, cpu = time.perf_counter(), time.process_time()
        render_frame(flat, moved, seed=seed + 2)
        moved_ms.append((time.perf_counter() - start) * 1000)
        moved_cpu_ms.append((time.process_time() - cpu) * 1000)
        print(f"{i:2d} {edition:11s} {config_summary(config)}")
        image = photo.image.copy()
        if args.corners:
            for x, y in photo.corners:
                cv2.circle(image, (int(round(x)), int(round(y))), 8, (0, 0, 255), 2)
        label = f"{i} {edition}"
        cv2.putText(image, label, (12, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0), 5)
        cv2.putText(image, label, (12, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 2)
        thumbs.append(cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA))

    cols = max(1, args.columns)
    while len(thumbs) % cols:
        thumbs.append(np.zeros_like(thumbs[0]))
    sheet = np.vstack([np.hstack(thumbs[r: r + cols]) for r in range(0, len(thumbs), cols)])
    cv2.imwrite(args.out, sheet, [cv2.IMWRITE_JPEG_QUALITY, 88])
    print(f"wrote {args.out}")
    print(f"cold render (flat board built): median {statistics.median(cold_ms):.0f} ms")
    print(f"new camera, flat board cached: median {statistics.median(moved_ms):.0f} ms wall, "
          f"{statistics.median(moved_cpu_ms):.0f} ms CPU")
    print(f"same camera (a video frame): median {statistics.median(warm_ms):.0f} ms wall, "
          f"{statistics.median(warm_cpu_ms):.0f} ms CPU")
    return 0


def locate_report(count: int, first_seed: int, max_tilt: float) -> int:
    """Run the board locator on ``count`` renders; print the hit rate and the failures."""
    from vision.locate import BoardNotFound, locate_board

    editions = sorted(EDITIONS)
    found = 0
    errors: list[float] = []
    for i in range(count):
        seed = first_seed + i
        edition = editions[i % len(editions)]
        tileset = "de" if edition.startswith("green") else "en"
        config = RenderConfig.random(seed, max_tilt=max_tilt)
        photo = render_board(POSITIONS[tileset], tileset=tileset, edition=edition, seed=seed,
                             config=config)
        side = float(np.linalg.norm(photo.corners[1] - photo.corners[0])) / 15.0
        start = time.perf_counter()
        try:
            location = locate_board(photo.image)
        except BoardNotFound as exc:
            print(f"MISS seed={seed} {edition}: {exc}\n     {config_summary(config)}")
            continue
        ms = (time.perf_counter() - start) * 1000
        # Distance from each true corner to the nearest corner found.
        gaps = np.linalg.norm(photo.corners[:, None, :] - location.corners[None, :, :], axis=2)
        error = float(gaps.min(axis=1).max())
        if error <= 0.25 * side:
            found += 1
            errors.append(error)
            print(f"ok   seed={seed} {edition}: worst corner {error:.1f} px "
                  f"({error / side:.2f} square) in {ms:.0f} ms")
        else:
            print(f"WRONG seed={seed} {edition}: worst corner {error:.1f} px "
                  f"({error / side:.2f} square)\n     {config_summary(config)}")
    print(f"found {found}/{count}", end="")
    if errors:
        print(f"; corner error of the finds: median {statistics.median(errors):.1f} px, "
              f"max {max(errors):.1f} px")
    else:
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
