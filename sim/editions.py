"""Colour schemes and print styles of physical board editions, for the photo renderer.

An :class:`Edition` says how the flat board looks from straight above: the frame around the
playing grid, the colour of plain and premium squares, how premium squares are marked (printed
labels, "teeth" along their edges, jagged outlines) and which tiles usually come with it.  Colours
are BGR tuples, as OpenCV uses them.

>>> sorted(EDITIONS)
['classic', 'deluxe', 'green', 'green_print', 'red']
>>> edition("GREEN").premium_colors["TW"]
(40, 36, 196)
>>> edition("blue")
Traceback (most recent call last):
...
KeyError: "unknown edition 'blue'; known: classic, deluxe, green, green_print, red"
"""

from __future__ import annotations

from dataclasses import dataclass, field

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class FrameBand:
    """One band of the frame around the playing grid, listed from the outside in."""

    width: float  # in squares
    color: BGR


@dataclass(frozen=True)
class Edition:
    """How one board edition is printed.

    ``premium_style`` is ``"teeth"`` (rows of small dots in the premium colour just outside each
    edge of the square, as on the green European board), ``"jagged"`` (a saw-tooth outline, as on
    vintage English boards) or ``"plain"`` (a flat coloured square).  ``labels`` maps a premium
    code to the lines printed on it; an empty mapping prints nothing.
    """

    name: str
    frame: tuple[FrameBand, ...]
    square_color: BGR
    grid_line_color: BGR
    grid_line_width: float  # fraction of a square
    premium_colors: dict[str, BGR]
    label_colors: dict[str, BGR] = field(default_factory=dict)
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    premium_style: str = "plain"
    star_color: BGR | None = None
    tile_style: str = "ivory"  # "ivory" (plastic) or "wood"
    #: Gloss of the board's surface: scales how strongly a lamp's reflection shows.
    gloss: float = 0.6
    #: Text printed along the frame (drawn on the widest band), or "" for none.
    frame_text: str = ""
    frame_text_color: BGR = (235, 240, 245)
    #: Amplitude of the paper/print grain, in grey levels.
    grain: float = 4.0
    #: A folding board: a hinge crease runs across the middle, between columns G and I.
    fold: bool = False

    @property
    def frame_width(self) -> float:
        """Total width of the frame around the grid, in squares."""
        return sum(band.width for band in self.frame)

    def premium_color(self, code: str) -> BGR:
        """Colour of a square with premium ``code`` (``"."`` gives the plain colour)."""
        if code == ".":
            return self.square_color
        return self.premium_colors.get(code, self.premium_colors.get("DW", self.square_color))


_EN_LABELS: dict[str, tuple[str, ...]] = {
    "TW": ("TRIPLE", "WORD", "SCORE"),
    "DW": ("DOUBLE", "WORD", "SCORE"),
    "TL": ("TRIPLE", "LETTER", "SCORE"),
    "DL": ("DOUBLE", "LETTER", "SCORE"),
}

_DE_LABELS: dict[str, tuple[str, ...]] = {
    "TW": ("3-FACH", "WORT", "WERT"),
    "DW": ("2-FACH", "WORT", "WERT"),
    "TL": ("3-FACH", "BUCHST.", "WERT"),
    "DL": ("2-FACH", "BUCHST.", "WERT"),
}

_WHITE: BGR = (245, 245, 245)

