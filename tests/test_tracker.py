"""The move tracker on rendered frame sequences: hands, pauses, light, a bumped board, a
withdrawal, and stills."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from sim.render import RenderConfig, _camera, hand_towards, render_flat, render_frame
from tracker import (
    BoardRelocated,
    MoveCommitted,
    NoPlacement,
    TilesAdded,
    TilesRemoved,
    Tracker,
    TrackerConfig,
    in_one_line,
)
from vision.geometry import grid_to_image, project
from vision.occupancy import OccupancyModel
from vision.rectify import rectify

SIZE = (640, 360)
START = ["." * 15] * 7 + ["....HOUSE......"] + ["." * 15] * 7
CALIBRATION = (
    ["." * 15] * 2 + ["..ABCDEFGHIJK.."] + ["." * 15] * 3 + ["..LMNOPQRSTUV.."]
    + ["." * 15] * 3 + ["..WXYZEAIONRT.."] + ["." * 15] * 4
)


class Scene:
    """A fixed camera over a board; frames with a moving hand, still frames, drifting light."""

    def __init__(self, rows: list[str], seed: int = 3) -> None:
        self.seed = seed
        self.config = replace(
            RenderConfig.random(seed, max_tilt=12, size=SIZE), hand=False, motion_blur=0.0,
            board_scale=0.9, board_offset=(0.0, 0.0), rotation=2.0, glare=0.0,
        )
        self.rows = [list(r) for r in rows]
        self.t = 0.0
        self.n = 0
        self.light = 1.0
        self.gradient = 0.0
        self.shadow: np.ndarray | None = None

    def frame(self, hand: object = None, dt: float = 0.25) -> tuple[float, np.ndarray]:
        config = replace(self.config, exposure=self.config.exposure * self.light,
                         gradient_angle=self.config.gradient_angle + self.gradient)
        flat = render_flat(["".join(r) for r in self.rows], seed=self.seed, config=config)
        photo = render_frame(flat, config, seed=1000 + self.n, hand=hand)
        self.n += 1
        stamp, self.t = self.t, self.t + dt
        image = photo.image
        if self.shadow is not None:  # a person's soft shadow across part of the board
            image = (image * (1.0 - self.shadow[..., None])).astype(np.uint8)
        return stamp, image

    def cast_shadow(self, strength: float = 0.45) -> None:
        width, height = SIZE
        mask = np.zeros((height, width), np.float32)
        polygon = np.array([[0, 0], [int(0.55 * width), 0], [int(0.3 * width), height],
                            [0, height]], np.int32)
        cv2.fillPoly(mask, [polygon], 1.0)
        self.shadow = cv2.GaussianBlur(mask, (0, 0), 12) * strength

    def corners(self) -> np.ndarray:
        flat = render_flat(["".join(r) for r in self.rows], seed=self.seed, config=self.config)
        return render_frame(flat, self.config, seed=0, hand=None).corners

    def still(self, seconds: float) -> list[tuple[float, np.ndarray]]:
        return [self.frame() for _ in range(int(seconds / 0.25))]

    def hand(self, square: tuple[int, int], holding: str | None, hold: int) -> list:
        from sim.editions import edition

        grid_h = _camera(self.config, edition("green")).plane(0.12 + self.config.tile_height)
        r, c = square
        target = cv2.perspectiveTransform(
            np.array([[[c + 0.5, r + 0.5]]], np.float64), grid_h).reshape(2)
        pose = hand_towards((float(target[0]), float(target[1])), self.config, grid_h,
                            seed=self.n, holding=holding, edge=0)
        a = math.radians(pose.angle)
        way = np.array([math.cos(a), math.sin(a)]) * 1.3 * max(SIZE)
        tip = np.array(pose.tip)
        frames = []
        for k in (3, 2, 1):
            p = tip - way * (k / 3) ** 2
            frames.append(self.frame(replace(pose, tip=(float(p[0]), float(p[1]))), 0.1))
        frames += [self.frame(pose, 0.1) for _ in range(hold)]
        if holding is not None:
            self.rows[r][c] = holding
        for k in (1, 2, 3):
            p = tip - way * (k / 3) ** 2
            frames.append(self.frame(replace(pose, tip=(float(p[0]), float(p[1])),
                                             holding=None), 0.1))
        return frames


@pytest.fixture(scope="module")
def occupancy() -> OccupancyModel:
    scene = Scene(CALIBRATION)
    _, image = scene.frame()
    grid = rectify(image, scene.corners(), 16)
    return OccupancyModel().fit([grid], [CALIBRATION])


def run(tracker: Tracker, frames: list) -> list:
    events = []
    for stamp, image in frames:
        events.extend(tracker.update(stamp, image))
    return events


def kinds(events: list) -> list[str]:
    return [type(e).__name__ for e in events]


def make_tracker(scene: Scene, occupancy: OccupancyModel, **config: float) -> Tracker:
    return Tracker(corners=scene.corners(), occupancy=occupancy, known=START,
                   config=TrackerConfig(**{"quiet_seconds": 3.0, **config}))


def test_tiles_laid_one_by_one_with_pauses_are_one_move_and_a_hand_is_none(occupancy):
    scene = Scene(START)
    tracker = make_tracker(scene, occupancy)
    frames = scene.still(1.0)
    frames += scene.hand((7, 9), None, hold=12)  # a hand resting over the board: no move
    frames += scene.still(1.5)
    events = run(tracker, frames)
    assert not [e for e in events if isinstance(e, (TilesAdded, TilesRemoved))], kinds(events)
    frames = []
    for col, letter in ((10, "S"), (11, "E"), (12, "D")):  # HOUSE -> HOUSESED? a line anyway
        frames += scene.hand((8, col), letter, hold=3)
        frames += scene.still(1.25)  # the board settles between tiles
    frames += scene.still(3.5)
    events = run(tracker, frames)
    added = [e for e in events if isinstance(e, TilesAdded)]
    committed = [e for e in events if isinstance(e, MoveCommitted)]
    assert sum(len(e.squares) for e in added) == 3
    assert len(committed) == 1, kinds(events)
    assert committed[0].squares == ((8, 10), (8, 11), (8, 12))
    assert committed[0].reason == "quiet"
    # Taken back off the board: a withdrawal of exactly that move.
    for col in (10, 11, 12):
        scene.rows[8][col] = "."
    events = run(tracker, scene.hand((8, 11), None, hold=3) + scene.still(2.0))
    removed = [e for e in events if isinstance(e, TilesRemoved)]
    assert len(removed) == 1 and removed[0].withdrawal, kinds(events)
    assert removed[0].squares == ((8, 10), (8, 11), (8, 12))
    assert not [e for e in events if isinstance(e, TilesAdded)]


def test_light_drift_and_a_bumped_board_invent_nothing(occupancy):
    scene = Scene(START, seed=5)
    tracker = make_tracker(scene, occupancy)
    frames = scene.still(1.0)
    for _ in range(40):  # ten seconds of the light drifting: dimmer, gradient turning
        scene.light -= 0.006
        scene.gradient += 4.0
        frames.append(scene.frame())
    events = run(tracker, frames)
    assert not [e for e in events if isinstance(e, (TilesAdded, TilesRemoved))], kinds(events)
    x, y = scene.config.board_offset
    scene.config = replace(scene.config, board_offset=(x + 0.05, y - 0.04),
                           rotation=scene.config.rotation + 2.0)
    events = run(tracker, scene.still(2.5))
    assert [e for e in events if isinstance(e, BoardRelocated)], kinds(events)
    assert not [e for e in events if isinstance(e, (TilesAdded, TilesRemoved))], kinds(events)
    assert tracker.counters["relocated"] == 1
    # Tracking goes on at the new place.
    frames = scene.hand((6, 6), "A", hold=3) + scene.still(4.0)
    events = run(tracker, frames)
    committed = [e for e in events if isinstance(e, MoveCommitted)]
    assert [e.squares for e in committed] == [((6, 6),)], kinds(events)


def test_a_shadow_that_falls_and_stays_invents_nothing(occupancy):
    scene = Scene(START, seed=13)
    tracker = make_tracker(scene, occupancy)
    frames = scene.still(1.0)
    scene.cast_shadow()
    frames += scene.still(8.0)
    events = run(tracker, frames)
    assert not [e for e in events if isinstance(e, (TilesAdded, TilesRemoved))], kinds(events)
    events = run(tracker, scene.hand((9, 4), "O", hold=3) + scene.still(4.0))
    assert [e.squares for e in events if isinstance(e, MoveCommitted)] == [((9, 4),)]


def test_next_players_tiles_out_of_line_commit_the_provisional_move(occupancy):
    scene = Scene(START, seed=7)
    tracker = make_tracker(scene, occupancy, quiet_seconds=30.0)
    frames = scene.still(1.0) + scene.hand((8, 5), "A", hold=2) + scene.still(1.25)
    frames += scene.hand((6, 8), "B", hold=2) + scene.still(1.25)
    events = run(tracker, frames)
    committed = [e for e in events if isinstance(e, MoveCommitted)]
    assert [e.squares for e in committed] == [((8, 5),)]
    assert committed[0].reason == "next move began"
    assert tracker.provisional_squares == ((6, 8),)
    assert [e.squares for e in tracker.commit(99.0)] == [((6, 8),)]


def test_stills_each_a_turn_and_a_repeat_is_no_placement(occupancy):
    scene = Scene(START, seed=9)
    tracker = Tracker(corners=scene.corners(), occupancy=occupancy, known=START, stills=True)
    events = tracker.update(0, scene.frame()[1])
    assert kinds(events) == ["NoPlacement"]  # the known board, nothing new
    for col, letter in ((3, "M"), (4, "A")):
        scene.rows[6][col] = letter
    events = tracker.update(1, scene.frame()[1])
    assert kinds(events) == ["TilesAdded", "MoveCommitted"]
    assert events[-1].squares == ((6, 3), (6, 4))
    events = tracker.update(2, scene.frame()[1])
    assert [type(e) for e in events] == [NoPlacement]


def test_a_grid_found_right_is_kept_as_found_and_one_square_off_is_moved(occupancy, caplog):
    """A still's grid is registered against the tiles known to be on the board: the grid as
    found where it fits them (it was logged as moved "one square off" every time), moved by a
    square where that fits them better."""
    scene = Scene(START, seed=9)
    _, image = scene.frame()
    tracker = Tracker(corners=scene.corners(), occupancy=occupancy, known=START, stills=True)
    found = np.asarray(scene.corners(), np.float32)
    with caplog.at_level(logging.INFO, logger="tracker.board_states"):
        assert tracker._registered(image, found) is found
        assert "square off" not in caplog.text
        to_image = grid_to_image(found)
        a_row_up = project(to_image, np.array([[0, 1], [15, 1], [15, 16], [0, 16]],
                                              np.float64)).astype(np.float32)
        moved = tracker._registered(image, a_row_up)
        assert np.abs(moved - found).max() < 0.5
        assert "grid found one square off (+0 across, -1 down)" in caplog.text


def test_a_first_still_of_an_empty_board_is_told_apart_from_a_later_one(occupancy):
    # The first may be the board before the game or after an opening pass: the pipeline asks.
    scene = Scene(["." * 15] * 15, seed=9)
    tracker = Tracker(corners=scene.corners(), occupancy=occupancy, stills=True)
    assert tracker.update(0, scene.frame()[1]) == [NoPlacement(0, first=True)]
    assert tracker.update(1, scene.frame()[1]) == [NoPlacement(1, first=False)]


def test_upright_squares_follow_the_orientation():
    tracker = Tracker(orientation=1, corners=[[0, 0], [150, 0], [150, 150], [0, 150]])
    # One counter-clockwise turn brings view square (0, 14) to the upright (0, 0).
    assert tracker.to_upright([(0, 14)]) == ((0, 0),)
    assert in_one_line([(1, 2), (1, 9)]) and not in_one_line([(1, 2), (2, 3)])


def game_camera(seed: int) -> tuple[Callable[[list[str], int], tuple[np.ndarray, np.ndarray]],
                                     OccupancyModel]:
    """The rendered game's camera for ``seed`` (as ``bench/eval_stills.py`` takes its photos):
    ``photo(rows, n)`` (the image and the grid's corners, the light drifted for photo n), and
    the occupancy model calibrated on one photo of the alphabet laid out."""
    from sim.game import ALPHABET_ROWS, camera_config
    from vision.rectify import rectify as rectify_grid

    config = camera_config(seed, (1280, 960))

    def photo(rows: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
        light = replace(config, exposure=config.exposure * (1.0 + 0.05 * math.sin(n / 3.0)),
                        gradient_angle=(config.gradient_angle + 7.0 * n) % 360.0)
        flat = render_flat(rows, tileset="en", edition="green", seed=seed, config=light)
        taken = render_frame(flat, light, seed=seed * 10007 + n, hand=None)
        return taken.image, taken.corners

    alphabet, corners = photo(list(ALPHABET_ROWS), 0)
    model = OccupancyModel().fit([rectify_grid(alphabet, corners, 16)], [list(ALPHABET_ROWS)])
    return photo, model


def test_a_tile_on_a_premium_square_is_seen_in_a_still():
    # A still of the board after a move whose first tile lies on a pink premium square: under
    # a dim camera the tile's face and the square's pink and green edges, moved by a few
    # pixels, have the same mean colour, and a block left to choose its own shift lost it
    # (a rendered game then scored AGUE for VAGUE).
    before = [".....A.........", ".....U.........", ".....R.........", "...CHIMB.......",
              ".....C.........", ".....L.........", "..S.JEST.......", "..K.AD.........",
              "I.E.Z..........", "M.A.Z..........", "PANDY..........", "OPE............",
              "NE.............", "EX............."]
    before = ["." * 15, *before]
    after = list(before)
    after[2] = "..VAGUE........"
    photo, model = game_camera(9)
    # The grid as the tracker finds it itself, a pixel or two from the renderer's.
    tracker = Tracker(occupancy=model, known=before, stills=True)
    assert kinds(tracker.update(0, photo(before, 7)[0])) == ["NoPlacement"]
    events = tracker.update(1, photo(after, 9)[0])
    assert kinds(events) == ["TilesAdded", "MoveCommitted"]
    assert events[-1].squares == ((2, 2), (2, 3), (2, 4), (2, 6))



def test_a_still_tile_gone_from_the_last_move_was_none_unless_tiles_appear_beside_it(
        occupancy):
    # Still 2's move and a "tile" far from it at the board's edge (a finger taken for one,
    # rendered as a tile): the next still shows the move and not that square, with new
    # tiles elsewhere.  Players take back whole moves: the square never held a tile.
    scene = Scene(START, seed=9)
    tracker = Tracker(corners=scene.corners(), occupancy=occupancy, known=START, stills=True)
    tracker.update(0, scene.frame()[1])
    for col, letter in ((3, "M"), (4, "A")):
        scene.rows[6][col] = letter
    scene.rows[14][12] = "E"
    assert tracker.update(1, scene.frame()[1])[-1].squares == ((6, 3), (6, 4), (14, 12))
    scene.rows[14][12] = "."
    for row in (9, 10):
        scene.rows[row][6] = "T"
    events = tracker.update(2, scene.frame()[1])
    assert kinds(events) == ["TilesRemoved", "TilesAdded", "MoveCommitted"]
    assert events[0].squares == ((14, 12),) and events[0].misread and not events[0].withdrawal
    assert events[-1].squares == ((9, 6), (10, 6))
    # A tile of the last move gone with new ones beside it is a finger that moved (hiding a
    # tile, taken for others): the still is set aside, as a withdrawal is not half a move.
    scene.rows[9][6] = "."
    scene.rows[9][5] = scene.rows[10][5] = "S"
    events = tracker.update(3, scene.frame()[1])
    assert kinds(events) == ["ViewObstructed"]


def test_a_shadow_with_an_edge_is_light_and_the_tiles_under_it_are_not():
    """Two stills' block means (34 x 34, the grid and its margin) under a shadow that fell
    between them over part of the board, its edge slanted and soft over a block: a change of
    light no smooth field fits, which leaves only the tiles laid changed."""
    from tracker.board_states import _light_change

    rng = np.random.default_rng(5)
    colours = np.float32([[40, 120, 30], [200, 160, 90], [90, 90, 200], [150, 150, 150]])
    stable = colours[rng.integers(0, 4, (34, 34))] + rng.normal(0, 2, (34, 34, 3))
    rows, cols = np.mgrid[0:34, 0:34]
    edge = 14 + 0.3 * rows - cols  # a slanted edge, shade where positive
    shade = 1.0 - 0.5 * np.clip(edge + 0.5, 0.0, 1.0)
    current = (stable * shade[..., None]).astype(np.float32)
    tiles = [(8, 3), (8, 4), (9, 3), (9, 4), (20, 16), (20, 17), (21, 16), (21, 17)]
    for r, c in tiles:  # a cream tile's face, in the shade or not
        current[r, c] = np.float32([205, 225, 235]) * shade[r, c]

    def changed(expected: np.ndarray) -> list[tuple[int, int]]:
        return [tuple(map(int, rc)) for rc in np.argwhere(
            np.abs(current - expected).max(axis=2) > 22.0)]

    assert len(changed(_light_change(stable, current, 22.0)[0])) > 100
    assert changed(_light_change(stable, current, 22.0, local=True)[0]) == tiles


def _board_blocks(tiles: list[tuple[int, int]]) -> np.ndarray:
    """Block means (34 x 34, the grid and its margin) of a board: each premium kind one
    colour, a cream face on ``tiles``, a little noise."""
    from scorer.squares import PREMIUM_LAYOUT

    rng = np.random.default_rng(2)
    kinds = sorted({kind for row in PREMIUM_LAYOUT for kind in row})
    colours = rng.uniform(40, 200, (len(kinds), 3)).astype(np.float32)
    squares = np.array([[colours[kinds.index(kind)] for kind in row] for row in PREMIUM_LAYOUT])
    for r, c in tiles:
        squares[r, c] = (205, 225, 235)
    blocks = np.full((34, 34, 3), 90.0, np.float32)
    blocks[2:-2, 2:-2] = np.kron(squares, np.ones((2, 2, 1)))
    return blocks + rng.normal(0, 2, blocks.shape).astype(np.float32)


def test_a_reflection_is_told_in_one_still_and_a_move_is_no_reflection():
    """With nothing to compare a still with (a game's first photo), a lamp's reflection is
    told by the board's own colours: every square of a kind has one colour, and a reflection
    mixes it with white.  The first move's tiles, lighter than the squares they lie on, are
    too thin a line to pass for one."""
    from tracker.board_states import _washed_alone

    move = [(7, c) for c in range(4, 11)]
    clear = _board_blocks(move)
    nothing = np.zeros((15, 15), bool)
    assert not _washed_alone(clear, nothing).any()
    rows, cols = np.mgrid[0:34, 0:34]
    # 0.8 white at the middle of square (4, 10), falling off over about two squares.
    share = 0.8 * np.exp(-0.5 * (((rows - 2) / 2 - 4.25) ** 2 + ((cols - 2) / 2 - 10.25) ** 2)
                         / 2.0 ** 2)[..., None]
    washed = _washed_alone(clear * (1 - share) + 255 * share, nothing)
    middles = 0.8 * np.exp(-0.5 * ((np.arange(15)[:, None] - 4) ** 2
                                   + (np.arange(15)[None, :] - 10) ** 2) / 2.0 ** 2)
    assert washed[middles >= 0.45].all()
    assert not washed[middles < 0.15].any()
    # The tiles known on a board are measured against the tiles' face, not their squares.
    full = [(r, c) for r in range(3, 12) for c in range(2, 13) if (r + c) % 3]
    known = np.zeros((15, 15), bool)
    known[tuple(np.transpose(full))] = True
    assert not _washed_alone(_board_blocks(full), known).any()
    assert _washed_alone(_board_blocks(full), nothing).any()


def test_a_turned_view_is_told_from_the_last_one_on_the_tiles_the_grid_was_fitted_to():
    """A photo turned from the last one, with fewer than three tiles known, is turned back
    to fit the tiles looked at again; where several turns fit, the one most like the last
    view on those tiles wins.  Compared on the known tiles alone (none), every turn came out
    NaN (the mean of nothing) and the first was taken, whichever it was."""
    from tracker.board_states import _View

    tracker = Tracker(stills=True)
    px = tracker.config.settle_px
    image = np.random.default_rng(0).integers(0, 256, (17 * px, 17 * px, 3), np.uint8)
    tracker.stable = _View(0.0, image, np.zeros((4, 2), np.float32), image,
                           np.zeros((34, 34, 3), np.float32))
    grid = cv2.resize(image[px:-px, px:-px], (15 * 16, 15 * 16), interpolation=cv2.INTER_AREA)
    tiles = np.zeros((15, 15), bool)
    tiles[7, 5:9] = True
    assert tracker.known.sum() == 0
    assert tracker._unlike_last_view(grid, tiles) == 0.0
    assert tracker._unlike_last_view(np.rot90(grid).copy(), tiles) > 0.5
