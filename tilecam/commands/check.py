"""``tilecam check``: say whether words are in the word list.

Prints one line per word (``QI: valid`` / ``XYZZY: not valid``).  Exit status: 0 when every word
is valid, 1 when any is not, 2 when the word list cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scorer.lexicon import Lexicon
    from scorer.tiles import TileSet

HELP = "Say whether words are valid in the word list (bundled ENABLE or --lexicon FILE)."

#: How many line numbers of junk lines a warning lists before "...".
JUNK_LINES_SHOWN = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lexicon",
        metavar="FILE",
        type=Path,
        help="word list to use: one word per line, plain or gzipped (default: bundled ENABLE)",
    )
    parser.add_argument("words", nargs="+", metavar="WORD", help="words to look up, any case")


def word_list(path: Path, tileset: TileSet | None = None) -> Lexicon:
    """The word list of a ``--lexicon`` option, its junk lines (skipped) reported on stderr;
    :class:`scorer.lexicon.LexiconError` when it cannot be read."""
    from scorer.lexicon import Lexicon

    lexicon = Lexicon.from_file(path, tileset)
    if lexicon.report.junk:
        print(f"warning: {lexicon.report.summary(JUNK_LINES_SHOWN)}", file=sys.stderr)
    return lexicon


def run(args: argparse.Namespace) -> int:
    from scorer.lexicon import Lexicon, LexiconError, normalise

    if args.lexicon is None:
        lexicon = Lexicon.default()
    else:
        try:
            lexicon = word_list(args.lexicon)
        except LexiconError as exc:
            print(f"tilecam check: {exc}", file=sys.stderr)
            return 2

    all_valid = True
    for word in args.words:
        valid = lexicon.is_valid(word)
        all_valid = all_valid and valid
        print(f"{normalise(word)}: {'valid' if valid else 'not valid'}")
    return 0 if all_valid else 1
