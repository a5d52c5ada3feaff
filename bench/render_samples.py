"""Contact sheet of varied rendered board photos, and the time each frame takes.

    .venv/bin/python bench/render_samples.py [OUT.jpg] [--count 12] [--seed 0] [--corners]

Writes a grid of ``--count`` renders (editions, tile sets, cameras and light drawn from the seed)
to OUT (default: render_samples.jpg in the system's temporary folder) and prints, for each, the
config summary, then the median milliseconds of a cold render (flat board built) and of a warm
frame (flat board cached: what a video frame costs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.editions import EDITIONS  # noqa: E402
from vision.render import (  # noqa: E402
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
    args = parser.parse_args(argv)

    editions = sorted(EDITIONS)
    thumbs: list[np.ndarray] = []
    cold_ms: list[float] = []
    warm_ms: list[float] = []
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
        start = time.perf_counter()
        render_frame(flat, config, seed=seed + 1)
        warm_ms.append((time.perf_counter() - start) * 1000)
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
    print(f"warm frame (flat board cached): median {statistics.median(warm_ms):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
