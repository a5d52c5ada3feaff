"""Speed of board location and of the per-frame path, on one core.

    .venv/bin/python bench/bench_vision.py [--repeat N]

Cold read: ``locate_board`` on 1920x1080 frames made from the photographed game (scaled to the
frame height, the sides filled with a wooden-table texture), and on the phone photos as they are.
Per frame, with known corners, at 1280x720: ``check_corners`` + ``rectify`` (40 px squares) +
``OccupancyModel.predict`` (uncalibrated and calibrated) + ``square_change``; and the same at
the occupancy's own scale (``vision.rectified.OCCUPANCY_PX``, 16 px squares), at which the tracker
decides it.  Medians of repeated runs; the photos come from ../shared beside the repository.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.locate import check_corners, locate_board  # noqa: E402
from vision.occupancy import OccupancyModel, square_change  # noqa: E402
from vision.rectified import OCCUPANCY_PX  # noqa: E402
from vision.rectify import rectify  # noqa: E402

SHARED = ROOT.parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"
JHEIDEL = SHARED / "data" / "photos" / "jheidel"


def median_ms(action: Callable[[], object], repeat: int) -> str:
    """Median wall time and median CPU time of this process, in milliseconds.

    On a shared machine the wall time also counts other processes' turns on the core; the CPU
    time is what the code itself costs.
    """
    action()  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        started_wall, started_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - started_wall)
        cpu.append(time.process_time() - started_cpu)
    wall_ms, cpu_ms = 1000 * statistics.median(wall), 1000 * statistics.median(cpu)
    return f"{wall_ms:7.2f} ms wall, {cpu_ms:7.2f} ms cpu"


def framed(
    photo: np.ndarray, width: int, height: int, seed: int = 0
) -> tuple[np.ndarray, float, int]:
    """The photo scaled to the frame height and centred on a table; returns scale and x offset."""
    scale = height / photo.shape[0]
    scaled = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    rng = np.random.default_rng(seed)
    grain = cv2.resize(rng.normal(0, 12, (height // 8, width // 2)), (width, height))
    table = np.clip(np.array([70, 110, 150]) + grain[..., None], 0, 255).astype(np.uint8)
    left = (width - scaled.shape[1]) // 2
    table[:, left : left + scaled.shape[1]] = scaled[:, : width - left]
    return table, scale, left


def read_boards() -> list[list[str]]:
    text = (GAME / "boards_after_each_move.txt").read_text(encoding="utf-8")
    return [block.splitlines()[1:16] for block in text.split("## ")[1:]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per measurement")
    args = parser.parse_args()
    if not GAME.exists():
        print(f"the photographed game is not at {GAME}: nothing to measure")
        return 1
    cv2.setNumThreads(1)
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"OpenCV {cv2.__version__}, 1 thread, medians of {args.repeat} runs, load {load}\n")

    print("cold read: locate_board")
    for frame in (1, 14, 27):
        photo = cv2.imread(str(GAME / f"image-{frame}.jpg"))
        image, _, _ = framed(photo, 1920, 1080)
        found = locate_board(image)
        ms = median_ms(lambda image=image: locate_board(image), args.repeat)
        print(f"  game frame {frame:2d} at 1920x1080: {ms}  (quality {found.quality:.2f})")
    for path in sorted(JHEIDEL.glob("*.jpg")):
        photo = cv2.imread(str(path))
        ms = median_ms(lambda photo=photo: locate_board(photo), max(3, args.repeat // 3))
        size = f"{photo.shape[1]}x{photo.shape[0]}"
        print(f"  phone photo {path.name} at {size}: {ms}")

    print("\nper frame at 1280x720, corners known")
    boards = read_boards()
    frames = [framed(cv2.imread(str(GAME / f"image-{n}.jpg")), 1280, 720)[0] for n in (26, 27)]
    previous_image, image = frames
    corners = locate_board(image).corners
    previous = rectify(previous_image, corners, 40)
    # Calibrated as a user would have it by then: on the confirmed boards of moves 1-25.
    calibration = []
    for n in range(1, 26):
        photo = cv2.imread(str(GAME / f"image-{n}.jpg"))
        calibration.append(rectify(photo, locate_board(photo).corners, 40))
    calibrated = OccupancyModel().fit(calibration, boards[:25])
    uncalibrated = OccupancyModel()
    rectified = rectify(image, corners, 40)
    steps = {
        "check_corners": lambda: check_corners(image, corners),
        "rectify (40 px squares)": lambda: rectify(image, corners, 40),
        "predict, uncalibrated": lambda: uncalibrated.predict(rectified),
        "predict, calibrated": lambda: calibrated.predict(rectified),
        "square_change": lambda: square_change(previous, rectified),
    }
    repeat = max(args.repeat, 50)
    timings = {name: median_ms(step, repeat) for name, step in steps.items()}
    for name, ms in timings.items():
        print(f"  {name:36s} {ms}")

    def whole(model: OccupancyModel) -> None:
        check_corners(image, corners)
        current = rectify(image, corners, 40)
        model.predict(current)
        square_change(previous, current)

    for label, model in (("uncalibrated", uncalibrated), ("calibrated", calibrated)):
        timing = median_ms(lambda m=model: whole(m), repeat)
        print(f"  {'whole per-frame path, ' + label:36s} {timing}")

    # The tracker decides occupancy on squares of OCCUPANCY_PX (16 px), where colour and ink
    # shares measure as at 40 px: the same path at that scale, models learnt at it too.
    small = OCCUPANCY_PX
    previous_small = rectify(previous_image, corners, small)
    calibrated_small = OccupancyModel().fit(
        [cv2.resize(grid, (15 * small, 15 * small), interpolation=cv2.INTER_AREA)
         for grid in calibration], boards[:25])

    def whole_small(model: OccupancyModel) -> None:
        check_corners(image, corners)
        current = rectify(image, corners, small)
        model.predict(current)
        square_change(previous_small, current)

    for label, model in (("uncalibrated", uncalibrated), ("calibrated", calibrated_small)):
        timing = median_ms(lambda m=model: whole_small(m), repeat)
        print(f"  {f'whole path at {small} px, ' + label:36s} {timing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
