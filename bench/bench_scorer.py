"""Plays scored per second, replaying every `clean` record of the shared GCG corpus.

Two figures, each the median of several runs on one core:
- replay only: records parsed beforehand; every play placed, checked and scored, every running
  total checked (scorer.gcg.replay);
- parse + replay: from the files' bytes (decoding, parsing, then replay).

Target: >= 10,000 plays/s.  Usage: .venv/bin/python bench/bench_scorer.py [--runs N]
Needs the shared data beside the repository (../shared); without it, falls back to the bundled
demo game and says so.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorer.game import EventKind  # noqa: E402
from scorer.gcg import GCGError, read_gcg, replay  # noqa: E402

SHARED = ROOT.parent / "shared"
MANIFEST = SHARED / "data" / "gcg" / "MANIFEST.csv"
TARGET = 10_000


def corpus() -> tuple[list[tuple[str, bytes, bool]], str]:
    """(name, bytes, lettered rows) of every clean record that replays."""
    if not MANIFEST.exists():
        demo = (ROOT / "tilecam" / "data" / "demo_game.gcg").read_bytes()
        return [("demo_game.gcg", demo, False)], "bundled demo game only (../shared absent)"
    files = []
    with MANIFEST.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["replay"] != "clean":
                continue
            lettered = row["file"].startswith("scrabscrap")
            data = (MANIFEST.parent / row["file"]).read_bytes()
            try:
                replay(read_gcg(data, lettered_rows=lettered))
            except GCGError:
                continue  # a clean record we refuse to read (reported by the corpus tests)
            files.append((row["file"], data, lettered))
    return files, f"{len(files)} clean records of {MANIFEST.relative_to(SHARED.parent)}"


def count_plays(records: list) -> int:
    total = 0
    for record in records:
        result = replay(record)
        total += sum(1 for _, e in result.pairs if e.kind is EventKind.PLAY)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (median)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    files, what = corpus()
    records = [read_gcg(data, lettered_rows=lettered) for _, data, lettered in files]
    plays = count_plays(records)

    replay_times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        for record in records:
            replay(record)
        replay_times.append(time.perf_counter() - start)

    full_times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        for _, data, lettered in files:
            replay(read_gcg(data, lettered_rows=lettered))
        full_times.append(time.perf_counter() - start)

    replay_rate = plays / statistics.median(replay_times)
    full_rate = plays / statistics.median(full_times)
    print(f"corpus: {what}; {plays} plays; {args.runs} runs each, median, one core")
    print(f"replay only:    {replay_rate:10,.0f} plays/s  (median {statistics.median(replay_times) * 1000:.1f} ms)")  # noqa: E501
    print(f"parse + replay: {full_rate:10,.0f} plays/s  (median {statistics.median(full_times) * 1000:.1f} ms)")  # noqa: E501
    ok = min(replay_rate, full_rate) >= TARGET
    print(f"target {TARGET:,} plays/s: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
