"""Learn the stock letter samples (:mod:`vision.stock`) from typefaces installed here.

For each typeface of :data:`STOCK_FONTS` a photo of a board holding every letter of the
German set (A to Z and Ä Ö Ü) on tiles printed in that typeface is taken by the photographer
the caller hands in (:func:`sim.typefaces.photograph_letters` renders one; calibration itself
never draws), and a fresh :class:`calibration.profile.Profile` learns it the way a
user's calibration photo is learnt: the glyphs as photographed and under every blur of
:data:`vision.letters.BLURS`.  The samples of all typefaces together are the stock.

Which typefaces: bold faces of the families tiles are printed in (grotesque and geometric
sans, Century and old-style serifs), from Debian's font packages (:data:`FONT_PACKAGES`;
``setup.sh`` installs them).  The DejaVu faces that :mod:`sim.render` prints its own tiles
in are left out on purpose, so that reading rendered photos measures letters in typefaces the
stock has never seen.  Measured while choosing them: with 7 typefaces the real German
tournament game's tiles read by the stock classifier alone were 77 squares of 5850 wrong
(an M of that set matched no M learnt), with 17, 10.  Play and B612, whose O is a rounded
square, were added for the classic plastic tiles of a real English game (``jheidel`` 2015),
whose squarish O the 17 read as D five times on 162 tiles: with them none, the German game
read square for square as before, and 200 rendered photos 0.333 % wrong uncalibrated instead
of 0.349 % (``bench/eval_real.py``, ``bench/eval_scrabscrap.py``, ``bench/eval_rendered.py``).

The samples are features of glyphs the fonts' renderings produced, not the fonts
themselves.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.stock import StockSamples, stock_path


@dataclass(frozen=True)
class StockFont:
    """A typeface to learn from: its fontconfig family and style, and its font file's name."""

    family: str
    style: str
    file_name: str

    @property
    def name(self) -> str:
        return f"{self.family} {self.style}"


STOCK_FONTS: tuple[StockFont, ...] = (
    StockFont("Liberation Sans", "Bold", "LiberationSans-Bold.ttf"),
    StockFont("Liberation Serif", "Bold", "LiberationSerif-Bold.ttf"),
    StockFont("Liberation Sans Narrow", "Bold", "LiberationSansNarrow-Bold.ttf"),
    StockFont("Nimbus Sans", "Bold", "NimbusSans-Bold.otf"),
    StockFont("FreeSans", "Bold", "FreeSansBold.ttf"),
    StockFont("FreeSerif", "Bold", "FreeSerifBold.ttf"),
    StockFont("URW Gothic", "Demi", "URWGothic-Demi.otf"),
    StockFont("URW Gothic", "Book", "URWGothic-Book.otf"),
    StockFont("C059", "Bold", "C059-Bold.otf"),
    StockFont("P052", "Bold", "P052-Bold.otf"),
    StockFont("URW Bookman", "Demi", "URWBookman-Demi.otf"),
    StockFont("Roboto", "Bold", "Roboto-Bold.ttf"),
    StockFont("Open Sans", "Bold", "OpenSans-Bold.ttf"),
    StockFont("Open Sans", "Extrabold", "OpenSans-ExtraBold.ttf"),
    StockFont("Lato", "Bold", "Lato-Bold.ttf"),
    StockFont("Cabin", "Bold", "Cabin-Bold.otf"),
    StockFont("BetecknaGS", "Bold", "BetecknaGS-Bold.ttf"),
    StockFont("Play", "Bold", "Play-Bold.ttf"),
    StockFont("B612", "Bold", "B612-Bold.otf"),
)
#: The Debian packages that hold :data:`STOCK_FONTS`.
FONT_PACKAGES = (
    "fonts-liberation", "fonts-urw-base35", "fonts-freefont-ttf", "fonts-roboto-unhinted",
    "fonts-open-sans", "fonts-lato", "fonts-cabin", "fonts-beteckna", "fonts-play", "fonts-b612",
)
#: Where font files are looked for when fontconfig is not there to ask.
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"),
             Path.home() / ".local" / "share" / "fonts", Path.home() / ".fonts")

