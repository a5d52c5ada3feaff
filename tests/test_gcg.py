"""scorer.gcg: reading every event and pragma, the faults it names, replay checks, writing.

Self-contained (records written here); the real corpus is in test_gcg_corpus.py.
"""

from __future__ import annotations

from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.game import EventKind, Game, GameError, Rules
from scorer.gcg import GCGError, Header, read_gcg, replay, tileset_for, write_gcg
from scorer.squares import Square
from scorer.tiles import TileSet

HEAD = "#player1 ada Ada\n#player2 ben Ben\n"
OPENING = (
    ">ada: EHNORSU 8F HORN +14 14\n"
    ">ben: AFGILMT H6 FA.M +9 9\n"
    ">ada: AEEPSTU 10F PASTE +25 39\n"
    ">ben: BGILOTX 9H .OB +16 25\n"
)


def tiny_set() -> TileSet:
    return TileSet("xx", "tiny", {"A": 10, "B": 10}, {"A": 1, "B": 3}, frozenset({"A"}))


def check(text: str | bytes, **options):
    return replay(read_gcg(text, **options))


def fault(text: str | bytes, **options) -> tuple[str, int]:
    with pytest.raises(GCGError) as info:
        check(text, **options)
    return info.value.code, info.value.line


def found(text: str | bytes, **options) -> list[tuple[int, str, object, object]]:
    return [(m.line, m.code, m.recorded, m.computed) for m in check(text, **options).mismatches]


def demo_text() -> str:
    data = resources.files("tilecam").joinpath("data/demo_game.gcg").read_bytes()
    return data.decode("utf-8")


# ------------------------------------------------------------------ reading


def test_a_clean_record_replays_with_scores_and_cross_words():
    result = check(HEAD + OPENING)
    assert result.ok and result.final_scores == {"ada": 39, "ben": 25}
    words = [[w.text for w in e.play.words] for _, e in result.pairs]
    assert words == [["HORN"], ["FARM"], ["PASTE", "FARMS"], ["MOB", "NOT", "BE"]]
    assert [e.play.seed_notation for _, e in result.pairs][3] == "(M)OB 9H 16"


def test_header_pragmas_and_unknown_ones():
    text = (
        "#character-encoding UTF-8\n#player1 ada Ada Lovelace\n#player2 ben Ben\n"
        "#title A title\n#description Long text here\n#id io.example abc123\n"
        "#lexicon NWL23\n#game-type classic\n#board-layout CrosswordGame\n#style wsc\n"
        "#tile-set english set\n#incomplete\n#frobnicate yes\n" + OPENING
    )
    record = read_gcg(text)
    assert record.players[0].name == "Ada Lovelace" and record.title == "A title"
    assert record.game_id == "io.example abc123" and record.lexicon == "NWL23"
    assert record.incomplete and record.tileset.code == "en"
    assert [(k, v) for _, k, v in record.other_pragmas] == [("frobnicate", "yes")]


def test_encodings_crlf_and_bom():
    latin1 = (HEAD.replace("Ada", "Adélaïde") + OPENING).encode("latin-1")
    assert read_gcg(latin1).players[0].name == "Adélaïde"
    utf8 = (HEAD.replace("Ada", "Adélaïde") + OPENING).encode("utf-8")
    assert read_gcg(utf8).players[0].name == "Adélaïde"
    declared = b"#character-encoding ISO-8859-1\r\n" + latin1.replace(b"\n", b"\r\n")
    record = read_gcg(declared)
    assert record.players[0].name == "Adélaïde" and record.encoding == "latin-1"
    assert check(declared).final_scores == {"ada": 39, "ben": 25}
    assert read_gcg(b"\xef\xbb\xbf" + utf8).players[1].nickname == "ben"
    assert fault(b"#character-encoding ASCII\n" + utf8) == ("unsupported_character_encoding", 1)
    assert fault(b"#character-encoding UTF-8\n#player1 \xe9 x\n") == ("undecodable", 2)
    assert read_gcg(b"#character-encoding ISO8859-6\n" + utf8, encoding="utf-8").players


