"""Board reading on rendered photos of real-looking games, with and without calibration.

Positions: :func:`scorer.movegen.generate_game` plays English games with the ENABLE list; each
game gives boards at four stages (after 15 %, 40 %, 70 % and all of its turns), blanks included
(lower case on the board; a read ``?`` is right for them).  Each photo is rendered with
:func:`sim.render.render_board` from ``RenderConfig.random(seed, max_tilt=35)`` (camera
tilted up to 35 degrees, turned any way on screen, light, glare, blur, noise, JPEG) on one of
the chosen editions, without a hand over the board (reading is for still photos; hands are the
tracker's business).

Read two ways:

- *uncalibrated*: ``read_board(image, None, "en")``: the stock classifier learnt from other
  typefaces than the rendered tiles' (:mod:`vision.stock`), and Tesseract where it is unsure;
  with ``--tesseract-alone`` also *Tesseract alone* (``stock=False``), as before the stock;
- *calibrated*: with a profile made the way a user makes one, :meth:`Profile.extend` with two
  photos of known contents taken with the same board, tile set and font but from another camera
  position each: the alphabet laid out in rows, and a mid-game position of a game not among the
  test games.  One profile per board edition, font and tile style.  Calibration photos are
  taken with care (held still, in focus; a photo in which no grid is found is taken again, and
  the retakes are listed); the photos read keep every blur their configuration gives them.

Each way is also scored after the word check (:func:`vision.wordcheck.check_reading` with the
bundled word list): a letter that breaks a word is replaced when exactly one letter mends every
word through its square.  The games were played with that same list, as a club's games are with
its agreed dictionary, so their boards hold no phony.

Scored like chesscog: a photo whose grid corners (in the upright board's order) lie more than
half a square from the true ones is a *localisation* failure (all its squares wrong, and
counted there); a grid found right but turned is an *orientation* failure (likewise); otherwise
each square wrong is an *occupancy* error (tile read as empty or empty as tile), a *letter*
error (one letter read as another) or a *blank* error (a blank read as a letter or a letter as a
blank).  Per-square error is squares wrong / squares; a board is perfect with no square wrong.
The table breaks the results down by edition, game stage, camera tilt and blur.

``--save-readings FILE`` also keeps every reading (before the word check) with its photo's
case and true corners, so that ``bench/replay_wordcheck.py`` can score the word check again
from them in minutes instead of reading every photo again.

``--speed RUNS`` instead times cold reads of the real game's 1920x1080 frame (as
``bench/bench_letters.py`` makes it) in fresh single-threaded processes, reporting the CPU time
of the process, that of its Tesseract children, and wall time.

Usage: ``.venv/bin/python bench/eval_rendered.py [--count 300] [--seed 1]
[--editions green,red,classic,deluxe,green_print] [--size 1280x720] [--show-errors]
[--progress] [--only N,N,...] [--save DIR] [--save-readings FILE] [--speed RUNS]
[--tesseract-alone]``
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import statistics
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from calibration.profile import Profile  # noqa: E402
from scorer.lexicon import Lexicon  # noqa: E402
from scorer.movegen import generate_game  # noqa: E402
from scorer.tiles import TileSet  # noqa: E402
from sim.editions import edition as find_edition  # noqa: E402
from sim.render import RenderConfig, render_board  # noqa: E402
from vision.locate import BoardNotFound  # noqa: E402
from vision.read import BoardReading, read_board  # noqa: E402
from vision.wordcheck import check_reading  # noqa: E402

SIZE = 15
STAGES = (0.15, 0.4, 0.7, 1.0)
STAGE_NAMES = ("early", "middle", "late", "final")
#: Corner error (in squares) beyond which the grid counts as not found.
LOCATED_WITHIN = 0.5
#: Ways of reading: each reader alone, and each followed by the word check.
MODES = ("uncalibrated", "uncalibrated + words", "calibrated", "calibrated + words")
CATEGORIES = ("localisation", "orientation", "occupancy", "letter", "blank")
#: Every letter of the English set, laid out in rows, with the two blanks (standing for E, S).
ALPHABET_ROWS = (
    ["." * 15] * 3
    + [".ABCDEFGHIJKLM.", "." * 15, ".NOPQRSTUVWXYZ.", "." * 15, "..AEIOUeRSTsN..",
       "." * 15, "..DLGHBCMPFWY..", "." * 15, "..VKJXQZ.......", "." * 15]
    + ["." * 15] * 2
)
#: Games whose positions calibrate (never among the test games: those start at --seed).
CALIBRATION_GAME_SEED = 10_000
#: Calibration photos taken again because the grid was not found in them.
RETAKES: list[str] = []


@dataclass(frozen=True)
class Case:
    """One photo to read: the position, its stage and how it is photographed."""

    number: int
    rows: tuple[str, ...]
    stage: str
    edition: str
    config: RenderConfig


@dataclass
class Outcome:
    """How one reading went."""

    case: Case
    errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    wrong: list[tuple[int, int, str, str]] = field(default_factory=list)

    @property
    def perfect(self) -> bool:
        return sum(self.errors.values()) == 0


def game_positions(seed: int) -> list[tuple[str, tuple[str, ...]]]:
    """The boards of one generated game at each stage, as (stage, rows)."""
    game = generate_game(seed, Lexicon.default())
    plays = [turn for turn in game.turns if turn.play is not None]
    out = []
    for name, share in zip(STAGE_NAMES, STAGES, strict=True):
        turn = plays[max(0, min(len(plays) - 1, round(share * len(plays)) - 1))]
        out.append((name, tuple(turn.board.rows())))
    return out


def cases(count: int, seed: int, editions: Sequence[str], size: tuple[int, int],
          max_tilt: float = 35.0) -> Iterator[Case]:
    """``count`` photos: games from ``seed`` on, four stages each, editions taken in turn,
    the camera tilted up to ``max_tilt`` degrees."""
    rng = np.random.default_rng([seed, 0xED])
    number = 0
    game_seed = seed
    while number < count:
        for stage, rows in game_positions(game_seed):
            if number >= count:
                break
            config = RenderConfig.random(
                seed * 100_003 + number, max_tilt=max_tilt, size=size, hand_probability=0.0
            )
            yield Case(number, rows, stage, str(rng.choice(list(editions))), config)
            number += 1
        game_seed += 1


def tile_style(case_edition: str, config: RenderConfig) -> str:
    return find_edition(case_edition).tile_style if config.tile_style == "auto" else (
        config.tile_style
    )


def calibration_profile(edition: str, font: str, style: str, size: tuple[int, int]) -> Profile:
    """A profile from two photos of known contents with this board, font and tile style."""
    mid_game = game_positions(CALIBRATION_GAME_SEED)[1][1]
    profile = Profile(tileset="en")
    first = CALIBRATION_GAME_SEED + zlib.crc32(f"{edition}/{font}/{style}".encode()) % 1000
    for k, rows in enumerate((ALPHABET_ROWS, mid_game)):
        # A photo in which the grid is not found is taken again (from another position), as a
        # user would; each retake is reported.
        for attempt in range(5):
            base = RenderConfig.random(first + 7 * k + 1000 * attempt, max_tilt=35, size=size,
                                       hand_probability=0.0)
            # Calibration photos are taken with care: held still and in focus (the test photos
            # keep every blur the random configuration gives them).
            config = replace(base, font=font, tile_style=style, motion_blur=0.0,
                             defocus=min(base.defocus, 0.8))
            photo = render_board(list(rows), tileset="en", edition=edition,
                                 seed=base.scene_seed, config=config)
            try:
                profile.extend(photo.image, list(rows))
                break
            except BoardNotFound as exc:
                RETAKES.append(f"{edition}/{font}/{style} photo {k + 1}: {exc}")
        else:
            raise RuntimeError(f"no calibration photo of {edition}/{font}/{style} was read")
    return profile


def true_letter(ch: str) -> str:
    """What a reading should say for a square of the known board (blanks read as ``?``)."""
    if ch == ".":
        return "."
    return "?" if ch.islower() else ch


def corner_error(found: np.ndarray, true: np.ndarray) -> float:
    """Largest corner distance in squares."""
    side = float(np.hypot(*(np.roll(true, -1, axis=0) - true).T).mean()) / SIZE
    return float(np.abs(np.hypot(*(found - true).T)).max()) / side


def read(image: np.ndarray, profile: Profile | None,
         stock: bool = True) -> tuple[BoardReading | None, float]:
    """The reading of one photo (None: no grid found) and its wall time."""
    started = time.perf_counter()
    try:
        reading = read_board(image, profile, "en", stock=stock)
    except BoardNotFound:
        reading = None
    return reading, time.perf_counter() - started


def score(case: Case, reading: BoardReading | None, seconds: float,
          true_corners: np.ndarray) -> Outcome:
    """Sort the wrong squares of one reading into the categories."""
    outcome = Outcome(case, seconds=seconds)
    expected = [[true_letter(ch) for ch in row] for row in case.rows]
    if reading is None:
        outcome.errors["localisation"] = SIZE * SIZE
        return outcome
    if corner_error(reading.corners, true_corners) > LOCATED_WITHIN:
        turned = min(corner_error(np.roll(reading.corners, -k, axis=0), true_corners)
                     for k in (1, 2, 3))
        category = "orientation" if turned <= LOCATED_WITHIN else "localisation"
        outcome.errors[category] = SIZE * SIZE
        return outcome
    for r in range(SIZE):
        for c in range(SIZE):
            want, got = expected[r][c], reading.board[r][c]
            if want == got:
                continue
            if (want == ".") != (got == "."):
                category = "occupancy"
            elif "?" in (want, got):
                category = "blank"
            else:
                category = "letter"
            outcome.errors[category] += 1
            outcome.wrong.append((r, c, want, got))
    return outcome


@dataclass(frozen=True)
class SavedReading:
    """One photo's reading before the word check (None: no grid found), kept to score again."""

    case: Case
    mode: str
    reading: BoardReading | None
    seconds: float
    true_corners: np.ndarray


