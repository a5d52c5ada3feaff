"""``tilecam serve``: its options and defaults, and serving HTTPS with a self-signed certificate."""

from __future__ import annotations

import argparse
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tilecam.commands import serve

REPO = Path(__file__).resolve().parents[1]


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_defaults_listen_on_the_network_at_port_5000():
    args = parse()
    assert (args.host, args.port, args.db, args.cert, args.key) == ("0.0.0.0", 5000, None, None,
                                                                      None)
    args = parse("--host", "127.0.0.1", "--port", "8080", "--db", "x.sqlite3")
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8080, Path("x.sqlite3"))


def test_default_database_is_in_the_users_data_folder(monkeypatch, tmp_path):
    from webui.store import default_database

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_database() == tmp_path / "tilecam" / "games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_database() == tmp_path / ".local" / "share" / "tilecam" / "games.sqlite3"


def test_cert_without_key_is_refused(capsys, tmp_path):
    assert serve.run(parse("--cert", str(tmp_path / "c.pem"))) == 2
    assert "--cert and --key go together" in capsys.readouterr().err
    missing = parse("--cert", str(tmp_path / "c.pem"), "--key", str(tmp_path / "k.pem"))
    assert serve.run(missing) == 2
    assert "does not exist" in capsys.readouterr().err


def test_serves_https_with_a_self_signed_certificate(tmp_path):
    pytest.importorskip("scorer.game", reason="scorer.game is not there yet")
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    # The one-liner the phone-camera page documents.
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=tilecam", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "tilecam", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(tmp_path / "g.sqlite3"), "--cert", str(cert), "--key", str(key),
         "--quiet"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False  # the certificate names "tilecam", not 127.0.0.1
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}/", context=context,
                                            timeout=2) as response:
                    assert response.status == 200
                    assert b"tilecam" in response.read()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        with pytest.raises(OSError):  # plain HTTP is not served on that port
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=10)
    assert f"serving on https://127.0.0.1:{port}/" in out
    assert process.returncode == 0  # SIGTERM stops it cleanly
