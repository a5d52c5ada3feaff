"""Real play as stills: hands over the board, fingers on tiles, photos missing or taken twice.

One photo per turn is what a phone on a stand or a camera triggered by the clock gives; real
play adds photos taken while a player's hand is still over the board, a finger resting on a
tile, a turn whose photo was never taken (two moves between two photos) and a photo taken twice.
The pipeline (``pipeline.Pipeline(..., stills=True)``) should invent no move and no tile, get
every final score exact, and ask the players only what a person must settle.

(a) **Rendered games** (English, ENABLE): :func:`scorer.movegen.generate_game` plays a legal
game; :mod:`sim.render` photographs the board after every turn with the demo camera of
:func:`sim.game.camera_config` (``--size``, 1280x960 by default), the light drifting a little
from photo to photo.  The profile is calibrated from one rendered photo of the alphabet laid
out (``--no-profile``: none, as for players who never calibrated).  Into each game's photos,
at turns drawn from the seed (each turn gets at most one of these):

- ``--hands`` extra photos (2) with a hand over 10-40 % of the board
  (:func:`sim.hands.paste_hand`): a photo taken while a player was still placing, showing the
  board as the previous clean photo does (inserted after it) or as the next one does (inserted
  before it);
- ``--fingers`` photos (1) of a move taken with a finger resting on an older tile near the
  board's edge (the move's own photo: nothing else is taken for that move);
- ``--missing`` photos left out (1): two plays in a row show up in one photo;
- ``--duplicates`` photos taken twice (1): the same image again.

``--handheld``: every photo is taken from its own pose, as a phone held by hand after each
move gives them (tilt, its direction and the turn about the lens each drawn with a spread of
4, 15 and 4 degrees about the game's camera, the board's size in the picture 4 % and its
place 4 % of the picture; ``--handheld 2`` doubles the spreads): the grid is found again in
every photo.  ``--turned N``: N clean photos of each game (never the first) saved turned by a
quarter, a half or three quarters, as a phone held flat over the table saves them (it cannot
tell which way is up).  ``--moving-hands``: the hands over the board are caught moving (smeared
0.5 to 2 squares along any direction, the board showing through where they passed only part of
the exposure) and their skin is uneven (``sim.hands.paste_hand(moving=, textured=)``); the
rest of each game is drawn as without.

The pipeline's questions are answered by the game's own record (:class:`pipeline.RecordAnswers`
on the generated game's GCG), as the players would.  Counted per game: moves found, moves
invented (in the pipeline's game, not in the record), moves missed, scores wrong among the moves
found, turns left unresolved, tiles invented (on the pipeline's final board, not on the true
one), tiles missing, letters wrong, whether the final score is exact (the totals after the last
turn; rack points at the end are not seen by a camera), and the questions asked by kind.
*Allowed* questions are those a person is really needed for: one per pass or exchange (a camera
cannot tell them apart), one per clear photo of the board the photo before it showed (taken
again after a photo with a hand in it: it looks as a pass does), one per photo with a hand in it
taken after its move's clear one, before another photo (it looks as a pass's or an exchange's
only photo with a hand in it does), each blank's letter asked, one per left-out photo; *extra*
are the rest.
A photo the pipeline has not finished with after ``--still-timeout`` seconds (60) stops the game
there (*hung*; the pipeline's state is then unknown): its remaining turns count as missed.
``--no-word-list`` runs the pipeline without the word list; ``--turns N`` keeps each game's
first N turns; ``--jobs N`` runs games in N processes (the time per game is then measured with
the cores shared).

(b) **The real game** (``../shared/data/photos/scrabscrap-game01`` beside the repository: 27
photos of a German game, one after each move, and its record), as ``tilecam replay FOLDER
--stills --lettered-rows --tileset de --answers RECORD.gcg`` runs it (no profile, no word
list): as is; with a synthetic hand pasted into three photos (drawn from ``--real-seed``)
inserted as extra photos; the same three hand photos replacing their move's photo; hands caught
moving (``--moving-hands``) inserted beside the same three photos; a pen put down on the board
and left there for three photos in a row (``sim.objects.paste_pen``); three photos
with a finger on a tile near the edge; two photos left out (never the exchange's, move 15, the
photo before it, nor the last); held by hand: every photo from a camera turned by up to 5
degrees its own way, three of them smeared by the camera's motion (0.12 to 0.2 of a square,
``bench/eval_real_views.py``'s ``shaken``); four photos saved turned by quarter turns, as a
phone held flat saves them; the photographer's shadow in every photo, each time from another
side (``bench/eval_real_views.py``'s ``shadow``); a lamp's reflection in about a third of the
photos, each time elsewhere (its ``glare``, 80 % white at its middle); the same in every photo,
each time elsewhere (a phone held by hand under a ceiling lamp); and in every photo in the same
place (a lamp over a camera on a stand).  Counted the same way.

Usage: ``.venv/bin/python bench/eval_stills.py [--games 20] [--first-seed 1] [--seeds 3,7]
[--size 1280x960] [--hands 2] [--fingers 1] [--missing 1] [--duplicates 1] [--no-profile]
[--no-word-list] [--turns N] [--jobs 1] [--still-timeout 60] [--no-real] [--no-rendered]
[--real-seed 1] [--handheld [SPREAD]] [--turned N] [--moving-hands] [--json FILE] [--verbose]``
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
for folder in (REPO, REPO / "bench"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from pipeline import Pipeline, RecordAnswers  # noqa: E402
from pipeline.questions import NOT_A_TURN  # noqa: E402
from scorer.game import Event, EventKind, Game  # noqa: E402

GAME = REPO.parent / "shared" / "data" / "photos" / "scrabscrap-game01"
GAME_RECORD = "nu19_stefan-hanns.gcg"
#: game01's grid corners as its README gives them (used when the grid is not found).
GAME_CORNERS = [(37, 71), (879, 68), (880, 909), (46, 911)]
#: game01: move 15 was an exchange (its photo equals move 14's).
GAME_UNSEEN = (14, 15)
QUESTION_KINDS = ("no_placement", "placement", "blank", "letter")
TURN_KINDS = (EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS, EventKind.WITHDRAWN,
              EventKind.LOST_TURN)


# ------------------------------------------------------------------------------- photos


@dataclass
class Still:
    """One photo fed to the pipeline: what it shows and what was done to it."""

    image: np.ndarray
    #: the turn whose board it shows (1-based; 0: the empty board)
    turn: int
    #: "clean", "hand", "finger", "duplicate", "turned", "empty" (the board before the game)
    #: or "after" (a hand over the final board, after the game)
    kind: str = "clean"
    #: the fraction of the board a hand covers (hand photos)
    cover: float = 0.0


@dataclass
class Plan:
    """Which turns get a perturbation (1-based turn numbers)."""

    hands: dict[int, str] = field(default_factory=dict)  # turn -> "before" or "after"
    fingers: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    duplicates: list[int] = field(default_factory=list)


def plan_perturbations(kinds: Sequence[str], rng: np.random.Generator, *, hands: int,
                       fingers: int, missing: int, duplicates: int,
                       never_missing: Sequence[int] = ()) -> Plan:
    """Draw the turns to perturb.  ``kinds`` are the turns' kinds ("play", "pass", ...).

    A photo left out is a play's followed by another play (two plays then share a photo), never
    the last; a finger rests on an older tile (never on the first turn); a duplicate is a
    play's photo.  Each turn gets at most one perturbation.

    >>> plan = plan_perturbations(["play"] * 12, np.random.default_rng(1), hands=2, fingers=1,
    ...                           missing=1, duplicates=1)
    >>> len(plan.hands), len(plan.fingers), len(plan.missing), len(plan.duplicates)
    (2, 1, 1, 1)
    """
    count = len(kinds)
    plays = [n for n in range(1, count + 1) if kinds[n - 1] == "play"]
    used: set[int] = set()

    def draw(candidates: list[int], k: int) -> list[int]:
        free = [n for n in candidates if n not in used]
        chosen = sorted(int(n) for n in rng.permutation(free)[:k]) if free else []
        used.update(chosen)
        return chosen

    plan = Plan()
    plan.missing = draw([n for n in plays if n < count and kinds[n] == "play"
                         and n not in never_missing], missing)
    # A turn next to a missing photo keeps its own photo clean.
    used.update(n + 1 for n in plan.missing)
    plan.fingers = draw([n for n in plays if n > 1], fingers)
    plan.duplicates = draw(plays, duplicates)
    for n in draw(list(range(1, count + 1)), hands):
        plan.hands[n] = "before" if rng.random() < 0.5 else "after"
    return plan


def saved_turned(stills: Sequence[Still], count: int, rng: np.random.Generator) -> list[Still]:
    """The stills with ``count`` of the clean photos (never the first) turned by a quarter, a
    half or three quarters, as a phone held flat over the table saves them.

    >>> stills = [Still(np.zeros((2, 3, 3), np.uint8), n) for n in range(1, 5)]
    >>> out = saved_turned(stills, 2, np.random.default_rng(2))
    >>> [s.kind for s in out].count("turned"), out[0].kind
    (2, 'clean')
    """
    clean = [i for i, s in enumerate(stills) if s.kind == "clean" and i > 0]
    out = list(stills)
    for i in sorted(int(i) for i in rng.permutation(clean)[:count]):
        quarters = int(rng.integers(1, 4))
        out[i] = replace(stills[i], image=np.ascontiguousarray(np.rot90(stills[i].image,
                                                                        quarters)),
                         kind="turned")
    return out


def edge_tile(rows: Sequence[str], rng: np.random.Generator) -> tuple[int, int] | None:
    """A tile of ``rows`` near the board's edge (among the nearest ones), or None."""
    tiles = [(r, c) for r in range(15) for c in range(15) if rows[r][c] != "."]
    if not tiles:
        return None
    depth = {sq: min(sq[0], sq[1], 14 - sq[0], 14 - sq[1]) for sq in tiles}
    nearest = min(depth.values())
    pool = [sq for sq in tiles if depth[sq] <= max(nearest, 2)]
    return pool[int(rng.integers(0, len(pool)))]


