"""``tilecam analyse`` from the command line: the table, the JSON, the word list, the errors."""

from __future__ import annotations

import json
from pathlib import Path

from tilecam.cli import main

DEMO = Path(__file__).resolve().parents[1] / "tilecam" / "data" / "demo_game.gcg"

HEAD = "#player1 ada Ada\n#player2 ben Ben\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["analyse", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_table_of_plays_and_a_summary_per_player(capsys):
    status, out, err = run(capsys, str(DEMO))
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{DEMO}: Ada v Ben, judged by ENABLE (bundled) (the record says ENABLE)"
    assert lines[2].split() == ["turn", "player", "rack", "played", "best", "with", "these",
                                "tiles", "best", "from", "the", "rack", "left"]
    # Ada opened with HORN from EHNORSU: UNHORSE was there, 64 points more.
    assert lines[3].split() == ["1", "Ada", "EHNORSU", "HORN", "8F", "14", "HORN", "8F", "14",
                                "UNHORSE", "8B", "78", "bingo", "64"]
    assert any("UGLI F3 20* withdrawn" in line for line in lines)
    assert any(line.startswith("* forms a word ENABLE (bundled) lacks") for line in lines)
    summary = lines[lines.index(next(x for x in lines if x.startswith("player  plays"))):]
    assert summary[1].split()[:2] == ["Ada", "6"] and summary[2].split()[:2] == ["Ben", "6"]


def test_json_has_every_play_and_the_word_lists(capsys):
    status, out, _ = run(capsys, "--json", str(DEMO))
    assert status == 0
    data = json.loads(out)
    assert data["lexicon"] == "ENABLE (bundled)" and data["record_lexicon"] == "ENABLE"
    assert data["players"] == ["Ada", "Ben"] and len(data["plays"]) == 12
    first = data["plays"][0]
    assert first["rack"] == "EHNORSU" and first["points_left"] == 64
    assert first["best_from_rack"][0]["notation"] == "UNHORSE 8B 78"
    assert first["bingos_missed"][0]["bingo"] is True
    assert [s["name"] for s in data["summaries"]] == ["Ada", "Ben"]


def test_a_word_list_of_ones_own_and_a_partial_rack(tmp_path, capsys):
    words = write(tmp_path, "words.txt", "horn\nfarm\nfa\n")
    record = write(tmp_path, "g.gcg", HEAD + ">ada: EHNORSU 8F HORN +14 14\n"
                                            ">ben: AFM H6 FA.M +9 9\n")
    status, out, _ = run(capsys, "--lexicon", str(words), str(record))
    assert status == 0
    assert out.splitlines()[0] == f"{record}: ada v ben, judged by {words}"
    rows = [line.split() for line in out.splitlines()]
    assert ["2", "ben", "-", "FA(R)M", "H6", "9", "FA(R)M", "H6", "9", "-", "0"] in rows
    assert any(line.startswith("rack -: not known") for line in out.splitlines())


def test_the_next_turn_of_an_unfinished_game(tmp_path, capsys):
    record = write(tmp_path, "g.gcg", HEAD + ">ada: AEHNORT 8D HORNET +26 26\n#rack2 AEINRST\n")
    status, out, _ = run(capsys, str(record))
    assert status == 0
    assert any(line.startswith("to move: ben with AEINRST: ") and " bingo" in line
               for line in out.splitlines())


def test_a_record_the_rules_disagree_with_is_analysed_with_a_warning(tmp_path, capsys):
    record = write(tmp_path, "g.gcg", HEAD + ">ada: EHNORSU 8F HORN +16 16\n")
    status, out, err = run(capsys, str(record))
    assert status == 0 and "disagrees with the rules in 1 place" in err
    assert "HORN 8F 14" in out


def test_unreadable_records_and_missing_word_lists_exit_2(tmp_path, capsys):
    broken = write(tmp_path, "broken.gcg", HEAD + ">cy: EHNORSU 8F HORN +14 14\n")
    status, _, err = run(capsys, str(broken))
    assert status == 2 and "broken.gcg: line 3" in err
    status, _, err = run(capsys, str(tmp_path / "missing.gcg"))
    assert status == 2 and "unreadable" in err
    german = write(tmp_path, "de.gcg",
                   "#lexicon GERMAN\n" + HEAD + ">ada: ÄHNORSU 8F HORN +14 14\n")
    status, _, err = run(capsys, str(german))
    assert status == 2 and "--lexicon FILE" in err
    status, _, err = run(capsys, "--lexicon", str(tmp_path / "nowords.txt"), str(DEMO))
    assert status == 2 and "nowords.txt" in err
