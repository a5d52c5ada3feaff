"""Cold reads of real photos, as ``tilecam read`` makes them: each in a fresh process on one core.

    .venv/bin/python bench/bench_read.py [--runs 5] [--repo DIR]

For every handheld phone photo in ``../shared/data/photos/jheidel/`` (12 MP) and for the real
game's frame 27 scaled to 1920x1080 (as ``bench/bench_letters.py`` makes it): ``cv2.imread``,
then ``read_board`` without a profile and the word check with the bundled list (the German
game has none), timed in a process that has imported tilecam and nothing else, so that the
models (Tesseract's, the stock letter samples, the word list) load during the read as they do
for a user's first photo.  One core (the process is bound to it; OpenCV, OpenBLAS and
Tesseract use one thread).  Reported: the median wall time of ``--runs`` processes per photo,
its decoding apart, and the ratio to the targets (a phone photo 0.5 s, a 1080p frame 0.15 s);
beside it the median CPU time of the read, which other work on a busy machine sways far less
than the wall time (it does not count the time the process waits for the core).

What a machine makes once and keeps in the user's cache (Tesseract's lean language data, the
blur estimate's tables) is made by an untimed read first, as on a machine in use.

``--repo DIR`` times the code of another checkout of tilecam (``git worktree add /tmp/before
HEAD``) on the same photos: the machine's load sways both alike when they are timed one after
the other.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_letters import GAME, full_hd  # noqa: E402

PHONE = ROOT.parent / "shared" / "data" / "photos" / "jheidel"
TARGETS = {"phone": 0.5, "1080p": 0.15}

COLD_READ = """
import os, sys, time
os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})
sys.path.insert(0, {repo!r})
import cv2
cv2.setNumThreads(1)
from scorer.lexicon import default_lexicon
from scorer.tiles import TileSet
from vision.read import read_board
from vision.wordcheck import check_reading
started = time.perf_counter()
image = cv2.imread({photo!r})
decoded = time.perf_counter()
cpu = time.process_time()
tiles = TileSet.named({tileset!r})
reading = read_board(image, None, tiles)
lexicon = default_lexicon(tiles)
if lexicon is not None:
    reading = check_reading(reading, lexicon, tiles)
done = time.perf_counter()
print(decoded - started, done - decoded, time.process_time() - cpu)
"""


def cold_read(photo: Path, tileset: str, env: dict[str, str],
              repo: Path = ROOT) -> tuple[float, float, float]:
    """Seconds to decode ``photo`` and to read it, and the CPU seconds of the read, in a fresh
    process running the code of ``repo``."""
    out = subprocess.run(
        [sys.executable, "-c", COLD_READ.format(repo=str(repo), photo=str(photo),
                                                tileset=tileset)],
        capture_output=True, text=True, check=True, env=env).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per photo")
    parser.add_argument("--repo", type=Path, default=ROOT,
                        help="the checkout whose code is timed (default: this one)")
    args = parser.parse_args()
    if not PHONE.is_dir() or not GAME.is_dir():
        print(f"real photos not found beside the repository ({PHONE.parent}): nothing to time")
        return 0
    env = {key: os.environ[key] for key in ("HOME", "XDG_CACHE_HOME", "TILECAM_CACHE")
           if key in os.environ}
    env |= {"PATH": "/usr/bin:/bin", "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        frame = Path(tmp) / "frame27.png"
        cv2.imwrite(str(frame), full_hd(cv2.imread(str(GAME / "image-27.jpg"))))
        photos = [(p, "en", "phone") for p in sorted(PHONE.glob("*.jpg"))]
        photos.append((frame, "de", "1080p"))
        cold_read(photos[0][0], "en", env, args.repo)  # the user's cache, made once per machine
        print(f"cold read + word check, one core, median of {args.runs} fresh processes"
              + ("" if args.repo == ROOT else f", code of {args.repo}"))
        print(f"  {'photo':<26s} {'kind':>6s} {'decode ms':>10s} {'read ms':>8s} "
              f"{'of target':>10s} {'cpu ms':>7s}")
        worst: dict[str, float] = {}
        for photo, tileset, kind in photos:
            runs = [cold_read(photo, tileset, env, args.repo) for _ in range(args.runs)]
            decode = statistics.median(r[0] for r in runs)
            read = statistics.median(r[1] for r in runs)
            cpu = statistics.median(r[2] for r in runs)
            worst[kind] = max(worst.get(kind, 0.0), read)
            name = "game frame 27 at 1920x1080" if kind == "1080p" else photo.name
            print(f"  {name:<26s} {kind:>6s} {1000 * decode:>10.0f} {1000 * read:>8.0f} "
                  f"{read / TARGETS[kind]:>9.2f}x {1000 * cpu:>7.0f}")
    for kind, seconds in worst.items():
        print(f"slowest {kind}: {1000 * seconds:.0f} ms, {seconds / TARGETS[kind]:.2f}x its "
              f"target of {1000 * TARGETS[kind]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