#: How far a hand caught moving is smeared (squares of the board), with ``--moving-hands``.
HAND_SMEAR = (0.5, 2.0)


def perturbed(clean: Callable[[int], tuple[np.ndarray, np.ndarray]],
              boards: Sequence[Sequence[str]], plan: Plan, rng: np.random.Generator,
              moving: np.random.Generator | None = None) -> list[Still]:
    """The stills of a game with the plan's perturbations.  ``clean(n)`` photographs the
    board after turn n (a new photo each call: image and grid corners); ``boards[n]`` is that
    board's rows (``boards[0]`` the empty board).  ``moving``: the hands over the board are
    caught moving, their skin uneven (:data:`HAND_SMEAR` squares, drawn from it, so that the
    rest is drawn as without)."""
    from sim.hands import board_cover, paste_hand

    def hand_photo(n: int) -> Still:
        image, corners = clean(n)
        cover = float(rng.uniform(0.1, 0.4))
        if moving is None:
            image, mask = paste_hand(image, corners, cover, rng)
        else:
            image, mask = paste_hand(image, corners, cover, rng, look=moving, textured=True,
                                     moving=float(moving.uniform(*HAND_SMEAR)))
        return Still(image, n, "hand", board_cover(mask, corners))

    stills: list[Still] = []
    for n in range(1, len(boards)):
        if plan.hands.get(n) == "before":
            stills.append(hand_photo(n))
        if n not in plan.missing:
            image, corners = clean(n)
            still = Still(image, n)
            square = edge_tile(boards[n - 1], rng) if n in plan.fingers else None
            if square is not None:
                image, mask = paste_hand(image, corners, 0.0, rng, finger_on_tile=True,
                                         square=square)
                still = Still(image, n, "finger", board_cover(mask, corners))
            stills.append(still)
            if n in plan.duplicates:
                stills.append(Still(still.image, n, "duplicate"))
        if plan.hands.get(n) == "after":
            stills.append(hand_photo(n))
    return stills


