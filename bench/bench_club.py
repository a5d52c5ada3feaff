"""A club night under load: 30 tables reporting to ``tilecam serve --workers 4`` on PostgreSQL,
300 spectators' screens and the director's page watching, with faults on request.

- a throwaway PostgreSQL cluster (the tests' own, ``tests/conftest.py``) and ``tilecam serve
  --workers 4`` on it; an event of ``--tables`` tables;
- ``--camera-tables`` tables run ``tilecam run --server`` on rendered photos of a demo game
  (camera frames -> pipeline -> table client -> server), the players' answers to unsure
  letters given on the table's own page;
- the other tables replay generated games (the demo's move generator, one seed a table), one
  turn every ``--interval`` seconds per table, through the table client (local store, outbox,
  operation ids), all in one helper process so that their CPU time is measured apart;
- ``--spectators`` live scoreboards spread over the tables, and the director's stream;
- faults: ``--kill-worker`` (SIGKILL one gunicorn worker mid-run), ``--kill-postgres``
  (SIGKILL the postmaster, start it again), ``--cut-table N`` (table N's client reaches the
  server through a TCP relay that the bench stops for ``--cut-seconds``).

Reported: the time from a table storing an event to every screen of its game (and the
director's) having it: median, p95, p99, max; CPU seconds per table on the client side and
on the server side (``tilecam serve``'s processes; PostgreSQL apart); and for every table
whether the server holds exactly the table's events, in order, once.

    .venv/bin/python bench/bench_club.py --interval 1 --turns 12
    .venv/bin/python bench/bench_club.py --interval 1 --turns 12 --kill-worker --cut-table 5
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
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
# The throwaway cluster and the TCP relay are the tests' equipment, used as they are.
sys.path.insert(0, str(REPO / "tests"))

DIRECTOR_PIN = "9999"
TABLE_PIN = "1111"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base: str, method: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={
        "Content-Type": "application/json", "X-Game-Pin": TABLE_PIN})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process and its waited-for children."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / CLK_TCK


def tree_cpu(pid: int) -> float:
    from conftest import workers_of

    return cpu_seconds(pid) + sum(tree_cpu(child) for child in workers_of(pid))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


# ------------------------------------------------------------------------------ screens


class Screen:
    """One open live-update stream (a scoreboard, or the director's page): the wall-clock time
    at which it first had each version of each game.  Reconnects when the stream ends (a
    worker killed), as a browser does."""

    def __init__(self, port: int, path: str, director: bool = False) -> None:
        self.port, self.path, self.director = port, path, director
        self.seen: dict[str, dict[int, float]] = {}
        self.reconnects = 0
        self.stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _note(self, game_id: str, version: int, at: float) -> None:
        versions = self.seen.setdefault(game_id, {})
        if version not in versions:
            versions[version] = at

    def _run(self) -> None:
        while not self.stop:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                connection.request("GET", self.path)
                response = connection.getresponse()
                fields: dict[str, str] = {}
                for raw in response:
                    line = raw.decode().rstrip("\n")
                    if line:
                        key, _, value = line.partition(": ")
                        fields[key] = value
                        continue
                    at = time.time()
                    if fields.get("event") == "state":
                        state = json.loads(fields["data"])
                        self._note(state["id"], state["version"], at)
                    elif fields.get("event") == "overview":
                        for game_id, version in json.loads(fields["data"])["versions"].items():
                            self._note(game_id, version, at)
                    fields = {}
            except (OSError, http.client.HTTPException, ValueError):
                pass
            self.reconnects += 1
            time.sleep(0.5)

    def first_at(self, game_id: str, version: int) -> float | None:
        """When this screen first had ``version`` or a later one of the game."""
        times = [at for v, at in self.seen.get(game_id, {}).items() if v >= version]
        return min(times) if times else None


# ------------------------------------------------------------------------------ tables


def replay_tables(config_path: str) -> int:
    """The helper process: every replayed table's local store, outbox and client, and one
    thread a table playing its game's turns into the local store."""
    from sim.game import demo_game
    from tilecam.table import ClubServer, Outbox, TableUplink, join_table
    from webui.store import GameStore

    config = json.loads(Path(config_path).read_text())
    folder = Path(config["folder"])
    uplinks: list[TableUplink] = []
    players: list[threading.Thread] = []
    for table in config["tables"]:
        file = folder / f"table-{table['number']}.sqlite3"
        store = GameStore(file)
        outbox = Outbox(file)
        server = ClubServer(table["server"], TABLE_PIN)
        record = join_table(store, outbox, server, config["event"], str(table["number"]))
        uplink = TableUplink(store, outbox, server, record)
        uplink.start()
        uplinks.append(uplink)
        game = demo_game(table["seed"])
        ops = []
        for turn in game.turns[: config["turns"]]:
            if turn.kind == "play":
                ops.append({"op": "place",
                            "tiles": {sq.name: t for sq, t in turn.tiles.items()}})
            elif turn.kind == "exchange":
                ops.append({"op": "exchange", "tiles": turn.exchanged})
            else:
                ops.append({"op": "pass"})

        def play(store=store, game_id=record.local_game, ops=ops,
                 offset=table["offset"]) -> None:
            time.sleep(max(0.0, start_at + offset - time.time()))
            for op in ops:
                store.apply(game_id, op)
                time.sleep(config["interval"])

        players.append(threading.Thread(target=play, daemon=True))
    # Every table has joined: play starts now, and the faults are timed from it.
    start_at = time.time() + 1.0
    print(json.dumps({"start_at": start_at}), flush=True)
    # What the tables' clients cost from here on (setting up the games is the bench's).
    cpu_at_start = time.process_time()
    for thread in players:
        thread.start()
    for thread in players:
        thread.join()
    drained = all(uplink.drained(config["drain_seconds"]) for uplink in uplinks)
    for uplink in uplinks:
        uplink.stop()
    print(json.dumps({"drained": drained, "cpu": time.process_time() - cpu_at_start,
                      "games": {u.record.server_game: u.record.local_game for u in uplinks}}),
          flush=True)
    return 0


def render_camera_game(folder: Path, seed: int, plays: int) -> tuple[Path, Path, dict]:
    """Photos of a demo game's first plays, one per turn, a profile of its camera, and the
    truth of every square (what the players answer when asked)."""
    import cv2

    from calibration.profile import Profile
    from sim.game import ALPHABET_ROWS, DemoCamera, demo_game
    from sim.render import render_flat, render_frame

    game = demo_game(seed, moves=plays)
    camera = DemoCamera(seed)
    profile = Profile(tileset="en")
    profile.extend(camera.calibration_photo(), ALPHABET_ROWS)
    profile.save(folder / "profile")
    shots = folder / "shots"
    shots.mkdir(parents=True)
    for n, turn in enumerate(game.plays, start=1):
        flat = render_flat(list(turn.rows_after), seed=seed, config=camera.config)
        cv2.imwrite(str(shots / f"turn-{n}.jpg"), render_frame(flat, camera.config,
                                                               seed=seed).image)
    truth = {sq.name: letter for t in game.plays for sq, letter in t.tiles.items()}
    return shots, folder / "profile", truth


class CameraTable:
    """``tilecam run --server`` on a table's photos; answers its unsure letters."""

    def __init__(self, folder: Path, number: int, server: str, event: str, seed: int,
                 plays: int) -> None:
        self.folder, self.number = folder, number
        self.shots, self.profile, self.truth = render_camera_game(folder, seed, plays)
        self.db = folder / "table.sqlite3"
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tilecam", "run", "--host", "127.0.0.1", "--port", "0",
             "--source", str(self.shots), "--profile", str(self.profile), "--db", str(self.db),
             "--server", server, "--event", event, "--table", str(number), "--pin", TABLE_PIN],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=lambda: self.lines.extend(self.process.stdout),
                         daemon=True).start()
        self.base = self.game = ""
        self.cpu = 0.0

    def attend(self) -> None:
        """Find the run's page once it prints it; answer the questions on letters."""
        import re

        if not self.base:
            found = re.search(r"scoreboard:\s+(http://\S+?)/games/(\w+)", "".join(self.lines))
            if not found:
                return
            self.base, self.game = found.group(1), found.group(2)
        try:
            state = call(self.base, "GET", f"/api/games/{self.game}/state")
            for question in state["questions"]:
                square = (question["data"].get("squares") or [None])[0]
                if question["kind"] in ("unsure_letter", "blank_tile") and square in self.truth:
                    call(self.base, "POST", f"/api/games/{self.game}/questions/"
                         f"{question['qid']}/answer", {"answer": self.truth[square]})
        except OSError:
            pass

    def waiting(self) -> int | None:
        if not self.base:
            return None
        try:
            return call(self.base, "GET", "/api/uplink")["waiting"]
        except OSError:
            return None

    def stop(self) -> None:
        self.cpu = tree_cpu(self.process.pid)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# ------------------------------------------------------------------------------ the run


