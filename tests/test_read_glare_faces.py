"""A lamp's reflection over a few dozen squares of a board: the glare's look must not pass for
the tiles' face (``vision.missed_letters.faces_by_letters``), a tile it lightens beside a blank
must still be looked for (``vision.missed_letters.missed_tiles``), and tiles it leaves with
neither colour nor letter to go by must not be read empty for sure (``vision.occupancy``).
On a dark board the glare's pale squares must not be taken for the tiles, nor the tiles for
the board (``vision.occupancy``), and a tile whose letter it washed out is no sure blank."""

from __future__ import annotations

from scorer.squares import Square
from tests.real_photos import (
    GAME,
    JHEIDEL,
    as_read,
    game_boards,
    known_board,
    real_photo,
    reflected,
)
from vision.read import UNSURE_SHOWN, BoardReading, read_board


def read_under_glare(name: str, centre: tuple[float, float], turn: float
                     ) -> tuple[BoardReading, list[str]]:
    """The jheidel photo ``name`` read with a lamp's reflection (half axes 2 and 3.5 squares,
    80 % white at its middle) centred on ``centre`` (squares of its grid, found on the photo
    as taken) and turned by ``turn`` radians; and the photo's known board."""
    image = real_photo(JHEIDEL / name)
    corners = read_board(image, None, "en").corners
    seen = reflected(image, centre, turn, corners=corners)
    return read_board(seen, None, "en"), known_board(name)


def test_glare_beside_a_few_tiles_is_not_taken_for_their_face():
    """jheidel 163953 (nine tiles) with a reflection over some 80 squares beside them: before,
    the glare's squares were taken for tiles showing no letter, the nine tiles read empty and
    letters invented on premium squares; the plain squares' letters now show the faces."""
    name = "IMG_20141025_163953.jpg"
    reading, known = read_under_glare(name, (11.1, 7.6), 2.6)
    assert reading.board == known
    assert not any("showed no letter" in warning for warning in reading.warnings())


def test_tiles_beyond_the_glare_are_as_bright_as_their_neighbours():
    """jheidel 163939 (RIEA across, RSSEVD down) with a reflection over the middle of the word
    across: the labels of the premium squares under it showed print taken for letters on
    squares brighter than any tile, and the tiles E V D below the glare, darker than those,
    were read empty.  A tile is now as bright as the lettered tile beside it (light falls off
    smoothly), and they are read; nothing is read on the glare's empty squares."""
    name = "IMG_20141025_163939.jpg"
    reading, known = read_under_glare(name, (8.31, 8.2), 1.456)
    assert [reading.board[row][4] for row in (10, 11, 12)] == ["E", "V", "D"]
    assert [known[row][4] for row in (10, 11, 12)] == ["E", "V", "D"]
    invented = [(r, c) for r in range(15) for c in range(15)
                if known[r][c] == "." and reading.board[r][c] != "."]
    assert invented == []


def test_tiles_the_colour_left_out_are_named_by_their_letters():
    """jheidel 163939 with a reflection over the squares left of and above the words: its pale
    squares were the only look found for the tiles' face, all without letters, and the wooden
    tiles beyond it, as pink as the board's DW squares, were refused as a shade of them.  V
    and D were read empty and two of the glare's squares blanks, all sure.  Plain squares
    showing letters now name tiles; nothing read is sure, and the reading says why."""
    name = "IMG_20141025_163939.jpg"
    reading, known = read_under_glare(name, (5.92, 5.74), 0.679)
    assert [known[row][4] for row in (11, 12)] == ["V", "D"]
    assert [reading.board[row][4] for row in (11, 12)] == ["V", "D"]
    assert reading.unsure_squares() == [Square(r, c).name for r in range(15) for c in range(15)
                                        if reading.board[r][c] != "."]
    assert any("no other look of the tiles was found" in w for w in reading.warnings())


def test_a_tile_beside_a_blank_under_glare_is_looked_for():
    """jheidel 164035 (P above the blank of ?AN, then O Z A down) with a reflection over the
    squares above the word: the P's face, lightened as much as the board's, was taken for an
    empty square, and no lettered tile lay beside it to look for a missed tile from (only the
    blank), so it was read empty and sure.  A face showing no letter beside a lettered tile is
    a tile too: the P is found from it."""
    name = "IMG_20141025_164035.jpg"
    reading, known = read_under_glare(name, (10.86, 3.9), 1.69)
    assert known[6][11] == "P" and known[7][11] == "?"
    missed = [(r, c) for r in range(15) for c in range(15)
              if known[r][c] != "." and reading.board[r][c] == "."]
    assert missed == []


