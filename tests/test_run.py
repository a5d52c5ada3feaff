"""``tilecam run``: a video file, photos one per turn, and a phone's frames with the calibration
page, each played into the pages it serves; and what it says when something is missing.

The frames are rendered (:class:`sim.game.DemoCamera`: the demo's camera, its game for
seed 1); ``tilecam run`` runs as a subprocess, as a user starts it, and the test talks to it
over HTTP as the pages do.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import Profile
from sim.game import ALPHABET_ROWS, EMPTY_ROWS, DemoCamera, demo_game
from sim.render import render_board, render_flat, render_frame
from tilecam.cli import main

SEED = 1
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def game():
    return demo_game(SEED, moves=2)


@pytest.fixture(scope="module")
def profile_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("profile")
    profile = Profile(tileset="en")
    profile.extend(DemoCamera(SEED).calibration_photo(), ALPHABET_ROWS)
    profile.save(folder)
    return folder


def jpeg(image) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return data.tobytes()


class Running:
    """``tilecam run ARGS`` as a subprocess: its output, its game, and HTTP to its pages."""

    def __init__(self, *args: str, db: Path) -> None:
        command = [sys.executable, "-m", "tilecam", "run", "--host", "127.0.0.1", "--port", "0",
                   "--db", str(db), *args]
        self.proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        introduction = ""
        deadline = time.monotonic() + 60
        while "Calibration:" not in introduction and "No calibration" not in introduction:
            line = self.proc.stdout.readline()
            if not line or time.monotonic() > deadline:
                self.proc.kill()
                raise AssertionError(f"tilecam run did not start:\n{introduction}")
            self.lines.append(line)
            introduction += line
        found = re.search(r"scoreboard:\s+(http://\S+?)/games/(\w+)", introduction)
        assert found, introduction
        self.base, self.game_id = found.group(1), found.group(2)
        self.pin = re.search(r"PIN (\S+)", introduction).group(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def api(self, path: str) -> str:
        return f"{self.base}/api/games/{self.game_id}/{path}"

    def state(self) -> dict:
        with urllib.request.urlopen(self.api("state"), timeout=10) as response:
            return json.load(response)

    def post(self, path: str, body: object, content_type: str = "application/json") -> dict:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(self.api(path), data=data, method="POST", headers={
            "Content-Type": content_type, "X-Game-Pin": self.pin})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def push(self, frame: bytes, seconds: float, every: float = 0.2) -> None:
        """A phone's page sending the same view for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.post("frames", frame, "image/jpeg")
            time.sleep(every)

    def wait_for(self, condition, timeout: float = 60.0, what: str = "",
                 truth: dict[str, str] | None = None) -> dict:
        """The state once ``condition`` holds.  With ``truth`` (square -> letter), questions
        about a letter or a blank are answered on the way, as the players would: they know
        their tiles."""
        deadline = time.monotonic() + timeout
        answered: set[int] = set()
        while True:
            state = self.state()
            if condition(state):
                return state
            for question in state["questions"] if truth else []:
                if question["kind"] in ("unsure_letter", "blank_tile") and (
                    question["qid"] not in answered
                ):
                    square = question["data"]["squares"][0]
                    self.post(f"questions/{question['qid']}/answer", {"answer": truth[square]})
                    answered.add(question["qid"])
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"{what} did not happen; the log: "
                                     f"{[e['kind'] for e in state['log']]}\n{self.output}")
            time.sleep(0.3)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def truth_of(game) -> dict[str, str]:
    """Every square of the game's plays and its letter (lower case: a blank)."""
    return {sq.name: letter for t in game.plays for sq, letter in t.tiles.items()}


def plays(state: dict) -> list[tuple[str, int]]:
    return [(e["play"]["seed"], e["score"]) for e in state["log"] if e["play"]]


# ------------------------------------------------------------------------------- missing


