"""scorer.gcg forgiving about how a record is written, strict about the game, keeping pragmas.

- each harmless fault (tests/data/gcg_faults/, written for these tests) is read as meant, with a
  warning naming its line, and gives the same game as the record without it;
- anything that could change who played what, or a score, stays a GCGError with code and line;
- write_gcg(replay(read_gcg(f)).game, header) keeps every pragma the game does not use, in
  order and in its place, and reads back without warnings;
- over the shared corpus (MANIFEST.csv): the harmless faults removed, every record keeps its
  verdict, and its kept pragmas survive a round trip.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from scorer.game import Game
from scorer.gcg import (
    LOST_TURN_MARK,
    GCGError,
    GCGWarning,
    Header,
    Pragma,
    ReplayResult,
    load_gcg,
    read_gcg,
    replay,
    write_gcg,
)

FAULTS = Path(__file__).parent / "data" / "gcg_faults"
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "gcg"

#: The four moves every fixture holds, written without a fault: two players, then the moves.
CLEAN = (FAULTS / "clean.gcg").read_text(encoding="utf-8")
HEAD = "".join(CLEAN.splitlines(keepends=True)[:2])
OPENING = CLEAN.removeprefix(HEAD)

#: Fixture -> the (line, code) of each warning.
WARNINGS = {
    "clean": [],
    "repeated_pragmas": [(6, "repeated_pragma"), (7, "repeated_pragma"),
                         (8, "repeated_pragma"), (14, "repeated_pragma")],
    "repeated_description": [(4, "repeated_pragma")],
    "trailing_whitespace": [(1, "trailing_whitespace")],
    "blank_lines": [(3, "blank_line")],
    "no_final_newline": [(6, "missing_final_newline")],
    "indented_lines": [(2, "indented_line")],
    "unused_pragmas": [],
    "everything": [(2, "trailing_whitespace"), (6, "repeated_pragma"), (7, "blank_line"),
                   (11, "indented_line"), (18, "missing_final_newline")],
}  # fmt: skip

#: Every warning code the reader gives.
CODES = ("trailing_whitespace", "blank_line", "missing_final_newline", "repeated_pragma",
         "indented_line")  # fmt: skip

#: Pragmas the writer writes from the game and the header, not as the record had them.
WRITTEN = {
    "character-encoding", "player1", "player2", "title", "description", "id", "lexicon",
    "tile-distribution", "orientation",
}  # fmt: skip


def fixture(name: str) -> Path:
    return FAULTS / f"{name}.gcg"


def game_view(result: ReplayResult) -> list[tuple]:
    return [(e.kind, e.player, e.score, e.total, e.rack, e.note,
             None if e.play is None else (e.play.position, e.play.placement))
            for e in result.game.events]  # fmt: skip


def placed_pragmas(text: str) -> list[tuple[int, str]]:
    """(events before it, line) for each pragma line not written from the game, notes included
    (a note's continuation line counts as '#note ...'); 0 events before it: in the header.  The
    lost-turn mark is the event's kind, which the writer marks where the reader inferred it."""
    out: list[tuple[int, str]] = []
    where = 0
    in_note = False
    for raw in re.split(r"\r\n|\r|\n", text):
        line = " ".join(raw.split())
        if not line:
            continue
        if line.startswith(">"):
            where, in_note = where + 1, False
        elif line.startswith("#"):
            keyword = line[1:].split(" ", 1)[0].lower()
            in_note = keyword == "note"
            if keyword not in WRITTEN and line != f"#note {LOST_TURN_MARK}":
                out.append((where, line))
        elif in_note:
            out.append((where, f"#note {line}"))
    # A pragma repeated with the same words says nothing more: written once.
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------ harmless faults


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_a_harmless_fault_is_read_as_meant_with_a_warning_naming_its_line(name):
    result = replay(load_gcg(fixture(name)))
    assert [(w.line, w.code) for w in result.warnings] == WARNINGS[name]
    assert all(isinstance(w, GCGWarning) and str(w).startswith(f"line {w.line}: {w.code}: ")
               for w in result.warnings)  # fmt: skip
    # The warnings leave the verdict alone: the same game as the record written cleanly.
    clean = replay(read_gcg(CLEAN))
    assert result.ok and result.final_scores == clean.final_scores == {"ada": 39, "ben": 25}
    assert [v[:5] for v in game_view(result)] == [v[:5] for v in game_view(clean)]


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_export_of_import_keeps_every_unused_pragma_in_order_and_in_place(name):
    source = fixture(name).read_text(encoding="utf-8")
    result = replay(read_gcg(source))
    out = write_gcg(result.game, result.record.header)
    assert placed_pragmas(out) == placed_pragmas(source)
    again = replay(read_gcg(out))
    # Canonical output carries no harmless fault; a second, different #description stays.
    expected = [(5, "repeated_pragma")] if name == "repeated_description" else []
    assert [(w.line, w.code) for w in again.warnings] == expected
    assert game_view(again) == game_view(result)
    assert write_gcg(again.game, again.record.header) == out


def test_the_unused_pragmas_fixture_written_back():
    result = replay(load_gcg(fixture("unused_pragmas")))
    out = write_gcg(result.game, result.record.header)
    assert out.splitlines() == [
        "#character-encoding UTF-8", "#player1 ada Ada", "#player2 ben Ben",
        "#id org.example 42", "#lexicon NWL23",
        # Kept header pragmas, in their order, after the ones written from the header.
        "#game-type classic", "#board-layout CrosswordGame", "#frobnicate yes please",
        "#tile-set english set", "#incomplete", "#style club",
        ">ada: EHNORSU 8F HORN +14 14",
        "#note HORN on the star", "#time 0:42", "#note a second note", "#rack ABC",
        ">ben: AFGILMT H6 FA.M +9 9",
        "#rack EHNORSU",  # a '#rack' line between events, no longer dropped
        ">ada: AEEPSTU 10F PASTE +25 39",
        "#note PASTE", "also FARMS", "#clock 12:00",
        ">ben: BGILOTX 9H .OB +16 25",
        "#rack1 DEESU", "#rack2 GILTX", "#end here",
    ]  # fmt: skip
    assert result.record.other_pragmas == [
        (7, "frobnicate", "yes please"), (14, "time", "0:42"), (16, "rack", "ABC"),
        (18, "rack", "EHNORSU"), (22, "clock", "12:00"), (26, "end", "here"),
    ]  # fmt: skip


def test_a_fault_on_many_lines_is_one_warning_naming_them():
    (warning,) = read_gcg(fixture("trailing_whitespace").read_bytes()).warnings
    assert str(warning) == (
        "line 1: trailing_whitespace: spaces or tabs after the end of the line "
        "(also on lines 3, 4, 6)"
    )
    many = HEAD.replace("\n", " \n") + "".join(line + " \n" for line in OPENING.splitlines())
    (warning,) = read_gcg(many).warnings
    assert warning.message.endswith("(also on lines 2, 3, 4, 5, 6)")
    long = "".join(f"#x{i} y \n" for i in range(14)) + HEAD
    assert read_gcg(long).warnings[0].message.endswith("10, 11 and 3 more)")


def test_repeats_that_say_the_same_are_harmless_and_dropped_on_export():
    record = read_gcg(fixture("repeated_pragmas").read_bytes())
    assert [str(w) for w in record.warnings] == [
        "line 6: repeated_pragma: #title repeats line 4",
        "line 7: repeated_pragma: #player2 repeats line 3",
        "line 8: repeated_pragma: #lexicon repeats line 5",
        "line 14: repeated_pragma: #rack1 repeats line 13",
    ]
    out = replay(record).to_gcg()
    assert out.count("#title Club night") == out.count("#rack1 DEESU") == 1
    assert read_gcg(out).warnings == []


def test_a_different_description_is_kept_a_different_title_stays_an_error():
    record = read_gcg(fixture("repeated_description").read_bytes())
    assert record.description == "Round 3 of the club league"
    assert record.kept_pragmas == (
        Pragma("description", "Played on the blue board", after=0, line=4),
    )
    out = replay(record).to_gcg()
    assert "#description Round 3 of the club league\n#description Played on the blue board\n" in out
    with pytest.raises(GCGError) as info:
        read_gcg(HEAD + "#title Club night\n#title Cup final\n" + OPENING)
    assert (info.value.code, info.value.line) == ("redundant_pragma", 4)
    assert "contradicts line 3" in info.value.message


def test_an_indented_line_inside_a_note_stays_the_notes_text():
    result = replay(load_gcg(fixture("indented_lines")))
    assert result.game.events[1].note == "FARM\n>ada: this line belongs to the note"
    assert [e.player for e in result.game.events] == [0, 1, 0, 1]


def test_a_game_shorter_than_the_record_still_writes_every_kept_pragma():
    record = read_gcg(fixture("unused_pragmas").read_bytes())
    game = replay(record).game
    game.undo()
    game.undo()
    # '#clock' followed the third event, now undone: it comes after the last one left.
    assert write_gcg(game, record.header).splitlines()[-6:] == [
        ">ben: AFGILMT H6 FA.M +9 9", "#rack EHNORSU", "#clock 12:00", "#rack1 DEESU",
        "#rack2 GILTX", "#end here",
    ]  # fmt: skip


def test_kept_pragmas_in_a_header_of_a_new_game():
    game = Game(["Ann", "Bob"])
    game.play("8F", "HORN", rack="EHNORSU")
    header = Header(kept_pragmas=(Pragma("event", "Club cup"), Pragma("time", "0:42", after=1),
                                  Pragma("end", "here", after=1, after_racks=True)),
                    last_racks={0: "ABC"})  # fmt: skip
    assert write_gcg(game, header).splitlines()[-5:] == [
        "#event Club cup", ">Ann: EHNORSU 8F HORN +14 14", "#time 0:42", "#rack1 ABC",
        "#end here",
    ]  # fmt: skip


# ------------------------------------------------------------------ strict about the game

STILL_ERRORS = [
    # Who the players are, whose move a line is.
    (HEAD + "#player1 ann Ann\n" + OPENING, "player_number_redundant", 3),
    (HEAD + ">Ada: EHNORSU 8F HORN +14 14\n", "player_does_not_exist", 3),
    (HEAD + "   hello\n" + OPENING, "no_matching_token", 3),
    # What the game is: word list, variant, racks.
    (HEAD + "#lexicon NWL23\n#lexicon CSW21\n" + OPENING, "redundant_pragma", 4),
    (HEAD + "#game-type classic\n#game-type wordsmog\n" + OPENING, "redundant_pragma", 4),
    (HEAD + OPENING + "#rack1 DEESU\n#rack1 DEESV\n", "redundant_pragma", 8),
    (HEAD + OPENING + "#title late\n", "pragma_succeeded_event", 7),
    # Scores and moves.
    (HEAD + ">ada: EHNORSU 8F HORN +14\n", "no_matching_token", 3),
    (HEAD + ">ada: EHNORSU 8F HORN +14 14\n\n>ada: AFGILMT H6 FA.M +9 23\n",
     "game_event_off_turn", 5),
]


@pytest.mark.parametrize(("text", "code", "line"), STILL_ERRORS)
def test_what_changes_the_game_stays_an_error_with_code_and_line(text, code, line):
    with pytest.raises(GCGError) as info:
        replay(read_gcg(text))
    assert (info.value.code, info.value.line) == (code, line)


def test_an_error_carries_the_warnings_met_before_it():
    text = HEAD + "\n>ada: EHNORSU 8F HORN +14 14 \n>cy: AFGILMT H6 FA.M +9 9\n"
    with pytest.raises(GCGError) as info:
        read_gcg(text)
    assert info.value.code == "player_does_not_exist"
    assert [(w.line, w.code) for w in info.value.warnings] == [
        (3, "blank_line"), (4, "trailing_whitespace")]  # fmt: skip
    with pytest.raises(GCGError) as info:
        replay(read_gcg(HEAD + "\n>ada: EHNORSU 8A HORN +14 14\n"))
    assert info.value.code == "first_play_off_star"
    assert [(w.line, w.code) for w in info.value.warnings] == [(3, "blank_line")]


# ------------------------------------------------------------------ the shared corpus

ROWS = (list(csv.DictReader((CORPUS / "MANIFEST.csv").open(encoding="utf-8")))
        if (CORPUS / "MANIFEST.csv").exists() else [])  # fmt: skip


def corpus_params() -> list:
    if not ROWS:
        reason = "the shared GCG corpus (../shared/data/gcg/MANIFEST.csv) is absent"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(r, id=r["file"].split("/")[-1].removesuffix(".gcg")) for r in ROWS]