def test_tiles_under_glare_showing_no_letter_are_not_read_empty_for_sure():
    """jheidel 164048 (blurred by the camera's motion) with a reflection over the word RIEA
    across and RSSEVD down: colour cannot tell their faces from the bleached board, and the
    blur leaves their letters no deeper than the board's print.  They were read empty with
    confidence 1; such squares are now named as squares that may hold a tile."""
    name = "IMG_20141025_164048.jpg"
    reading, known = read_under_glare(name, (5.48, 8.73), 0.71)
    word_across = [(7, c) for c in range(4, 8)]
    assert "".join(known[r][c] for r, c in word_across) == "RIEA"
    maybe = set(reading.maybe_tiles())
    for r, c in word_across:
        square = Square(r, c).name
        assert reading.board[r][c] != "." or square in maybe, square


def test_an_empty_square_under_glare_is_no_sure_blank():
    """jheidel 170219 (a real game, the board turned a quarter in the photo) with a lamp's
    reflection on the board: an empty square under it (E11), lightened to a pale face and
    showing no letter, was read a blank, sure (confidence 1).  Only its colour said tile, and
    its empty look under glare explains that colour as well: it is named unsure."""
    from vision.locate import locate_board

    name = "IMG_20151016_170219.jpg"
    image = real_photo(JHEIDEL / name)
    corners = locate_board(image, quality=False).corners
    reading = read_board(reflected(image, (5.63, 3.97), 0.64, corners=corners), None, "en")
    known = known_board(name)
    wrong = [(Square(r, c).name, reading.board[r][c], float(reading.confidence[r, c]))
             for r in range(15) for c in range(15) if reading.board[r][c] != known[r][c]]
    assert all(got == "." or confidence < UNSURE_SHOWN for _, got, confidence in wrong), wrong


def read_game_under_glare(move: int) -> tuple[BoardReading, list[str]]:
    """The real game's photo after ``move`` (cream tiles on a green board) read with a
    lamp's reflection as in ``read_under_glare``, centred on (6.37, 3.73) squares and turned
    by 3.11 radians: over the upper left quarter, the board's green squares there bleached
    to the tiles' grey; and the known board as a reading shows it."""
    image = real_photo(GAME / f"image-{move}.jpg")
    corners = read_board(image, None, "de").corners
    seen = reflected(image, (6.37, 3.73), 3.11, corners=corners)
    return read_board(seen, None, "de"), as_read(game_boards()[move])


def sure_mistakes(reading: BoardReading, known: list[str]) -> list[tuple[str, str, str]]:
    """The squares read wrong that the reading does not name unsure (a tile read empty is
    named among the squares that may hold one)."""
    maybe = set(reading.maybe_tiles())
    return [(Square(r, c).name, known[r][c], reading.board[r][c])
            for r in range(15) for c in range(15)
            if reading.board[r][c] != known[r][c]
            and (Square(r, c).name not in maybe if reading.board[r][c] == "."
                 else reading.confidence[r, c] >= UNSURE_SHOWN)]


def test_the_tiles_of_a_full_board_are_not_swapped_with_the_glares_squares():
    """The last photo (97 tiles) under the reflection: the glare made the board's squares
    look like the tiles' face, the looks were found again with the lightness, and the green
    squares were taken for the tiles and the tiles for the board: 38 tiles read empty, sure.
    The tiles' face carries letters, and a look found on squares without letters is not it."""
    reading, known = read_game_under_glare(27)
    assert sure_mistakes(reading, known) == []


def test_a_letter_the_glare_washed_out_is_no_sure_blank():
    """The photo after move 12 under the reflection: the L at G5, under its middle, showed
    no letter even with its contrast raised, and was read a blank, sure.  A tile showing no
    letter on a face the glare brightened may be a blank or a letter washed out: it is named
    unsure, and nothing else is read wrong."""
    reading, known = read_game_under_glare(12)
    assert sure_mistakes(reading, known) == []
    assert reading.board[4][6] in ("L", "?")