def test_quirks_of_real_files():
    text = HEAD + (
        ">ada:   EHNORSU   8f   HORN   +14   14   HORN\n"  # padding, lower case, trailing tokens
        ">ben: AFGILMT h6 FARM +9 9\n"  # played-through letter written as the letter
        ">ada: AEEPSTU 10F PASTE +25 39 PASTE, FARMS\n"
        ">ben: BGILOTX 9H (M)OB 16 25\n"  # parentheses, unsigned score
        ">ada: 11E BIT +16 55\n"  # no rack
    )
    result = check(text)
    assert result.ok and result.final_scores == {"ada": 55, "ben": 25}


def test_four_players_and_rack_pragmas():
    text = (
        "#player1 a A\n#player2 b B\n#player3 c C\n#player4 d D\n"
        ">a: EHNORSU 8F HORN +14 14\n>b: AFGILMT H6 FA.M +9 9\n"
        ">c: AEEPSTU 10F PASTE +25 25\n>d: BGILOTX 9H .OB +16 16\n"
        "#rack1 DEESU\n#rack3 EU??\n"
    )
    result = check(text)
    assert result.final_scores == {"a": 14, "b": 9, "c": 25, "d": 16}
    assert result.game.turn == 0 and result.game.known_rack(2) == "EU??"
    assert result.record.header.last_racks == {0: "DEESU", 2: "EU??"}


def test_notes_single_multi_line_and_continued():
    text = HEAD + OPENING.replace(
        ">ben: AFGILMT", "#note one\n#note two\nthree\n  four\n>ben: AFGILMT"
    )
    result = check(text)
    assert result.pairs[0][1].note == "one\ntwo\nthree\nfour"


def test_lettered_rows_option_and_pragma():
    lettered = HEAD + (
        ">ada: EHNORSU H6 HORN +14 14\n"  # row H, column 6, across (standard: 8F)
        ">ben: AFGILMT 8F FA.M +9 9\n"  # column 8, row F, down (standard: H6)
    )
    by_option = check(lettered, lettered_rows=True)
    by_pragma = check(lettered.replace(HEAD, HEAD + "#orientation lettered-rows\n"))
    standard = check(HEAD + ">ada: EHNORSU H6 HORN +14 14\n>ben: AFGILMT 8F FA.M +9 9\n")
    assert by_option.final_scores == by_pragma.final_scores == standard.final_scores
    assert by_option.game.board.rows() == standard.game.board.transposed().rows()
    assert by_option.game.board.rows()[7][5:9] == "HORN"
    out = write_gcg(by_option.game, lettered_rows=True)
    assert "#orientation lettered-rows" in out and ">ada: EHNORSU H6 HORN +14 14" in out
    assert read_gcg(out).lettered_rows


def test_tile_sets_from_lexicon_distribution_argument_or_letters():
    german = HEAD + ">ada: ÄRGERN? 8G ÄRGER +18 18\n"
    assert read_gcg("#lexicon GERMAN\n" + german).tileset.code == "de"
    assert read_gcg("#lexicon D25WL04\n" + german).tileset.code == "de"
    assert read_gcg("#tile-distribution german\n" + german).tileset.code == "de"
    assert read_gcg(german).tileset.code == "de"  # inferred from Ä
    assert read_gcg("#lexicon OSPS49\n" + HEAD).tileset.code == "pl"
    assert read_gcg(HEAD + OPENING, tileset="de").tileset.code == "de"
    assert check("#lexicon GERMAN\n" + german).pairs[0][1].score == (6 + 1 + 2 + 1 + 1) * 2
    assert tileset_for("CSW21") is None and tileset_for("OSPS49 (Polish)") == "pl"


# ------------------------------------------------------------------ faults that stop a record

