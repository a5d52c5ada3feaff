"""The batched Tesseract reader: one process for many tiles, boxes mapped back to tiles."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import tesseract_engine
from vision.letters import LetterGuess
from vision.tesseract_reader import (
    CELL_PX,
    TesseractReader,
    compose_sheet,
    parse_hocr_characters,
)

pytestmark = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="the tesseract program is not installed"
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"


def rendered(letter: str, thickness: int = 3) -> np.ndarray:
    """An isolated glyph as the reader gets it: ink 255, cropped to its box."""
    canvas = np.zeros((60, 60), np.uint8)
    cv2.putText(canvas, letter, (8, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 255, thickness,
                cv2.LINE_AA)
    ys, xs = np.nonzero(canvas > 127)
    return canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def test_sheet_layout_keeps_glyphs_in_their_cells():
    inks = [rendered(ch) for ch in "WIDE"] + [np.full((10, 200), 255, np.uint8)]
    sheet, cells = compose_sheet(inks, columns=3)
    assert sheet.shape == (2 * CELL_PX, 3 * CELL_PX)
    for x, y, w, h in cells:
        cell = sheet[y : y + h, x : x + w]
        assert (cell < 128).any(), "every glyph is drawn"
        # White all round: letters never touch, so Tesseract keeps them apart.
        assert cell[:4].min() == 255 and cell[-4:].min() == 255
        assert cell[:, :4].min() == 255 and cell[:, -4:].min() == 255


def test_hocr_characters_parsed():
    hocr = ("<span class='ocrx_cinfo' title='x_bboxes 1 2 3 4; x_conf 91.5'>Q</span>"
            "<span class='ocrx_cinfo' title='x_bboxes 10 2 30 40; x_conf 12'>&#220;</span>")
    assert parse_hocr_characters(hocr) == [(1, 2, 3, 4, 91.5, "Q"), (10, 2, 30, 40, 12.0, "Ü")]


def test_reads_rendered_letters_in_one_call(monkeypatch):
    calls = []
    real = TesseractReader._hocr

    def counting(self, sheet):
        calls.append(1)
        return real(self, sheet)

    monkeypatch.setattr(TesseractReader, "_hocr", counting)
    letters = "HELLOWORLDQUIZ"
    guesses = TesseractReader("en").read([rendered(ch) for ch in letters])
    assert len(calls) == 1
    read = "".join(g.letter for g in guesses)
    assert sum(a == b for a, b in zip(read, letters, strict=True)) >= len(letters) - 1, read
    assert all(0.0 <= g.confidence <= 1.0 for g in guesses)


def test_engine_kept_loaded_reads_as_the_program_does(monkeypatch):
    import pytesseract

    if tesseract_engine.engine_for("eng", 6, "A") is None:
        pytest.skip("the Tesseract library cannot be loaded here")
    inks = [rendered(ch) for ch in "QUIZJAM"]

    def no_program(*args, **kwargs):
        raise AssertionError("the tesseract program was run")

    with monkeypatch.context() as patch:
        patch.setattr(pytesseract, "image_to_pdf_or_hocr", no_program)
        by_engine = TesseractReader("en").read(inks)
    # Where the library cannot be loaded, the program is run: same answers.
    monkeypatch.setenv("TILECAM_TESSERACT_PROGRAM", "1")
    tesseract_engine._library.cache_clear()
    try:
        assert tesseract_engine.engine_for("eng", 6, "A") is None
        by_program = TesseractReader("en").read(inks)
    finally:
        monkeypatch.delenv("TILECAM_TESSERACT_PROGRAM")
        tesseract_engine._library.cache_clear()
    assert sum(g.letter == ch for g, ch in zip(by_engine, "QUIZJAM", strict=True)) >= 6
    assert by_engine == by_program


def test_engine_rejects_what_is_not_a_page():
    engine = tesseract_engine.engine_for("eng", 6, "A")
    if engine is None:
        pytest.skip("the Tesseract library cannot be loaded here")
    with pytest.raises(ValueError, match="2-D uint8"):
        engine.hocr(np.zeros((10, 10, 3), np.uint8))


def test_missing_language_data_is_a_clear_error():
    if tesseract_engine._library() is None:
        pytest.skip("the Tesseract library cannot be loaded here")
    with pytest.raises(tesseract_engine.EngineError, match="'xyz'"):
        tesseract_engine.engine_for("xyz", 6, "A")


def test_whitelist_is_the_tile_sets_letters():
    assert set(TesseractReader("de").whitelist) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ")
    assert TesseractReader("de").language == "deu"
    assert TesseractReader("en").read([]) == []


def test_nothing_to_see_is_unread():
    blob = np.full((3, 3), 255, np.uint8)  # a speck, not a letter
    guess = TesseractReader("en").read([blob])[0]
    assert guess.confidence < 0.5


def letter_tiles_of_photo(move: int) -> tuple[list[str], list[tuple[int, int]], list]:
    """The real game's board after ``move``, its letter tiles' squares and their glyphs as the
    reader finds them in that move's photo (skips when the photos are absent)."""
    if not GAME.is_dir():
        pytest.skip(f"real photos not available: {GAME} is missing")
    from vision.locate import locate_board
    from vision.rectified import glyphs_of, rectify_with_margin

    section = (GAME / "boards_after_each_move.txt").read_text("utf-8").split(
        f"## after move {move} ")[1]
    board = section.splitlines()[1:16]
    image = cv2.imread(str(GAME / f"image-{move}.jpg"))
    rectified = rectify_with_margin(image, locate_board(image).corners)
    squares = [(r, c) for r in range(15) for c in range(15) if board[r][c].isupper()]
    return board, squares, glyphs_of(rectified, squares)


