"""The shared corpus of real GCG records (../shared/data/gcg, MANIFEST.csv), replayed.

- every ``clean`` record: every move score and running total reproduced;
- every ``issues`` record: exactly the known discrepancy;
- every MAGPIE negative fixture: rejected with a precise code and line (three accepted, below);
- the scrabscrap tournament game (lettered rows, German tiles): the move-25 discrepancy only, and
  the board after every move as photographed;
- macondo's golden parses: the same words formed by every play;
- canonical GCG written for every clean record reads back to the same game.

Skipped, with the reason, where ../shared is absent.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from scorer.game import EventKind
from scorer.gcg import GCGError, ReplayResult, load_gcg, read_gcg, replay

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GCG_DIR = SHARED / "data" / "gcg"
MANIFEST = GCG_DIR / "MANIFEST.csv"
SCRABSCRAP = SHARED / "data" / "photos" / "scrabscrap-game01"
NO_SHARED = "the shared GCG corpus (../shared/data/gcg/MANIFEST.csv) is not beside the repository"

ROWS = list(csv.DictReader(MANIFEST.open(encoding="utf-8"))) if MANIFEST.exists() else []

#: Codes for a score the record writes differently from the rules.
SCORE_CODES = {
    "score_mismatch", "withdrawal_mismatch", "rack_end_points_incorrect",
    "end_rack_penalty_incorrect",
}  # fmt: skip
TOTAL_CODES = {"cumulative_scoring_error"}


def params(kind: str) -> list:
    rows = [r for r in ROWS if r["replay"].startswith(kind)]
    if not rows:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_SHARED))]
    return [pytest.param(r, id=r["file"].split("/")[-1].removesuffix(".gcg")) for r in rows]


def lettered(row: dict) -> bool:
    return row["file"].startswith("scrabscrap")


def findings(result: ReplayResult | GCGError, codes: set[str] | None = None) -> list[tuple]:
    mismatches = result.mismatches
    return [(m.line, m.code, m.recorded, m.computed) for m in mismatches
            if codes is None or m.code in codes]  # fmt: skip


def load(row: dict, **options) -> ReplayResult:
    return replay(load_gcg(GCG_DIR / row["file"], lettered_rows=lettered(row), **options))


def plays(result: ReplayResult) -> int:
    return sum(1 for _, e in result.pairs if e.kind is EventKind.PLAY)


# ------------------------------------------------------------------ clean records

#: Clean records (every score consistent) about which this reader says more, and why.
CLEAN_REMARKS = {
    # Declares ISO8859-6 but is UTF-8: refused like macondo's own test of this file does
    # (TestParseUnsupportedEncoding); read with the encoding given, it replays clean.
    "domino14__macondo/gcgio__testdata__name_weird_encoding_with_header.gcg": "encoding",
    # A crash test: 9 racks do not hold the tiles their plays place (scores are all right).
    "quackle__quackle/test__positions__multiplayer-crash.gcg": [
        (line, "played_tile_not_in_rack") for line in (7, 8, 9, 13, 15, 16, 18, 19, 20)
    ],
    # '#rack1 AEEIILZ' (copied from incomplete_3.gcg) and '#rack2 AAAELQS' need 4 A; 3 are left.
    "domino14__macondo/gcgio__testdata__incomplete_elise.gcg": [(26, "last_racks_not_in_bag")],
}


@pytest.mark.parametrize("row", params("clean"))
def test_clean_record_reproduces_every_move_and_total(row):
    remark = CLEAN_REMARKS.get(row["file"], [])
    if remark == "encoding":
        with pytest.raises(GCGError) as info:
            load(row)
        assert (info.value.code, info.value.line) == ("unsupported_character_encoding", 1)
        result = load(row, encoding="utf-8")
        remark = []
    else:
        result = load(row)
    for record_event, event in result.pairs:
        assert (record_event.score, record_event.cumulative) == (event.score, event.total), (
            record_event.line, record_event.text)  # fmt: skip
    assert [(m.line, m.code) for m in result.mismatches] == remark
    assert plays(result) == int(row["plays"])


# ------------------------------------------------------------------ records with a known fault


def manifest_discrepancies(row: dict) -> set[tuple[int, int, int]]:
    """(line, recorded, computed) from the score_mismatch column."""
    out = set()
    for line, text in json.loads(row["score_mismatch"]):
        if m := re.search(r"computed (-?\d+) recorded (-?\d+)", text):
            out.add((line, int(m.group(2)), int(m.group(1))))
        elif m := re.search(r"withdraw (-?\d+) vs play (\d+)", text):
            out.add((line, int(m.group(1)), -int(m.group(2))))
        else:
            raise AssertionError(f"unknown manifest entry {text!r}")
    return out


def arithmetic_faults(path: Path, **options) -> set[int]:
    """Lines whose running total is not the player's previous total plus the line's score,
    by nickname, from the recorded numbers alone (what the manifest's total_mismatch counts)."""
    record = read_gcg(path.read_bytes(), **options)
    totals: dict[int, int] = {}
    out = set()
    for e in record.events:
        if totals.get(e.player, 0) + e.score != e.cumulative:
            out.add(e.line)
        totals[e.player] = e.cumulative
    return out


#: What an issues record reports besides its score discrepancy, and why.
ISSUES_REMARKS = {
    # The withdrawn phony NEUENDER: its rack DEENENR has no U (the camera-read racks of this
    # record are unreliable there).
    "scrabscrap__scrabble-scraper-v2/python__test__game03__nu19_johannes-stefan.gcg": [
        (20, "played_tile_not_in_rack")
    ],
}


@pytest.mark.parametrize("row", params("issues"))
def test_issues_record_reports_exactly_the_known_discrepancy(row):
    path = GCG_DIR / row["file"]
    if row["file"].endswith("consonant_heaviness_tendency.gcg"):
        # Both players are 'NoName': the record cannot say whose move each line is (turn order
        # is a guess that challenge bonuses and end-of-game lines break), so it is refused at
        # the second #player line.  The scores themselves are consistent when alternated.
        with pytest.raises(GCGError) as info:
            load(row)
        assert (info.value.code, info.value.line) == ("duplicate_nicknames", 2)
        # Name the second player differently on its line and on every other event line: then
        # every score and running total is right, so the nickname is the record's only fault.
        lines = path.read_text(encoding="utf-8").splitlines()
        events = [i for i, line in enumerate(lines) if line.startswith(">")]
        lines[1] = lines[1].replace("NoName", "NoName2", 1)
        for i in events[1::2]:
            lines[i] = lines[i].replace(">NoName:", ">NoName2:", 1)
        fixed = replay(read_gcg("\n".join(lines) + "\n"))
        assert fixed.ok and plays(fixed) == int(row["plays"])
        return
    result = load(row)
    scores = {(line, rec, comp) for line, _, rec, comp in findings(result, SCORE_CODES)}
    assert scores == manifest_discrepancies(row)
    # Running totals: the manifest counts lines whose total is not the previous total plus the
    # line's score.  Each is reported, except where the total is right and the score token is
    # the wrong one (capp.gcg's '+0' withdrawal), which the score line already reports.
    naive = arithmetic_faults(path, lettered_rows=lettered(row))
    assert len(naive) == int(row["total_mismatch"])
    reported = {line for line, *_ in findings(result, TOTAL_CODES)}
    assert reported <= naive
    assert naive - reported <= {line for line, *_ in scores}
    others = [(m.line, m.code) for m in result.mismatches
              if m.code not in SCORE_CODES | TOTAL_CODES]  # fmt: skip
    assert others == ISSUES_REMARKS.get(row["file"], [])
    assert plays(result) == int(row["plays"])


# ------------------------------------------------------------------ MAGPIE negative fixtures

#: Fixture -> (code, line) of the fault.  MAGPIE's generic MOVE_VALIDATION_ERROR is split into
#: what is wrong (invalid_tile_placement, play_out_of_bounds, malformed_play, ...).
NEGATIVE = {
    "challenge_bonus_rack_malformed": ("rack_malformed", 24),
    "challenge_bonus_without_play": ("challenge_bonus_without_play", 24),
    "description_after_events": ("pragma_succeeded_event", 31),
    "duplicate_names": ("duplicate_names", 3),
    "duplicate_nicknames": ("duplicate_nicknames", 3),
    "empty": ("gcg_empty", 1),
    "encoding_wrong_place": ("misplaced_encoding", 20),
    "end_game_event_before_game_end": ("end_game_event_before_game_end", 18),
    "end_penalty_rack_malformed": ("rack_malformed", 15),
    "end_points_rack_malformed": ("rack_malformed", 45),
    "end_rack_points_incorrect": ("rack_end_points_incorrect", 36),
    "event_after_last_rack": ("event_after_last_rack", 37),
    "exchange_malformed": ("rack_malformed", 6),
    "exchange_not_in_rack": ("exchange_not_in_rack", 6),
    "first_rack_not_in_bag": ("rack_not_in_bag", 13),
    "game_event_off_turn": ("game_event_off_turn", 15),
    # MAGPIE's buffer limit; the file's real fault is that its repeated moves need tiles that
    # are already on the board (Tim's second rack GRUU).
    "game_events_overflow": ("rack_not_in_bag", 19),
    "invalid_challenge_bonus_player_index": ("invalid_challenge_bonus_player_index", 24),
    "invalid_phony_tiles_player_index": ("invalid_phony_tiles_player_index", 22),
    "invalid_tile_placement": ("invalid_tile_placement", 27),
    "last_rack1_not_in_bag": ("rack_not_in_bag", 14),
    "last_rack2_not_in_bag": ("rack_not_in_bag", 13),
    "last_rack_penalty_incorrect": ("end_rack_penalty_incorrect", 17),
    "malformed_play": ("malformed_play", 11),
    "malformed_rack": ("rack_malformed", 30),
    "midgame_rack_not_in_bag": ("rack_not_in_bag", 35),
    "move_before_player": ("game_event_before_player", 3),
    "move_event_after_game_end": ("move_event_after_game_end", 45),
    "no_matching_token": ("no_matching_token", 10),
    "note_before_events": ("note_precedent_event", 4),
    "pass_rack_malformed": ("rack_malformed", 28),
    "phony_tiles_returned_mismatch": ("phony_tiles_returned_mismatch", 22),
    "phony_tiles_returned_with_no_play": ("phony_tiles_returned_without_play", 35),
    "play_out_of_bounds": ("play_out_of_bounds", 18),
    "played_tile_not_in_rack": ("played_tile_not_in_rack", 9),
    "player_does_not_exist": ("player_does_not_exist", 30),
    "player_number_redundant": ("player_number_redundant", 3),
    "redundant_pragma": ("redundant_pragma", 5),
    "six_pass_cumulative_scoring_error": ("cumulative_scoring_error", 17),
    "six_pass_last_rack_malformed": ("played_letters_not_in_rack", 16),
    "standard_cumulative_scoring_error": ("cumulative_scoring_error", 15),
    "unrecognized_game_variant": ("unrecognized_game_variant", 2),
    "unsupported_character_encoding": ("unsupported_character_encoding", 1),
}

#: Accepted on purpose: lexicon_missing is identical to the clean success.gcg (most real records
#: have no #lexicon); line_overflow only has a note line longer than MAGPIE's buffer;
#: oops_all_pragmas is a game with players and no moves yet, which MAGPIE's own test expects to
#: parse (test_success_incomplete).
ACCEPTED = {"lexicon_missing", "line_overflow", "oops_all_pragmas"}


def fixture_name(row: dict) -> str:
    return row["file"].split("/")[-1].removeprefix("test__testdata__").removesuffix(".gcg")


@pytest.mark.parametrize("row", params("negative"))
def test_negative_fixture_is_rejected_with_code_and_line(row):
    name = fixture_name(row)
    assert name in NEGATIVE or name in ACCEPTED, f"no expectation for {name}"
    try:
        result = load(row)
    except GCGError as exc:
        faults = [(exc.code, exc.line)] + [(m.code, m.line) for m in exc.mismatches]
    else:
        faults = [(m.code, m.line) for m in result.mismatches]
    if name in ACCEPTED:
        assert faults == []
    else:
        assert NEGATIVE[name] in faults, faults


# ------------------------------------------------------------------ scrabscrap tournament game

SCRABSCRAP_COPIES = [
    pytest.param(SCRABSCRAP / "nu19_stefan-hanns.gcg", id="photos-copy-latin1"),
    pytest.param(
        GCG_DIR / "scrabscrap__scrabble-scraper-v2" / "python__test__game01__nu19_stefan-hanns.gcg",
        id="corpus-copy-utf8",
    ),
]


@pytest.mark.parametrize("path", SCRABSCRAP_COPIES)
def test_scrabscrap_game_gives_exactly_the_move_25_discrepancy(path):
    if not path.exists():
        pytest.skip(f"{path.name} is not in ../shared")
    result = replay(load_gcg(path, lettered_rows=True))
    assert result.record.tileset.code == "de"
    assert findings(result) == [(28, "score_mismatch", 32, 22)]
    assert result.mismatches[0].text == "13A .ÄLE"
    assert result.final_scores == {"Stefan": 377, "Hanns": 374}


def test_scrabscrap_boards_and_points_after_every_move():
    path = SCRABSCRAP / "nu19_stefan-hanns.gcg"
    if not path.exists():
        pytest.skip("../shared/data/photos/scrabscrap-game01 is absent")
    text = (SCRABSCRAP / "boards_after_each_move.txt").read_text(encoding="utf-8")
    parts = re.split(r"^## after move (\d+).*$", text, flags=re.M)
    boards = {int(parts[i]): parts[i + 1].split() for i in range(1, len(parts), 2)}
    with (SCRABSCRAP / "game.csv").open(encoding="utf-8") as fh:
        moves = [[cell.strip().strip('"') for cell in row] for row in csv.reader(fh)][1:]
    lines = path.read_bytes().split(b"\n")
    assert sorted(boards) == list(range(1, 28)) and len(moves) == 27
    for number in boards:
        # The record's header is 3 lines; move n is on line 3 + n.  The first moves use no
        # umlaut, so the German tile set is given rather than inferred from the letters.
        prefix = b"\n".join(lines[: 3 + number]) + b"\n"
        result = replay(read_gcg(prefix, lettered_rows=True, tileset="de"))
        assert result.game.board.rows() == boards[number], f"board after move {number}"
        event = result.pairs[-1][1]
        points, score1, score2 = (int(x) for x in moves[number - 1][5:8])
        assert (event.score, result.game.scores) == (points, [score1, score2]), number


# ------------------------------------------------------------------ macondo golden parses


@pytest.mark.parametrize("name", ["doug_v_emely", "josh2", "vs_andy", "vs_frentz"])
def test_cross_words_agree_with_macondo(name):
    golden_path = GCG_DIR / "domino14__macondo" / "golden_json" / f"gcgio__testdata__{name}.json"
    if not golden_path.exists():
        pytest.skip(NO_SHARED)
    golden = json.loads(golden_path.read_text(encoding="utf-8"))
    expected = [(e["words_formed"], e["score"]) for e in golden["events"] if "words_formed" in e]
    result = replay(load_gcg(GCG_DIR / "domino14__macondo" / f"gcgio__testdata__{name}.gcg"))
    ours = [([w.text for w in e.play.words], e.score)
            for _, e in result.pairs if e.kind is EventKind.PLAY]  # fmt: skip
    assert ours == expected


# ------------------------------------------------------------------ write -> read


@pytest.mark.parametrize("row", params("clean"))
def test_canonical_gcg_reads_back_to_the_same_game(row):
    encoding = "utf-8" if CLEAN_REMARKS.get(row["file"]) == "encoding" else None
    result = load(row, encoding=encoding)
    text = result.to_gcg()
    again = replay(read_gcg(text))
    view = [(e.kind, e.player, e.score, e.total, e.rack, e.tiles, e.count, e.note,
             None if e.play is None else (e.play.position, e.play.placement))
            for e in result.game.events]  # fmt: skip
    view_again = [(e.kind, e.player, e.score, e.total, e.rack, e.tiles, e.count, e.note,
                   None if e.play is None else (e.play.position, e.play.placement))
                  for e in again.game.events]  # fmt: skip
    assert view_again == view
    assert again.record.players == result.record.players
    assert again.to_gcg() == text