# ------------------------------------------------------------------------------- scoring


def turn_key(event: Event) -> tuple[str, str, str]:
    """What identifies a turn: its kind and, for a play, its position and word (blanks as
    their letter's capital: a blank misread as a letter shows in the score and the tiles)."""
    if event.play is not None and event.kind is EventKind.PLAY:
        return ("play", event.play.position, event.play.gcg_word.upper())
    return (event.kind.value, "", "")


def turns_of(game: Game) -> list[Event]:
    return [e for e in game.events if e.kind in TURN_KINDS]


@dataclass
class Outcome:
    """One run of the pipeline on a sequence of stills, against the truth."""

    name: str
    photos: int
    turns: int
    found: int = 0
    invented: int = 0
    missed: int = 0
    wrong_score: int = 0
    unresolved: int = 0
    tiles_invented: int = 0
    tiles_missing: int = 0
    letters_wrong: int = 0
    final_exact: bool = False
    final: list[int] = field(default_factory=list)
    expected_final: list[int] = field(default_factory=list)
    questions: dict[str, int] = field(default_factory=dict)
    unanswered: int = 0
    allowed_questions: int = 0
    extra_questions: int = 0
    perturbations: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: the pipeline took longer than the limit on one photo (the rest was not fed)
    hung: str | None = None
    seconds_render: float = 0.0
    seconds_pipeline: float = 0.0

    @property
    def asked(self) -> int:
        return sum(self.questions.values())


def score_run(name: str, pipeline: Pipeline, truth: Game, stills: Sequence[Still],
              missing: int) -> Outcome:
    """Compare the pipeline's game with the true one (see the module notes)."""
    want, got = turns_of(truth), turns_of(pipeline.game)
    out = Outcome(name, len(stills), len(want))
    matcher = difflib.SequenceMatcher(a=[turn_key(e) for e in want],
                                      b=[turn_key(e) for e in got], autojunk=False)
    matched_want: set[int] = set()
    matched_got: set[int] = set()
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            i, j = block.a + k, block.b + k
            matched_want.add(i)
            matched_got.add(j)
            out.found += 1
            if want[i].score != got[j].score:
                out.wrong_score += 1
                out.notes.append(f"turn {j + 1} scored {got[j].score}, truth {want[i].score}: "
                                 f"{_describe(got[j])}")
    for j, event in enumerate(got):
        if j not in matched_got:
            out.invented += 1
            out.notes.append(f"invented turn {j + 1}: {_describe(event)}")
    for i, event in enumerate(want):
        if i not in matched_want:
            out.missed += 1
            out.notes.append(f"missed turn {i + 1}: {_describe(event)}")
    out.unresolved = sum(1 for r in pipeline.reports if r.kind == "unresolved")
    # Tiles: the final boards, square by square (lower case: a blank).
    mine, real = pipeline.game.board.occupied(), truth.board.occupied()
    for square, tile in mine.items():
        if square not in real:
            out.tiles_invented += 1
            out.notes.append(f"tile invented on {square}: {tile}")
        elif real[square] != tile:
            out.letters_wrong += 1
            out.notes.append(f"letter on {square}: {tile}, truth {real[square]}")
    for square, tile in real.items():
        if square not in mine:
            out.tiles_missing += 1
            out.notes.append(f"tile missing on {square}: {tile}")
    out.final = list(pipeline.game.scores)
    out.expected_final = final_totals(truth)
    out.final_exact = out.final == out.expected_final
    kinds = Counter(q.kind for q in pipeline.questions)
    out.questions = {k: kinds.get(k, 0) for k in (*QUESTION_KINDS, *sorted(set(kinds)
                                                                          - set(QUESTION_KINDS)))}
    out.unanswered = sum(1 for q in pipeline.questions if q.answer is None)
    unseen = sum(1 for e in want if e.kind in (EventKind.PASS, EventKind.EXCHANGE))
    # A clear photo of the board the photo before it showed (a hand was in that one) is a
    # photo taken again or the next player's pass or exchange: no picture tells them apart.
    # A copy of a file, pixel for pixel, is not asked about.
    again = sum(1 for before, still in pairwise(stills)
                if still.turn == before.turn and still.kind not in ("hand", "duplicate", "after"))
    # So is a photo with a hand in it taken after its move's clear one, before another photo:
    # that board with a hand over it is what the only photo of the next player's pass or
    # exchange shows when a hand is in it.
    again += sum(1 for before, still, _ in zip(stills, stills[1:], stills[2:], strict=False)
                 if still.kind == "hand" and still.turn == before.turn)
    # A first photo of the empty board may be the board before the game or after an opening
    # pass or exchange: no picture tells them apart either.
    opening = int(bool(stills) and stills[0].kind == "empty")
    first_asked = sum(1 for q in pipeline.questions if opening and q.turn == 1
                      and q.kind == "no_placement" and q.answer == NOT_A_TURN)
    turns_asked = sum(1 for q in pipeline.questions
                      if q.kind == "no_placement" and q.answer != NOT_A_TURN)
    again_asked = sum(1 for q in pipeline.questions
                      if q.kind == "no_placement" and q.answer == NOT_A_TURN) - first_asked
    out.allowed_questions = (min(turns_asked, unseen) + min(again_asked, again)
                             + min(first_asked, opening)
                             + kinds.get("blank", 0) + min(missing, out.asked))
    out.allowed_questions = min(out.allowed_questions, out.asked)
    out.extra_questions = out.asked - out.allowed_questions
    for q in pipeline.questions:
        out.notes.append(f"question (turn {q.turn}, {q.kind}"
                         f"{', ' + str(q.square) if q.square else ''}): answered {q.answer!r}")
    return out


