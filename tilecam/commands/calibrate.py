"""``tilecam calibrate``: build or extend a calibration profile from photos of known boards.

Each ``--pair IMAGE BOARD_TXT`` gives a photo and its board as 15 lines of 15 squares
(``.`` empty, upper case letter, lower case a blank standing for that letter).  The profile
folder is created, or extended when it exists; it is written only when every pair was learnt.
Exit status: 0 on success, 2 when a photo, a board file or the profile cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "Build or extend a calibration profile from photos whose boards are known."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", metavar="DIR", type=Path, required=True,
                        help="profile folder to create or extend")
    parser.add_argument("--tileset", default=None,
                        help="tile set of a new profile: en, de, ... (default: en)")
    parser.add_argument(
        "--pair", nargs=2, action="append", metavar=("IMAGE", "BOARD_TXT"), required=True,
        help="a photo and the text file of its board; may be given many times",
    )


def run(args: argparse.Namespace) -> int:
    from calibration.profile import PROFILE_FILE, Profile, ProfileError, read_board_file
    from scorer.tiles import TileError, TileSet
    from vision.locate import BoardNotFound
    from vision.rectified import UnreadableImage
    from vision.sources import read_image

    def fail(message: str) -> int:
        print(f"tilecam calibrate: {message}", file=sys.stderr)
        return 2

    try:
        if (args.profile / PROFILE_FILE).exists():
            profile = Profile.load(args.profile)
            if args.tileset and TileSet.named(args.tileset).code != profile.tileset:
                return fail(f"--tileset {args.tileset} differs from the profile's tile set "
                            f"{profile.tileset}")
        else:
            profile = Profile(tileset=TileSet.named(args.tileset or "en").code)
    except (ProfileError, TileError) as exc:
        return fail(str(exc))
    tiles = TileSet.named(profile.tileset)
    for image_path, board_path in args.pair:
        try:
            rows = read_board_file(board_path, tiles)
        except ProfileError as exc:
            return fail(str(exc))
        image = read_image(image_path)
        if image is None:
            return fail(f"cannot read image {image_path}: no such file, or not an image "
                        "tilecam can decode (JPEG, PNG, WebP, TIFF, BMP or HEIC)")
        try:
            report = profile.extend(image, rows)
        except (UnreadableImage, ProfileError) as exc:
            return fail(f"{image_path}: {exc}")
        except BoardNotFound as exc:
            return fail(f"no board found in {image_path}: {exc}")
        print(f"{image_path}: {report.letters} letters, {report.blanks} blanks learnt")
        for row, col, letter in report.disagreements:
            print(f"  warning: {chr(65 + col)}{row + 1} should hold {letter!r} but shows no "
                  "letter (skipped)", file=sys.stderr)
    profile.save(args.profile)
    counts = profile.counts()
    print(f"profile {args.profile}: {len(profile.labels)} samples of {len(counts)} letters, "
          f"orientation {profile.orientation}, "
          f"{'fixed camera' if profile.corners is not None else 'camera not fixed'}")
    return 0
