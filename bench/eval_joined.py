"""The real game joined in progress: its photos from photo K on, for every K, through the
pipeline as stills, upright and (``--turned``) with every photo turned a quarter, as a phone on
the other side of the table saves them.

    .venv/bin/python bench/eval_joined.py [--turned] [--from 2] [--to 26]

A first photo that a few moves explain is split into them (from photo 2 or 3: the first
moves); one that none do is the position the game starts from.  Reported per K: whether the
game started from a position, the turns after it found against the record's, how many of them
scored as the rules score the record's play, the turns left unresolved and the questions
asked (none answered: the guesses stand).  The record's scores are recomputed by the rules
(the record has one play misscored on purpose).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline import Pipeline  # noqa: E402
from scorer.gcg import load_gcg, replay  # noqa: E402

GAME = ROOT.parent / "shared" / "data" / "photos" / "scrabscrap-game01"
LAST = 27


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turned", action="store_true",
                        help="every photo turned a quarter clockwise")
    parser.add_argument("--from", dest="first", type=int, default=2)
    parser.add_argument("--to", dest="last", type=int, default=LAST - 1)
    args = parser.parse_args()
    if not GAME.is_dir():
        print(f"the real game's photos are not at {GAME}", file=sys.stderr)
        return 2
    scored = replay(load_gcg(next(GAME.glob("*.gcg")))).game.events
    photos = {}
    for number in range(1, LAST + 1):
        image = cv2.imread(str(GAME / f"image-{number}.jpg"))
        photos[number] = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE) if args.turned else image
    print(f"game01 from photo K on, {'every photo turned a quarter' if args.turned else 'upright'}"
          ", no answers")
    print(f"{'K':>3} {'start':>6} {'turns':>7} {'right':>6} {'unres':>6} {'asked':>6} {'secs':>5}")
    totals = [0, 0, 0, 0]
    for first in range(args.first, args.last + 1):
        started = time.perf_counter()
        pipeline = Pipeline(["one", "two"], tileset="de", lexicon=None, stills=True)
        reports = []
        for n, number in enumerate(range(first, LAST + 1)):
            reports += pipeline.feed(float(n), photos[number])
        reports += pipeline.finish(float(LAST + 1))
        start = any(r.kind == "start" for r in reports)
        truth = [e.score for e in (scored[first:LAST] if start else scored[:LAST])]
        turns = [r for r in reports if r.kind != "start"]
        right = sum(r.score == score and r.kind in ("play", "pass", "exchange")
                    for r, score in zip(turns, truth, strict=False))  # as many as found
        unresolved = sum(r.kind == "unresolved" for r in turns)
        totals = [totals[0] + len(truth), totals[1] + len(turns), totals[2] + right,
                  totals[3] + unresolved]
        print(f"{first:>3} {'yes' if start else 'no':>6} {len(turns):>3}/{len(truth):<3} "
              f"{right:>6} {unresolved:>6} {len(pipeline.questions):>6} "
              f"{time.perf_counter() - started:>5.1f}", flush=True)
    print(f"total: {totals[1]} turns found of {totals[0]}, {totals[2]} scored right, "
          f"{totals[3]} unresolved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