def test_real_tiles_of_one_photo():
    board, squares, glyphs = letter_tiles_of_photo(20)
    guesses = TesseractReader("de").read([g.ink for g in glyphs])
    right = sum(g.letter == board[r][c] for g, (r, c) in zip(guesses, squares, strict=True))
    assert len(squares) > 60
    assert right / len(squares) >= 0.95


def test_a_tile_read_alone_is_read_among_glyphs_read_before():
    # A one-tile move gives Tesseract a sheet of one glyph, which it often leaves unread; the
    # reader puts glyphs it read with confidence before it, as on a page of letters.
    board, squares, glyphs = letter_tiles_of_photo(27)
    reader = TesseractReader("de")
    reader.read([g.ink for g in glyphs[:20]])  # an earlier, bigger move
    alone = [(reader.read([g.ink])[0].letter, board[r][c])
             for g, (r, c) in zip(glyphs[20:60], squares[20:60], strict=True)]
    wrong = [(read, true) for read, true in alone if read != true]
    assert len(wrong) <= 4, wrong  # a fresh reader leaves about a quarter unread or wrong


def test_a_tile_read_alone_by_a_fresh_reader_is_read_among_known_glyphs():
    # A cold read of a photo whose letters the classifier knows but one: the fresh reader
    # remembers nothing, so the glyphs the classifier read surely fill up the sheet.
    board, squares, glyphs = letter_tiles_of_photo(27)
    known = [(g.ink, LetterGuess(board[r][c], 0.95))
             for g, (r, c) in zip(glyphs[:20], squares[:20], strict=True)]
    alone, among = [], []
    for g, (r, c) in zip(glyphs[20:60], squares[20:60], strict=True):
        alone.append(TesseractReader("de").read([g.ink])[0].letter != board[r][c])
        among.append(TesseractReader("de").read([g.ink], known)[0].letter != board[r][c])
    assert sum(among) <= 4 < sum(alone), (sum(among), sum(alone))
    unsure = [(ink, LetterGuess(guess.letter, 0.5)) for ink, guess in known]
    assert TesseractReader("de")._context_for(1, unsure) == []
    assert len(TesseractReader("de")._context_for(1, known)) == 3


def test_one_engine_serves_several_threads():
    # The web server's requests and the tracker read in threads of their own, through the
    # one engine of a language: each read is answered as when read alone.
    from concurrent.futures import ThreadPoolExecutor

    if tesseract_engine.engine_for("eng", 6, "A") is None:
        pytest.skip("the Tesseract library cannot be loaded here")
    sheets = [[rendered(ch) for ch in word] for word in ("QUIZ", "JAMB", "HELLO", "WORLD")]
    alone = [TesseractReader("en").read(inks) for inks in sheets]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda inks: TesseractReader("en").read(inks), sheets * 3))
    assert together == alone * 3