def save_readings(path: Path, readings: Sequence[SavedReading]) -> None:
    """Write the readings of one run: a pickle of plain dicts and the library's own types
    (this script's classes are ``__main__``'s when it runs, so they are not pickled)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [{"case": vars(r.case), "mode": r.mode, "reading": r.reading,
                "seconds": r.seconds, "true_corners": r.true_corners} for r in readings]
    with path.open("wb") as out:
        pickle.dump(records, out, protocol=pickle.HIGHEST_PROTOCOL)


def load_readings(path: Path) -> list[SavedReading]:
    """The readings :func:`save_readings` wrote (only files of one's own runs: a pickle)."""
    with path.open("rb") as saved:
        records = pickle.load(saved)
    try:
        return [SavedReading(Case(**r["case"]), r["mode"], r["reading"], r["seconds"],
                             r["true_corners"]) for r in records]
    except (TypeError, KeyError) as exc:
        raise ValueError(f"{path}: not readings saved by bench/eval_rendered.py ({exc})") from exc


@dataclass
class Tally:
    """Outcomes of one way of reading."""

    outcomes: list[Outcome] = field(default_factory=list)

    def squares(self, cases: Sequence[Outcome] | None = None) -> int:
        return SIZE * SIZE * len(self.outcomes if cases is None else cases)

    def table_row(self, label: str, outcomes: Sequence[Outcome]) -> str:
        errors: Counter[str] = Counter()
        for outcome in outcomes:
            errors.update(outcome.errors)
        total = sum(errors.values())
        squares = SIZE * SIZE * len(outcomes)
        perfect = sum(o.perfect for o in outcomes)
        cells = " ".join(f"{errors[c]:>12d}" for c in CATEGORIES)
        return (f"{label:<22s} {len(outcomes):>6d} {100 * total / max(squares, 1):>8.3f} "
                f"{100 * perfect / max(len(outcomes), 1):>8.1f} {cells}")


def header() -> str:
    cells = " ".join(f"{c:>12s}" for c in CATEGORIES)
    return f"{'':<22s} {'photos':>6s} {'err %':>8s} {'perfect%':>8s} {cells}"


def evaluate(count: int, seed: int, editions: Sequence[str], size: tuple[int, int],
             progress: bool = False, only: set[int] | None = None,
             save: Path | None = None, tesseract_alone: bool = False,
             readings: list[SavedReading] | None = None,
             max_tilt: float = 35.0) -> dict[str, Tally]:
    """Render and read ``count`` photos both ways (of them only the numbers in ``only``, when
    given; each photo also written to ``save`` as ``N.png``, each reading appended to
    ``readings``); returns the tallies by mode."""
    modes = MODES + (("Tesseract alone",) if tesseract_alone else ())
    tallies = {mode: Tally() for mode in modes}
    lexicon = Lexicon.default()
    tiles = TileSet.named("en")
    profiles: dict[tuple[str, str, str], Profile] = {}
    for case in cases(count, seed, editions, size, max_tilt):
        if only is not None and case.number not in only:
            continue
        photo = render_board(list(case.rows), tileset="en", edition=case.edition,
                             seed=case.config.scene_seed, config=case.config)
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(save / f"{case.number}.png"), photo.image)
        key = (case.edition, case.config.font, tile_style(case.edition, case.config))
        if key not in profiles:
            profiles[key] = calibration_profile(*key, size)
        for mode, profile in (("uncalibrated", None), ("calibrated", profiles[key])):
            reading, seconds = read(photo.image, profile)
            if readings is not None:
                readings.append(SavedReading(case, mode, reading, seconds, photo.corners))
            tallies[mode].outcomes.append(score(case, reading, seconds, photo.corners))
            checked = None if reading is None else check_reading(reading, lexicon, tiles)
            tallies[f"{mode} + words"].outcomes.append(
                score(case, checked, seconds, photo.corners))
        if tesseract_alone:
            reading, seconds = read(photo.image, None, stock=False)
            tallies["Tesseract alone"].outcomes.append(
                score(case, reading, seconds, photo.corners))
        if progress:
            un, ca, caw = (tallies[m].outcomes[-1]
                           for m in ("uncalibrated", "calibrated", "calibrated + words"))
            print(f"  {case.number:4d} {case.edition:<12s} {case.stage:<7s} "
                  f"tilt {case.config.tilt:4.1f} turn {case.config.rotation:7.1f}  "
                  f"uncal {dict(un.errors) or 'ok'}  cal {dict(ca.errors) or 'ok'}  "
                  f"cal+words {dict(caw.errors) or 'ok'}",
                  file=sys.stderr, flush=True)
    return tallies