def final_totals(game: Game) -> list[int]:
    """Each player's total after the game's last turn (before any end-of-game rack points)."""
    totals = [0] * len(game.players)
    for event in turns_of(game):
        totals[event.player] = event.total
    return totals


def _describe(event: Event) -> str:
    if event.play is not None:
        return f"{event.kind.value} {event.play.position} {event.play.gcg_word} {event.score:+d}"
    return f"{event.kind.value} {event.score:+d}"


class StillTimeout(Exception):
    """The pipeline took longer than the limit over one photo."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`StillTimeout` in the main thread after ``seconds`` (0: no limit)."""
    if seconds <= 0:
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise StillTimeout

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_pipeline(stills: Sequence[Still], answers: RecordAnswers, limit: float,
                 **options: Any) -> tuple[Pipeline, str | None]:
    """The stills through a pipeline, one timestamp apart.  A photo the pipeline has not
    finished with after ``limit`` seconds stops the run (its state is then unknown): the
    second value says which."""
    pipeline = Pipeline(answers=answers, stills=True, **options)
    for k, still in enumerate(stills):
        try:
            with time_limit(limit):
                pipeline.feed(float(k), still.image)
        except StillTimeout:
            return pipeline, (f"photo {k + 1} of {len(stills)} ({still.kind} of turn "
                              f"{still.turn}) not done in {limit:.0f} s: the rest not fed")
    try:
        with time_limit(limit):
            pipeline.finish(float(len(stills)))
    except StillTimeout:
        return pipeline, f"finish not done in {limit:.0f} s"
    return pipeline, None


# ------------------------------------------------------------------------------- rendered


def handheld_pose(config: Any, seed: int, photo: int, spread: float) -> Any:
    """``config`` as a phone held by hand for photo ``photo`` of game ``seed`` poses it."""
    rng = np.random.default_rng([seed, photo, 0x4A4D])
    return replace(
        config,
        tilt=float(np.clip(config.tilt + spread * rng.normal(0, 4), 0, 40)),
        tilt_azimuth=float(config.tilt_azimuth + spread * rng.normal(0, 15)),
        rotation=float(config.rotation + spread * rng.normal(0, 4)),
        board_scale=float(np.clip(config.board_scale * (1 + spread * rng.normal(0, 0.04)),
                                  0.6, 0.95)),
        board_offset=(float(spread * rng.normal(0, 0.04)), float(spread * rng.normal(0, 0.04))))


