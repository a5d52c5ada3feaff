"""Placement rules and scoring (scorer.rules): one test per rule, plus a transposition property."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.board import Board
from scorer.rules import (
    BINGO_BONUS,
    IllegalPlay,
    Placement,
    check_placement,
    parse_position,
    score_play,
    split_tiles,
)
from scorer.squares import Direction, Square
from scorer.tiles import TileSet

EN = TileSet.named("en")
EMPTY_ROW = "." * 15


def board_with(*rows: tuple[int, str]) -> Board:
    """A board with some rows (1-based number, 15-character string) filled in."""
    grid = [EMPTY_ROW] * 15
    for number, text in rows:
        grid[number - 1] = text
    return Board.from_rows(grid)


def play(board: Board, position: str, word: str):
    return score_play(board, Placement.from_position(position, word, board, EN), EN)


def code_of(board: Board, tiles: dict[str, str]) -> str:
    placement = Placement.of({Square.parse(sq): t for sq, t in tiles.items()})
    with pytest.raises(IllegalPlay) as info:
        score_play(board, placement, EN)
    return info.value.code


# ------------------------------------------------------------------ placement rules


def test_first_play_must_cover_the_centre_star():
    assert code_of(Board(), {"A1": "A", "B1": "T"}) == "first_play_off_star"


def test_first_play_needs_two_tiles():
    assert code_of(Board(), {"H8": "A"}) == "first_play_one_tile"


def test_tiles_must_be_in_one_line():
    board = board_with((8, ".......HORN...."))
    assert code_of(board, {"G7": "A", "H9": "B"}) == "not_in_line"


def test_line_must_be_unbroken():
    board = board_with((8, ".......HORN...."))
    assert code_of(board, {"G9": "A", "I9": "T", "K9": "S"}) == "gap"


def test_a_gap_filled_by_board_tiles_is_fine():
    board = board_with((8, ".......HORN...."))
    scored = score_play(
        board, Placement.of({Square.parse("G8"): "T", Square.parse("L8"): "S"}), EN
    )
    assert scored.main.text == "THORNS"


def test_later_plays_must_touch_the_board():
    board = board_with((8, ".......HORN...."))
    assert code_of(board, {"A1": "A", "B1": "T"}) == "not_connected"


def test_cannot_place_on_an_occupied_square():
    board = board_with((8, ".......HORN...."))
    assert code_of(board, {"H8": "A", "H9": "T"}) == "square_taken"


def test_two_tiles_on_one_square():
    placement = Placement(((Square(7, 7), "A"), (Square(7, 7), "B")))
    with pytest.raises(IllegalPlay) as info:
        check_placement(Board(), placement, EN)
    assert info.value.code == "duplicate_square"


def test_no_tiles():
    with pytest.raises(IllegalPlay) as info:
        check_placement(Board(), Placement(()), EN)
    assert info.value.code == "no_tiles"


def test_letters_must_belong_to_the_tile_set_and_blanks_must_be_named():
    assert code_of(Board(), {"H8": "Ä", "I8": "T"}) == "unknown_letter"
    assert code_of(Board(), {"H8": "?", "I8": "T"}) == "unknown_letter"


def test_word_running_off_the_board_is_that_fault_first():
    board = board_with((8, ".......HORN...."))
    with pytest.raises(IllegalPlay) as info:
        Placement.from_position("H9", ".PILATES", board, EN)
    assert info.value.code == "off_board"


def test_played_through_dot_must_be_on_a_tile():
    with pytest.raises(IllegalPlay) as info:
        Placement.from_position("8H", ".A", Board(), EN)
    assert info.value.code == "played_through_mismatch"


def test_played_through_letter_written_as_the_letter_or_in_parentheses():
    board = board_with((8, ".......HORN...."))
    for word in ("T....S", "THORNS", "T(HORN)S"):
        placement = Placement.from_position("8G", word, board, EN)
        assert [str(sq) for sq in placement.squares] == ["G8", "L8"], word


def test_bad_positions():
    for text in ("8", "Z8", "8Z", "M70", "16A"):
        with pytest.raises(IllegalPlay) as info:
            parse_position(text)
        assert info.value.code in ("bad_position", "off_board"), text


def test_position_order_gives_the_direction_and_case_does_not_matter():
    assert parse_position("8d") == (Square(7, 3), Direction.ACROSS)
    assert parse_position("d8") == (Square(7, 3), Direction.DOWN)


# ------------------------------------------------------------------ scoring


def test_worked_example_scores():
    board = Board()
    expected = [("8F", "HORN", 14), ("H6", "FA.M", 9), ("10F", "PASTE", 25)]
    for position, word, score in expected:
        scored = play(board, position, word)
        assert scored.score == score, word
        board.place(scored.placement.as_dict())
    assert [w.text for w in play(board, "9H", ".OB").words] == ["MOB", "NOT", "BE"]


def test_letter_premium_counts_in_both_words():
    # D8 is a double-letter square; the new tile there belongs to the across and down word.
    board = board_with((7, "...A..........."))
    scored = score_play(board, Placement.of({Square.parse("D8"): "X", Square.parse("E8"): "I"}), EN)
    texts = {w.text: w.score for w in scored.words}
    assert texts == {"XI": 8 * 2 + 1, "AX": 1 + 8 * 2}
    assert scored.score == 17 + 17


def test_premiums_only_under_new_tiles():
    # H8 (the star, a double word) holds an old tile: it doubles nothing now.
    board = board_with((8, ".......AT......"))
    assert play(board, "8H", "..E").score == 3


def test_two_word_premiums_multiply():
    # E5 and K5 are both double-word squares: the word across them counts x4.
    board = board_with((5, ".....BCDEG....."))
    scored = play(board, "5E", "A.....F")
    letters = 1 + 3 + 3 + 2 + 1 + 2 + 4
    assert scored.main.score == letters * 4


def test_two_triple_words_make_nine():
    board = board_with((1, ".AAAAAA........"))
    scored = play(board, "1A", "B......C")
    assert scored.main.score == (3 + 6 + 3) * 9


def test_blank_scores_zero_but_keeps_the_word_premium():
    scored = play(Board(), "8G", "qI")  # blank q on G8, I on the star (double word)
    assert scored.score == (0 + 1) * 2
    assert scored.main.text == "QI"


def test_bingo_bonus_for_seven_tiles_and_the_nine_tile_variant():
    seven = play(Board(), "8B", "RETAINS")
    assert seven.bingo and seven.score == 8 * 2 + BINGO_BONUS
    board = Board()
    eight = score_play(
        board, Placement.from_position("8A", "STEARINE", board, EN), EN,
        bingo_sizes=frozenset({7, 8, 9}),
    )  # fmt: skip
    assert eight.bingo and eight.score >= BINGO_BONUS
    not_bingo = score_play(board, Placement.from_position("8A", "STEARINE", board, EN), EN)
    assert not not_bingo.bingo


def test_one_tile_play_main_word_follows_the_stated_direction():
    board = board_with((8, ".......AT......"))
    across = play(board, "8H", "..S")
    assert across.main.text == "ATS" and across.cross == ()
    down = play(board, "H7", "Z.")  # stated down: ZA is the main word
    assert down.main.text == "ZA" and down.main.direction is Direction.DOWN
    inferred = score_play(board, Placement.of({Square.parse("H7"): "Z"}), EN)
    assert inferred.main.text == "ZA"  # across would be one letter: the down word is main


def test_seed_sheet_notation():
    board = Board.from_rows([EMPTY_ROW] * 3 + ["...D..........."] + [EMPTY_ROW] * 6
                            + ["...A..........."] + ["...L..........."] + [EMPTY_ROW] * 3)
    scored = play(board, "D3", "A.DITiON..")
    assert scored.main.marked == "A(D)DITiON(AL)"
    assert scored.seed_notation == f"A(D)DITiON(AL) D3 {scored.score}"
    assert scored.bingo  # seven tiles from the rack


def test_split_tiles_fast_path_matches_the_tile_set():
    for code, text in (("en", "AbC?."), ("de", "ÄöÜ"), ("es", "CHaRRoLL[CH]")):
        ts = TileSet.named(code)
        assert split_tiles(ts, text) == ts.split(text)


# ------------------------------------------------------------------ property

LETTERS = list("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + ["a", "e", "s"]


@st.composite
def board_and_placement(draw):
    cells: list[str | None] = [None] * 225
    for _ in range(draw(st.integers(0, 40))):
        cells[draw(st.integers(0, 224))] = draw(st.sampled_from(LETTERS))
    board = Board(cells)
    across = draw(st.booleans())
    r, c = draw(st.integers(0, 14)), draw(st.integers(0, 14))
    count = draw(st.integers(1, 7))
    scatter = draw(st.booleans())
    tiles: dict[Square, str] = {}
    while len(tiles) < count and r < 15 and c < 15:
        if cells[r * 15 + c] is None:
            tiles[Square(r, c)] = draw(st.sampled_from(LETTERS))
        step = draw(st.integers(1, 2)) if scatter else 1
        r, c = (r, c + step) if across else (r + step, c)
    if scatter and draw(st.booleans()):  # sometimes one tile off the line
        extra = Square(draw(st.integers(0, 14)), draw(st.integers(0, 14)))
        if cells[extra.row * 15 + extra.col] is None:
            tiles[extra] = "E"
    return board, Placement.of(tiles)


def outcome(board: Board, placement: Placement):
    try:
        scored = score_play(board, placement, EN)
    except IllegalPlay as exc:
        return ("illegal", exc.code)
    return ("legal", scored.score, sorted(w.text for w in scored.words), scored.bingo)


@settings(max_examples=300, deadline=None)
@given(board_and_placement())
def test_a_transposed_position_scores_the_same(case):
    board, placement = case
    if not placement.tiles:
        return
    assert outcome(board, placement) == outcome(board.transposed(), placement.transposed())