def test_no_camera_says_so_and_what_to_use_instead(capsys, tmp_path):
    db = str(tmp_path / "games.sqlite3")
    assert main(["run", "--source", "9", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "camera 9 cannot be opened: no camera is connected at that number" in err
    assert "use a phone" in err and "--source http://" in err and "video file" in err
    assert not (tmp_path / "games.sqlite3").exists()  # nothing set up for nothing
    assert main(["run", "--source", str(tmp_path / "none.mp4"), "--db", db]) == 2
    assert "no video file, folder, image pattern or stream" in capsys.readouterr().err
    assert main(["run", "--game", "abcdef", "--db", db]) == 2
    assert "--game needs the game's --pin" in capsys.readouterr().err


def test_a_damaged_profile_is_named(capsys, tmp_path):
    (tmp_path / "profile.json").write_text("{not json", encoding="utf-8")
    assert main(["run", "--profile", str(tmp_path), "--source", "9"]) == 2
    assert "cannot read" in capsys.readouterr().err


# ------------------------------------------------------------------------------- sources


def test_video_file_plays_its_moves_into_the_page(game, profile_dir, tmp_path):
    camera = DemoCamera(SEED)
    video = tmp_path / "game.avi"
    # 4 frames a second, every frame of the film (the hand's motion a little slower).
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 4.0,
                             camera.config.size)
    written = 0
    for frames in [camera.still(1.5)] + [camera.move(t.rows_after) for t in game.plays]:
        for _, image in frames:
            writer.write(image)
            written += 1
    writer.release()
    profile = tmp_path / "profile"
    shutil.copytree(profile_dir, profile)
    running = Running("--source", str(video), "--profile", str(profile),
                      "--players", "Ann,Ben", "--quiet-seconds", "3", db=tmp_path / "g.db")
    try:
        state = running.wait_for(lambda s: len(plays(s)) == 2, what="two moves scored",
                                 truth=truth_of(game))
        # The page's notation carries the score: "BAWTIE 8D 28", as the game played it.
        assert plays(state) == [(t.notation, t.score) for t in game.plays]
        assert [p["score"] for p in state["players"]] == [t.score for t in game.plays]
        with urllib.request.urlopen(running.api("frame.jpg"), timeout=10) as response:
            assert response.headers["Content-Type"] == "image/jpeg"
        with urllib.request.urlopen(running.api("grid"), timeout=10) as response:
            grid = json.load(response)["grid"]
        assert grid is not None and grid["width"] == camera.config.size[0]
        deadline = time.monotonic() + 30
        while "the source has ended" not in running.output and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        status = running.stop()
    out = running.output
    assert "board found in the picture" in out
    assert f"the source has ended ({written} frames, 0 unreadable)" in out
    # The tiles of the confirmed moves were learnt, and kept for the next game.
    assert f"the profile in {profile} now holds" in out
    assert len(Profile.load(profile).labels) > len(Profile.load(profile_dir).labels)
    assert status == 0, out



def test_photos_one_per_turn_and_a_question_answered_on_the_controls_page(game, profile_dir,
                                                                          tmp_path):
    camera = DemoCamera(SEED)
    folder = tmp_path / "shots"
    folder.mkdir()
    boards = [t.rows_after for t in game.plays] + [game.plays[-1].rows_after]
    for n, rows in enumerate(boards, start=1):
        # The repeated board is another picture: the same tiles, other sensor noise.
        flat = render_flat(list(rows), seed=SEED, config=camera.config)
        image = render_frame(flat, camera.config, seed=SEED if n < len(boards) else 99).image
        cv2.imwrite(str(folder / f"turn-{n}.jpg"), image)
    profile = tmp_path / "profile"
    shutil.copytree(profile_dir, profile)
    running = Running("--source", str(folder), "--profile", str(profile),
                      "--players", "Ann,Ben", db=tmp_path / "g.db")
    try:
        # The players answer what the reader is unsure of; the third photo shows no new
        # tile: a pass or an exchange? They are asked that too.
        state = running.wait_for(
            lambda s: any(q["kind"] == "no_placement" for q in s["questions"]),
            what="the question about the third photo", truth=truth_of(game))
        question = next(q for q in state["questions"] if q["kind"] == "no_placement")
        assert plays(state) == [(t.notation, t.score) for t in game.plays]
        assert "was it a pass, an exchange, or no turn" in question["data"]["prompt"]
        assert {"pass", "exchange", "no turn"} <= set(question["options"])
        running.post(f"questions/{question['qid']}/answer", {"answer": "pass"})
        state = running.wait_for(lambda s: s["log"][-1]["kind"] == "pass",
                                 what="the pass entered")
        assert not state["questions"] and state["turn"] == 1
    finally:
        status = running.stop()
    assert "photos, one per turn" in running.output
    assert "answered on the page: pass" in running.output
    assert status == 0


def test_a_phone_the_calibration_page_and_a_move(game, tmp_path):
    """A new user's way: no camera and no calibration at the start; a phone's page sends
    frames, the alphabet is captured on the calibration page, the board is cleared, a move is
    played and scored."""
    camera = DemoCamera(SEED)
    empty = jpeg(render_board(EMPTY_ROWS, seed=SEED, config=camera.config).image)
    alphabet = jpeg(camera.calibration_photo())
    first = jpeg(render_board(list(game.plays[0].rows_after), seed=SEED,
                              config=camera.config).image)
    profile_dir = tmp_path / "profile"
    running = Running("--profile", str(profile_dir), "--players", "Ann,Ben",
                      "--quiet-seconds", "1.5", db=tmp_path / "g.db")
    try:
        intro = running.output
        assert f"/games/{running.game_id}/phone on a phone" in intro
        assert "needs HTTPS" in intro or "only for an HTTPS page" in intro
        assert "No calibration yet" in intro and "/calibrate" in intro
        # The phone shows the table but not the board: said, shown, and tried again.
        rng = np.random.default_rng(5)
        table = jpeg(rng.integers(90, 110, (720, 1280, 3), dtype=np.uint8))
        running.push(table, 2.5)
        assert "no board found in the picture" in running.output
        with urllib.request.urlopen(running.api("grid"), timeout=10) as response:
            assert json.load(response)["grid"] is None
        with urllib.request.urlopen(running.api("frame.jpg"), timeout=10) as response:
            assert response.read(2) == b"\xff\xd8"
        running.push(empty, 4.0)
        assert "board found in the picture" in running.output.split("no board found")[-1]
        running.push(alphabet, 2.5)
        calibration_questions = max((q["qid"] for q in running.state()["questions"]),
                                    default=0)
        running.post("calibration/layout", {"rows": ALPHABET_ROWS})
        running.push(alphabet, 2.5)
        # Learning the layout takes a second or more (each tile is learnt sharp and blurred).
        deadline = time.monotonic() + 30.0
        while not (profile_dir / "profile.json").exists() and time.monotonic() < deadline:
            running.push(alphabet, 0.5)
        assert (profile_dir / "profile.json").exists(), running.output
        assert len(Profile.load(profile_dir).labels) >= 40
        running.push(empty, 3.0)
        running.push(first, 4.0)
        state = running.wait_for(lambda s: len(plays(s)) == 1, timeout=30, what="the move",
                                 truth=truth_of(game))
        assert plays(state) == [(game.plays[0].notation, game.plays[0].score)]
        # Whatever the reader made of the calibration tiles before it knew them is closed:
        # taken for a game's start position, they are no longer on the page's board.
        assert not [q for q in state["questions"] if q["qid"] <= calibration_questions]
        laid = {sq.name for sq in game.plays[0].tiles}
        assert {f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}" for r, row in enumerate(state["board"])
                for c, tile in enumerate(row) if tile} == laid
    finally:
        status = running.stop()
    out = running.output
    assert "calibrated from the layout: 44 letters" in out
    assert status == 0, out