def run_rendered(seed: int, lexicon: Any, size: tuple[int, int], counts: dict[str, int],
                 use_profile: bool = True, turns: int | None = None,
                 limit: float = 60.0, word_list: bool = True, handheld: float = 0.0,
                 turned: int = 0, empty_first: bool = False,
                 after_game: bool = False, moving_hands: bool = False) -> Outcome:
    """One generated game (its first ``turns`` turns when given) as perturbed stills through
    the pipeline (with the word list the game was played with, or none); ``empty_first``: a
    photo of the empty board before the first turn's, as a person starting the game takes
    one; ``after_game``: a photo after the last turn's with a hand over the final board,
    gathering up its tiles."""
    from calibration.profile import Profile
    from scorer.gcg import Header, write_gcg
    from scorer.movegen import generate_game
    from sim.game import ALPHABET_ROWS, camera_config
    from sim.render import render_flat, render_frame

    started = time.perf_counter()
    generated = generate_game(seed, lexicon)
    played = generated.turns[:turns] if turns else generated.turns
    config = camera_config(seed, size)
    boards = [["." * 15] * 15] + [turn.board.rows() for turn in played]
    frames = [0]

    def clean(n: int) -> tuple[np.ndarray, np.ndarray]:
        # Photos minutes apart: the light drifts a little, the sensor noise is new.
        drift = replace(config, exposure=config.exposure * (1.0 + 0.05 * math.sin(n / 3.0)),
                        gradient_angle=(config.gradient_angle + 7.0 * n) % 360.0)
        flat = render_flat(boards[n], tileset="en", edition="green", seed=seed, config=drift)
        if handheld:
            drift = handheld_pose(drift, seed, frames[0], handheld)
        photo = render_frame(flat, drift, seed=seed * 10007 + frames[0], hand=None)
        frames[0] += 1
        return photo.image, photo.corners

    rng = np.random.default_rng([seed, 0x57111])
    kinds = [turn.kind for turn in played]
    plan = plan_perturbations(kinds, rng, **counts)
    stills = perturbed(clean, boards, plan, rng,
                       np.random.default_rng([seed, 0x40E]) if moving_hands else None)
    if turned:
        # Drawn apart, so that the other perturbations stay those of a run without.
        stills = saved_turned(stills, turned, np.random.default_rng([seed, 0x7A2]))
    if empty_first:
        stills.insert(0, Still(clean(0)[0], 0, "empty"))
    if after_game:
        from sim.hands import board_cover, paste_hand

        image, corners = clean(len(boards) - 1)
        apart = np.random.default_rng([seed, 0xE4D])
        image, mask = paste_hand(image, corners, float(apart.uniform(0.1, 0.4)), apart)
        stills.append(Still(image, len(boards) - 1, "after", board_cover(mask, corners)))
    profile = None
    if use_profile:
        from sim.render import render_board

        profile = Profile(tileset="en")
        profile.extend(render_board(ALPHABET_ROWS, seed=seed, config=config).image,
                       ALPHABET_ROWS)
    rendered = time.perf_counter() - started

    truth = Game(["one", "two"], "en")
    for turn in played:
        if turn.play is not None:
            truth.place(dict(turn.play.placement.tiles))
        elif turn.kind == "exchange":
            truth.exchange("".join(turn.exchanged))
        else:
            truth.pass_turn()
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / f"game{seed}.gcg"
        record.write_text(write_gcg(truth, Header(description=f"generated game, seed {seed}")),
                          encoding="utf-8")
        answers = RecordAnswers(record, tileset="en")
    begun = time.perf_counter()
    pipeline, hung = run_pipeline(stills, answers, limit, players=["one", "two"],
                                  profile=profile, tileset="en",
                                  lexicon=lexicon if word_list else None)
    outcome = score_run(f"seed {seed}", pipeline, truth, stills, len(plan.missing))
    outcome.hung = hung
    outcome.seconds_render = rendered
    outcome.seconds_pipeline = time.perf_counter() - begun
    outcome.perturbations = {
        "hands": {str(n): where for n, where in plan.hands.items()},
        "hand_cover": [round(s.cover, 3) for s in stills if s.kind == "hand"],
        "fingers": [s.turn for s in stills if s.kind == "finger"],
        "missing": plan.missing, "duplicates": plan.duplicates,
        "turned": [s.turn for s in stills if s.kind == "turned"],
    }
    return outcome


# ------------------------------------------------------------------------------- real game


def load_boards(path: Path) -> dict[int, list[str]]:
    """Known boards by move number, from ``boards_after_each_move.txt`` (as the photos show
    them)."""
    boards: dict[int, list[str]] = {}
    for section in path.read_text(encoding="utf-8").split("## after move ")[1:]:
        lines = section.splitlines()
        boards[int(lines[0].split()[0])] = [line.strip() for line in lines[1:16]]
    return boards


