"""Reading accuracy on a real game, the way a user would live it.

Photos: ``../shared/data/photos/scrabscrap-game01/`` beside the repository: ``image-N.jpg``
taken after move N, ``boards_after_each_move.txt`` the board after each move (sections
``## after move N``; the board rows correspond to the photo as it is).

Protocol: for frame N = 2..27, a profile calibrated from frames 1..N-1 with their known boards
(built incrementally: frame N-1 is added after frame N-1 is read) reads frame N; letters the
profile has never seen fall back to Tesseract.  Reported: squares wrong out of 26 x 225,
empty/tile confusions, boards read perfectly; the same for the uncalibrated reader (Tesseract
only, orientation found by reading); and Tesseract vs the calibrated classifier on the same
real crops (accuracy, ms per tile).  Uncalibrated is read two ways: the stock classifier
learnt from printed typefaces with Tesseract where it is unsure (what ``read`` does without a
profile), and Tesseract alone.

Usage: ``.venv/bin/python bench/eval_scrabscrap.py [--frames 2-27] [--no-uncalibrated]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from calibration.profile import Profile  # noqa: E402
from vision.glyphs import BLANK  # noqa: E402
from vision.locate import locate_board  # noqa: E402
from vision.read import read_board  # noqa: E402
from vision.rectified import glyphs_of, rectify_with_margin  # noqa: E402
from vision.stock import stock_classifier  # noqa: E402
from vision.tesseract_reader import TesseractReader  # noqa: E402

GAME = REPO.parent / "shared" / "data" / "photos" / "scrabscrap-game01"


def load_boards(path: Path) -> dict[int, list[str]]:
    """Known boards by move number, from ``boards_after_each_move.txt``."""
    boards: dict[int, list[str]] = {}
    for section in path.read_text(encoding="utf-8").split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = [line.strip() for line in lines[1:16]]
    return boards


def as_read(row: str) -> str:
    """A known row as the reader writes it: blanks are ``?``."""
    return "".join(BLANK if ch.islower() else ch for ch in row)


def compare(read: list[str], known: list[str]) -> dict[str, list]:
    """Wrong squares of one reading, by kind."""
    out: dict[str, list] = {"letter": [], "tile_as_empty": [], "empty_as_tile": []}
    for r in range(15):
        for c in range(15):
            got, want = read[r][c], as_read(known[r])[c]
            if got == want:
                continue
            kind = "tile_as_empty" if got == "." else "empty_as_tile" if want == "." else "letter"
            out[kind].append((r, c, want, got))
    return out


def summarise(name: str, results: dict[int, dict[str, list]], seconds: list[float]) -> None:
    frames = len(results)
    wrong = sum(len(v) for res in results.values() for v in res.values())
    perfect = sum(1 for res in results.values() if not any(res.values()))
    kinds = {
        k: sum(len(res[k]) for res in results.values())
        for k in ("letter", "tile_as_empty", "empty_as_tile")
    }
    print(f"\n== {name}")
    print(f"squares wrong: {wrong} / {frames * 225} = {100 * wrong / (frames * 225):.3f} %")
    print(f"  letter wrong: {kinds['letter']}, tile read as empty: {kinds['tile_as_empty']}, "
          f"empty read as tile: {kinds['empty_as_tile']}")
    print(f"boards perfect: {perfect} / {frames} = {100 * perfect / frames:.1f} %")
    print(f"seconds per read: median {statistics.median(seconds):.3f}, max {max(seconds):.3f}")
    for n, res in results.items():
        errs = [e for v in res.values() for e in v]
        if errs:
            listed = ", ".join(f"{chr(65 + c)}{r + 1} {w}->{g}" for r, c, w, g in errs)
            print(f"  frame {n}: {listed}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", default="2-27", help="frames to read, e.g. 2-27")
    parser.add_argument("--no-uncalibrated", action="store_true")
    args = parser.parse_args()
    if not GAME.is_dir():
        print(f"photos not found: {GAME}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    first, last = (int(x) for x in args.frames.split("-"))
    boards = load_boards(GAME / "boards_after_each_move.txt")
    images = {n: cv2.imread(str(GAME / f"image-{n}.jpg")) for n in range(1, last + 1)}

    # -- calibrated, incrementally, as a user would live it
    profile = Profile(tileset="de")
    calibrated: dict[int, dict[str, list]] = {}
    seconds: list[float] = []
    sources_used: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(1, last + 1):
            if n >= first:
                reading = read_board(images[n], profile)
                seconds.append(reading.seconds)
                calibrated[n] = compare(reading.board, boards[n])
                for s in reading.sources.values():
                    sources_used[s] = sources_used.get(s, 0) + 1
            profile.extend(images[n], boards[n])
            profile.save(tmp)  # what a user's profile goes through between sessions
            profile = Profile.load(tmp)
    summarise(
        "calibrated (profile from frames 1..N-1, Tesseract for the rest)", calibrated, seconds
    )
    print(f"  squares read by: {sources_used}")
    print(f"  profile at the end: {len(profile.labels)} samples, corners fixed: "
          f"{profile.corners is not None}, orientation {profile.orientation}")

    if not args.no_uncalibrated:
        for stock, name in ((True, "uncalibrated (stock classifier, Tesseract where unsure)"),
                            (False, "uncalibrated (Tesseract alone)")):
            uncalibrated: dict[int, dict[str, list]] = {}
            seconds = []
            for n in range(first, last + 1):
                reading = read_board(images[n], None, tileset="de", stock=stock)
                seconds.append(reading.seconds)
                uncalibrated[n] = compare(reading.board, boards[n])
            summarise(name, uncalibrated, seconds)

    # -- the two readers on the same real crops (letters only, glyph found)
    reader = TesseractReader("de")
    profile = Profile(tileset="de")
    stock = stock_classifier(set(reader.tileset.letters))
    total = right_tess = right_clf = right_stock = 0
    tess_s = clf_s = 0.0
    unseen = 0
    for n in range(1, last + 1):
        # The game's boards are given as the photos stand: no turning needed.
        rect = rectify_with_margin(images[n], locate_board(images[n]).corners)
        squares = [(r, c) for r in range(15) for c in range(15) if boards[n][r][c].isupper()]
        glyphs = glyphs_of(rect, squares)
        pairs = [(g, boards[n][r][c]) for g, (r, c) in zip(glyphs, squares, strict=True) if g]
        if n >= first:
            t = time.perf_counter()
            answers = reader.read([g.ink for g, _ in pairs])
            tess_s += time.perf_counter() - t
            classifier = profile.classifier()
            t = time.perf_counter()
            guesses = classifier.predict(np.stack([g.normalised for g, _ in pairs]))
            clf_s += time.perf_counter() - t
            by_stock = stock.predict(np.stack([g.normalised for g, _ in pairs])) if stock else []
            for k, ((_, letter), a, g) in enumerate(zip(pairs, answers, guesses, strict=True)):
                total += 1
                right_tess += a.letter == letter
                right_stock += bool(by_stock) and by_stock[k].letter == letter
                if letter in classifier.letters:
                    right_clf += g.letter == letter
                else:
                    unseen += 1
        profile.extend(images[n], boards[n])
    seen = total - unseen
    print("\n== the two readers on the same real crops (frames "
          f"{first}-{last}, {total} letter tiles, Tesseract one call per frame)")
    print(f"Tesseract: {100 * right_tess / total:.2f} % right, "
          f"{1000 * tess_s / total:.2f} ms per tile")
    print(f"calibrated classifier: {100 * right_clf / seen:.2f} % right on the {seen} tiles of "
          f"letters already seen ({unseen} unseen), {1000 * clf_s / total:.3f} ms per tile")
    if stock is not None:
        print(f"stock classifier alone (typefaces only): {100 * right_stock / total:.2f} % right")
    return 0


if __name__ == "__main__":
    sys.exit(main())