EDITIONS: dict[str, Edition] = {
    # The Mattel European board: dark green squares with thin dark lines, a white outer rim,
    # premium squares with rows of small dots along their edges and no text.
    "green": Edition(
        name="green",
        frame=(FrameBand(0.45, (208, 206, 200)), FrameBand(0.45, (75, 122, 48))),
        square_color=(58, 104, 8),
        grid_line_color=(12, 26, 4),
        grid_line_width=0.05,
        premium_colors={
            "TW": (40, 36, 196), "DW": (110, 116, 222), "TL": (140, 72, 8),
            "DL": (196, 150, 82), "*": (110, 116, 222),
        },
        premium_style="teeth",
        star_color=(60, 60, 150),
        tile_style="ivory",
        gloss=0.5,
    ),
    # The same board in a printing that spells the premiums out in German.
    "green_print": Edition(
        name="green_print",
        frame=(FrameBand(0.5, (40, 60, 20)), FrameBand(0.6, (70, 118, 40))),
        square_color=(50, 105, 10),
        grid_line_color=(200, 215, 200),
        grid_line_width=0.045,
        premium_colors={
            "TW": (45, 40, 200), "DW": (120, 125, 230), "TL": (150, 80, 15),
            "DL": (205, 165, 95), "*": (120, 125, 230),
        },
        label_colors={"TW": _WHITE, "DW": _WHITE, "TL": _WHITE, "DL": _WHITE},
        labels=_DE_LABELS,
        premium_style="plain",
        star_color=(30, 30, 30),
        tile_style="ivory",
        frame_text="SCRABBLE",
    ),
    # The modern English board: beige squares with white lines, a wide red border.
    "red": Edition(
        name="red",
        frame=(
            FrameBand(0.25, (25, 25, 30)), FrameBand(1.3, (40, 30, 205)),
            FrameBand(0.12, (150, 200, 225)), FrameBand(0.3, (225, 232, 236)),
        ),
        square_color=(186, 198, 208),
        grid_line_color=(242, 244, 246),
        grid_line_width=0.08,
        premium_colors={
            "TW": (60, 50, 215), "DW": (190, 150, 240), "TL": (200, 120, 20),
            "DL": (230, 190, 110), "*": (190, 150, 240),
        },
        label_colors={"TW": _WHITE, "DW": (60, 40, 90), "TL": _WHITE, "DL": (90, 60, 30)},
        labels=_EN_LABELS,
        premium_style="plain",
        star_color=(40, 30, 40),
        tile_style="wood",
        gloss=0.8,
        frame_text="SCRABBLE",
        fold=True,
    ),
    # The vintage English board: grey-brown squares, white lines, a thin red rim and
    # saw-toothed premium squares.
    "classic": Edition(
        name="classic",
        frame=(FrameBand(0.18, (50, 45, 175)), FrameBand(1.2, (140, 150, 160))),
        square_color=(125, 140, 152),
        grid_line_color=(225, 228, 230),
        grid_line_width=0.07,
        premium_colors={
            "TW": (70, 50, 225), "DW": (170, 150, 235), "TL": (200, 150, 40),
            "DL": (215, 200, 150), "*": (170, 150, 235),
        },
        label_colors={"TW": (40, 30, 40), "DW": (40, 30, 40), "TL": (40, 30, 40),
                      "DL": (40, 30, 40)},
        labels=_EN_LABELS,
        premium_style="jagged",
        star_color=(40, 30, 40),
        tile_style="wood",
        gloss=0.3,
        frame_text="SCRABBLE",
        frame_text_color=(40, 35, 35),
        grain=6.0,
        fold=True,
    ),
    # A dark deluxe board: charcoal squares, thin gold lines, muted premiums with gold text.
    "deluxe": Edition(
        name="deluxe",
        frame=(FrameBand(0.35, (20, 22, 24)), FrameBand(0.8, (38, 40, 44)),
               FrameBand(0.06, (70, 150, 190))),
        square_color=(52, 52, 56),
        grid_line_color=(95, 170, 205),
        grid_line_width=0.045,
        premium_colors={
            "TW": (40, 40, 150), "DW": (95, 80, 160), "TL": (120, 70, 30),
            "DL": (150, 120, 70), "*": (95, 80, 160),
        },
        label_colors={"TW": (120, 200, 230), "DW": (120, 200, 230), "TL": (120, 200, 230),
                      "DL": (120, 200, 230)},
        labels={"TW": ("TW",), "DW": ("DW",), "TL": ("TL",), "DL": ("DL",)},
        premium_style="plain",
        star_color=(90, 170, 210),
        tile_style="ivory",
        gloss=0.9,
        frame_text="",
        grain=2.0,
    ),
}


def edition(name: str) -> Edition:
    """The edition called ``name`` (case-insensitive)."""
    key = name.lower()
    if key not in EDITIONS:
        raise KeyError(f"unknown edition {name!r}; known: {', '.join(sorted(EDITIONS))}")
    return EDITIONS[key]