def real_variants(seed: int) -> list[tuple[str, list[Still], int]]:
    """game01's photos as is and perturbed: ``(name, stills, photos left out)``."""
    from eval_real_views import glared, shadowed

    from sim.hands import board_cover, paste_hand
    from sim.objects import paste_pen
    from vision.locate import BoardNotFound, locate_board

    photos = {n: cv2.imread(str(GAME / f"image-{n}.jpg")) for n in range(1, 28)}
    boards = load_boards(GAME / "boards_after_each_move.txt")
    try:
        corners = np.asarray(locate_board(photos[1]).corners, np.float64)
    except BoardNotFound:
        corners = np.asarray(GAME_CORNERS, np.float64)
    rng = np.random.default_rng([seed, 0x6A3E])
    chosen = sorted(int(n) for n in rng.choice(np.arange(2, 27), 3, replace=False))
    hands: dict[int, Still] = {}
    for n in chosen:
        image, mask = paste_hand(photos[n], corners, float(rng.uniform(0.1, 0.4)), rng)
        hands[n] = Still(image, n, "hand", board_cover(mask, corners))
    sides = {n: ("before" if rng.random() < 0.5 else "after") for n in chosen}
    fingers: dict[int, Still] = {}
    for n in sorted(int(n) for n in rng.choice(np.arange(2, 28), 3, replace=False)):
        square = edge_tile(boards[n - 1], rng)
        assert square is not None
        image, mask = paste_hand(photos[n], corners, 0.0, rng, finger_on_tile=True, square=square)
        fingers[n] = Still(image, n, "finger", board_cover(mask, corners))
    allowed = [n for n in range(1, 27) if n not in GAME_UNSEEN]
    left_out = sorted(int(n) for n in rng.choice(allowed, 2, replace=False))

    as_is = [Still(photos[n], n) for n in range(1, 28)]

    def with_inserted(extra: dict[int, Still]) -> list[Still]:
        # Each hand photo taken before or after its move's clear one.
        return [still for n in range(1, 28)
                for still in ([extra[n]] if sides.get(n) == "before" else [])
                + [as_is[n - 1]] + ([extra[n]] if sides.get(n) == "after" else [])]

    inserted = with_inserted(hands)
    replaced = [hands.get(n, as_is[n - 1]) for n in range(1, 28)]
    # The same photos with hands caught moving, drawn apart (the rest as without).
    apart = np.random.default_rng([seed, 0x40E])
    moving: dict[int, Still] = {}
    for n in chosen:
        image, mask = paste_hand(photos[n], corners, float(apart.uniform(0.1, 0.4)), apart,
                                 moving=float(apart.uniform(*HAND_SMEAR)), textured=True)
        moving[n] = Still(image, n, "hand", board_cover(mask, corners))
    # A pen put down on the board, left there for three photos, drawn apart (the rest as
    # without); never over the exchange's photos.
    left = np.random.default_rng([seed, 0xBE7])
    pen_from = int(left.choice([n for n in range(2, 26) if not {n, n + 1, n + 2} & {14, 15}]))
    pen_state = int(left.integers(0, 2**31))
    pen = [Still(paste_pen(photos[n], corners, np.random.default_rng(pen_state))[0], n)
           if pen_from <= n < pen_from + PEN_PHOTOS else as_is[n - 1] for n in range(1, 28)]
    inserted_moving = with_inserted(moving)
    fingered = [fingers.get(n, as_is[n - 1]) for n in range(1, 28)]
    without = [s for s in as_is if s.turn not in left_out]
    covers = ", ".join(f"{n} {sides[n]} ({100 * hands[n].cover:.0f} %)" for n in chosen)
    covers_moving = ", ".join(f"{n} {sides[n]} ({100 * moving[n].cover:.0f} %)" for n in chosen)
    held, shaken = held_by_hand(photos, corners, rng)
    turned = saved_turned(as_is, 4, np.random.default_rng([seed, 0x7A2]))
    quarters = ", ".join(f"{s.turn}" for s in turned if s.kind == "turned")
    together, together_out = all_at_once(inserted, fingers, left_out[:1], corners, rng)
    shaded = [Still(shadowed(photos[n], seed * 1000 + n), n) for n in range(1, 28)]
    lit = np.random.default_rng([seed, 0x6A2E]).random(28) < REFLECTED_SHARE
    reflected = [Still(glared(photos[n], seed * 1000 + n) if lit[n] else photos[n], n)
                 for n in range(1, 28)]
    everywhere = [Still(glared(photos[n], seed * 1000 + n), n) for n in range(1, 28)]
    # A lamp over a camera on a stand: the same reflection in every photo (drawn once).
    fixed = [Still(glared(photos[n], seed * 1000), n) for n in range(1, 28)]
    return [
        ("as is", as_is, 0),
        (f"hands inserted: photos {covers}", inserted, 0),
        (f"hands replacing photos {chosen}", replaced, 0),
        (f"hands caught moving inserted: photos {covers_moving}", inserted_moving, 0),
        (f"finger on a tile in photos {sorted(fingers)}", fingered, 0),
        (f"a pen left on the board in photos {pen_from}-{pen_from + PEN_PHOTOS - 1}", pen, 0),
        (f"photos {left_out} left out", without, 2),
        (f"held by hand, photos {shaken} smeared", held, 0),
        (f"photos [{quarters}] saved turned", turned, 0),
        (f"all at once: held by hand, hands, fingers, photo {together_out} left out, "
         "two saved turned", together, 1),
        ("the photographer's shadow in every photo", shaded, 0),
        (f"a lamp's reflection in photos {[n for n in range(1, 28) if lit[n]]}", reflected, 0),
        ("a lamp's reflection in every photo, each time elsewhere", everywhere, 0),
        ("a lamp's reflection in every photo, always in the same place", fixed, 0),
    ]


#: Photos in a row the real game's pen lies on the board in.
PEN_PHOTOS = 3


#: Share of the real game's photos with a lamp's reflection in them.
REFLECTED_SHARE = 0.3


def all_at_once(inserted: Sequence[Still], fingers: dict[int, Still], left_out: list[int],
                corners: np.ndarray, rng: np.random.Generator) -> tuple[list[Still], list[int]]:
    """The game as a table sees it: the photos with hands inserted, the fingers' photos in
    place of their clean ones, ``left_out`` left out, every photo from a phone held its own
    way (:func:`held`, the hands' photos too) and two of the clear ones saved turned; and
    which were left out."""
    stills = [fingers.get(s.turn, s) if s.kind == "clean" else s
              for s in inserted if s.turn not in left_out]
    taken, _ = held(stills, corners, rng, corners)
    return saved_turned(taken, 2, rng), left_out


#: A phone held by hand over the real game: each photo's camera turned by up to this many
#: degrees about either axis, ...
HELD_DEGREES = 5.0
#: ... and this many photos smeared by the camera's motion, by this much (squares).
HELD_SHAKEN = 3
HELD_SMEAR = (0.12, 0.2)


def held_by_hand(photos: dict[int, np.ndarray], corners: np.ndarray,
                 rng: np.random.Generator) -> tuple[list[Still], list[int]]:
    """game01's photos as a phone held by hand after each move would take them (see
    :func:`held`, each photo's board found in it), and which were blurred."""
    stills, shaken = held([Still(photos[n], n) for n in range(1, 28)], corners, rng)
    return stills, sorted(stills[i].turn for i in shaken)


