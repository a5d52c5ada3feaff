"""The uncalibrated reader: stock Tesseract, used the way it works best.

Each Tesseract run reads a page of text; one glyph at a time it reads badly and slowly, so
all the tiles to read go into ONE image, read by the engine kept loaded in this process
(:mod:`vision.tesseract_engine`) or else by the ``tesseract`` program.  Each tile's isolated
glyph (binarised, the point-value digit already dropped, see
:func:`vision.glyphs.extract_glyph`) is scaled to a common letter height, drawn black on
white in its own cell of a grid with wide spacing, and the sheet is read once with a whitelist
of the tile set's letters.  Each recognised character's box is mapped back to its cell.

>>> import numpy as np
>>> sheet, cells = compose_sheet([np.full((20, 6), 255, np.uint8)] * 3, columns=2)
>>> sheet.shape, cells[2]
((128, 128), (0, 64, 64, 64))
"""

from __future__ import annotations

import html
import os
import re
import shutil
from collections.abc import Sequence

import cv2
import numpy as np

from scorer.tiles import TileSet
from vision.letters import LetterGuess
from vision.tesseract_engine import EngineError, engine_for

#: Height of a letter on the sheet, in pixels (measured best among 28-40 px on real tiles).
LETTER_PX = 32
#: Side of one cell of the sheet: wide white space keeps letters apart as separate words.
CELL_PX = 64
#: Cells per row of the sheet.
COLUMNS = 12

#: White border around the sheet (Tesseract misreads text touching the image's edge).
BORDER_PX = 16

_CHARACTER = re.compile(
    r"x_bboxes (-?\d+) (-?\d+) (-?\d+) (-?\d+); x_conf ([\d.]+)[^>]*>([^<]*)<"
)

#: A bar's box is at most this wide for its height, and its ink fills this share of the box at
#: least; or, filled more solidly, somewhat wider.  A sans-serif I photographed at 1280x720 is
#: 0.30-0.36 as wide as tall; glyphs of other letters as narrow and solid are those whose
#: arms a blur took away (an E or a T seen as its upright): on rendered photos, 111 glyphs
#: of I against 13 of other letters between 0.30 and 0.36, 55 against 5 between 0.36 and
#: 0.40, with the solider fill.
BAR_SHAPES = ((0.3, 0.7), (0.4, 0.8))
#: Confidence given to a solid bar read as I without Tesseract.
BAR_CONFIDENCE = 0.9

#: A sheet of fewer glyphs than this is filled up with glyphs read earlier (see
#: :class:`TesseractReader`).  Alone, a tile's glyph is often not read at all: on the real
#: game's final photo, each tile read on its own sheet left 24 of 95 unread or wrong; with four
#: other glyphs of the same photo before it, 4.
CONTEXT_GLYPHS = 4
#: Confidence from which a glyph read is kept to fill up later small sheets.
CONTEXT_CONFIDENCE = 0.9

#: Tesseract language data for a tile set code; other sets use English data.
LANGUAGES: dict[str, str] = {"de": "deu", "en": "eng"}


class TesseractUnavailable(RuntimeError):
    """The tesseract program or its language data is not installed."""


