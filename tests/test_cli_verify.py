"""``tilecam verify`` and ``tilecam demo`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilecam.cli import main

SHARED_GCG = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "gcg"
DEMO = Path(__file__).resolve().parents[1] / "tilecam" / "data" / "demo_game.gcg"

HEAD = "#player1 ada Ada\n#player2 ben Ben\n"
GOOD = HEAD + ">ada: EHNORSU 8F HORN +14 14\n>ben: AFGILMT H6 FA.M +9 9\n"
MISSCORED = HEAD + ">ada: EHNORSU 8F HORN +14 14\n>ben: AFGILMT H6 FA.M +12 12\n"
MALFORMED = HEAD + ">ada: EHNORSU 8F HORN +14 14\n>cy: AFGILMT H6 FA.M +9 9\n"
LETTERED = HEAD + ">ada: EHNORSU H6 HORN +14 14\n>ben: AFGILMT 8F FA.M +9 9\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["verify", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_consistent_files_print_ok_and_exit_0(tmp_path, capsys):
    status, out, _ = run(capsys, str(write(tmp_path, "good.gcg", GOOD)), str(DEMO))
    assert status == 0
    assert out.splitlines() == [
        f"{tmp_path / 'good.gcg'}: OK (ada 14, ben 9)",
        f"{DEMO}: OK (Ada 119, Ben 95)",
    ]


def test_a_disagreement_prints_line_recorded_computed_and_play_and_exits_1(tmp_path, capsys):
    status, out, _ = run(capsys, str(write(tmp_path, "good.gcg", GOOD)),
                         str(write(tmp_path, "bad.gcg", MISSCORED)))  # fmt: skip
    assert status == 1
    assert "good.gcg: OK" in out
    assert "bad.gcg: 1 discrepancy" in out
    assert "line 4: ben H6 FA.M: recorded 12, computed 9 [score_mismatch]" in out
    assert "final by the rules: ada 14, ben 9 (recorded: ada 14, ben 12)" in out


def test_an_unreadable_file_names_line_and_code_and_exits_2(tmp_path, capsys):
    status, out, err = run(
        capsys,
        str(write(tmp_path, "bad.gcg", MISSCORED)),
        str(write(tmp_path, "broken.gcg", MALFORMED)),
        str(tmp_path / "missing.gcg"),
    )
    assert status == 2
    assert "broken.gcg: ERROR line 4 [player_does_not_exist]: 'cy' is not a declared" in out
    assert "missing.gcg: ERROR line 0 [unreadable]" in out
    assert "Traceback" not in out + err


def test_json_output(tmp_path, capsys):
    status, out, _ = run(capsys, "--json", str(write(tmp_path, "bad.gcg", MISSCORED)),
                         str(write(tmp_path, "broken.gcg", MALFORMED)))  # fmt: skip
    assert status == 2
    bad, broken = json.loads(out)
    assert bad["ok"] is False and bad["errors"] == []
    assert bad["final_scores"] == {"ada": 14, "ben": 9}
    (mismatch,) = bad["mismatches"]
    assert {k: mismatch[k] for k in ("line", "recorded", "computed")} == {
        "line": 4, "recorded": 12, "computed": 9}  # fmt: skip
    assert broken["errors"] == [{"line": 4, "code": "player_does_not_exist",
                                 "message": "'cy' is not a declared nickname"}]  # fmt: skip
    assert broken["ok"] is False and broken["final_scores"] == {}


def test_harmless_faults_are_printed_as_warnings_and_leave_the_status(tmp_path, capsys):
    sloppy = HEAD + "#player2 ben Ben\n\n" + GOOD.removeprefix(HEAD).rstrip("\n") + "  "
    path = str(write(tmp_path, "sloppy.gcg", sloppy))
    status, out, _ = run(capsys, path)
    assert status == 0
    assert out.splitlines() == [
        f"{path}: OK (ada 14, ben 9)",
        "  warning: line 3: repeated_pragma: #player2 repeats line 2",
        "  warning: line 4: blank_line: an empty line",
        "  warning: line 6: missing_final_newline: the last line has no line break",
        "  warning: line 6: trailing_whitespace: spaces or tabs after the end of the line",
    ]
    status, out, _ = run(capsys, "--json", path, str(write(tmp_path, "good.gcg", GOOD)))
    sloppy_result, good_result = json.loads(out)
    assert status == 0 and sloppy_result["ok"] and good_result["warnings"] == []
    assert sloppy_result["warnings"][0] == {
        "line": 3, "code": "repeated_pragma", "message": "#player2 repeats line 2"}  # fmt: skip
    assert [w["line"] for w in sloppy_result["warnings"]] == [3, 4, 6, 6]


def test_lettered_rows_flag(tmp_path, capsys):
    path = str(write(tmp_path, "lettered.gcg", LETTERED))
    status, out, _ = run(capsys, "--json", "--lettered-rows", path)
    assert status == 0 and json.loads(out)[0]["final_scores"] == {"ada": 14, "ben": 9}


def test_garbage_never_ends_in_a_traceback(tmp_path, capsys):
    garbage = [
        b"\x00\xff\xfe" * 50, b">>>::: --\n#\n>a:\n", b"#player1\n#player2 \n", bytes(range(256)),
    ]
    paths = [str(write(tmp_path, f"g{i}.gcg", data)) for i, data in enumerate(garbage)]
    status, out, err = run(capsys, *paths)
    assert status == 2
    assert out.count("ERROR line") == len(garbage)
    assert "Traceback" not in out + err and "internal_error" not in out


def test_real_records(capsys):
    scrabscrap = SHARED_GCG / "scrabscrap__scrabble-scraper-v2"
    game01 = scrabscrap / "python__test__game01__nu19_stefan-hanns.gcg"
    capp = SHARED_GCG / "quackle__quackle" / "quackleio__iotest__capp.gcg"
    if not game01.exists():
        pytest.skip("the shared GCG corpus (../shared/data/gcg) is absent")
    status, out, _ = run(capsys, "--json", "--lettered-rows", str(game01), str(capp))
    assert status == 1
    first, second = json.loads(out)
    assert [(m["line"], m["recorded"], m["computed"]) for m in first["mismatches"]] == [
        (28, 32, 22)]  # fmt: skip
    assert first["final_scores"] == {"Stefan": 377, "Hanns": 374}
    assert [(m["line"], m["recorded"], m["computed"]) for m in second["mismatches"]] == [
        (14, 0, -45)]  # fmt: skip


def test_demo_prints_every_move_and_the_final_scores(capsys):
    assert main(["demo", "--record"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "HORN 8F 14" in lines[1]
    assert any("PASTE 10F 25 with FARMS" in line for line in lines)
    assert any("(M)OB 9H 16 with NOT, BE" in line for line in lines)
    assert any("BIT 11E 16 with PI, AT" in line for line in lines)
    assert lines[-1] == "Final scores: Ada 119, Ben 95 (Ada wins)"
    assert main(["demo", "--record", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["final_scores"] == {"Ada": 119, "Ben": 95} and data["winner"] == ["Ada"]
    assert data["moves"][0]["play"]["notation"] == "HORN 8F 14"