def held(stills: Sequence[Still], corners: np.ndarray, rng: np.random.Generator,
         board: np.ndarray | None = None) -> tuple[list[Still], set[int]]:
    """``stills`` taken each from a camera turned its own way (:data:`HELD_DEGREES`), and
    :data:`HELD_SHAKEN` of them (never of the exchange's move 15, nor of the photo before it)
    blurred by the camera's motion (:data:`HELD_SMEAR`, any direction), ``corners`` giving the
    size of a square; the board kept in view where ``board`` (its corners) says, else where it
    is found in each; and which (indices) were blurred."""
    from eval_real_views import camera_turned

    from vision.letters import Blur

    square_px = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean()) / 15
    allowed = [i for i, s in enumerate(stills) if s.turn not in GAME_UNSEEN]
    shaken = {int(i) for i in rng.choice(allowed, HELD_SHAKEN, replace=False)}
    out = []
    for i, still in enumerate(stills):
        pitch, yaw = rng.uniform(-HELD_DEGREES, HELD_DEGREES, 2)
        image = camera_turned(still.image, float(pitch), float(yaw), board)
        if i in shaken:
            blur = Blur(motion=float(rng.uniform(*HELD_SMEAR)), angle=float(rng.uniform(0, 180)))
            image = blur.apply(image, square_px)  # type: ignore[arg-type]
        out.append(replace(still, image=image))
    return out, shaken


def run_real(seed: int, limit: float = 60.0) -> list[Outcome]:
    from scorer.tiles import TileSet

    record = GAME / GAME_RECORD
    outcomes = []
    for name, stills, missing in real_variants(seed):
        started = time.perf_counter()
        answers = RecordAnswers(record, lettered_rows=True, tileset="de")
        truth = answers.result.game
        pipeline, hung = run_pipeline(stills, answers, limit, players=["Stefan", "Hanns"],
                                      profile=None, tileset=TileSet.named("de"), lexicon=None,
                                      lettered_rows=True)
        outcome = score_run(name, pipeline, truth, stills, missing)
        outcome.hung = hung
        outcome.seconds_pipeline = time.perf_counter() - started
        outcomes.append(outcome)
    return outcomes


# ------------------------------------------------------------------------------- report


COLUMNS = ("turns", "found", "inv", "missed", "wrong", "unres", "t.inv", "t.miss", "letter",
           "exact", "asked", "extra", "np", "pl", "bl", "le", "hung", "secs")


def header(first: str, width: int) -> str:
    return f"{first:<{width}s} " + " ".join(f"{c:>6s}" for c in COLUMNS)


def row(name: str, o: Outcome, width: int) -> str:
    q = o.questions
    cells = (o.turns, o.found, o.invented, o.missed, o.wrong_score, o.unresolved,
             o.tiles_invented, o.tiles_missing, o.letters_wrong, "yes" if o.final_exact else "NO",
             o.asked, o.extra_questions, q.get("no_placement", 0), q.get("placement", 0),
             q.get("blank", 0), q.get("letter", 0), "HUNG" if o.hung else "",
             f"{o.seconds_render + o.seconds_pipeline:.0f}")
    return f"{name:<{width}s} " + " ".join(f"{c!s:>6s}" for c in cells)