def report(tallies: dict[str, Tally], show_errors: bool = False) -> str:
    lines = []
    for mode, tally in tallies.items():
        outcomes = tally.outcomes
        lines.append(f"\n{mode}  (read time median "
                     f"{1000 * statistics.median(o.seconds for o in outcomes):.0f} ms wall)")
        lines.append(header())
        lines.append(tally.table_row("all", outcomes))
        by_edition: defaultdict[str, list[Outcome]] = defaultdict(list)
        by_stage: defaultdict[str, list[Outcome]] = defaultdict(list)
        by_tilt: defaultdict[str, list[Outcome]] = defaultdict(list)
        by_blur: defaultdict[str, list[Outcome]] = defaultdict(list)
        for o in outcomes:
            config = o.case.config
            by_blur["motion blur" if config.motion_blur >= 1.0 else "defocus >1 px"
                    if config.defocus > 1.0 else "sharp"].append(o)
            by_edition[o.case.edition].append(o)
            by_stage[o.case.stage].append(o)
            tilt = o.case.config.tilt
            by_tilt["tilt <15" if tilt < 15 else "tilt 15-25" if tilt < 25 else "tilt 25-35"
                    if tilt < 35 else "tilt 35-50"].append(o)
        for group in (by_edition, by_stage, by_tilt, by_blur):
            for name in sorted(group):
                lines.append(tally.table_row(f"  {name}", group[name]))
        confusions: Counter[tuple[str, str]] = Counter(
            (want, got) for o in outcomes for _, _, want, got in o.wrong
        )
        if confusions:
            lines.append("  most common confusions (true -> read): " + ", ".join(
                f"{w}->{g} x{n}" for (w, g), n in confusions.most_common(12)))
        if show_errors:
            for o in outcomes:
                if not o.perfect:
                    c = o.case.config
                    lines.append(
                        f"    photo {o.case.number} {o.case.edition} {o.case.stage} "
                        f"font {c.font} tilt {c.tilt:.0f} turn {c.rotation:.0f}: "
                        f"{dict(o.errors)} {o.wrong[:8]}")
    tiles = sum(ch != "." for o in next(iter(tallies.values())).outcomes for row in o.case.rows
                for ch in row)
    blanks = sum(ch.islower() for o in next(iter(tallies.values())).outcomes
                 for row in o.case.rows for ch in row)
    if RETAKES:
        lines.append(f"\ncalibration photos retaken: {len(RETAKES)}")
        lines.extend(f"  {r}" for r in RETAKES)
    lines.append(f"\ntiles on the boards: {tiles}, of them blanks: {blanks}")
    return "\n".join(lines)


