"""Load on the live scoreboard: many open screens, time from a change to every screen having it.

Starts ``tilecam serve`` on a free loopback port with a fresh database, opens ``--screens``
server-sent-event streams (as that many scoreboards would), then posts ``--events`` changes one
at a time, ``--interval`` seconds apart.  For each change it measures the time from just before
the POST is sent until the *last* screen has received a state version at least as new as the one
the POST reports (each stream carries the whole state, so a screen that skips a version still
has the change).  Then it measures how many scoreboard pages per second the server renders with
``--page-threads`` clients fetching ``/games/<id>`` for ``--page-seconds`` seconds while the
streams stay open.

Loopback only; every loop is bounded by count or time.

    .venv/bin/python bench/bench_webui.py --screens 50 --events 200
"""

from __future__ import annotations

import argparse
import http.client
import json
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
PIN = "2468"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, db: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(db), "--quiet"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("tilecam serve did not start")


def post(port: int, path: str, body: dict) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps(body),
                 {"Content-Type": "application/json", "X-Game-Pin": PIN})
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    if response.status >= 300:
        raise SystemExit(f"POST {path} failed: {response.status} {data}")
    return data


class Screen(threading.Thread):
    """One scoreboard: reads the event stream and notes when each version arrived."""

    def __init__(self, port: int, game_id: str) -> None:
        super().__init__(daemon=True)
        self.arrivals: list[tuple[int, float]] = []
        self.ready = threading.Event()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.path = f"/api/games/{game_id}/events"

    def run(self) -> None:
        self.conn.request("GET", self.path)
        response = self.conn.getresponse()
        version = None
        while True:
            try:
                line = response.readline()
            except (OSError, ValueError):
                return
            if not line:
                return
            if line.startswith(b"id: "):
                version = int(line[4:])
            elif line.startswith(b"data: ") and version is not None:
                self.arrivals.append((version, time.perf_counter()))
                self.ready.set()
                version = None

    def first_at_least(self, version: int) -> float | None:
        for v, t in self.arrivals:
            if v >= version:
                return t
        return None

    def close(self) -> None:
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", type=int, default=50)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--page-threads", type=int, default=4)
    parser.add_argument("--page-seconds", type=float, default=5.0)
    args = parser.parse_args()

    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(port, Path(folder) / "games.sqlite3")
        try:
            created = post(port, "/api/games", {"players": ["Ann", "Bob"], "pin": PIN})
            game_id = created["id"]
            # A realistic board first: a few plays, so the state has tiles and a log.
            for position, word in (("8E", "HORN"), ("G6", "FA.M"), ("10G", "SPEAR")):
                post(port, f"/api/games/{game_id}/play", {"position": position, "word": word})
            screens = [Screen(port, game_id) for _ in range(args.screens)]
            for s in screens:
                s.start()
            for s in screens:
                if not s.ready.wait(20):
                    raise SystemExit("a screen got no first state within 20 s")

            sent: list[tuple[int, float]] = []
            for n in range(args.events):
                t0 = time.perf_counter()
                reply = post(port, f"/api/games/{game_id}/adjust",
                             {"player": n % 2, "points": 1, "reason": f"bench {n}"})
                sent.append((reply["version"], t0))
                time.sleep(args.interval)
            time.sleep(1.0)  # let the last versions arrive

            all_screens_ms: list[float] = []
            each_screen_ms: list[float] = []
            missing = 0
            for version, t0 in sent:
                arrivals = [s.first_at_least(version) for s in screens]
                if any(t is None for t in arrivals):
                    missing += 1
                    continue
                all_screens_ms.append((max(arrivals) - t0) * 1000)  # type: ignore[type-var]
                each_screen_ms.extend((t - t0) * 1000 for t in arrivals)  # type: ignore[operator]
            state_bytes = len(urllib.request.urlopen(
                f"http://127.0.0.1:{port}/api/games/{game_id}/state").read())

            # Scoreboard page rate, with the streams still open.
            count = 0
            errors = 0
            lock = threading.Lock()
            deadline = time.perf_counter() + args.page_seconds

            def fetch_pages() -> None:
                nonlocal count, errors
                while time.perf_counter() < deadline:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    conn.request("GET", f"/games/{game_id}")
                    response = conn.getresponse()
                    response.read()
                    conn.close()
                    with lock:
                        if response.status == 200:
                            count += 1
                        else:
                            errors += 1

            started = time.perf_counter()
            workers = [threading.Thread(target=fetch_pages) for _ in range(args.page_threads)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            elapsed = time.perf_counter() - started
            for s in screens:
                s.close()
        finally:
            server.kill()
            server.wait()

    print(f"screens: {args.screens} open SSE streams; events: {args.events} posted"
          f" {args.interval * 1000:.0f} ms apart; state size {state_bytes} bytes")
    if all_screens_ms:
        print(f"POST -> every screen has it: median {statistics.median(all_screens_ms):.1f} ms,"
              f" p95 {percentile(all_screens_ms, 95):.1f} ms,"
              f" max {max(all_screens_ms):.1f} ms ({len(all_screens_ms)} events)")
        print(f"POST -> one screen has it:   median {statistics.median(each_screen_ms):.1f} ms,"
              f" p95 {percentile(each_screen_ms, 95):.1f} ms")
    print(f"events not seen by every screen: {missing}")
    print(f"scoreboard page: {count / elapsed:.0f} requests/s with {args.page_threads} client"
          f" threads over {elapsed:.1f} s ({errors} errors), streams open")
    return 0 if missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
