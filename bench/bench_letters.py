"""Speed of the two letter readers and of reading a whole 1920x1080 photo, on one core.

Photos: ``../shared/data/photos/scrabscrap-game01/`` beside the repository.  The 1920x1080
photo is frame 27 of that game scaled to 1080 lines and centred on a 1920-wide wood-coloured
frame (the game was photographed at 992x976).

Reported (medians):

- CPU ms of :meth:`calibration.profile.Profile.extend` per calibration photo (each tile is
  learnt as photographed and under every blur of :data:`vision.letters.BLURS`);
- ms per tile of the calibrated classifier and of Tesseract (one call per photo's tiles, and
  one call for a typical move of 4 tiles);
- ``read_board`` cold: the first read in a fresh process (modules imported, nothing else
  warm), with a calibrated profile whose camera is fixed, with a profile after the camera
  moved (the grid searched for), and without a profile (Tesseract reads everything);
- ``read_board`` warm, the same three ways.

Usage: ``.venv/bin/python bench/bench_letters.py [--runs 5]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

GAME = REPO.parent / "shared" / "data" / "photos" / "scrabscrap-game01"
CALIBRATION_FRAMES = (2, 5, 8, 11, 14, 17, 20, 23, 26)


def full_hd(image: np.ndarray) -> np.ndarray:
    """The photo scaled to 1080 lines, centred on a 1920x1080 wood-coloured frame."""
    scale = 1080 / image.shape[0]
    scaled = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    canvas = np.empty((1080, 1920, 3), np.uint8)
    canvas[:] = (40, 90, 150)
    x = (1920 - scaled.shape[1]) // 2
    canvas[:, x : x + scaled.shape[1]] = scaled[:1080]
    return canvas


def load_boards() -> dict[int, list[str]]:
    boards = {}
    text = (GAME / "boards_after_each_move.txt").read_text("utf-8")
    for section in text.split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = lines[1:16]
    return boards


def cold_read(mode: str, profile_dir: str, photo: str) -> float:
    """Seconds of the first read_board in a fresh single-threaded process."""
    code = f"""
import sys, time, cv2
sys.path.insert(0, {str(REPO)!r})
cv2.setNumThreads(1)
from calibration.profile import Profile
from vision.read import read_board
import vision.locate, vision.occupancy, vision.rectify, vision.tesseract_reader, pytesseract
image = cv2.imread({photo!r})
profile = Profile.load({profile_dir!r}) if {mode!r} != "none" else None
if {mode!r} == "moved":
    profile.corners = profile.corners + 25.0
t = time.perf_counter()
read_board(image, profile, "de")
print(time.perf_counter() - t)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"})
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not GAME.is_dir():
        print(f"photos not found: {GAME}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    from calibration.profile import Profile
    from vision.locate import locate_board
    from vision.read import read_board
    from vision.rectified import glyphs_of, rectify_with_margin
    from vision.tesseract_reader import TesseractReader

    boards = load_boards()
    photos = {n: full_hd(cv2.imread(str(GAME / f"image-{n}.jpg"))) for n in
              (*CALIBRATION_FRAMES, 27)}
    profile = Profile(tileset="de")
    extend_ms, learnt = [], []
    for n in CALIBRATION_FRAMES:
        t = time.process_time()
        report = profile.extend(photos[n], boards[n])
        extend_ms.append(1000 * (time.process_time() - t))
        learnt.append(report.letters + report.blanks)
    print(f"Profile.extend: {statistics.median(extend_ms):.0f} ms CPU per photo (median of "
          f"{len(extend_ms)}, max {max(extend_ms):.0f}; {min(learnt)} to {max(learnt)} tiles "
          "a photo)")

    # -- per tile, on the tiles of frame 27
    image = photos[27]
    rectified = rectify_with_margin(image, locate_board(image).corners)
    squares = [(r, c) for r in range(15) for c in range(15) if boards[27][r][c].isupper()]
    glyphs = [g for g in glyphs_of(rectified, squares) if g is not None]
    classifier = profile.classifier()
    normalised = np.stack([g.normalised for g in glyphs])
    reader = TesseractReader("de")
    clf_ms, tess_ms, move_ms = [], [], []
    for _ in range(args.runs):
        t = time.perf_counter()
        classifier.predict(normalised)
        clf_ms.append(1000 * (time.perf_counter() - t) / len(glyphs))
        t = time.perf_counter()
        reader.read([g.ink for g in glyphs])
        tess_ms.append(1000 * (time.perf_counter() - t) / len(glyphs))
        t = time.perf_counter()
        reader.read([g.ink for g in glyphs[10:14]])
        move_ms.append(1000 * (time.perf_counter() - t) / 4)
    print(f"tiles: {len(glyphs)} letters of frame 27; classifier trained on "
          f"{len(profile.labels)} samples")
    print(f"calibrated classifier: {statistics.median(clf_ms):.3f} ms per tile")
    print(f"Tesseract, all {len(glyphs)} tiles in one call: "
          f"{statistics.median(tess_ms):.2f} ms per tile")
    print(f"Tesseract, a move of 4 tiles in one call: {statistics.median(move_ms):.1f} ms per tile")

    with tempfile.TemporaryDirectory() as tmp:
        profile.save(tmp)
        photo = str(Path(tmp) / "frame27-1920x1080.png")
        cv2.imwrite(photo, image)
        print("\nread_board of a 1920x1080 photo, one core (medians of "
              f"{args.runs} runs):")
        loaded = Profile.load(tmp)
        for mode in ("fixed", "moved", "none"):
            cold = [cold_read(mode, tmp, photo) for _ in range(args.runs)]
            warm = []
            for _ in range(args.runs):
                p = None if mode == "none" else Profile.load(tmp)
                if mode == "moved":
                    p.corners = p.corners + 25.0
                warm.append(read_board(image, p, "de").seconds)
            label = {"fixed": "calibrated, fixed camera", "moved": "calibrated, grid searched",
                     "none": "uncalibrated (Tesseract)"}[mode]
            print(f"  {label}: cold {1000 * statistics.median(cold):.0f} ms, "
                  f"warm {1000 * statistics.median(warm):.0f} ms")
        reading = read_board(image, loaded, "de")
        print(json.dumps({"sources": {s: list(reading.sources.values()).count(s)
                                      for s in set(reading.sources.values())}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