def local_ops(file: Path, game_id: str) -> list[dict]:
    from webui.store import GameStore

    store = GameStore(file)
    try:
        return store.ops(game_id)
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--camera-tables", type=int, default=3)
    parser.add_argument("--camera-plays", type=int, default=3,
                        help="plays photographed per camera table")
    parser.add_argument("--spectators", type=int, default=300)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--interval", type=float, default=20.0,
                        help="seconds between two turns of a replayed table")
    parser.add_argument("--turns", type=int, default=20, help="turns per replayed table")
    parser.add_argument("--kill-worker", action="store_true")
    parser.add_argument("--kill-postgres", action="store_true")
    parser.add_argument("--cut-table", type=int, metavar="N")
    parser.add_argument("--cut-seconds", type=float, default=60.0)
    parser.add_argument("--replay-tables", metavar="CONFIG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay_tables:
        return replay_tables(args.replay_tables)

    from conftest import start_postgres_cluster, workers_of
    from test_table_client import TcpProxy

    try:
        cluster = start_postgres_cluster()
    except BaseException as exc:  # pytest's skip names what is missing
        print(f"bench_club: no PostgreSQL cluster: {exc}", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="tilecam-bench-club-"))
    processes: list[subprocess.Popen] = []
    try:
        url = cluster.new_database()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        serve = subprocess.Popen(
            [sys.executable, "-m", "tilecam", "serve", "--workers", str(args.workers),
             "--host", "127.0.0.1", "--port", str(port), "--db", url, "--quiet"],
            cwd=REPO, stdout=open(folder / "serve.log", "w"),  # noqa: SIM115
            stderr=subprocess.STDOUT)
        processes.append(serve)
        deadline = time.monotonic() + 60
        while len(workers_of(serve.pid)) < args.workers:
            if time.monotonic() > deadline:
                raise SystemExit("tilecam serve did not start")
            time.sleep(0.2)
        while True:
            try:
                call(base, "GET", "/api/games")
                break
            except OSError:
                time.sleep(0.2)
        made = call(base, "POST", "/api/events", {
            "name": "Bench night", "pin": DIRECTOR_PIN,
            "tables": [{"name": f"Table {n}", "players": [f"A{n}", f"B{n}"], "pin": TABLE_PIN}
                       for n in range(1, args.tables + 1)]})
        event_id = made["id"]
        games = {t["number"]: t["game_id"] for t in made["overview"]["tables"]}

        proxy = None
        servers = {n: base for n in games}
        if args.cut_table is not None:
            proxy = TcpProxy(("127.0.0.1", port))
            servers[args.cut_table] = proxy.base

        screens = [Screen(port, f"/api/games/{games[1 + i % args.tables]}/events")
                   for i in range(args.spectators)]
        director = Screen(port, f"/api/events/{event_id}/stream", director=True)
        time.sleep(2.0)  # the streams open

        serve_cpu_before = tree_cpu(serve.pid)
        began = time.time()
        cameras = [CameraTable(folder / f"camera-{n}", n, servers[n], event_id, seed=n,
                               plays=args.camera_plays)
                   for n in range(1, args.camera_tables + 1)]
        replayed = range(args.camera_tables + 1, args.tables + 1)
        config = folder / "replay.json"
        config.write_text(json.dumps({
            "folder": str(folder), "event": event_id, "interval": args.interval,
            "turns": args.turns, "drain_seconds": 180,
            "tables": [{"number": n, "server": servers[n], "seed": n,
                        # spread over one interval, as real tables are never in step
                        "offset": args.interval * (n % 10) / 10} for n in replayed]}))
        replay = subprocess.Popen([sys.executable, str(Path(__file__).resolve()),
                                   "--replay-tables", str(config)], cwd=REPO,
                                  stdout=subprocess.PIPE, text=True)
        processes.append(replay)
        ready = replay.stdout.readline()
        if not ready:
            raise SystemExit("the replayed tables could not join the event")
        started = json.loads(ready)["start_at"]
        play_seconds = args.interval * args.turns
        faults: list[str] = []

        def at(share: float) -> None:
            time.sleep(max(0.0, started + share * play_seconds - time.time()))

        if args.cut_table is not None and proxy is not None:
            at(0.25)
            proxy.cut()
            faults.append(f"table {args.cut_table} cut off at {time.time() - started:.0f} s "
                          f"for {args.cut_seconds:.0f} s")
            threading.Timer(args.cut_seconds, proxy.restore).start()
        if args.kill_worker:
            at(0.4)
            victim = min(workers_of(serve.pid))
            os.kill(victim, signal.SIGKILL)
            faults.append(f"worker {victim} killed at {time.time() - started:.0f} s")
        if args.kill_postgres:
            at(0.6)
            cluster.crash()
            time.sleep(1.0)
            cluster.start()
            faults.append(f"PostgreSQL killed at {time.time() - started:.0f} s, started again")
        while replay.poll() is None:
            for camera in cameras:
                camera.attend()
            time.sleep(0.5)
        replay_report = json.loads(replay.stdout.read().strip().splitlines()[-1])
        deadline = time.monotonic() + 120
        while any(c.waiting() != 0 for c in cameras) and time.monotonic() < deadline:
            for camera in cameras:
                camera.attend()
            time.sleep(0.5)
        time.sleep(2.0)  # the last changes reach the screens
        for camera in cameras:
            camera.stop()
        serve_cpu = tree_cpu(serve.pid) - serve_cpu_before

        # -- what arrived, and when
        latencies: list[float] = []
        problems: list[str] = []
        acknowledged = kept = 0
        local_of = {**replay_report["games"]}
        files = {g: folder / f"table-{n}.sqlite3" for n, g in games.items()
                 if n in replayed}
        for camera in cameras:
            local_of[games[camera.number]] = camera.game
            files[games[camera.number]] = camera.db
        strip = ("seq", "at", "op_id", "client")
        for number, game_id in games.items():
            local = local_ops(files[game_id], local_of[game_id])
            remote = call(base, "GET", f"/api/games/{game_id}/ops")["ops"]
            acknowledged += len(local)
            kept += len(remote)
            ids = [op.get("op_id") for op in remote]
            if len(set(ids)) != len(ids):
                problems.append(f"table {number}: an event twice")
            if [{k: v for k, v in op.items() if k not in strip} for op in remote] != \
                    [{k: v for k, v in op.items() if k not in strip} for op in local]:
                problems.append(f"table {number}: the server's events differ from the table's")
            if ids != [f"{local_of[game_id]}-{op['seq']}" for op in local]:
                problems.append(f"table {number}: events out of order or missing")
            watching = [s for s in screens if game_id in s.seen] + [director]
            for op in local:
                times = [s.first_at(game_id, op["seq"]) for s in watching]
                if None in times:
                    problems.append(f"table {number}: event {op['seq']} missed by a screen")
                    continue
                latencies.append(max(times) - op["at"])
        for screen in [*screens, director]:
            screen.stop = True

        print(f"bench_club: {args.tables} tables ({args.camera_tables} through the camera "
              f"pipeline), {args.spectators} spectators + the director, --workers "
              f"{args.workers}, a turn every {args.interval:g} s, {args.turns} turns per "
              f"replayed table; {time.time() - began:.0f} s")
        for fault in faults:
            print(f"  fault: {fault}")
        if latencies:
            print(f"  event to every screen: median {statistics.median(latencies) * 1000:.0f} ms"
                  f", p95 {percentile(latencies, 0.95) * 1000:.0f} ms, p99 "
                  f"{percentile(latencies, 0.99) * 1000:.0f} ms, max "
                  f"{max(latencies) * 1000:.0f} ms ({len(latencies)} events)")
        replayed_count = max(1, len(replayed))
        print(f"  CPU per table, client side: replayed {replay_report['cpu'] / replayed_count:.2f}"
              " s (table client only), camera " + ", ".join(f"{c.cpu:.1f}" for c in cameras)
              + " s (pipeline + pages + client)")
        print(f"  CPU per table, server side: {serve_cpu / args.tables:.2f} s "
              f"(tilecam serve {serve_cpu:.1f} s in all, surviving processes)")
        print(f"  events acknowledged by the tables {acknowledged}, kept by the server {kept}; "
              f"streams reopened {sum(s.reconnects for s in screens)}")
        print("  every event kept, in order, once" if not problems else
              "  PROBLEMS:\n    " + "\n    ".join(problems[:20]))
        return 0 if not problems else 1
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