#: The board each typeface is learnt from: every letter of the German set once, in the middle.
LETTER_ROWS: tuple[str, ...] = tuple(
    ["." * 15] * 5 + [".ABCDEFGHIJKLM.", "." * 15, ".NOPQRSTUVWXYZ.", "." * 15,
                      "......ÄÖÜ......"] + ["." * 15] * 5
)
LETTER_TILESET = "de"
#: Photos taken of one typeface before it is given up (a photo in which the grid is not found
#: is taken again).
RETAKES = 5

#: Takes the photo of ``rows`` (tile set ``tileset``) printed in the typeface of ``font_file``:
#: ``(rows, tileset, font_file, font_number, attempt) -> BGR image``; ``font_number`` is the
#: typeface's place in :data:`STOCK_FONTS` and ``attempt`` counts retakes from 0.
LetterPhotographer = Callable[[tuple[str, ...], str, Path, int, int], np.ndarray]


class FontsMissing(RuntimeError):
    """None of the stock typefaces is installed."""


def installed_fonts(fonts: tuple[StockFont, ...] = STOCK_FONTS) -> dict[StockFont, Path]:
    """The typefaces of ``fonts`` installed here, with their files (fontconfig is asked; the
    usual font folders are searched by file name when it is not there)."""
    files: dict[str, Path] = {}
    try:
        listing = subprocess.run(
            ["fc-list", "--format", "%{file}\n"], capture_output=True, text=True, timeout=30,
            check=True,
        ).stdout.splitlines()
        files = {Path(line).name: Path(line) for line in listing if line}
    except (OSError, subprocess.SubprocessError):
        for folder in FONT_DIRS:
            if folder.is_dir():
                for path in folder.rglob("*"):
                    files.setdefault(path.name, path)
    return {font: files[font.file_name] for font in fonts if font.file_name in files}


@dataclass
class FontsReport:
    """What :func:`learn_fonts` learnt."""

    path: Path
    samples: int = 0
    per_font: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    retakes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def learn_fonts(
    photograph: LetterPhotographer,
    path: Path | None = None,
    fonts: tuple[StockFont, ...] = STOCK_FONTS,
    progress: Callable[[str], None] | None = None,
) -> FontsReport:
    """Photograph each installed typeface's letters with ``photograph``, learn them, and save
    the stock samples to ``path`` (:func:`vision.stock.stock_path` when not given).

    Raises :class:`FontsMissing` when none of ``fonts`` is installed.
    """
    from calibration.profile import Profile
    from vision.letters import features
    from vision.locate import BoardNotFound

    started = time.perf_counter()
    path = stock_path() if path is None else path
    report = FontsReport(path)
    found = installed_fonts(fonts)
    report.missing = [font.name for font in fonts if font not in found]
    if not found:
        raise FontsMissing(
            "none of the stock typefaces is installed; on Debian: apt-get install "
            + " ".join(FONT_PACKAGES)
        )
    glyphs, labels, blurs, font_of = [], [], [], []
    names = []
    for number, (font, file) in enumerate(found.items()):
        index = STOCK_FONTS.index(font) if font in STOCK_FONTS else number
        profile = None
        for attempt in range(RETAKES):
            image = photograph(LETTER_ROWS, LETTER_TILESET, file, index, attempt)
            try:
                profile = Profile(tileset=LETTER_TILESET)
                profile.extend(image, list(LETTER_ROWS))
                break
            except BoardNotFound as exc:
                report.retakes.append(f"{font.name}: {exc}")
                profile = None
        if profile is None:
            report.missing.append(f"{font.name} (no photo of it was read)")
            continue
        names.append(font.name)
        glyphs.append(profile.glyphs)
        labels += profile.labels
        blurs += profile.blurs
        font_of += [len(names) - 1] * len(profile.labels)
        report.per_font[font.name] = len(profile.labels)
        if progress is not None:
            progress(f"{font.name}: {len(profile.labels)} samples")
    stacked = np.concatenate(glyphs)
    samples = StockSamples(
        features=features(stacked.astype(np.float32) / 255.0),
        labels=np.array(labels, dtype=str),
        blurs=np.array(blurs, dtype=str),
        fonts=tuple(names),
        font_of=np.array(font_of, np.int64),
    )
    samples.save(path)
    report.samples = len(labels)
    report.seconds = time.perf_counter() - started
    return report