def compose_sheet(
    inks: Sequence[np.ndarray], columns: int = COLUMNS
) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """One white sheet with each glyph (uint8 ink masks, 255 = ink) black in its own cell.

    Returns the sheet and each glyph's cell as ``(x, y, w, h)``.
    """
    rows = max(1, -(-len(inks) // columns))
    width = CELL_PX * min(columns, max(1, len(inks)))
    sheet = np.full((rows * CELL_PX, width), 255, np.uint8)
    cells: list[tuple[int, int, int, int]] = []
    for i, ink in enumerate(inks):
        x, y = (i % columns) * CELL_PX, (i // columns) * CELL_PX
        cells.append((x, y, CELL_PX, CELL_PX))
        h, w = ink.shape
        scale = LETTER_PX / max(h, 1)
        # A multi-letter tile may be wide: never let it leave its cell.
        scale = min(scale, (CELL_PX - 16) / max(w, 1))
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        glyph = cv2.resize(ink, size, interpolation=cv2.INTER_LINEAR)
        gh, gw = glyph.shape
        oy, ox = y + (CELL_PX - gh) // 2, x + (CELL_PX - gw) // 2
        sheet[oy : oy + gh, ox : ox + gw] = np.where(glyph > 127, 0, 255).astype(np.uint8)
    return sheet, cells


def is_bar(ink: np.ndarray) -> bool:
    """Whether a glyph is a solid upright bar (an I).

    Photographed bars have ragged edges (a quarter of their box may be background on a blurred
    wooden tile); no other capital is that narrow (:data:`BAR_SHAPES`).

    >>> is_bar(np.full((30, 6), 255, np.uint8)), is_bar(np.full((30, 20), 255, np.uint8))
    (True, False)
    >>> is_bar(np.full((30, 11), 255, np.uint8))
    True
    """
    h, w = ink.shape[:2]
    if h == 0:
        return False
    fill = float((ink > 127).mean())
    return any(w / h < widest and fill > solid for widest, solid in BAR_SHAPES)


def parse_hocr_characters(hocr: str) -> list[tuple[int, int, int, int, float, str]]:
    """Character boxes ``(x0, y0, x1, y1, confidence 0..100, text)`` of Tesseract's hOCR.

    >>> parse_hocr_characters("<span class='ocrx_cinfo' title='x_bboxes 3 4 20 30; "
    ...                       "x_conf 97.5'>&#196;</span>")
    [(3, 4, 20, 30, 97.5, 'Ä')]
    """
    out = []
    for m in _CHARACTER.finditer(hocr):
        text = html.unescape(m.group(6)).strip()
        if text:
            x0, y0, x1, y1 = (int(m.group(i)) for i in range(1, 5))
            out.append((x0, y0, x1, y1, float(m.group(5)), text))
    return out


class TesseractReader:
    """Reads many isolated tile glyphs with one Tesseract run.

    ``read`` returns one :class:`LetterGuess` per glyph: a letter of the tile set with
    Tesseract's confidence (0..1), or ``"?"`` with confidence 0 where Tesseract saw nothing.

    Tesseract adapts to the letters of the page it reads, so one or two glyphs alone (a short
    move) are read far worse than the same glyphs among others.  The reader therefore keeps a
    few glyphs it read with confidence, one per letter, and puts them before the glyphs of a
    small sheet; their answers are not returned.  Within one game and camera those are the
    same tiles' letters.
    """

    def __init__(self, tileset: TileSet | str = "en", psm: int = 6) -> None:
        # Tesseract's OpenMP threads only slow a short single-page run down on a busy machine
        # (its own advice for batch use); a limit the user set is left alone.
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        self.tileset = tileset if isinstance(tileset, TileSet) else TileSet.named(tileset)
        self.language = LANGUAGES.get(self.tileset.code, "eng")
        self.psm = psm
        whitelist = sorted({ch for tile in self.tileset.letters for ch in tile})
        self.whitelist = "".join(whitelist)
        self._tiles_by_text = {tile.replace("·", ""): tile for tile in self.tileset.letters}
        self._tiles_by_text.update({tile: tile for tile in self.tileset.letters})
        #: glyphs read with confidence, by letter, newest last (see the class notes)
        self._context: dict[str, np.ndarray] = {}

    def _config(self) -> str:
        # hOCR with character boxes gives every character's box and confidence in one run;
        # the word-level table would merge the spaced letters of a row into one word.
        return (
            f"--psm {self.psm} -c tessedit_char_whitelist={self.whitelist}"
            " -c hocr_char_boxes=1"
        )

    def read(
        self, inks: Sequence[np.ndarray],
        known: Sequence[tuple[np.ndarray, LetterGuess]] = (),
    ) -> list[LetterGuess]:
        """Read glyph ink masks (uint8, 255 = ink, upright) in one Tesseract call.

        ``known``: glyphs of the same photo whose letters a surer reader knows, to fill up
        a small sheet where too few glyphs read earlier are remembered."""
        if len(inks) == 0:
            return []
        # A lone upright bar is an I in every tile set's font, and Tesseract drops it as a
        # ruled line when no other letter stands to its left on the sheet.
        bars = {i for i, ink in enumerate(inks) if "I" in self.tileset.counts and is_bar(ink)}
        rest = [i for i in range(len(inks)) if i not in bars]
        answers = dict.fromkeys(bars, LetterGuess("I", BAR_CONFIDENCE))
        if rest:
            own = [inks[i] for i in rest]
            context = self._context_for(len(own), known)
            guesses = self._read_sheet(context + own)[len(context):]
            answers.update(zip(rest, guesses, strict=True))
            self._remember(own, guesses)
        return [answers[i] for i in range(len(inks))]

    def _context_for(
        self, count: int, known: Sequence[tuple[np.ndarray, LetterGuess]] = ()
    ) -> list[np.ndarray]:
        """Glyphs read earlier to fill a sheet of ``count`` glyphs up to
        :data:`CONTEXT_GLYPHS` (the latest remembered first, then the surest ``known``, one
        per letter)."""
        wanted = max(0, CONTEXT_GLYPHS - count)
        if not wanted:
            return []
        context = list(reversed(self._context.values()))[:wanted]
        letters = set(self._context)
        for ink, guess in sorted(known, key=lambda pair: -pair[1].confidence):
            if len(context) >= wanted:
                break
            if guess.letter not in letters and guess.confidence >= CONTEXT_CONFIDENCE:
                context.append(ink)
                letters.add(guess.letter)
        return context

    def _remember(self, inks: Sequence[np.ndarray], guesses: Sequence[LetterGuess]) -> None:
        for ink, guess in zip(inks, guesses, strict=True):
            if guess.letter != "?" and guess.confidence >= CONTEXT_CONFIDENCE:
                self._context.pop(guess.letter, None)
                self._context[guess.letter] = ink

    def _hocr(self, sheet: np.ndarray) -> str:
        """Tesseract's hOCR of a sheet: from the engine kept loaded in this process
        (:mod:`vision.tesseract_engine`), else from a run of the program."""
        try:
            engine = engine_for(self.language, self.psm, self.whitelist)
            if engine is not None:
                return engine.hocr(sheet)
        except EngineError as exc:
            raise TesseractUnavailable(f"tesseract failed: {exc}") from exc
        import pytesseract

        if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
            raise TesseractUnavailable(
                f"tesseract program {pytesseract.pytesseract.tesseract_cmd!r} not found"
            )
        try:
            hocr = pytesseract.image_to_pdf_or_hocr(
                sheet, lang=self.language, config=self._config(), extension="hocr"
            )
        except pytesseract.TesseractError as exc:
            raise TesseractUnavailable(f"tesseract failed: {exc}") from exc
        return hocr.decode("utf-8")

    def _read_sheet(self, inks: Sequence[np.ndarray]) -> list[LetterGuess]:
        sheet, cells = compose_sheet(inks)
        # A white border: Tesseract misreads text touching the image's edge.
        sheet = cv2.copyMakeBorder(
            sheet, BORDER_PX, BORDER_PX, BORDER_PX, BORDER_PX, cv2.BORDER_CONSTANT, value=255
        )
        per_cell: dict[int, list[tuple[float, str, float]]] = {}
        for x0, y0, x1, y1, conf, text in parse_hocr_characters(self._hocr(sheet)):
            cx = (x0 + x1) / 2 - BORDER_PX
            cy = (y0 + y1) / 2 - BORDER_PX
            index = self._cell_at(cells, cx, cy)
            if index is not None:
                per_cell.setdefault(index, []).append((cx, text.upper(), conf))
        return [self._guess(per_cell.get(i, [])) for i in range(len(inks))]

    def _guess(self, characters: list[tuple[float, str, float]]) -> LetterGuess:
        """The tile that the characters Tesseract saw in one cell spell."""
        if not characters:
            return LetterGuess("?", 0.0)
        characters.sort()
        text = "".join(c[1] for c in characters)
        confidence = min(c[2] for c in characters) / 100.0
        tile = self._tiles_by_text.get(text)
        if tile is not None:
            return LetterGuess(tile, confidence)
        # Extra characters in one cell (a stroke read twice): the surest one is the guess.
        best = max(characters, key=lambda c: c[2])
        tile = self._tiles_by_text.get(best[1], best[1])
        return LetterGuess(tile, 0.5 * best[2] / 100.0)

    @staticmethod
    def _cell_at(
        cells: Sequence[tuple[int, int, int, int]], x: float, y: float
    ) -> int | None:
        if not cells:
            return None
        columns = max(1, sum(1 for c in cells if c[1] == 0))
        col, row = int(x // CELL_PX), int(y // CELL_PX)
        if col < 0 or col >= columns or row < 0:
            return None
        index = row * columns + col
        return index if index < len(cells) else None