SPEED_CODE = """
import os, resource, sys, time
os.sched_setaffinity(0, {{min(os.sched_getaffinity(0))}})
sys.path.insert(0, {repo!r})
import cv2
cv2.setNumThreads(1)
from calibration.profile import Profile
from vision.read import read_board
import vision.locate, vision.occupancy, vision.rectify, vision.tesseract_reader, pytesseract
image = cv2.imread({photo!r})
profile = Profile.load({profile!r}) if {mode!r} in ("fixed", "moved") else None
if {mode!r} == "moved":
    profile.corners = profile.corners + 25.0
if {warm!r}:
    # What a running app has loaded since its first read: Tesseract's model, the stock
    # samples, the profile's classifier.  Another photo, so nothing of this one is kept.
    read_board(cv2.imread({other!r}), profile, "de", stock={mode!r} != "tesseract")
children = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu, wall = time.process_time(), time.perf_counter()
reading = read_board(image, profile, "de", stock={mode!r} != "tesseract")
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
after = resource.getrusage(resource.RUSAGE_CHILDREN)
child = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
print(cpu, child, wall, sum(1 for s in reading.sources.values() if s == "tesseract"))
"""


def speed(runs: int) -> str:
    """Cold ``read_board`` of the real game's frame 27 at 1920x1080 (as ``bench_letters.py``
    makes it), each run in a fresh process bound to one core (OpenCV, OpenBLAS and Tesseract
    limited to one thread): CPU of the process, CPU of its Tesseract children, wall.

    Twice: in a process that reads nothing before (models loaded during the read), and in one
    that has read another photo (frame 26) first, as a running app has: Tesseract's model,
    the stock samples and the profile's classifier loaded; the grid is searched again.

    What a machine makes once and keeps in the user's cache (Tesseract's lean language data,
    the blur estimate's tables) is made by an untimed read first, as on a machine in use."""
    import subprocess
    import tempfile

    sys.path.insert(0, str(REPO / "bench"))
    from bench_letters import CALIBRATION_FRAMES, GAME, full_hd, load_boards

    if not GAME.is_dir():
        return f"speed: photos not found: {GAME}"
    boards = load_boards()
    profile = Profile(tileset="de")
    for n in CALIBRATION_FRAMES:
        profile.extend(full_hd(cv2.imread(str(GAME / f"image-{n}.jpg"))), boards[n])
    # HOME and the cache folders: the stock letter samples are read from the user's cache.
    env = {key: os.environ[key] for key in ("HOME", "XDG_CACHE_HOME", "TILECAM_CACHE")
           if key in os.environ}
    env |= {"PATH": "/usr/bin:/bin", "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}
    lines = [f"cold read_board of a 1920x1080 photo (real frame 27), medians of {runs} fresh "
             "processes, one core:",
             f"  {'':<43s} {'CPU ms':>7s} {'+Tesseract CPU':>15s} {'wall ms':>8s} "
             f"{'squares by Tesseract':>21s}"]
    with tempfile.TemporaryDirectory() as tmp:
        profile.save(tmp)
        photo = str(Path(tmp) / "frame27.png")
        cv2.imwrite(photo, full_hd(cv2.imread(str(GAME / "image-27.jpg"))))
        other = str(Path(tmp) / "frame26.png")
        cv2.imwrite(other, full_hd(cv2.imread(str(GAME / "image-26.jpg"))))
        for mode in ("none", "tesseract"):
            subprocess.run([sys.executable, "-c", SPEED_CODE.format(
                repo=str(REPO), photo=photo, profile=tmp, mode=mode, warm=False, other=other)],
                capture_output=True, check=True, env=env)
        for (mode, label), warm in itertools.product(
                (("fixed", "calibrated, fixed camera"),
                 ("moved", "calibrated, grid searched"),
                 ("none", "uncalibrated"),
                 ("tesseract", "uncalibrated, Tesseract alone")), (False, True)):
            label = f"{label}{', models loaded' if warm else ''}"
            code = SPEED_CODE.format(repo=str(REPO), photo=photo, profile=tmp, mode=mode,
                                     warm=warm, other=other)
            results = []
            for _ in range(runs):
                out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                     text=True, check=True, env=env)
                results.append([float(v) for v in out.stdout.split()])
            cpu, child, wall, calls = (statistics.median(r[i] for r in results)
                                       for i in range(4))
            lines.append(f"  {label:<43s} {1000 * cpu:7.0f} {1000 * child:15.0f} "
                         f"{1000 * wall:8.0f} {calls:21.0f}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--editions", default="green,red,classic,deluxe,green_print")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--max-tilt", type=float, default=35.0, metavar="DEG",
                        help="steepest camera tilt (default 35; a handheld phone reaches 50)")
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--only", default="", metavar="N,N,...",
                        help="read only these photos of the --count (by number, as --progress "
                             "numbers them), to look into them")
    parser.add_argument("--save", type=Path, metavar="DIR",
                        help="also write each photo read to DIR/N.png")
    parser.add_argument("--save-readings", type=Path, metavar="FILE",
                        help="also keep every reading in FILE, for bench/replay_wordcheck.py")
    parser.add_argument("--speed", type=int, metavar="RUNS", default=0,
                        help="only time cold reads of a real 1920x1080 photo, RUNS times")
    parser.add_argument("--tesseract-alone", action="store_true",
                        help="also read each photo without calibration by Tesseract alone")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.speed:
        print(speed(args.speed))
        return 0
    size = tuple(int(v) for v in args.size.lower().split("x"))
    editions = [e.strip() for e in args.editions.split(",") if e.strip()]
    started = time.perf_counter()
    only = {int(n) for n in args.only.split(",") if n.strip()} or None
    readings: list[SavedReading] | None = [] if args.save_readings else None
    tallies = evaluate(args.count, args.seed, editions, size, progress=args.progress, only=only,
                       save=args.save, tesseract_alone=args.tesseract_alone, readings=readings,
                       max_tilt=args.max_tilt)
    if args.save_readings and readings is not None:
        save_readings(args.save_readings, readings)
    print(f"{args.count} rendered photos {args.size}, seed {args.seed}, editions "
          f"{', '.join(editions)}, tilt up to 35 degrees")
    print(report(tallies, args.show_errors))
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
