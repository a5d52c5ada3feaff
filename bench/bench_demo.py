"""The demo end to end over many seeds: is every move detected and scored as it was played, and
how fast does it go?

For each seed, :class:`tilecam.demo.DemoRun` does what ``tilecam demo --headless --seed N``
does: the move generator plays a whole game with ENABLE, the renderer films it at 1280x720 (a
hand laying each tile, the light drifting; that seed's camera, table, font, noise and JPEG
quality), the reader is calibrated from one rendered photo of the alphabet, and every frame goes
through the camera pipeline (tracker, readers, dictionary, rules engine).  Passes and exchanges
are entered as the page's buttons would; questions are answered by the players (from the game).

Reported per seed and in total:

- moves played (tiles laid), detected (the same squares), scored as played (the same letters and
  score), moves the pipeline invented, questions the players answered, final scores as the
  generator's;
- frames, wall seconds, frames a second (rendering included: what the demo achieves);
- the whole pipeline's cost per frame (``Pipeline.feed``: tracking every frame, reading and
  scoring on the frames where the board settles): mean, median, 95th percentile and largest,
  in thread CPU time (unaffected by other processes on the machine) and wall time.

``cv2.setNumThreads(1)``: one core, as the other benchmarks.

Usage: ``.venv/bin/python bench/bench_demo.py [--seeds 1-10] [--moves N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tilecam.demo import DemoRun  # noqa: E402


def seed_range(text: str) -> list[int]:
    if "-" in text:
        first, last = text.split("-", 1)
        return list(range(int(first), int(last) + 1))
    return [int(s) for s in text.split(",")]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-10", help="e.g. 1-10 or 1,4,7 (default 1-10)")
    parser.add_argument("--moves", type=int, default=None, help="stop after N moves")
    parser.add_argument("--json", action="store_true", help="one JSON object per seed")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    totals = dict(moves_played=0, moves_detected=0, scores_agree=0, letters_agree=0,
                  invented=0, questions=0, frames=0)
    seconds = 0.0
    wall: list[float] = []
    cpu: list[float] = []
    failed: list[int] = []
    for seed in seed_range(args.seeds):
        try:
            result = DemoRun(seed, args.moves).run()
        except Exception as exc:  # noqa: BLE001 - one seed's failure is reported, not fatal
            failed.append(seed)
            print(f"seed {seed:>2}: failed: {type(exc).__name__}: {exc}", flush=True)
            continue
        frame_cpu = result.frame_cpu_seconds
        for key in totals:
            totals[key] += getattr(result, key)
        seconds += result.seconds
        wall += result.frame_seconds
        cpu += frame_cpu
        if not result.ok:
            failed.append(seed)
        finals = "final scores as played" if result.expected_final == result.final_scores \
            else (f"final {result.final_scores} v {result.expected_final}"
                  if result.expected_final else "no final scores (cut short)")
        line = (f"seed {seed:>2}: {result.moves_played} moves, {result.moves_detected} detected, "
                f"{result.scores_agree} scored as played, {result.invented} invented, "
                f"{result.questions} questions; {finals}; {result.frames} frames in "
                f"{result.seconds:.0f} s = {result.fps:.1f} fps; pipeline "
                f"{1000 * statistics.mean(frame_cpu):.1f} ms CPU a frame (median "
                f"{1000 * statistics.median(frame_cpu):.2f} ms)")
        if args.json:
            print(json.dumps({**result.to_json(), "pipeline_cpu_ms_mean":
                              round(1000 * statistics.mean(frame_cpu), 2),
                              "pipeline_cpu_ms_median":
                              round(1000 * statistics.median(frame_cpu), 2)}), flush=True)
        else:
            print(line, flush=True)
            for problem in result.problems:
                print(f"    {problem}", flush=True)
    if args.json:
        return 0 if not failed else 1
    print(f"\ntotal: {totals['moves_played']} moves, {totals['moves_detected']} detected, "
          f"{totals['scores_agree']} scored as played ({totals['letters_agree']} same letters), "
          f"{totals['invented']} invented, {totals['questions']} questions; "
          f"seeds not all right: {failed or 'none'}")
    print(f"throughput: {totals['frames']} frames in {seconds:.0f} s = "
          f"{totals['frames'] / seconds:.1f} frames a second, rendering included")
    print(f"pipeline per frame, CPU: mean {1000 * statistics.mean(cpu):.2f} ms, median "
          f"{1000 * statistics.median(cpu):.2f} ms, p95 {1000 * percentile(cpu, 0.95):.2f} ms, "
          f"max {1000 * max(cpu):.0f} ms")
    print(f"pipeline per frame, wall: mean {1000 * statistics.mean(wall):.2f} ms, median "
          f"{1000 * statistics.median(wall):.2f} ms, p95 {1000 * percentile(wall, 0.95):.2f} ms, "
          f"max {1000 * max(wall):.0f} ms")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
