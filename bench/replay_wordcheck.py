"""Score the word check again on readings that ``bench/eval_rendered.py --save-readings`` kept.

Reading a set of 300 rendered photos both ways takes minutes per photo batch; the word check
alone takes seconds.  A change to :mod:`vision.wordcheck` (or to the word list) is measured here
on the very readings of an earlier run: the "+ words" rows come out as ``eval_rendered.py``
would print them with the word check as it now stands, and the readings without it as they
were.  Several files (seeds) are scored each on its own and then pooled.

Usage: ``.venv/bin/python bench/replay_wordcheck.py FILE [FILE ...] [--show-errors]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval_rendered import Tally, load_readings, report, score  # noqa: E402

from scorer.lexicon import Lexicon  # noqa: E402
from scorer.tiles import TileSet  # noqa: E402
from vision.wordcheck import check_reading  # noqa: E402


def replay(paths: list[Path]) -> tuple[dict[Path, dict[str, Tally]], dict[str, Tally]]:
    """Tallies of each file's readings, without and with the word check, and all pooled."""
    lexicon = Lexicon.default()
    tiles = TileSet.named("en")
    per_file: dict[Path, dict[str, Tally]] = {}
    pooled: dict[str, Tally] = {}
    for path in paths:
        tallies: dict[str, Tally] = {}
        for saved in load_readings(path):
            checked = None if saved.reading is None else check_reading(saved.reading, lexicon,
                                                                       tiles)
            for mode, reading in ((saved.mode, saved.reading),
                                  (f"{saved.mode} + words", checked)):
                outcome = score(saved.case, reading, saved.seconds, saved.true_corners)
                tallies.setdefault(mode, Tally()).outcomes.append(outcome)
                pooled.setdefault(mode, Tally()).outcomes.append(outcome)
        per_file[path] = tallies
    return per_file, pooled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    per_file, pooled = replay(args.files)
    for path, tallies in per_file.items():
        print(f"== {path}")
        for mode, tally in tallies.items():
            print(f"  {mode:<24s} {tally.table_row('', tally.outcomes).strip()}")
    if len(per_file) > 1:
        print(f"\n== pooled over {len(per_file)} files")
        print(report(pooled, args.show_errors))
    else:
        print(report(pooled, args.show_errors))
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
