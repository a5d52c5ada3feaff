"""``tilecam check``: output, exit status, and warnings about a word list's junk lines."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

from tilecam.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_all_valid_exit_0(capsys):
    assert main(["check", "qat", "Xi", "ZYZZYVA"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["QAT: valid", "XI: valid", "ZYZZYVA: valid"]


def test_any_invalid_exit_1(capsys):
    assert main(["check", "qat", "xyzzy"]) == 1
    assert capsys.readouterr().out.splitlines() == ["QAT: valid", "XYZZY: not valid"]


def test_own_lexicon_with_junk_warns_on_stderr(tmp_path, capsys):
    lines = ["qi", "c4t", "za", "", "two words", "ärger", "x1", "y2", "z3", "w4"]
    path = tmp_path / "mine.txt.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    assert main(["check", "--lexicon", str(path), "QI", "za", "Ärger"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["QI: valid", "ZA: valid", "ÄRGER: valid"]
    assert "warning" in captured.err
    assert str(path) in captured.err
    assert "6 lines" in captured.err
    # The first five line numbers, then an ellipsis for the sixth.
    assert "lines 2, 5, 7, 8, 9, ..." in captured.err


def test_clean_lexicon_prints_no_warning(tmp_path, capsys):
    path = tmp_path / "mine.txt"
    path.write_text("# comment\nqi\n")
    assert main(["check", "--lexicon", str(path), "qi", "qat"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["QI: valid", "QAT: not valid"]
    assert captured.err == ""


def test_unreadable_lexicon_exit_2_names_the_file(tmp_path, capsys):
    missing = tmp_path / "missing.txt"
    assert main(["check", "--lexicon", str(missing), "qi"]) == 2
    captured = capsys.readouterr()
    assert str(missing) in captured.err
    assert captured.out == ""


def test_subprocess_exit_codes(tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tilecam", "check", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )

    ok = run("qat", "xu")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines() == ["QAT: valid", "XU: valid"]
    bad = run("xyzzy")
    assert bad.returncode == 1, bad.stderr
    assert bad.stdout.strip() == "XYZZY: not valid"
    unreadable = run("--lexicon", str(tmp_path / "nope.txt"), "qat")
    assert unreadable.returncode == 2
    assert "nope.txt" in unreadable.stderr
