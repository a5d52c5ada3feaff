"""``tilecam learn-fonts``: learn the stock letter samples from the typefaces installed.

Boards are read without a calibration profile by the stock classifier (:mod:`vision.stock`),
whose samples this builds once per machine (``setup.sh`` runs it) in the cache folder.  It
does nothing when they are there already, of this version and of the typefaces installed that
tilecam learns from (a release that learns from more typefaces learns again), unless
``--force``.
Exit status: 0 on success, 2 when no stock typeface is installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "Learn the letters of printed typefaces, for boards read without a profile."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="learn them again even when they are there")
    parser.add_argument("--path", type=Path, default=None,
                        help="where to write the samples (default: the cache folder)")


def run(args: argparse.Namespace) -> int:
    from calibration.fonts import STOCK_FONTS, FontsMissing, installed_fonts, learn_fonts
    from sim.typefaces import photograph_letters
    from vision.stock import StockError, StockSamples, stock_path

    path = args.path or stock_path()
    if not args.force and path.exists():
        try:
            samples = StockSamples.load(path)
        except StockError as exc:
            print(f"tilecam learn-fonts: {exc}; learning them again")
        else:
            installed = installed_fonts()
            wanted = {font.name for font in STOCK_FONTS if font in installed}
            if set(samples.fonts) == wanted:
                print(f"tilecam learn-fonts: {len(samples.labels)} samples of "
                      f"{len(samples.fonts)} typefaces already at {path}")
                return 0
            print("tilecam learn-fonts: the typefaces to learn from changed; learning them "
                  "again")
    try:
        report = learn_fonts(photograph_letters, path,
                             progress=lambda line: print(f"  {line}", flush=True))
    except FontsMissing as exc:
        print(f"tilecam learn-fonts: {exc}", file=sys.stderr)
        return 2
    for line in report.retakes:
        print(f"  photo taken again: {line}")
    if report.missing:
        print(f"  not installed, left out: {', '.join(report.missing)}")
    print(f"tilecam learn-fonts: {report.samples} samples of {len(report.per_font)} typefaces "
          f"in {report.seconds:.0f} s -> {path}")
    return 0
