"""Session set-up shared by the tests."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import numpy as np
import pytest


@pytest.fixture(scope="session", autouse=True)
def stock_letters() -> None:
    """Readers without a profile use the stock letter samples: learn them first when this
    machine has not (``setup.sh`` normally has), so that results do not depend on whether it
    had.  Without the typefaces installed the tests run with Tesseract alone."""
    from calibration.fonts import FontsMissing, learn_fonts
    from sim.typefaces import photograph_letters
    from vision.stock import stock_samples

    if stock_samples() is None:
        try:
            learn_fonts(photograph_letters)
        except FontsMissing:
            pass


@pytest.fixture
def drawn_letters() -> dict[str, np.ndarray]:
    """Normalised glyphs (24x24) drawn by hand, for classifiers to learn and read: an I (a
    bar), a T, an L and an E (a comb), each as its letter."""
    bar = np.zeros((24, 24), np.float32)
    bar[2:-2, 10:14] = 1
    tee = bar.copy()
    tee[2:5, 3:-3] = 1
    ell = bar.copy()
    ell[-5:-2, 10:-3] = 1
    comb = np.zeros((24, 24), np.float32)
    comb[2:-2, 6:10] = 1
    for row in (2, 11, 19):
        comb[row : row + 3, 6:-4] = 1
    return {"I": bar, "T": tee, "L": ell, "E": comb}


# -- the databases the game store runs on -------------------------------------------------------
#
# Tests of the store and the pages take the ``database`` fixture: each runs once on a SQLite
# file and once on a PostgreSQL database of a throwaway cluster (initdb in a temporary folder,
# started once per test session, a fresh database per test).


def postgres_programs() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: on the PATH, or where Debian's ``postgresql``
    package puts them (one folder per major version, newest first), or None."""
    initdb = shutil.which("initdb")
    if initdb is not None:
        return Path(initdb).parent
    found = [p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")]

    def major(folder: Path) -> float:
        try:
            return float(folder.parent.name)
        except ValueError:
            return 0.0

    return max(found, key=major, default=None)


@dataclass
class PostgresCluster:
    """A PostgreSQL server of the tests' own, reached through a socket in its folder."""

    folder: Path
    programs: Path
    #: The command prefix that runs a program as the cluster's owner (empty: as ourselves).
    as_owner: list[str]
    databases: int = 0
    schemas: int = 0

    def url(self, database: str = "postgres", **params: str) -> str:
        query = "&".join(f"{k}={quote(v)}" for k, v in {"host": str(self.folder),
                                                          "user": "postgres", **params}.items())
        return f"postgresql:///{database}?{query}"

    def admin(self, sql: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """A new, empty database (about 0.4 s); returns its URL."""
        self.databases += 1
        name = f"test_{self.databases}"
        self.admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def new_schema(self) -> str:
        """The URL of a new, empty schema of the shared test database: as good as a database
        of its own for the store, and made in milliseconds (a database takes half a second).
        Connections through the URL are named after the schema (see :meth:`drop_schema`)."""
        if not self.schemas:
            self.admin("CREATE DATABASE tests")
        self.schemas += 1
        name = f"test_{self.schemas}"
        self.admin(f"CREATE SCHEMA {name}", "tests")
        return self.url("tests", options=f"-c search_path={name}", application_name=name)

    def drop_schema(self, url: str) -> None:
        name = parse_qs(urlsplit(url).query)["application_name"][0]
        # Connections a test's stores left open would hold the schema's tables.
        self.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                   f" WHERE application_name = '{name}'", "tests")
        self.admin(f"DROP SCHEMA {name} CASCADE", "tests")

    def crash(self) -> None:
        """Kill the server outright (SIGKILL), as a crash or an out-of-memory killer would."""
        pid = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)

    def start(self, timeout: float = 30.0) -> None:
        """Start the server (again: after a crash, once the old processes are gone)."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            done = self.run("pg_ctl", "-D", str(self.folder / "data"),
                            "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start")
            if done.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL did not start: {done.stderr.strip()}")
            time.sleep(0.2)  # the killed server's backends are still leaving

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, program: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*self.as_owner, str(self.programs / program), *args],
                              capture_output=True, text=True, timeout=120)


def start_postgres_cluster() -> PostgresCluster:
    """initdb and start a cluster in a new temporary folder, or skip saying why not."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (./setup.sh installs it)")
    programs = postgres_programs()
    if programs is None:
        pytest.skip("PostgreSQL is not installed (initdb is neither on the PATH nor in "
                    "/usr/lib/postgresql/*/bin; ./setup.sh installs Debian's postgresql)")
    as_owner: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="tilecam-postgres-"))
    if os.geteuid() == 0:
        # PostgreSQL refuses to run as root: the cluster belongs to the postgres user that
        # Debian's package creates, and so does its folder.
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(folder)
            pytest.skip("running as root, and there is no 'postgres' user to run PostgreSQL as"
                        " (PostgreSQL refuses to run as root)")
        runuser = shutil.which("runuser")
        if runuser is None:
            shutil.rmtree(folder)
            pytest.skip("running as root without runuser to start PostgreSQL as 'postgres'")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_owner = [runuser, "-u", "postgres", "--"]
    cluster = PostgresCluster(folder, programs, as_owner)
    data = folder / "data"
    done = cluster.run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust",
                       "--no-locale", "-E", "UTF8", "--no-sync")
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {done.stderr.strip()}")
    # Only a socket in the cluster's own folder, no TCP port: tests running at the same time
    # cannot collide.  fsync off: the tests kill processes, never the machine.
    with open(data / "postgresql.conf", "a", encoding="utf-8") as conf:
        conf.write(f"\nlisten_addresses = ''\nunix_socket_directories = '{folder}'\n"
                   "fsync = off\nfull_page_writes = off\nmax_connections = 200\n")
    try:
        cluster.start(timeout=0)
    except RuntimeError as exc:
        log = (folder / "server.log").read_text(errors="replace")[-2000:]
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"{exc}\n{log}") from None
    return cluster


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    cluster = start_postgres_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path) -> Iterator[str]:
    """What ``--db`` would be given: a SQLite file, or the URL of a new PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "games.sqlite3")
        return
    cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
    url = cluster.new_schema()
    yield url
    cluster.drop_schema(url)


def children_of(parent: int) -> set[int]:
    """The process ids of a process's children."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.add(int(entry.name))
    return found