GAME = REPO.parent / "shared" / "data" / "photos" / "scrabscrap-game01"


@pytest.mark.skipif(not GAME.is_dir(), reason=f"the real game's photos ({GAME}) are not there")
def test_photos_of_a_game_under_way_start_the_page_from_the_first(tmp_path):
    # The camera's first photo shows a game under way (after move 24 of the real game): the
    # page's game starts from its tiles, and the moves after it are scored on them.
    folder = tmp_path / "shots"
    folder.mkdir()
    for n in range(24, 28):
        shutil.copy(GAME / f"image-{n}.jpg", folder / f"image-{n}.jpg")
    boards = (GAME / "boards_after_each_move.txt").read_text(encoding="utf-8")
    rows = [row.strip() for row in boards.split("## after move 27")[1].splitlines()[1:16]]
    # What the players know of their tiles (a blank's letter in lower case).
    truth = {f"{'ABCDEFGHIJKLMNO'[col]}{row + 1}": letter
             for row, line in enumerate(rows) for col, letter in enumerate(line)}
    running = Running("--source", str(folder), "--stills", "--tileset", "de",
                      "--players", "Stefan,Hanns", db=tmp_path / "g.db")
    try:
        state = running.wait_for(lambda s: len(plays(s)) == 3, timeout=120, truth=truth,
                                 what="three moves after the start position")
        assert [score for _, score in plays(state)] == [22, 11, 23]
        board = ["".join(tile or "." for tile in row) for row in state["board"]]
        assert board == rows
    finally:
        status = running.stop()
    assert "start position of" in running.output
    assert status == 0
