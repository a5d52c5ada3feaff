"""Phones as the cameras of club tables: ``tilecam serve`` running a camera pipeline process per
table, fed with the frames the phones post.

- ``tilecam serve`` on SQLite (one process), or with ``--postgres`` ``--workers 2`` on a
  throwaway PostgreSQL cluster (the tests' own, ``tests/conftest.py``); an event of
  ``--tables`` tables, each with a "phone" (a thread) posting rendered photos of the demo
  game's first ``--moves`` plays at ``--fps`` frames a second, each on a new connection;
- the players' answers to unsure letters are given on the game's API, as on its page.

Reported: the frames endpoint's round trip (median, p95); per pipeline the frames it read a
second, its milliseconds per frame and the frames dropped; the time from the phone first
showing a move to the play being in the store, less the tracker's quiet period (which a move
waits for by design); memory (RSS and PSS: pages shared with the forkserver count in part) and
CPU per pipeline process; whether every table's plays were stored as played, scored exactly.

    .venv/bin/python bench/bench_table_cameras.py --tables 4 --fps 4
    .venv/bin/python bench/bench_table_cameras.py --tables 1 --fps 30      # what one keeps up with
    .venv/bin/python bench/bench_table_cameras.py --postgres --tables 4
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The throwaway cluster is the tests' equipment, used as it is.
sys.path.insert(0, str(REPO / "tests"))

DIRECTOR_PIN = "9999"
TABLE_PIN = "1111"
QUIET_SECONDS = 1.5
CLK_TCK = os.sysconf("SC_CLK_TCK")


def call(base: str, method: str, path: str, body: object = None,
         content_type: str = "application/json") -> dict:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={
        "Content-Type": content_type, "X-Game-Pin": TABLE_PIN})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def plays(state: dict) -> list[tuple[str, int]]:
    return [(e["play"]["seed"], e["score"]) for e in state["log"] if e["play"]]


def memory_kb(pid: int) -> tuple[int, int]:
    """RSS and PSS of a process, in kB."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Phone(threading.Thread):
    """One table: posts the board's photo ``fps`` times a second, shows each move in turn once
    the previous one is in the store, and times each."""

    def __init__(self, base: str, game_id: str, boards: list[bytes], expected: list,
                 truth: dict[str, str], fps: float) -> None:
        super().__init__(daemon=True)
        self.base, self.game_id, self.boards = base, game_id, boards
        self.expected, self.truth, self.fps = expected, truth, fps
        self.round_trips: list[float] = []
        self.move_seconds: list[float] = []
        self.statuses: list[dict] = []
        self.result: list = []
        self.jpeg = boards[0]
        self.done = threading.Event()
        self._stop = threading.Event()

    def _post(self) -> None:
        while not self._stop.is_set():
            began = time.perf_counter()
            try:
                answer = call(self.base, "POST", f"/api/games/{self.game_id}/frames", self.jpeg,
                              content_type="image/jpeg")
                self.round_trips.append(time.perf_counter() - began)
                self.statuses.append(answer["pipeline"])
            except OSError:
                pass
            self._stop.wait(max(0.0, 1 / self.fps - (time.perf_counter() - began)))

    def run(self) -> None:
        poster = threading.Thread(target=self._post, daemon=True)
        poster.start()
        answered: set[int] = set()
        time.sleep(3.0)  # the pipeline starts and finds the board
        for number, board in enumerate(self.boards[1:], start=1):
            self.jpeg = board
            shown = time.perf_counter()
            deadline = shown + 60
            while time.perf_counter() < deadline:
                state = call(self.base, "GET", f"/api/games/{self.game_id}/state")
                for question in state["questions"]:
                    if question["open"] and question["qid"] not in answered and \
                            question["kind"] in ("unsure_letter", "blank_tile"):
                        square = question["data"]["squares"][0]
                        call(self.base, "POST",
                             f"/api/games/{self.game_id}/questions/{question['qid']}/answer",
                             {"answer": self.truth[square]})
                        answered.add(question["qid"])
                if len(plays(state)) >= number:
                    if not answered:
                        self.move_seconds.append(time.perf_counter() - shown)
                    break
                time.sleep(0.05)
            answered.clear()
        self.result = plays(call(self.base, "GET", f"/api/games/{self.game_id}/state"))
        self._stop.set()
        poster.join(5)
        self.done.set()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--fps", type=float, default=4.0, help="frames a second per phone")
    parser.add_argument("--moves", type=int, default=3, help="plays of the demo game per table")
    parser.add_argument("--postgres", action="store_true",
                        help="--workers 2 on a throwaway PostgreSQL cluster (default: SQLite)")
    args = parser.parse_args()

    import cv2

    from calibration.profile import Profile
    from sim.game import ALPHABET_ROWS, EMPTY_ROWS, DemoCamera, demo_game
    from sim.render import render_board

    folder = Path(tempfile.mkdtemp(prefix="tilecam-bench-cameras-"))
    game = demo_game(1, moves=args.moves)
    camera = DemoCamera(1)
    profile = Profile(tileset="en")
    profile.extend(camera.calibration_photo(), ALPHABET_ROWS)
    profile.save(folder / "profile")

    def jpeg(rows: list[str]) -> bytes:
        image = render_board(list(rows), seed=1, config=camera.config).image
        return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()

    boards = [jpeg(EMPTY_ROWS)] + [jpeg(list(t.rows_after)) for t in game.plays]
    expected = [(t.notation, t.score) for t in game.plays]
    truth = {sq.name: letter for t in game.plays for sq, letter in t.tiles.items()}

    cluster = None
    if args.postgres:
        from conftest import start_postgres_cluster

        cluster = start_postgres_cluster()
        db, workers = cluster.new_database(), ["--workers", "2"]
    else:
        db, workers = str(folder / "club.sqlite3"), []
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", db, "--quiet", "--profile", str(folder / "profile"), "--quiet-seconds",
         str(QUIET_SECONDS), *workers],
        cwd=REPO, stdout=open(folder / "serve.log", "w"),  # noqa: SIM115
        stderr=subprocess.STDOUT, env={**os.environ, "XDG_DATA_HOME": str(folder / "data")})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                call(base, "GET", "/api/games")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("tilecam serve did not start") from None
                time.sleep(0.2)
        made = call(base, "POST", "/api/events", {
            "name": "Bench", "pin": DIRECTOR_PIN,
            "tables": [{"name": f"Table {n}", "players": ["Ada", "Ben"], "pin": TABLE_PIN}
                       for n in range(1, args.tables + 1)]})
        games = [t["game_id"] for t in made["overview"]["tables"]]
        phones = [Phone(base, g, boards, expected, truth, args.fps) for g in games]
        for phone in phones:
            phone.start()
        peak: dict[int, tuple[int, int]] = {}
        while not all(phone.done.is_set() for phone in phones):
            for game_id in games:
                pid = call(base, "GET", f"/api/games/{game_id}/pipeline")["pipeline"].get("pid")
                if pid:
                    rss, pss = memory_kb(pid)
                    peak[pid] = max(peak.get(pid, (0, 0)), (rss, pss))
            time.sleep(0.5)
        pipelines = [call(base, "GET", f"/api/games/{g}/pipeline")["pipeline"] for g in games]
        cpu = {p["pid"]: cpu_seconds(p["pid"]) for p in pipelines if p.get("pid")}
        wall = {p["pid"]: time.monotonic() - p["since"] for p in pipelines if p.get("pid")}
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(30)
        if cluster is not None:
            cluster.stop()

    trips = [t for phone in phones for t in phone.round_trips]
    print(f"{args.tables} tables, {args.fps:g} frames/s each, {len(boards[1]) // 1024} KB a "
          f"frame, {'PostgreSQL, 2 workers' if args.postgres else 'SQLite, one process'}")
    print(f"frames endpoint round trip: median {1000 * statistics.median(trips):.1f} ms, "
          f"p95 {1000 * percentile(trips, 0.95):.1f} ms ({len(trips)} frames)")
    for phone, status in zip(phones, pipelines, strict=True):
        reads = [s for s in phone.statuses if "fps" in s]
        fps = statistics.median(s["fps"] for s in reads) if reads else 0.0
        feed = statistics.median(s["feed_ms"] for s in reads) if reads else 0.0
        pid = status.get("pid")
        rss, pss = peak.get(pid, (0, 0))
        moves = ", ".join(f"{s - QUIET_SECONDS:.2f}" for s in phone.move_seconds) or "-"
        print(f"table {phone.game_id}: read {fps:.1f} frames/s at {feed:.1f} ms each, "
              f"{status['dropped']} of {status['received']} dropped; move shown -> stored, "
              f"less the quiet period: {moves} s; RSS {rss // 1024} MB, PSS {pss // 1024} MB; "
              f"CPU {100 * cpu.get(pid, 0) / max(wall.get(pid, 1), 1e-3):.0f} % of a core; "
              f"plays {'as played' if phone.result == expected else phone.result}")
    return 0 if all(phone.result == expected for phone in phones) else 1


if __name__ == "__main__":
    sys.exit(main())