ERRORS = [
    ("", "gcg_empty", 1),
    ("\n  \n", "gcg_empty", 1),
    ("#player1 ada A\n#player2 ada B\n", "duplicate_nicknames", 2),
    ("#player1 ada Ada\n#player2 ben Ada\n", "duplicate_names", 2),
    ("#player1 ada A\n#player1 ben B\n", "player_number_redundant", 2),
    ("#player1 ada A\n>ada: EHNORSU 8F HORN +14 14\n", "game_event_before_player", 2),
    ("#player1 ada A\n#character-encoding UTF-8\n", "misplaced_encoding", 2),
    ("#title a\n#title b\n", "redundant_pragma", 2),
    ("#game-type wordsmog\n", "unrecognized_game_variant", 1),
    ("#board-layout SuperCrosswordGame\n", "unsupported_board_layout", 1),
    (HEAD + "#note early\n", "note_precedent_event", 3),
    (HEAD + OPENING + "#title late\n", "pragma_succeeded_event", 7),
    (HEAD + "hello\n", "no_matching_token", 3),
    (HEAD + ">ada: EHNORSU HORN +14 14\n", "no_matching_token", 3),
    (HEAD + ">ada: EHNORSU 8F HORN +14\n", "no_matching_token", 3),
    (HEAD + ">ada EHNORSU 8F HORN +14 14\n", "no_matching_token", 3),
    (HEAD + ">cy: EHNORSU 8F HORN +14 14\n", "player_does_not_exist", 3),
    (HEAD + ">ada: EHN0RSU 8F HORN +14 14\n", "rack_malformed", 3),
    (HEAD + ">ada: EHNORSUA 8F HORN +14 14\n", "rack_malformed", 3),
    (HEAD + ">ada: EHNORSU -E.H +0 0\n", "rack_malformed", 3),
    (HEAD + ">ada: EHNORSU 8F H0RN +14 14\n", "malformed_play", 3),
    (HEAD + ">ada: EHNORSU 8Z HORN +14 14\n", "invalid_tile_placement", 3),
    (HEAD + ">ada: EHNORSU M70 HORN +14 14\n", "invalid_tile_placement", 3),
    (HEAD + ">ada: EHNORSU 8M HORNS +14 14\n", "play_out_of_bounds", 3),
    (HEAD + ">ada: EHNORSU 8A HORN +14 14\n", "first_play_off_star", 3),
    (HEAD + ">ada: QQQNORS 8F HORN +14 14\n", "rack_not_in_bag", 3),
    (HEAD + ">ada: 8G ZZZ +60 60\n", "tiles_not_in_bag", 3),
    (HEAD + OPENING + ">ada: BDEINTU 1A BIT +5 44\n", "not_connected", 7),
    (HEAD + ">ada: EHNORSU 8F HORN +14 14\n>ada: AFGILMT H6 FA.M +9 23\n",
     "game_event_off_turn", 4),
    (HEAD + ">ada: EHNORSU - +0 0\n>ada: (challenge) +5 5\n", "challenge_bonus_without_play", 4),
    (HEAD + ">ada: EHNORSU 8F HORN +14 14\n>ben: (challenge) +5 5\n",
     "invalid_challenge_bonus_player_index", 4),
    (HEAD + ">ada: EHNORSU - +0 0\n>ada: EHNORSU -- +0 0\n",
     "phony_tiles_returned_without_play", 4),
    (HEAD + ">ada: EHNORSU 8F HORN +14 14\n>ben: AFGILMT -- -14 0\n",
     "invalid_phony_tiles_player_index", 4),
    (HEAD + OPENING + ">ada: (time) -10 29\n", "end_game_event_before_game_end", 7),
    (HEAD + OPENING + ">ada: (ABC) +14 53\n", "end_game_event_before_game_end", 7),
    (HEAD + OPENING + ">ada: ABC (ABC) -7 32\n", "end_game_event_before_game_end", 7),
    (HEAD + OPENING + "#rack1 ABC\n>ada: 11E BIT +16 55\n", "event_after_last_rack", 8),
    (HEAD + OPENING + "#rack1 ABC\n#rack1 ABD\n", "redundant_pragma", 8),
    (HEAD + OPENING + "#rack3 ABC\n", "player_does_not_exist", 7),
    (HEAD + OPENING + "#rack2 ZZ\n", "rack_not_in_bag", 7),
]


