"""The camera pipeline end to end: rendered videos of whole games, and the real photographed game.

Rendered games (English, ENABLE): :func:`scorer.movegen.generate_game` plays a legal game; a
video of it is rendered with :mod:`sim.render` at 1280x720: a hand lays each move's tiles one
at a time with a pause (the board settles) after each, the light drifts throughout, once per game
a hand hovers over the board without laying anything, once the board is bumped (the camera's
view of it shifts and turns a little), and once a player lays a phony which is taken back off
the board after the quiet period.  Passes and exchanges, which a camera cannot see, are entered
the way the page's buttons would (straight into the game).  The profile is calibrated from one
rendered photo of a board holding every letter, from the same camera.  Expected: the same
sequence of placements (and the withdrawal) put through :class:`scorer.game.Game`.  The
pipeline's questions are answered as the players would (they know what they laid): a blank's
letter, a letter's, or the play when the rules refused what was read.  Counted: moves found,
moves missed, moves invented, moves with a wrong score, questions asked (each one a moment the
players had to confirm something).

Timestamps: 10 frames a second while a hand moves, 4 a second while the board is still (the
tracker works on timestamps, so this only saves rendering time).  The quiet period that commits a
move is 3 s here (8 s by default).

The real game (``../shared/data/photos/scrabscrap-game01`` beside the repository), as stills:
(1) profile from the last photo and its known board; (2) profile from the first photo alone,
growing from confirmed moves; (3) no profile at all, as for players who never calibrated
(the stock classifier and Tesseract read).  The game's record answers the questions the
pipeline asks (standing in for the players) and says which of them corrected a misread.

Usage: ``.venv/bin/python bench/eval_replay.py [--games 20] [--first-seed 1] [--seeds 2,12]
[--no-real] [--no-rendered] [--size 1280x720]``
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from collections import Counter  # noqa: E402

from calibration.profile import Profile  # noqa: E402
from pipeline import Pipeline, RecordAnswers  # noqa: E402
from scorer.board import Board  # noqa: E402
from scorer.game import EventKind, Game  # noqa: E402
from scorer.squares import Square  # noqa: E402
from sim.render import (  # noqa: E402
    RenderConfig,
    _camera,
    hand_towards,
    render_board,
    render_flat,
    render_frame,
)
from tracker import TrackerConfig  # noqa: E402
from vision.locate import BoardNotFound  # noqa: E402

GAME = REPO.parent / "shared" / "data" / "photos" / "scrabscrap-game01"
EMPTY = ["." * 15] * 15
CALIBRATION_ROWS = (
    ["." * 15]
    + ["..ABCDEFGHIJK.."]
    + ["." * 15]
    + ["..LMNOPQRSTUV.."]
    + ["." * 15]
    + ["..WXYZEAIONRT.."]
    + ["." * 15]
    + ["..SLUDGEBMHCF.."]
    + ["." * 15]
    + ["..PKWVYJQXZAE.."]
    + ["." * 15] * 5
)
QUIET = 3.0
MOVING_DT = 0.1
STILL_DT = 0.25


# ------------------------------------------------------------------------------- scripts


@dataclass
class Step:
    """One thing that happens in the video."""

    kind: str  # "play", "phony", "withdraw", "pass", "exchange", "hover", "bump"
    tiles: dict[Square, str] = field(default_factory=dict)
    count: int = 0


def game_script(seed: int, words: object, phony: bool = True) -> list[Step]:
    """A generated game as steps, with a hover, a bump and a withdrawn phony inserted."""
    from scorer.movegen import generate_game

    generated = generate_game(seed, words)
    steps: list[Step] = []
    plays = [i for i, t in enumerate(generated.turns) if t.play is not None]
    hover_at = plays[min(2, len(plays) - 1)]
    bump_at = plays[len(plays) // 2]
    phony_at = plays[min(4, len(plays) - 1)] if phony else -1
    for index, turn in enumerate(generated.turns):
        if index == hover_at:
            steps.append(Step("hover"))
        if index == bump_at:
            steps.append(Step("bump"))
        if turn.play is not None:
            tiles = dict(turn.play.placement.tiles)
            if index == phony_at:
                before = generated.turns[index - 1].board if index else None
                steps.append(Step("phony", _phony(tiles, before, words)))
                steps.append(Step("withdraw"))
            steps.append(Step("play", tiles))
        elif turn.kind == "exchange":
            steps.append(Step("exchange", count=len(turn.exchanged)))
        else:
            steps.append(Step("pass"))
    return steps


def _phony(tiles: dict[Square, str], board: object, words: object) -> dict[Square, str]:
    """The same squares with one letter changed so that the main word is no word, using a
    letter still left among the tiles."""
    from scorer.rules import Placement, score_play
    from scorer.tiles import TileSet

    tileset = TileSet.named("en")
    on_board = Counter(t.upper() for t in (board.occupied().values() if board else ())
                       if t.isupper())  # type: ignore[attr-defined]
    on_board.update(t for t in tiles.values() if t.isupper())
    first = sorted(tiles)[0]
    for letter in "QZXJKVWYFHB":
        if letter == tiles[first] or on_board[letter] + 1 > tileset.counts[letter]:
            continue
        candidate = {sq: (letter if sq == first else t) for sq, t in tiles.items()}
        play = score_play(board or Board(), Placement.of(candidate), tileset)
        if not all(w.text in words for w in play.words):  # type: ignore[operator]
            return candidate
    raise ValueError("no phony letter available")


def expected_game(steps: list[Step]) -> Game:
    """The game the video shows, put through the scorer."""
    game = Game(["one", "two"], "en")
    for step in steps:
        if step.kind in ("play", "phony"):
            game.place(step.tiles)
        elif step.kind == "withdraw":
            game.withdraw()
        elif step.kind == "pass":
            game.pass_turn()
        elif step.kind == "exchange":
            game.exchange(step.count)
    return game


# ------------------------------------------------------------------------------- video


class Video:
    """Renders the steps as timed frames (see the module notes)."""

    def __init__(self, seed: int, config: RenderConfig) -> None:
        self.seed = seed
        self.config = config
        self.rows = [list(row) for row in EMPTY]
        self.t = 0.0
        self.n = 0

    def _drifted(self) -> RenderConfig:
        c = self.config
        return replace(
            c,
            exposure=c.exposure * (1.0 + 0.12 * math.sin(self.t / 25.0)),
            gradient_angle=c.gradient_angle + 1.2 * self.t,
            glare_pos=(c.glare_pos[0] + 0.05 * math.sin(self.t / 40.0), c.glare_pos[1]),
        )

    def frame(self, hand: object = None, dt: float = STILL_DT) -> tuple[float, np.ndarray]:
        config = self._drifted()
        flat = render_flat(["".join(r) for r in self.rows], tileset="en", edition="green",
                           seed=self.seed, config=config)
        image = render_frame(flat, config, seed=self.seed * 100000 + self.n, hand=hand).image
        self.n += 1
        stamp = self.t
        self.t += dt
        return stamp, image

    def still(self, seconds: float) -> Iterator[tuple[float, np.ndarray]]:
        for _ in range(max(1, int(round(seconds / STILL_DT)))):
            yield self.frame()

    def _grid_h(self) -> np.ndarray:
        from sim.editions import edition

        cam = _camera(self.config, edition("green"))
        return cam.plane(0.12 + self.config.tile_height)

    def hand_over(self, square: tuple[int, int], holding: str | None, frames: int,
                  edge: int = 0) -> Iterator[tuple[float, np.ndarray]]:
        """A hand coming to ``square``, staying, and leaving (``frames`` at the square)."""
        grid_h = self._grid_h()
        r, c = square
        target = cv2.perspectiveTransform(
            np.array([[[c + 0.5, r + 0.5]]], np.float64), grid_h).reshape(2)
        pose = hand_towards((float(target[0]), float(target[1])), self.config, grid_h,
                            seed=self.seed + 7 * self.n, holding=holding, edge=edge)
        angle = math.radians(pose.angle)
        direction = np.array([math.cos(angle), math.sin(angle)])
        reach = 1.3 * max(self.config.size)
        tip = np.array(pose.tip)
        for k in range(1, 5):  # coming in
            p = tip - direction * reach * (1 - k / 4) ** 2
            yield self.frame(replace(pose, tip=(float(p[0]), float(p[1]))), MOVING_DT)
        for _ in range(frames):
            yield self.frame(pose, MOVING_DT)
        if holding is not None:
            self.rows[r][c] = holding
        empty = replace(pose, holding=None)
        for k in range(1, 5):  # going away
            p = tip - direction * reach * (k / 4) ** 2
            yield self.frame(replace(empty, tip=(float(p[0]), float(p[1]))), MOVING_DT)

    def steps(self, steps: list[Step], pause: float = 1.2,
              on_step: object = None) -> Iterator[tuple[float, np.ndarray]]:
        yield from self.still(1.5)
        last_tiles: dict[Square, str] = {}
        for step in steps:
            if on_step is not None:
                on_step(step)  # type: ignore[operator]
            if step.kind in ("play", "phony"):
                for square, letter in sorted(step.tiles.items()):
                    shown = letter if letter.isupper() else letter  # blanks: no face
                    yield from self.hand_over((square.row, square.col), shown, 3)
                    yield from self.still(pause)
                yield from self.still(QUIET + 1.5)
                last_tiles = step.tiles
            elif step.kind == "withdraw":
                first = sorted(last_tiles)[0]
                grid_h = self._grid_h()
                del grid_h
                yield from self.hand_over((first.row, first.col), None, 3)
                for square in last_tiles:
                    self.rows[square.row][square.col] = "."
                yield from self.still(1.5)
            elif step.kind == "hover":
                yield from self.hand_over((7, 7), None, 15, edge=1)
                yield from self.still(1.5)
            elif step.kind == "bump":
                for _ in range(2):
                    yield self.frame(None, MOVING_DT)
                x, y = self.config.board_offset
                self.config = replace(self.config, board_offset=(x + 0.04, y - 0.03),
                                      rotation=self.config.rotation + 1.5)
                yield from self.still(2.0)


def camera_config(seed: int, size: tuple[int, int]) -> RenderConfig:
    base = RenderConfig.random(seed, max_tilt=20, size=size)
    return replace(base, hand=False, motion_blur=0.0, glare=min(base.glare, 0.5),
                   board_scale=max(base.board_scale, 0.8), board_offset=(0.0, 0.0),
                   rotation=base.rotation % 360 if abs(base.rotation) < 10 else 0.0)


def calibrated_profile(seed: int, config: RenderConfig) -> Profile:
    photo = render_board(CALIBRATION_ROWS, tileset="en", edition="green", seed=seed,
                         config=config)
    profile = Profile(tileset="en")
    profile.extend(photo.image, CALIBRATION_ROWS)
    return profile


@dataclass
class RenderedResult:
    seed: int
    expected: int
    found: int
    missed: int
    invented: int
    wrong_score: int
    questions: int
    frames: int
    seconds: float
    notes: list[str]


def turn_events(game: Game) -> list[tuple]:
    out = []
    for e in game.events:
        if e.kind is EventKind.PLAY:
            assert e.play is not None
            out.append(("play", e.play.position, e.play.gcg_word.upper(), e.score))
        elif e.kind is EventKind.WITHDRAWN:
            out.append(("withdrawn", e.score))
        else:
            out.append((e.kind.value, e.score))
    return out


def run_rendered(seed: int, words: object, size: tuple[int, int], lexicon: object,
                 phony: bool = True) -> RenderedResult:
    started = time.perf_counter()
    steps = game_script(seed, words, phony=phony)
    expected = expected_game(steps)
    config = camera_config(seed, size)
    profile = calibrated_profile(seed, config)
    turns = [e for e in expected.events if e.kind is not EventKind.WITHDRAWN]
    truth = [dict(e.play.placement.tiles) if e.play is not None else None for e in turns]

    def players_answer(question: object) -> str | None:
        # The players know their tiles: the script answers the questions about the turn
        # being settled (the next one the game has not got yet): a blank's or a letter's,
        # or what was played when the rules refused what was read.
        square = question.square  # type: ignore[attr-defined]
        done = len([e for e in pipeline.game.events if e.kind is not EventKind.WITHDRAWN])
        if done >= len(truth) or truth[done] is None:
            return None
        if question.kind == "placement":  # type: ignore[attr-defined]
            play = turns[done].play
            assert play is not None
            return f"{play.position} {play.gcg_word}"
        tiles = truth[done]
        return tiles.get(square) if square in tiles else None  # type: ignore[union-attr]

    pipeline = Pipeline(["one", "two"], profile=profile, tileset="en", lexicon=lexicon,
                        tracker_config=TrackerConfig(quiet_seconds=QUIET),
                        answers=players_answer)
    video = Video(seed, config)

    def on_step(step: Step) -> None:
        # A camera cannot see these: the page's buttons enter them.
        if step.kind == "pass":
            pipeline.game.pass_turn()
        elif step.kind == "exchange":
            pipeline.game.exchange(step.count)

    frames = 0
    last = 0.0
    for stamp, image in video.steps(steps, on_step=on_step):
        pipeline.feed(stamp, image)
        frames += 1
        last = stamp
    pipeline.finish(last)
    want = turn_events(expected)
    got = turn_events(pipeline.game)
    # Align turn by turn: same kind and position is "found"; extra plays are invented.
    found = missed = invented = wrong = 0
    notes: list[str] = []
    i = j = 0
    while i < len(want) or j < len(got):
        if i < len(want) and j < len(got) and want[i][:3] == got[j][:3]:
            found += 1
            if want[i][-1] != got[j][-1]:
                wrong += 1
                notes.append(f"score {got[j]} != {want[i]}")
            i += 1
            j += 1
        elif j < len(got) and (i >= len(want) or got[j] not in want[i:]):
            invented += 1
            notes.append(f"invented {got[j]}")
            j += 1
        else:
            missed += 1
            notes.append(f"missed {want[i]}")
            i += 1
    return RenderedResult(seed, len(want), found, missed, invented, wrong,
                          len(pipeline.questions), frames, time.perf_counter() - started,
                          notes + [q.prompt for q in pipeline.questions])


# ------------------------------------------------------------------------------- real game


def load_boards(path: Path) -> dict[int, list[str]]:
    boards: dict[int, list[str]] = {}
    for section in path.read_text(encoding="utf-8").split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = [line.strip() for line in lines[1:16]]
    return boards


def run_real(calibrate_from: int | None) -> None:
    """The real game as stills, with a profile calibrated from one of its photos, or with no
    profile at all (``calibrate_from`` None: the stock classifier and Tesseract read)."""
    from vision.sources import open_source

    boards = load_boards(GAME / "boards_after_each_move.txt")
    profile: Profile | None = None
    if calibrate_from is not None:
        profile = Profile(tileset="de")
        profile.extend(cv2.imread(str(GAME / f"image-{calibrate_from}.jpg")),
                       boards[calibrate_from])
        with tempfile.TemporaryDirectory() as tmp:  # a profile as a user has it: saved, loaded
            profile.save(tmp)
            profile = Profile.load(tmp)
    samples_at_start = 0 if profile is None else len(profile.labels)
    answers = RecordAnswers(GAME / "nu19_stefan-hanns.gcg", lettered_rows=True, tileset="de")
    recorded = [e.score for e in answers.result.record.events]  # as written in the record
    pipeline = Pipeline(["Stefan", "Hanns"], profile=profile, tileset="de", lexicon=None,
                        stills=True, answers=answers)
    reports = pipeline.run(open_source(str(GAME)))
    print("\n== real game as stills, " + (
        "no profile (stock classifier and Tesseract)" if profile is None else
        f"profile from image-{calibrate_from} ({samples_at_start} letter samples at the start)"))
    right_squares = right_letters = scores_as_record = 0
    corrections: list[str] = []
    latencies = [r.latency for r in reports if r.latency is not None]
    for report in reports:
        truth = answers.placement(report.turn)
        record = answers.turns[report.turn - 1]
        event = report.event
        placed = dict(event.play.placement.tiles) if event and event.play else None
        if truth is None:
            right_squares += placed is None
            right_letters += placed is None
        else:
            right_squares += placed is not None and set(placed) == set(truth)
            right_letters += placed == truth
        score_ok = event is not None and event.score == record.score  # rules' recomputation
        scores_as_record += event is not None and event.score == recorded[report.turn - 1]
        misread = [
            f"{sq} {report.read.get(sq, '?')}->{q.answer}"
            for q in report.questions if q.kind in ("letter", "placement") and q.square
            for sq in [q.square] if report.read.get(sq) != q.answer
        ]
        if misread:
            corrections.append(f"turn {report.turn}: " + ", ".join(misread))
        if not score_ok or event.score != recorded[report.turn - 1]:  # type: ignore[union-attr]
            print(f"  turn {report.turn}: scored {event.score if event else None}, "
                  f"record says {recorded[report.turn - 1]}, the rules give {record.score}")
    final = dict(zip(pipeline.game.players, pipeline.game.scores, strict=True))
    asked = [(q.turn, q.kind, str(q.square) if q.square else "", q.answer)
             for q in pipeline.questions]
    print(f"turns found: {len(reports)} / 27; squares right: {right_squares}; "
          f"letters right: {right_letters}; scores as written in the record: "
          f"{scores_as_record}")
    print(f"final: {final}")
    print(f"questions ({len(asked)}), answered from the record: {asked}")
    print(f"moves needing a letter correction: {len(corrections)} {corrections}")
    if profile is not None:
        print(f"profile at the end: {len(profile.labels)} samples")
    if latencies:
        print(f"settled -> scored: median {1000 * float(np.median(latencies)):.0f} ms, "
              f"max {1000 * max(latencies):.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--seeds", default=None, help="comma-separated seeds (instead)")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--no-rendered", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if not args.no_real:
        if GAME.is_dir():
            run_real(27)
            run_real(1)
            run_real(None)
        else:
            print(f"photos not found: {GAME}", file=sys.stderr)
    if not args.no_rendered:
        from scorer.lexicon import Lexicon

        lexicon = Lexicon.default()
        size = tuple(int(v) for v in args.size.split("x"))
        totals = dict(expected=0, found=0, missed=0, invented=0, wrong_score=0, questions=0)
        print(f"\n== rendered games ({args.size}, quiet period {QUIET} s)")
        seeds = ([int(v) for v in args.seeds.split(",")] if args.seeds else
                 list(range(args.first_seed, args.first_seed + args.games)))
        for seed in seeds:
            try:
                result = run_rendered(seed, lexicon, size, lexicon)  # type: ignore[arg-type]
            except BoardNotFound as exc:
                print(f"seed {seed}: calibration photo unusable, game skipped ({exc})",
                      flush=True)
                continue
            for key in totals:
                totals[key] += getattr(result, key)
            print(f"seed {seed}: {result.found}/{result.expected} turns found, "
                  f"{result.missed} missed, {result.invented} invented, "
                  f"{result.wrong_score} wrong scores, {result.questions} questions, "
                  f"{result.frames} frames, {result.seconds:.0f} s", flush=True)
            for note in result.notes:
                print(f"    {note}")
        print(f"total: {totals}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