def workers_of(master: int) -> set[int]:
    """The process ids of gunicorn's workers, of its master: the children forked from it, which
    have its command line (the camera pipelines' supervisor, also its child, has another)."""
    def command(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    own = command(master)
    return {pid for pid in children_of(master) if command(pid) == own}


@dataclass
class ClubServer:
    """A running ``tilecam serve --workers``: its address and its master process."""

    base: str
    process: subprocess.Popen
    cluster: PostgresCluster

    def workers(self) -> set[int]:
        return workers_of(self.process.pid)


def server_answers(base: str, timeout: float = 1.0) -> bool:
    """Whether a tilecam server at ``base`` answers a request for its games."""
    import urllib.request

    try:
        urllib.request.urlopen(base + "/api/games", timeout=timeout).close()
        return True
    except OSError:
        return False


@contextmanager
def running_club_server(cluster: PostgresCluster, log_path: Path, extra_args: Sequence[str] = (),
                        env: Mapping[str, str] | None = None) -> Iterator[ClubServer]:
    """``tilecam serve --workers 2 [extra_args]`` on a new database of ``cluster`` (with
    ``env`` as its environment when given).  At the end it must stop cleanly on SIGTERM,
    having logged no traceback."""
    pytest.importorskip("gunicorn", reason="gunicorn is not installed (./setup.sh installs it)")
    import socket
    import sys
    import time

    url = cluster.new_database()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(log_path, "w+")  # noqa: SIM115 - read back at the end
    process = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "serve", "--workers", "2", "--threads", "16",
         "--host", "127.0.0.1", "--port", str(port), "--db", url, "--quiet", *extra_args],
        cwd=Path(__file__).resolve().parents[1], stdout=log, stderr=subprocess.STDOUT,
        text=True, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while len(workers_of(process.pid)) < 2 or not server_answers(base, timeout=2):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log.seek(0)
            raise RuntimeError(f"tilecam serve --workers 2 did not start:\n{log.read()}")
        time.sleep(0.1)
    try:
        yield ClubServer(base, process, cluster)
    finally:
        # Stopped whether the test passed or not: a server left behind outlives the run.
        process.terminate()
        try:
            process.wait(timeout=20)
        finally:
            process.kill()
            log.seek(0)
            output = log.read()
            log.close()
    assert "serving on http://127.0.0.1:" in output
    assert "Traceback" not in output, output
    assert process.returncode == 0  # SIGTERM stops it cleanly


@pytest.fixture
def club_server(postgres_cluster, tmp_path) -> Iterator[ClubServer]:
    with running_club_server(postgres_cluster, tmp_path / "server.log") as server:
        yield server


@pytest.fixture
def club_server_of_its_own(tmp_path) -> Iterator[ClubServer]:
    """As ``club_server``, on a PostgreSQL cluster of its own: for tests that crash it."""
    cluster = start_postgres_cluster()
    try:
        with running_club_server(cluster, tmp_path / "server.log") as server:
            yield server
    finally:
        cluster.stop()