@pytest.mark.parametrize(("text", "code", "line"), ERRORS)
def test_faults_are_named_with_their_line(text, code, line):
    assert fault(text) == (code, line)


def went_out(extra: str) -> str:
    """A tiny-set game where ben goes out (bag empty) on line 4, then ``extra``."""
    return HEAD + ">ada: AAABBBA 8C AAABBB +26 26\n>ben: AAAAAAB I2 AAAAAAB +76 76\n" + extra


def test_events_after_the_game_ended():
    tiny = tiny_set()
    assert fault(went_out(">ada: ABBBBBB 9A BB +9 35\n"), tileset=tiny) == (
        "move_event_after_game_end", 5)  # fmt: skip
    assert fault(went_out(">ada: ABBBBBB -A +0 26\n"), tileset=tiny) == (
        "move_event_after_game_end", 5)  # fmt: skip
    # A pass right after the last play is the turn lost to a failed challenge (double rule).
    result = check(went_out(">ada: ABBBBBB - +0 26\n>ben: (ABBBBBB) +38 114\n"), tileset=tiny)
    assert result.ok and [e.kind for _, e in result.pairs][-2:] == [
        EventKind.LOST_TURN, EventKind.END_RACK_POINTS]  # fmt: skip
    assert fault(went_out(">ben: (ABBBBBB) +38 114\n>ben: (ABBBBBB) +38 152\n"),
                 tileset=tiny) == ("end_points_repeated", 6)  # fmt: skip


# ------------------------------------------------------------------ what replay reports


def test_score_mismatch_carried_into_the_totals_is_reported_once():
    text = HEAD + OPENING.replace("PASTE +25 39", "PASTE +35 49") + ">ada: BDEINTU 11E BIT +16 65\n"
    assert found(text) == [(5, "score_mismatch", 35, 25)]
    assert check(text).final_scores["ada"] == 55


def test_wrong_running_total_reported_once_when_the_next_line_is_right():
    text = HEAD + OPENING.replace("PASTE +25 39", "PASTE +25 43") + ">ada: BDEINTU 11E BIT +16 55\n"
    assert found(text) == [(5, "cumulative_scoring_error", 43, 39)]


def test_wrong_running_total_carried_forward_is_reported_once():
    text = HEAD + OPENING.replace("PASTE +25 39", "PASTE +25 43") + ">ada: BDEINTU 11E BIT +16 59\n"
    assert found(text) == [(5, "cumulative_scoring_error", 43, 39)]


def test_withdrawal_written_plus_zero_with_the_right_total():
    text = HEAD + OPENING + ">ada: BDEINTU 11E BIT +16 55\n>ada: BDEINTU -- +0 39\n"
    assert found(text) == [(8, "withdrawal_mismatch", 0, -16)]
    assert check(text).final_scores["ada"] == 39


def test_withdrawal_of_what_a_misscored_play_was_credited_is_consistent():
    text = HEAD + OPENING + ">ada: BDEINTU 11E BIT +20 59\n>ada: BDEINTU -- -20 39\n"
    assert found(text) == [(7, "score_mismatch", 20, 16)]


def test_pass_and_exchange_must_score_zero():
    text = HEAD + ">ada: EHNORSU - +5 5\n>ben: AFGILMT -AF +0 0\n"
    assert found(text) == [(3, "score_mismatch", 5, 0)]


def test_end_of_game_both_conventions():
    tiny = tiny_set()
    modern = went_out(">ben: (ABBBBBB) +38 114\n")
    assert check(modern, tileset=tiny).final_scores == {"ada": 26, "ben": 114}
    older = went_out(">ben: (ABBBBBB) +19 95\n>ada: ABBBBBB (ABBBBBB) -19 7\n")
    result = check(older, tileset=tiny)
    assert result.ok and result.final_scores == {"ada": 7, "ben": 95}
    wrong = went_out(">ben: (ABBBBBB) +28 104\n")
    assert found(wrong, tileset=tiny) == [(5, "rack_end_points_incorrect", 28, 38)]
    bad_tiles = went_out(">ben: (AABBBBB) +38 114\n")
    assert found(bad_tiles, tileset=tiny) == [(5, "end_rack_tiles_mismatch", "AABBBBB", "ABBBBBB")]


