"""``tilecam read``: read the board in one photo.

Prints 15 lines of 15 squares (``.`` empty, upper case letter, ``?`` blank), or with ``--json``
``{"board": [...], "corners": [[x, y] x4], "confidence": [[...] x15], "seconds": t}``, with
``"not_in_word_list": [{"word": "CIN", "position": "4I"}, ...]`` where a word list was used.
Words in no list are named on stderr and kept as read.  Exit status: 0 when read, 2 when the
image cannot be read, no board (or only part of one) is in it, or the profile cannot be
loaded.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HELP = "Read the board in a photo: 15 lines of 15 squares, or --json with corners and confidence."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", metavar="IMAGE", type=Path, help="photo of the board")
    parser.add_argument(
        "--profile", metavar="DIR", type=Path,
        help="calibration profile folder (from tilecam calibrate): learnt tiles, camera, tile set",
    )
    parser.add_argument(
        "--tileset", default=None,
        help="tile set of the game when no profile says it: en, de, ... (default: en)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the board")
    parser.add_argument(
        "--lexicon", metavar="FILE", type=Path,
        help="word list the game is played with, for the word check: one word per line, plain "
             "or gzipped (default: the bundled ENABLE list, for the English tile set only)",
    )
    parser.add_argument(
        "--no-dictionary", action="store_true",
        help="print the letters as read; by default a letter of a word in no word list is "
             "replaced only by one its glyph looks about as much like, where exactly one such "
             "letter makes every word valid (the other words in no list are named on stderr)",
    )


def run(args: argparse.Namespace) -> int:
    from scorer.lexicon import LexiconError, default_lexicon
    from tilecam.commands.check import word_list
    from tilecam.profile_options import OptionError, profile_and_tileset
    from vision.locate import BoardCutOff, BoardNotFound
    from vision.read import read_board
    from vision.rectified import UnreadableImage
    from vision.sources import read_image
    from vision.wordcheck import check_reading

    def fail(message: str) -> int:
        print(f"tilecam read: {message}", file=sys.stderr)
        return 2

    try:
        profile, tileset = profile_and_tileset(args.profile, args.tileset)
    except OptionError as exc:
        return fail(str(exc))
    if not args.image.is_file():
        return fail(f"cannot read image {args.image}: no such file")
    image = read_image(args.image)
    if image is None:
        return fail(f"cannot read image {args.image}: not an image tilecam can decode (JPEG, "
                    "PNG, WebP, TIFF, BMP or HEIC)")
    try:
        lexicon = None
        if args.lexicon is not None and not args.no_dictionary:
            lexicon = word_list(args.lexicon, tileset)
        elif not args.no_dictionary:
            lexicon = default_lexicon(tileset)
        reading = read_board(image, profile, tileset)
        if lexicon is not None:
            started = time.perf_counter()
            reading = check_reading(reading, lexicon, tileset)
            reading.seconds += time.perf_counter() - started
    except LexiconError as exc:
        return fail(str(exc))
    except UnreadableImage as exc:
        return fail(f"cannot read image {args.image}: {exc}")
    except BoardCutOff as exc:
        return fail(f"{args.image}: {exc}")
    except BoardNotFound as exc:
        return fail(f"no board found in {args.image}: {exc}")
    for warning in reading.warnings():
        print(f"tilecam read: warning: {warning}", file=sys.stderr)
    if reading.not_in_word_list:
        # Reported, not mended: a real board may hold a name, a misspelling or a phony that
        # stood; the tiles are printed as read.
        listed = ", ".join(f"{word} ({position})" for word, position in reading.not_in_word_list)
        print(f"tilecam read: not in the word list: {listed}", file=sys.stderr)
    if args.json:
        print(json.dumps(reading.to_json(), ensure_ascii=False))
    else:
        print("\n".join(reading.board))
    return 0