def verdict(data: bytes, **options) -> tuple:
    """What a record comes to: its error (code, line, findings before it) or its findings."""
    try:
        result = replay(read_gcg(data, **options))
    except GCGError as exc:
        return ("error", exc.code, exc.line, [(m.line, m.code) for m in exc.mismatches])
    return ("read", [(m.line, m.code, m.recorded, m.computed) for m in result.mismatches],
            result.final_scores)  # fmt: skip


def without_harmless_faults(data: bytes) -> bytes:
    """The record with no spaces at line ends and a final line break (line numbers kept)."""
    lines = re.split(rb"\r\n|\r|\n", data)
    if lines[-1] == b"":
        lines.pop()
    return b"\n".join(line.rstrip() for line in lines) + b"\n"


@pytest.mark.parametrize("row", corpus_params())
def test_every_corpus_record_keeps_its_verdict_and_its_pragmas(row):
    options = {"lettered_rows": row["file"].startswith("scrabscrap")}
    data = (CORPUS / row["file"]).read_bytes()
    tidy = without_harmless_faults(data)
    assert verdict(data, **options) == verdict(tidy, **options)
    try:
        result = replay(read_gcg(data, **options))
    except GCGError as exc:
        assert {w.code for w in exc.warnings} <= set(CODES)
        return
    assert {w.code for w in result.warnings} <= set(CODES)
    assert {w.code for w in replay(read_gcg(tidy, **options)).warnings} <= {"blank_line"}
    out = result.to_gcg()
    again = read_gcg(out, **options)
    assert again.warnings == []
    assert [(str(p), p.after, p.notes_before, p.after_racks) for p in again.kept_pragmas] == [
        (str(p), p.after, p.notes_before, p.after_racks) for p in result.record.kept_pragmas]
    assert placed_pragmas(out) == placed_pragmas(data.decode(result.record.encoding))

