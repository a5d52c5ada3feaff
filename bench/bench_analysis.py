"""Benchmark of the post-game analysis: every play of the clean English records of ../shared.

Run as ``python bench/bench_analysis.py`` (``--shared DIR`` when the shared folder is elsewhere,
``--wall`` to time by the wall clock).  The process is pinned to one core where the platform
allows it.  Protocol:

* the word graph of ENABLE is built first and timed apart (a page or a command builds it once,
  then keeps it);
* each record whose ``MANIFEST.csv`` row says ``clean`` and ``english`` is read and replayed
  (not timed), then :func:`scorer.analysis.analyse_game` runs on it with ENABLE, timed in
  process CPU time (another process on the core does not stretch it);
* per game: plays, racks known, time; then the median, mean and slowest time per game, plays per
  second, and what the analysis found (points left, bingos missed, plays formed of words ENABLE
  lacks, which the records' own lists (CSW, NWL) allow).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_movegen import load, pin_to_one_core  # noqa: E402

from scorer.analysis import GameAnalysis, analyse_game  # noqa: E402
from scorer.gcg import load_gcg, replay  # noqa: E402
from scorer.lexicon import Lexicon  # noqa: E402
from scorer.movegen import WordGraph  # noqa: E402

#: Records that read only with an option (this one declares ISO8859-6 but is UTF-8).
READ_OPTIONS = {
    "domino14__macondo/gcgio__testdata__name_weird_encoding_with_header.gcg": {"encoding": "utf-8"},
}


def clean_english(shared: Path) -> list[str]:
    with (shared / "data" / "gcg" / "MANIFEST.csv").open(encoding="utf-8") as f:
        return [r["file"] for r in csv.DictReader(f)
                if r["replay"] == "clean" and r["language"] == "english"]  # fmt: skip


def analyse_all(
    shared: Path, files: list[str], lexicon: Lexicon, clock: Callable[[], float]
) -> list[tuple[str, GameAnalysis, float]]:
    out = []
    for name in files:
        game = replay(load_gcg(shared / "data" / "gcg" / name, **READ_OPTIONS.get(name, {}))).game
        start = clock()
        analysis = analyse_game(game, lexicon)
        out.append((name, analysis, clock() - start))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared",
                        help="the shared folder (default: ../shared beside the repository)")
    parser.add_argument("--wall", action="store_true", help="time by wall clock, not CPU time")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    if not (args.shared / "data" / "gcg" / "MANIFEST.csv").exists():
        print(f"no GCG corpus at {args.shared}/data/gcg (give --shared DIR)", file=sys.stderr)
        return 2

    kind = "wall-clock time" if args.wall else "process CPU time"
    print(f"Python {sys.version.split()[0]}, {pin_to_one_core()}, {kind}, load {load()}")
    lexicon = Lexicon.default()
    start = clock()
    WordGraph.cached(lexicon)
    print(f"word graph of ENABLE built once: {clock() - start:.2f} s")

    results = analyse_all(args.shared, clean_english(args.shared), lexicon, clock)
    print(f"{'seconds':>8} {'plays':>6} {'racks':>6}  record")
    for name, analysis, seconds in results:
        known = sum(p.rack is not None for p in analysis.plays)
        print(f"{seconds:>8.3f} {len(analysis.plays):>6} {known:>6}  {name}")

    times = [seconds for _, _, seconds in results]
    plays = [p for _, analysis, _ in results for p in analysis.plays]
    known = [p for p in plays if p.rack is not None]
    print(
        f"{len(results)} games, {len(plays)} plays analysed ({len(known)} with the whole rack):"
        f" median {statistics.median(times):.3f} s per game, mean {statistics.mean(times):.3f} s,"
        f" slowest {max(times):.3f} s, total {sum(times):.1f} s ="
        f" {len(plays) / sum(times):.0f} plays/s"
    )
    print(
        f"found: {sum(p.points_left for p in plays):,} points left on the table"
        f" ({sum(p.points_left == 0 for p in plays)} plays the best),"
        f" {sum(bool(p.bingos_missed) for p in known)} bingos missed,"
        f" {sum(bool(p.unknown_words) for p in plays)} plays with a word ENABLE lacks"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
