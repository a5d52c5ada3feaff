"""Speed of the camera path on one core: per-frame tracking, and the board settling to the move
being scored.

Frames: a rendered 1280x720 video (see ``bench/eval_replay.py``) of the first moves of a
generated English game, a hand laying each tile, with the profile calibrated from one rendered
photo.  Frames are rendered first and then timed, so rendering is not counted.

Reported (medians, ``cv2.setNumThreads(1)``):

- *the occlusion check*: :class:`vision.occlusion.EdgeOcclusion` inside each frame's update,
  against its 1 ms target;
- *per frame*: :meth:`tracker.Tracker.update` on every frame; also split into frames
  that only track (warp, block means, motion) and frames on which the settled board is
  examined (corners re-checked, occupancy, change against the stable view);
- *settled -> scored*: for each move, the work from the frame on which its last tile settled
  to the move's score: that frame's :meth:`pipeline.Pipeline.feed` (examination and
  reading the new squares) plus the commit's ``feed`` (placing it in the game); and the same
  for stills (each still examined, read and scored in one ``feed``).

Usage: ``.venv/bin/python bench/bench_tracker.py [--moves 6] [--seed 3]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from eval_replay import (  # noqa: E402
    QUIET,
    Video,
    calibrated_profile,
    camera_config,
    game_script,
)

from pipeline import Pipeline  # noqa: E402
from scorer.lexicon import Lexicon  # noqa: E402
from tracker import MoveCommitted, TilesAdded, Tracker, TrackerConfig  # noqa: E402
from vision.occlusion import EdgeOcclusion  # noqa: E402

#: What the occlusion check may cost per frame at 1280x720 on one core.
OCCLUSION_TARGET_MS = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=6)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    lexicon = Lexicon.default()
    steps = [s for s in game_script(args.seed, lexicon, phony=False) if s.kind == "play"]
    steps = steps[: args.moves]
    config = camera_config(args.seed, (1280, 720))
    video = Video(args.seed, config)
    print(f"rendering {len(steps)} moves ...", flush=True)
    frames = list(video.steps(steps))
    print(f"{len(frames)} frames of 1280x720")

    # -- the tracker alone
    profile = calibrated_profile(args.seed, config)
    from vision.occupancy import OccupancyModel

    tracker = Tracker(corners=profile.corners, orientation=profile.orientation or 0,
                      occupancy=OccupancyModel.from_dict(profile.occupancy or {}),
                      config=TrackerConfig(quiet_seconds=QUIET))
    track_only: list[float] = []
    examined: list[float] = []
    # The occlusion check (the board's edge against the last clear view's) is timed on its
    # own inside every frame's update.
    edge_checks: list[float] = []
    plain_check = EdgeOcclusion.__call__

    def timed_check(check: EdgeOcclusion, blocks: object) -> object:
        started = time.perf_counter()
        cover = plain_check(check, blocks)  # type: ignore[arg-type]
        edge_checks.append(time.perf_counter() - started)
        return cover

    EdgeOcclusion.__call__ = timed_check  # type: ignore[method-assign,assignment]
    for stamp, image in frames:
        before = tracker.counters["settles"]
        started = time.perf_counter()
        tracker.update(stamp, image)
        spent = time.perf_counter() - started
        (examined if tracker.counters["settles"] > before else track_only).append(spent)
    EdgeOcclusion.__call__ = plain_check  # type: ignore[method-assign]
    every = track_only + examined
    check_ms = 1000 * statistics.median(edge_checks)
    print(f"occlusion check per frame: median {check_ms:.3f} ms over {len(edge_checks)} frames "
          f"({check_ms / OCCLUSION_TARGET_MS:.2f}x the {OCCLUSION_TARGET_MS:.0f} ms target); "
          f"edge covered in {tracker.counters['edge_covered']} frames")
    print(f"per frame: median {1000 * statistics.median(every):.2f} ms over {len(every)} "
          f"frames; tracking only {1000 * statistics.median(track_only):.2f} ms "
          f"({len(track_only)} frames); with the settled board examined "
          f"{1000 * statistics.median(examined):.1f} ms ({len(examined)} frames, "
          f"max {1000 * max(examined):.1f})")

    # -- settled -> scored, live
    profile = calibrated_profile(args.seed, config)
    pipeline = Pipeline(["one", "two"], profile=profile, lexicon=lexicon,
                        tracker_config=TrackerConfig(quiet_seconds=QUIET))
    original = pipeline.tracker.update
    last_events: list = []

    def spy(stamp: float, image: object) -> list:
        events = original(stamp, image)
        last_events[:] = events
        return events

    pipeline.tracker.update = spy  # type: ignore[method-assign]
    settle_cost: float | None = None
    latencies: list[float] = []
    for stamp, image in frames:
        started = time.perf_counter()
        reports = pipeline.feed(stamp, image)
        spent = time.perf_counter() - started
        if any(isinstance(e, TilesAdded) for e in last_events):
            settle_cost = spent  # the last such frame before the commit is the last tile's
        if any(isinstance(e, MoveCommitted) for e in last_events) and reports:
            latencies.append((settle_cost or 0.0) + spent)
    scored = [r for r in pipeline.reports if r.kind == "play"]
    print(f"live: {len(scored)} moves scored; settled -> scored: median "
          f"{1000 * statistics.median(latencies):.0f} ms, max {1000 * max(latencies):.0f} ms")

    # -- settled -> scored, stills (the last frame of each move's still period)
    profile = calibrated_profile(args.seed, config)
    pipeline = Pipeline(["one", "two"], profile=profile, lexicon=lexicon, stills=True)
    video = Video(args.seed, config)
    stills = []
    for step in steps:
        for square, letter in step.tiles.items():
            video.rows[square.row][square.col] = letter
        stills.append(video.frame())
    costs = []
    for stamp, image in stills:
        started = time.perf_counter()
        pipeline.feed(stamp, image)
        costs.append(time.perf_counter() - started)
    print(f"stills: {len(pipeline.reports)} turns; settled -> scored: median "
          f"{1000 * statistics.median(costs):.0f} ms, max {1000 * max(costs):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