def test_end_of_game_after_scoreless_turns():
    passes = "".join(
        f">{p}: {r} - +0 {s}\n" for p, r, s in [
            ("ada", "ADEESTU", 39), ("ben", "AGILRTX", 25)] * 3
    )  # fmt: skip
    ends = ">ada: ADEESTU (ADEESTU) -8 31\n>ben: AGILRTX (AGILRTX) -15 10\n"
    text = HEAD + OPENING + passes + ends
    result = check(text)
    assert result.ok and result.final_scores == {"ada": 31, "ben": 10}
    wrong = text.replace("(ADEESTU) -8 31", "(ADEESTU) -9 30")
    assert found(wrong) == [(13, "end_rack_penalty_incorrect", -9, -8)]
    mixed = text.replace("ADEESTU (ADEESTU)", "ADEESTU (ADEESTI)")
    assert ("played_letters_not_in_rack", "ADEESTU", "ADEESTI") in [
        (m.code, m.recorded, m.computed) for m in check(mixed).mismatches
    ]


def test_rack_statements_that_contradict_the_play():
    text = HEAD + ">ada: EHNOSTU 8F HORN +14 14\n>ben: AFGILMT -QF +0 0\n"
    assert [(m.line, m.code) for m in check(text).mismatches] == [
        (3, "played_tile_not_in_rack"), (4, "exchange_not_in_rack")]  # fmt: skip
    phony = HEAD + OPENING + ">ada: BDEINTU 11E BIT +16 55\n>ada: BDEINTX -- -16 39\n"
    assert [(m.line, m.code) for m in check(phony).mismatches] == [
        (8, "phony_tiles_returned_mismatch")]  # fmt: skip


def test_challenge_bonus_and_time_penalty_lines():
    tiny = tiny_set()
    text = went_out(">ben: (challenge) +5 81\n>ben: (ABBBBBB) +38 119\n>ada: (time) -10 16\n")
    result = check(text, tileset=tiny)
    assert result.ok and result.final_scores == {"ada": 16, "ben": 119}
    assert fault(went_out(">ada: (time) -10 16\n"), tileset=tiny) == ("premature_time_penalty", 5)


def test_partial_findings_travel_with_a_fault():
    text = HEAD + ">ada: EHNORSU 8F HORN +99 99\n>ben: 1A XX +4 4\n"
    with pytest.raises(GCGError) as info:
        check(text)
    assert info.value.code == "not_connected"
    assert [(m.line, m.code) for m in info.value.mismatches] == [(3, "score_mismatch")]


# ------------------------------------------------------------------ writing


def test_the_bundled_record_is_canonical():
    text = demo_text()
    result = check(text)
    assert result.ok
    assert result.to_gcg() == text


def event_view(game: Game) -> list[tuple]:
    return [
        (e.kind, e.player, e.score, e.total, e.rack, e.tiles, e.count, e.note,
         None if e.play is None else (e.play.position, e.play.gcg_word, e.play.placement))
        for e in game.events
    ]  # fmt: skip


def test_every_event_kind_round_trips():
    game = Game(["Ann Lee", "Bob"], tiny_set(), Rules(challenge="five"))
    game.play("8C", "AAABBB", rack="AAABBBA", note="opening\n#not a pragma\n>nor an event")
    game.challenge_bonus(5)
    game.play("I2", "AAAAAAB")
    game.lose_turn(0, note="challenged and lost")
    game.end_game()
    game.time_penalty(0, 2)
    game.adjust(1, -3, "scoring slip")
    text = write_gcg(game, Header(names=["Ann Lee", "Bob"], title="round trip"))
    again = replay(read_gcg(text, tileset=tiny_set()))
    assert again.ok and event_view(again.game) == event_view(game)
    assert again.record.players[0].nickname == "Ann_Lee" and again.record.title == "round trip"
    assert again.to_gcg() == text