def totals(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    keys = ("turns", "found", "invented", "missed", "wrong_score", "unresolved",
            "tiles_invented", "tiles_missing", "letters_wrong", "unanswered",
            "allowed_questions", "extra_questions")
    out: dict[str, Any] = {k: sum(getattr(o, k) for o in outcomes) for k in keys}
    out["games"] = len(outcomes)
    out["hung"] = sum(1 for o in outcomes if o.hung)
    out["final_exact"] = sum(o.final_exact for o in outcomes)
    out["questions"] = dict(sum((Counter(o.questions) for o in outcomes), Counter()))
    out["asked"] = sum(o.asked for o in outcomes)
    out["games_perfect"] = sum(
        1 for o in outcomes if o.final_exact and not (o.invented or o.tiles_invented or o.missed
                                                      or o.extra_questions or o.hung))
    return out


def print_totals(t: dict[str, Any]) -> None:
    print(f"total: {t['games']} games, {t['turns']} turns: {t['found']} found, "
          f"{t['invented']} invented, {t['missed']} missed, {t['wrong_score']} scores wrong, "
          f"{t['unresolved']} unresolved; tiles: {t['tiles_invented']} invented, "
          f"{t['tiles_missing']} missing, {t['letters_wrong']} letters wrong; final score exact "
          f"in {t['final_exact']}/{t['games']}; questions {t['asked']} ({t['questions']}), "
          f"{t['allowed_questions']} allowed, {t['extra_questions']} extra, "
          f"{t['unanswered']} unanswered; hung: {t['hung']}; all right (exact, nothing "
          f"invented or missed, no extra question): {t['games_perfect']}/{t['games']}")


LEGEND = ("columns: turns (true), found, inv(ented), missed, wrong (score of a found turn), "
          "unres(olved), t.inv / t.miss (tiles invented / missing on the final board), letter "
          "(wrong), exact (final score), asked, extra (beyond those a person is needed for), "
          "questions by kind: np no_placement, pl placement, bl blank, le letter; hung (the "
          "pipeline did not finish a photo within --still-timeout: the rest of the game was not "
          "fed and counts as missed); secs")


_LEXICON: Any = None


def _rendered_task(job: tuple[int, dict[str, Any]]) -> Outcome | str:
    """One rendered game (in this process or a worker): its outcome, or why it was skipped."""
    global _LEXICON
    from scorer.lexicon import Lexicon
    from vision.locate import BoardNotFound

    cv2.setNumThreads(1)
    if _LEXICON is None:
        _LEXICON = Lexicon.default()
    seed, task = job
    try:
        return run_rendered(seed, _LEXICON, **task)
    except BoardNotFound as exc:
        return str(exc)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--seeds", default=None, help="comma-separated seeds (instead)")
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--fingers", type=int, default=1)
    parser.add_argument("--missing", type=int, default=1)
    parser.add_argument("--duplicates", type=int, default=1)
    parser.add_argument("--no-profile", action="store_true",
                        help="rendered games without a calibration profile")
    parser.add_argument("--no-word-list", action="store_true",
                        help="rendered games without the word list (blanks and unsure letters "
                             "then become questions)")
    parser.add_argument("--turns", type=int, default=None,
                        help="only the first N turns of each rendered game (quick runs)")
    parser.add_argument("--jobs", type=int, default=1, help="rendered games in N processes")
    parser.add_argument("--still-timeout", type=float, default=60.0,
                        help="seconds the pipeline may take over one photo (0: no limit)")
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--no-rendered", action="store_true")
    parser.add_argument("--real-seed", type=int, default=1,
                        help="draws game01's hand, finger and left-out photos")
    parser.add_argument("--json", metavar="FILE", type=Path,
                        help="write every run's counts and notes as JSON")
    parser.add_argument("--handheld", type=float, nargs="?", const=1.0, default=0.0,
                        help="every rendered photo from its own hand-held pose (a spread "
                             "factor: 1 when given alone)")
    parser.add_argument("--turned", type=int, default=0,
                        help="rendered photos per game saved turned by quarter turns (a phone "
                             "held flat)")
    parser.add_argument("--empty-first", action="store_true",
                        help="a photo of the empty board before the first turn's")
    parser.add_argument("--after-game", action="store_true",
                        help="a photo with a hand over the final board after the last turn's "
                             "(with --turns: a game stopped before anybody went out)")
    parser.add_argument("--moving-hands", action="store_true",
                        help="the hands over the board caught moving, their skin uneven")
    parser.add_argument("--verbose", action="store_true", help="print each run's notes")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    report: dict[str, Any] = {}
    print(LEGEND)

    if not args.no_real:
        if GAME.is_dir():
            print(f"\n== game01 of ../shared as stills (no profile, no word list; "
                  f"seed {args.real_seed})")
            outcomes = run_real(args.real_seed, args.still_timeout)
            width = max(len(o.name) for o in outcomes)
            print(header("variant", width))
            for o in outcomes:
                print(row(o.name, o, width))
                if args.verbose or not (o.final_exact and not o.invented):
                    for note in o.notes:
                        print(f"    {note}")
            report["real"] = [asdict(o) for o in outcomes]
        else:
            print(f"\n== game01: photos not found at {GAME} (the shared data folder beside the "
                  "repository is absent): skipped", file=sys.stderr)
            report["real"] = None

    if not args.no_rendered:
        size = tuple(int(v) for v in args.size.split("x"))
        counts = dict(hands=args.hands, fingers=args.fingers, missing=args.missing,
                      duplicates=args.duplicates)
        seeds = ([int(v) for v in args.seeds.split(",")] if args.seeds else
                 list(range(args.first_seed, args.first_seed + args.games)))
        print(f"\n== rendered games as stills ({args.size}, "
              f"{'no profile' if args.no_profile else 'profile from one alphabet photo'}, "
              f"{'no word list' if args.no_word_list else 'word list'}"
              f"{f', hand-held x{args.handheld:g}' if args.handheld else ''}"
              f"{f', {args.turned} photos turned' if args.turned else ''}"
              f"{', the empty board first' if args.empty_first else ''}"
              f"{', a hand over the final board after' if args.after_game else ''}"
              f"{', hands caught moving' if args.moving_hands else ''}"
              f"{f', stopped after {args.turns} turns' if args.turns else ''}; "
              f"per game: {counts})")
        print(header("game", 9))
        outcomes = []
        skipped = []
        task = dict(size=size, counts=counts, use_profile=not args.no_profile, turns=args.turns,
                    limit=args.still_timeout, word_list=not args.no_word_list,
                    handheld=args.handheld, turned=args.turned,
                    empty_first=args.empty_first, after_game=args.after_game,
                    moving_hands=args.moving_hands)
        if args.jobs > 1:
            pool = ProcessPoolExecutor(args.jobs)
            results: Iterator[Outcome | str] = pool.map(
                _rendered_task, [(seed, task) for seed in seeds])
        else:
            pool = None
            results = (_rendered_task((seed, task)) for seed in seeds)
        for seed, o in zip(seeds, results, strict=True):
            if isinstance(o, str):
                print(f"seed {seed}: calibration photo unusable, game skipped ({o})",
                      flush=True)
                skipped.append(seed)
                continue
            outcomes.append(o)
            print(row(o.name, o, 9), flush=True)
            if args.verbose or o.invented or o.tiles_invented or not o.final_exact or o.hung:
                print(f"    perturbations: {o.perturbations}")
                if o.hung:
                    print(f"    hung: {o.hung}")
                for note in o.notes:
                    print(f"    {note}")
        if outcomes:
            t = totals(outcomes)
            print_totals(t)
            seconds = [o.seconds_render + o.seconds_pipeline for o in outcomes]
            render = sum(o.seconds_render for o in outcomes) / len(outcomes)
            piped = sum(o.seconds_pipeline for o in outcomes) / len(outcomes)
            print(f"time per game: {sum(seconds) / len(seconds):.1f} s (rendering and "
                  f"calibration {render:.1f} s, pipeline {piped:.1f} s); 200 games: about "
                  f"{200 * sum(seconds) / len(seconds) / 60:.0f} min on one core")
            report["rendered"] = {"games": [asdict(o) for o in outcomes], "totals": t,
                                  "skipped": skipped}
        if pool is not None:
            pool.shutdown()
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