def test_multi_letter_tiles_round_trip():
    game = Game(["A", "B"], "es")
    game.play("8G", "[CH]E", rack="[CH]E[C]HAOS")
    game.play("H6", "a[LL].")
    game.play("9E", "[C]HAS")  # a C and an H that are not the CH tile
    game.pass_turn(rack="[C]H[RR]")
    text = write_gcg(game)
    assert ">A: [CH]E[C]HAOS 8G [CH]E " in text and " 9E [C]HAS " in text
    again = replay(read_gcg(text))
    assert again.record.tileset.code == "es" and event_view(again.game) == event_view(game)


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["play", "play", "place", "pass", "exchange", "withdraw", "bonus",
                         "lose", "note"]),
        st.integers(0, 224), st.booleans(), st.text("ABEIRSTaq", min_size=1, max_size=5),
        st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")),
                max_size=20),
    ),  # fmt: skip
    max_size=20,
)


def line_of_tiles(game: Game, index: int, across: bool, letters: str) -> dict[Square, str]:
    """New tiles on the empty squares along a line that starts next to the board's tiles
    (through the centre on an empty board), so that most generated plays are legal."""
    cells = game.board.cells
    if not any(cells):
        start = (7, 7 - index % 2) if across else (7 - index % 2, 7)
    else:
        anchors = [
            (r, c) for r in range(15) for c in range(15)
            if cells[r * 15 + c] is None and any(
                0 <= r + a < 15 and 0 <= c + b < 15 and cells[(r + a) * 15 + c + b]
                for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1))
            )
        ]  # fmt: skip
        start = anchors[index % len(anchors)]
    tiles: dict[Square, str] = {}
    r, c = start
    for letter in letters:
        while r < 15 and c < 15 and cells[r * 15 + c] is not None:
            r, c = (r, c + 1) if across else (r + 1, c)
        if r >= 15 or c >= 15:
            break
        tiles[Square(r, c)] = letter
        r, c = (r, c + 1) if across else (r + 1, c)
    return tiles


@settings(max_examples=120, deadline=None)
@given(ACTIONS)
def test_write_then_read_gives_the_same_game(actions):
    game = Game(["Ann", "Ben"], rules=Rules(challenge="five"))
    for name, index, across, letters, note in actions:
        note = " ".join(note.split()) or None
        square = Square(index // 15, index % 15)
        column = "ABCDEFGHIJKLMNO"[square.col]
        position = f"{square.row + 1}{column}" if across else f"{column}{square.row + 1}"
        try:
            if name == "play":
                game.place(line_of_tiles(game, index, across, letters), note=note)
            elif name == "place":
                game.play(position, letters, note=note)
            elif name == "pass":
                game.pass_turn(rack=letters.upper().replace("Q", "?"), note=note)
            elif name == "exchange":
                game.exchange(letters.upper(), note=note)
            elif name == "withdraw":
                game.withdraw(note=note)
            elif name == "bonus":
                game.challenge_bonus(note=note)
            elif name == "lose":
                game.lose_turn(note=note)
            else:
                game.adjust(index % 2, index % 7 - 3, note or "fix")
        except GameError:
            pass
    text = write_gcg(game)
    again = replay(read_gcg(text))
    assert again.ok
    assert event_view(again.game) == event_view(game)
    assert again.to_gcg() == text


def test_seed_sheet_notation_reads_into_a_play():
    from scorer.notation import parse_seed, seed_notation

    game = Game(["Ada", "Ben"])
    for text in ("HORN 8F 14", "FA(R)M H6 9", "PASTE 10F 25", "(M)OB 9H 16", "BIT 11E 16"):
        seed = parse_seed(text)
        event = game.play(seed.position, seed.word)
        assert (seed_notation(event), event.score) == (text, seed.score)
    for bad in ("HORN", "HO(RN 8F", "(HORN) 8F", "H0RN 8F", "HORN 8Z 1"):
        with pytest.raises(ValueError):
            parse_seed(bad)
