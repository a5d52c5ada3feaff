"""The whole read of one photo: find the grid, straighten it, find the tiles, read them.

:func:`read_board` runs the steps in order:

1. the grid's corners, from the calibration profile when the camera is fixed (and they still
   fit the picture), otherwise :func:`vision.locate.locate_board`;
2. a top-down image with a margin around the grid (tiles stand up from the board and the
   camera sees them shifted by parallax);
3. which squares hold a tile (the profile's occupancy model for its fixed camera, or the
   uncalibrated one; where that sees almost no tiles, letters on plain squares beside one
   another find them: :func:`vision.missed_letters.tiles_by_letters`);
4. each occupied square's glyph (:class:`vision.glyphs.GlyphFinder`, all squares at once),
   from the photo with its motion blur or defocus undone when one shows (:mod:`vision.deblur`);
5. which way up the tiles are (the profile's orientation for its fixed camera, or
   :func:`vision.orientation.orientation_of_glyphs`: letters are taller than wide, read best
   upright and carry their point-value digit at the lower right, all weighed together);
6. squares the uncalibrated occupancy model took for empty that show a letter of the tiles'
   size beside a tile are tiles (:mod:`vision.missed_letters`); squares taken for tiles that
   show no letter are blanks, ``?``, when their middle looks like the tile faces around them
   (:func:`vision.blanks.face_likeness`) and they join a lettered tile, up to the number of
   blanks in the tile set (the others were glare, shadow or a neighbour seen by parallax,
   unless a letter too faint to be found at first shows on them once their contrast is
   raised: :func:`vision.missed_letters.faint_letters`); a lone square showing only a small
   mark is not a tile (:func:`vision.blanks.stray_marks`);
7. the letters (:func:`vision.letter_choice.read_letters`): the calibrated classifier for
   letters it knows and is sure of (without a profile, the stock classifier learnt from
   printed typefaces, :mod:`vision.stock`), and ONE batched Tesseract call for the glyphs
   whose reading Tesseract could change (overruling the stock classifier only with a letter
   the glyph looks nearly as much like); then letters read with next to no confidence on tiles
   apart from the game's words, with no surer letter in their group, are taken for no tiles
   (:func:`vision.blanks.lone_unsure`); in a photo whose blur was undone, the letters a
   profile's classifier doubts are compared, as taken, with its sharp letters blurred as the
   photo is (:func:`vision.reblur.reread_unsure`).

Board rows are given the way the tiles read upright; ``corners`` are listed in that
orientation too (top-left of the upright board first).
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scorer.squares import Square
from scorer.tiles import TileSet
from vision.blanks import (
    blanks_by_face,
    face_likeness,
    lone_unsure,
    marked_faces,
    not_blanks,
    stray_marks,
    unmatched_faces,
)
from vision.covered import covered_squares, own_colours, reaching_further
from vision.deblur import MOTION_WARNING, deblurred_for_letters
from vision.glyphs import BLANK, Glyph, GlyphFinder, crop_margin_px
from vision.huge_pages import use_huge_pages
from vision.letter_choice import like_a_letter, read_letters
from vision.letters import LetterClassifier, LetterGuess
from vision.light import evened, light_over_board, shade_field, uneven
from vision.locate import check_corners, locate_board
from vision.missed_letters import (
    FEW_TILES,
    faces_by_letters,
    faces_in_doubt,
    faces_under_glare,
    faint_letters,
    letters_left_out,
    letters_under_glare,
    missed_tiles,
    tiles_by_letters,
)
from vision.orientation import orientation_of_glyphs
from vision.reblur import reread_unsure
from vision.rectified import (
    SIZE,
    SQUARE_PX,
    UNSURE,
    check_image,
    inner,
    occupancy_grid,
    occupancy_of,
    quieted,
    rectify_with_margin,
    rotate_square,
    taken_squares,
    turn_sensitive,
)
from vision.stock import stock_classifier, stock_for_unseen
from vision.tesseract_reader import TesseractReader

if TYPE_CHECKING:
    from vision.models import ReadingModels


#: Confidence, at most, of what a photo blurred beyond :data:`MOTION_WARNING` shows only by
#: another reader's word (see :func:`sure_as_the_glyphs`): named unsure.
BLURRED_UNSURE = 0.25


def sure_as_the_glyphs(guesses: Sequence[LetterGuess]) -> list[LetterGuess]:
    """The letters of a photo blurred beyond :data:`MOTION_WARNING`, each sure only where the
    classifier finds its glyph likeliest to be that letter: a letter named against the
    classifier's likeliest (Tesseract's, or one with marks seen above it), or a face showing no
    letter, is no surer than :data:`BLURRED_UNSURE`.

    Under such a blur Tesseract is sure of letters it cannot see (on real photos smeared by a
    fifth of a square: an R read N, a D read O, an Ö read O, with confidence 0.64 to 0.99),
    dots smear into a letter or out of it, and a letter can vanish into its face (an E read a
    blank, sure).  Where the classifier and Tesseract read the same letter, each from a glyph
    of its own, their agreement stands.  Which tiles there are is decided before, on the
    readers' word: only what is reported sure changes, and the rest is named unsure for the
    players to check.

    >>> sure_as_the_glyphs([LetterGuess("O", 0.98, None, ("Ö", "O"), (0.62, 0.61)),
    ...                     LetterGuess("E", 0.9, None, ("E", "F"), (0.65, 0.6)),
    ...                     LetterGuess(BLANK, 1.0)])  # doctest: +ELLIPSIS
    [LetterGuess(letter='O', confidence=0.25, ...), LetterGuess(letter='E', confidence=0.9, ...),
     LetterGuess(letter='?', confidence=0.25, ...)]
    """
    return [guess if guess.letter != BLANK and guess.likeliest[:1] == (guess.letter,)
            else replace(guess, confidence=min(guess.confidence, BLURRED_UNSURE))
            for guess in guesses]


#: Confidence at most of a tile showing no letter whose face is in doubt: under glare
#: (:func:`vision.missed_letters.faces_under_glare`), a blank or a letter washed out; of
#: another colour than the tiles' faces in part (:func:`vision.blanks.unmatched_faces`), a
#: finger, a sleeve or a pen rather than a blank; marked by a letter no glyph was found in
#: (``?``, unread).  And of every tile read where the tiles' colour was in doubt
#: (:attr:`BoardReading.colour_in_doubt`).  Named unsure.
UNSURE_FACE = 0.45
#: :func:`vision.locate.check_corners` score below which a profile's fixed-camera corners are
#: taken to no longer fit and the grid is searched for.
CORNERS_STILL_FIT = 0.5
#: Confidence below which a tile's letter is named unsure (:meth:`BoardReading.unsure_squares`).
UNSURE_SHOWN = 0.5


@dataclass
class BoardReading:
    """What one photo shows: 15 rows of ``.`` (empty), upper case letters and ``?`` blanks."""

    board: list[str]
    #: Grid corners in the photo, float32 (4, 2): top-left, top-right, bottom-right, bottom-left
    #: of the board as read (upright tiles).
    corners: np.ndarray
    #: Confidence 0..1 per square, (15, 15).
    confidence: np.ndarray
    seconds: float
    #: Counter-clockwise quarter turns of the photo's grid that make the tiles upright.
    orientation: int = 0
    #: How each occupied square was read: "classifier", "tesseract", "stock" (named by the
    #: stock classifier: a letter the profile has not learnt, or a glyph like none of the
    #: profile's samples), "reblurred" (a letter the profile's classifier doubted in a blurred
    #: photo, read against its sharp letters blurred as the photo is: :mod:`vision.reblur`),
    #: "blank", or "unread" (a ``?`` on a face a letter marks, but whose letter no glyph was
    #: found for).
    sources: dict[tuple[int, int], str] = field(default_factory=dict)
    #: The classifier's likeliest letters for each lettered square, best first (none where
    #: Tesseract read alone): what the word check chooses among (:mod:`vision.wordcheck`).
    likeliest: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    #: The glyph's similarity to each of its likeliest letters (same order): how much less it
    #: looks like a lesser guess.
    likeness: dict[tuple[int, int], tuple[float, ...]] = field(default_factory=dict)
    #: The photo's blur measured as a motion (the camera's during the exposure), or a lens out
    #: of focus counted as the motion that spreads a point as far
    #: (:data:`vision.deblur.DEFOCUS_AS_MOTION`), as undone for the letters, in squares of the
    #: board (0: none seen).  From :data:`MOTION_WARNING` on, letters are misread several times as
    #: often (:meth:`warnings`).
    motion_blur: float = 0.0
    #: Each lettered square's glyph as the classifiers saw it (:attr:`Glyph.normalised`): the
    #: word check learns from the photo's own letters in valid words what its others are.
    glyphs: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)
    #: The words on the board as read that are in no word list, each with its GCG position
    #: (``("CIN", "4I")``), once a word list was consulted (:func:`vision.wordcheck.check_reading`);
    #: None where none was.  The tiles stay as read: whether a word stands is the players' call.
    not_in_word_list: tuple[tuple[str, str], ...] | None = None
    #: Squares that something over the board (a hand, an arm, a sleeve) covers, so that
    #: nothing is known of them (:func:`vision.covered.covered_squares`): read empty, with
    #: confidence :data:`vision.rectified.UNSURE` at most.
    covered: tuple[tuple[int, int], ...] = ()
    #: Whether most squares taken for tiles showed no letter and no other look of the tiles'
    #: faces was found (a lamp's reflection as pale as the faces, wooden tiles beyond it as
    #: pink as the DW squares): tiles may be read empty, and no tile read is sure.
    colour_in_doubt: bool = False

    def warnings(self) -> list[str]:
        """What about the photo may have made the reading wrong, for the user to act on.

        >>> reading = BoardReading(["." * 15] * 15, np.zeros((4, 2)), np.ones((15, 15)), 0.1,
        ...                        motion_blur=0.21)
        >>> reading.warnings()  # doctest: +NORMALIZE_WHITESPACE
        ['the photo is blurred (a smear of 0.21 of a square): letters may be misread; hold
          the camera still, let it focus, and take the photo again']
        >>> from dataclasses import replace
        >>> replace(reading, motion_blur=0.05).warnings()
        []

        A tile apart from the others, as no game leaves one:

        >>> board = ["." * 15] * 15
        >>> board[7], board[12] = "......CAT......", "..Q............"
        >>> replace(reading, board=board, motion_blur=0.0).warnings()  # doctest: +ELLIPSIS
        ['1 of the tiles read is not joined to the centre square through other tiles, ...']
        """
        found: list[str] = []
        if self.motion_blur >= MOTION_WARNING:
            unsure = self.unsure_squares()
            found.append(f"the photo is blurred (a smear of {self.motion_blur:.2f} of a "
                         f"square): letters may be misread"
                         + (f" (unsure: {', '.join(unsure)})" if unsure else "")
                         + "; hold the camera still, let it focus, and take the photo again")
        if self.covered:
            names = self.covered_squares()
            found.append(
                f"something over the board (a hand, an arm?) covers {len(names)} "
                f"{'square' if len(names) == 1 else 'squares'}, not read: {', '.join(names)}; "
                f"take the photo again with nothing over the board")
        maybe = self.maybe_tiles()
        if maybe:
            found.append(
                f"{len(maybe)} {'square' if len(maybe) == 1 else 'squares'} looked like "
                f"{'a tile' if len(maybe) == 1 else 'tiles'} but showed no letter and "
                f"{'is' if len(maybe) == 1 else 'are'} read empty: {', '.join(maybe)}; "
                f"check {'it' if len(maybe) == 1 else 'them'}")
        if self.colour_in_doubt:
            found.append(
                "most squares taken for tiles showed no letter, and no other look of the "
                "tiles was found (a lamp's reflection over the board?): tiles may be read "
                "empty, and no tile read is sure; take the photo again without the reflection")
        apart = tiles_apart(self.board)
        if apart:
            found.append(
                f"{apart} of the tiles read {'is' if apart == 1 else 'are'} not joined to the "
                f"centre square through other tiles, as every tile of a game is: a tile may be "
                f"missed, or seen where there is none; check the board")
        return found

    def unsure_squares(self) -> list[str]:
        """The tiles read with less confidence than :data:`UNSURE_SHOWN`, named as GCG names
        squares (column letter, row number: ``H8``), in reading order.

        >>> confidence = np.ones((15, 15)); confidence[7, 7] = 0.2
        >>> board = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
        >>> BoardReading(board, np.zeros((4, 2)), confidence, 0.1).unsure_squares()
        ['H8']
        """
        return [Square(r, c).name for r in range(SIZE) for c in range(SIZE)
                if self.board[r][c] != "." and self.confidence[r, c] < UNSURE_SHOWN]

    def maybe_tiles(self) -> list[str]:
        """The squares read empty although taken for a tile (a face, but no letter on it that
        a reader could find: a heavy blur, glare), named as :meth:`unsure_squares` names them:
        confidence :data:`vision.rectified.UNSURE` or less.

        >>> confidence = np.ones((15, 15)); confidence[7, 9] = 0.5
        >>> board = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
        >>> BoardReading(board, np.zeros((4, 2)), confidence, 0.1).maybe_tiles()
        ['J8']
        """
        covered = set(self.covered)
        return [Square(r, c).name for r in range(SIZE) for c in range(SIZE)
                if self.board[r][c] == "." and self.confidence[r, c] <= UNSURE
                and (r, c) not in covered]

    def covered_squares(self) -> list[str]:
        """:attr:`covered`, named as :meth:`unsure_squares` names squares, in reading order.

        >>> reading = BoardReading(["." * 15] * 15, np.zeros((4, 2)), np.ones((15, 15)), 0.1,
        ...                        covered=((14, 3), (13, 3)))
        >>> reading.covered_squares(), reading.maybe_tiles()
        (['D14', 'D15'], [])
        """
        return [Square(r, c).name for r, c in sorted(self.covered)]

    def to_json(self) -> dict:
        """The reading as plain JSON types (``unsure``: :meth:`unsure_squares`,
        ``maybe_tiles``: :meth:`maybe_tiles`, ``covered``: :meth:`covered_squares`,
        ``warnings``: :meth:`warnings`)."""
        return {
            "board": list(self.board),
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners],
            "confidence": [[round(float(c), 3) for c in row] for row in self.confidence],
            "seconds": round(self.seconds, 4),
            "unsure": self.unsure_squares(),
            "maybe_tiles": self.maybe_tiles(),
            "covered": self.covered_squares(),
            "warnings": self.warnings(),
        } | ({} if self.not_in_word_list is None else {"not_in_word_list": [
            {"word": word, "position": position} for word, position in self.not_in_word_list]})


def tiles_apart(board: Sequence[str]) -> int:
    """How many tiles of ``board`` (15 rows, ``.`` empty) are not joined to the centre square
    through tiles beside each other: all of them when the centre is empty.

    A game's first word covers the centre and every later one joins the words already there,
    so a position of a game has none; a tile read where there is none (glare, a label's
    print), or one missed in a word, leaves some apart.

    >>> board = ["." * 15] * 15
    >>> board[7] = "......CAT......"
    >>> tiles_apart(board)
    0
    >>> board[7] = "......CA.S....."
    >>> board[2] = ".....Q........."
    >>> tiles_apart(board)
    2
    """
    tiles = np.array([[ch != "." for ch in row] for row in board], np.uint8)
    if not tiles.any():
        return 0
    _, labels = cv2.connectedComponents(tiles, connectivity=4)
    centre = labels[SIZE // 2, SIZE // 2] if tiles[SIZE // 2, SIZE // 2] else -1
    return int((tiles.astype(bool) & (labels != centre)).sum())


#: The four squares beside a square.
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


def read_board(
    image: np.ndarray, profile: ReadingModels | None = None, tileset: str | TileSet = "en",
    stock: bool = True,
) -> BoardReading:
    """Read the board in one photo (BGR).

    ``profile`` holds the models learnt for one camera, board and tile set
    (:class:`vision.models.ReadingModels`, which a calibration profile is).  Without a profile
    the letters are read by the stock classifier learnt from printed
    typefaces (:mod:`vision.stock`, when it is built and ``stock`` is left True) and by
    Tesseract where that is unsure, otherwise by Tesseract alone.

    Raises :class:`UnreadableImage` for something that is not a picture and
    :class:`vision.locate.BoardNotFound` when no grid is found in it.
    """
    started = time.perf_counter()
    # The read's images, tens of megabytes made and dropped, on huge pages: a tenth of its time
    # went to the page faults of their first touch.
    use_huge_pages()
    image = check_image(image)
    tiles = TileSet.named(profile.tileset) if profile is not None else (
        tileset if isinstance(tileset, TileSet) else TileSet.named(tileset)
    )
    corners = profile.corners if profile is not None else None
    if corners is not None and check_corners(image, corners) < CORNERS_STILL_FIT:
        corners = None  # the camera or the board moved since calibration
    # The profile's orientation belongs to its camera position: a photo taken from elsewhere
    # may show the board turned any way.
    fixed_camera = corners is not None
    # The grey picture that the search for the grid makes serves the deblurring too.
    grey: np.ndarray | None = None
    if corners is None:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners = locate_board(image, quality=False, grey=grey).corners
    corners = np.asarray(corners, np.float32)
    rectified = rectify_with_margin(image, corners)
    # Something over the board (a hand, an arm) hides the grid where it lies: those squares
    # are not read, and said to be covered.
    # The rectified grid in grey, made once: the covered squares, the noise check and the
    # glyphs' finder (which reads the grey alone) all look at it.
    rectified_grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    hidden = covered_squares(rectified_grey, SQUARE_PX, crop_margin_px(SQUARE_PX))
    hidden = reaching_further(
        hidden, own_colours(rectified, hidden, SQUARE_PX, crop_margin_px(SQUARE_PX)))
    def tiles_seen(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # The profile's occupancy model learnt the colours of its own camera, light and white
        # balance; a photo from elsewhere is judged by the uncalibrated model.
        seen, seen_confidence = occupancy_of(
            grid, profile if fixed_camera else None, hidden if hidden.any() else None)
        return seen & ~hidden, seen_confidence

    # The grid at the occupancy's scale, made once: the occupancy and the light look at it.
    grid = occupancy_grid(inner(rectified))
    occupied, occupancy_confidence = tiles_seen(grid)
    # A shadow across part of the board: its light evened out first (a shaded tile looked like
    # a lit empty square, its letter's ink like the shadow's edge).
    light = light_over_board(grid, occupied, hidden)
    shaded = uneven(light)
    if shaded:
        rectified = evened(rectified, light, SQUARE_PX)
        rectified_grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
        occupied, occupancy_confidence = tiles_seen(occupancy_grid(inner(rectified)))
    if profile is not None:
        classifier: LetterClassifier | None = profile.classifier()
    else:
        classifier = stock_classifier(set(tiles.letters)) if stock else None
    tesseract = TesseractReader(tiles)
    # Letters are read from the photo with its blur undone (occupancy and the faces' colours
    # keep the photo as taken, a shadow evened); a sharp photo is left as it is.
    deblurred = deblurred_for_letters(image if grey is None else grey, corners, SQUARE_PX,
                                      shade=shade_field(light, SQUARE_PX) if shaded else None)
    # A noisy photo (a dim room) is smoothed for the letters: the glyphs' faint ink would
    # follow the noise.  A deblurred one is left as restored.
    if deblurred is not None and deblurred.undone:
        letters_image = rectify_with_margin(deblurred.grey, deblurred.corners)
    else:
        letters_image = quieted(rectified, rectified_grey)
        if letters_image is rectified:  # not smoothed: its grey is made already
            letters_image = rectified_grey
    finder = GlyphFinder(letters_image, SQUARE_PX, joined=turn_sensitive(tiles))

    def letters_known(found: list[Glyph]) -> np.ndarray:
        # The stock samples are loaded only where a premium square asks for them.
        return like_a_letter(
            found, [classifier, stock_classifier(set(tiles.letters)) if stock else None])

    calibrated_occupancy = fixed_camera and profile is not None and bool(profile.occupancy)
    if not calibrated_occupancy and occupied.sum() < FEW_TILES:
        for square, _ in tiles_by_letters(finder, occupied, letters_known):
            occupied[square] = True
            occupancy_confidence[square] = UNSURE
    turns = profile.orientation if fixed_camera and profile is not None else None
    as_seen: dict[tuple[int, int], Glyph | None] = {}
    colour_in_doubt = False
    # Tiles known by their letters alone, where colour could not tell (upright board's terms).
    left_out: list[tuple[tuple[int, int], Glyph]] = []
    if turns is None:
        seen_squares = [tuple(map(int, rc)) for rc in np.argwhere(occupied)]
        found = finder.glyphs(seen_squares)
        colour_in_doubt = not calibrated_occupancy and faces_in_doubt(found)
        if colour_in_doubt:
            left_out = letters_left_out(finder, ~occupied & ~hidden, letters_known)
        face = faces_by_letters(left_out, occupied.shape)
        if face is not None:
            # Most squares taken for tiles show no letter: the look taken for the tiles' face
            # is something else's (glare), and the plain squares showing letters show it.
            again, again_confidence = occupancy_of(
                inner(rectified), None, hidden if hidden.any() else None, face)
            again &= ~hidden
            again_squares = [tuple(map(int, rc)) for rc in np.argwhere(again)]
            again_found = finder.glyphs(again_squares)
            # Kept where it leaves fewer faces bare and finds as many letters on tiles (a look
            # of a few squares' wood grain would leave few faces at all).
            if (sum(1 for g in again_found if g is None) < sum(1 for g in found if g is None)
                    and sum(1 for g in again_found if g is not None)
                    >= sum(1 for g in found if g is not None)):
                occupied, occupancy_confidence = again, again_confidence
                seen_squares, found = again_squares, again_found
                colour_in_doubt = faces_in_doubt(found)
                left_out = letters_left_out(finder, ~occupied & ~hidden,
                                            letters_known) if colour_in_doubt else []
        turns = orientation_of_glyphs(found + [glyph for _, glyph in left_out], classifier,
                                      tesseract)
        left_out = [(rotate_square(square, turns), glyph.turned(turns))
                    for square, glyph in left_out]
        as_seen = {rotate_square(sq, turns): g for sq, g in zip(seen_squares, found, strict=True)}
    occupied = np.rot90(occupied, turns)
    hidden = np.rot90(hidden, turns)
    occupancy_confidence = np.rot90(occupancy_confidence, turns)
    squares = [tuple(map(int, rc)) for rc in np.argwhere(occupied)]
    if as_seen and (turns == 0 or not turn_sensitive(tiles)):
        # The glyphs found to tell the orientation, turned with the picture.
        glyphs = [None if as_seen[sq] is None else as_seen[sq].turned(turns)  # type: ignore[union-attr]
                  for sq in squares]
    else:
        glyphs = finder.glyphs(squares, turns)
    for square, glyph in letters_under_glare(finder, squares, glyphs, turns).items():
        glyphs[squares.index(square)] = glyph
    confidence = occupancy_confidence.astype(np.float64).copy()
    for square in faces_under_glare(finder, squares, glyphs, turns):
        confidence[square] = min(confidence[square], UNSURE_FACE)
    for square, glyph in faint_letters(finder, squares, glyphs, turns,
                                       tiles.counts.get(BLANK, 0), letters_known).items():
        glyphs[squares.index(square)] = glyph
    if not calibrated_occupancy:
        # The uncalibrated occupancy model can take a tile for an empty square when tiles and
        # board are alike in colour (wooden tiles on a tan board); a letter standing in the
        # middle of a square, as tall as the letters on the tiles found, is a tile (on a
        # premium square, only where a classifier finds it like a letter: not a label's).
        for square, glyph in missed_tiles(finder, squares, glyphs, occupied, turns,
                                          letters_known):
            squares.append(square)
            glyphs.append(glyph)
            confidence[square] = UNSURE
        # The tiles beyond a look taken for the face that was something else's, which no
        # lettered tile found led to: named by their letters, and unsure.
        for square, glyph in left_out:
            if square not in squares:
                squares.append(square)
                glyphs.append(glyph)
                confidence[square] = UNSURE_FACE
        order = sorted(range(len(squares)), key=lambda i: squares[i])
        squares = [squares[i] for i in order]
        glyphs = [glyphs[i] for i in order]
    # A square taken for a tile whose only stroke is a line running across it (a folding
    # board's hinge, darkening the square) holds no tile.
    shown = [i for i, g in enumerate(glyphs) if g is not None]
    across = finder.lines_across([squares[i] for i in shown], turns)
    for i in sorted((i for i, line in zip(shown, across, strict=True) if line), reverse=True):
        confidence[squares[i]] = UNSURE
        del squares[i], glyphs[i]
    bare = [sq for sq, g in zip(squares, glyphs, strict=True) if g is None]
    lettered = [sq for sq, g in zip(squares, glyphs, strict=True) if g is not None]
    taken = taken_squares(squares)
    closer, match = face_likeness(rectified, turns, bare, lettered, taken)
    face = {sq: (float(a), float(b)) for sq, a, b in zip(bare, closer, match, strict=True)}
    removed = not_blanks(squares, glyphs, confidence, tiles.counts.get(BLANK, 0), face)
    for square in removed + stray_marks(squares, glyphs):
        # Taken for a tile but showing no letter (beyond the blanks the set has, or not in a
        # word), or only a mark far smaller than a letter with no tile beside it: a square
        # lightened by glare or a shadow's edge, or a premium label's print, rather than a tile.
        index = squares.index(square)
        del squares[index], glyphs[index]
        confidence[square] = UNSURE
    # Faces marked by a letter that no glyph was found in: letters unread (shown as "?" for
    # the words on the board to name), not blanks.
    unread = marked_faces(squares, glyphs, face)
    for square in unread:
        confidence[square] = UNSURE_FACE
    for square in unmatched_faces(squares, glyphs, face):
        confidence[square] = min(confidence[square], UNSURE_FACE)
    for square in blanks_by_face(rectified, turns, squares, glyphs,
                                 tiles.counts.get(BLANK, 0) + len(unread)):
        index = bisect.bisect(squares, square)
        squares.insert(index, square)
        glyphs.insert(index, None)
        confidence[square] = UNSURE_FACE
    # A profile that has not learnt every letter yet: the stock classifier may name the others.
    fallback = stock_for_unseen(classifier, set(tiles.letters)) if stock else None
    guesses, sources = read_letters(
        glyphs, classifier, tesseract, tiles, stock=fallback,
        stock_where_unlike=(lambda: stock_classifier(set(tiles.letters)))
        if stock and profile is not None else None)
    for square in unread:
        sources[squares.index(square)] = "unread"
    # A letter found under a hand is a fold of its skin, or a tile seen through a gap.  The
    # squares beside the hand lie partly under its edge or in its shadow: a face showing no
    # letter there is as likely skin as a blank, and nothing read there is sure.
    beside = (cv2.dilate(hidden.astype(np.uint8), _CROSS) > 0) & ~hidden
    dropped = lone_unsure(squares, guesses) + [
        sq for sq, guess in zip(squares, guesses, strict=True)
        if hidden[sq] or (beside[sq] and guess.letter == BLANK)]
    for square in dict.fromkeys(dropped):
        index = squares.index(square)
        del squares[index], guesses[index], sources[index], glyphs[index]
        confidence[square] = UNSURE
    if deblurred is not None and classifier is not None and not classifier.stock:
        # In a blurred photo, the letters the profile's classifier doubts are compared, as
        # taken, with its own sharp letters blurred as the photo is (stable where undoing
        # the blur is not: a blur longer than the estimate weighs, or not the same everywhere).
        upright = np.ascontiguousarray(np.rot90(rectified_grey, turns))
        for index in reread_unsure(upright, SQUARE_PX, crop_margin_px(SQUARE_PX), squares,
                                   guesses, classifier, UNSURE_SHOWN):
            sources[index] = "reblurred"
    if deblurred is not None and deblurred.smear_squares >= MOTION_WARNING:
        # What is reported sure; which tiles there are was decided on the readers' word.
        guesses = [guess if source == "reblurred" else sure
                   for guess, sure, source in zip(guesses, sure_as_the_glyphs(guesses), sources,
                                                  strict=True)]
    confidence[hidden | beside] = np.minimum(confidence[hidden | beside], UNSURE)
    if colour_in_doubt:
        # The look taken for the tiles' face was no tile's (most of its squares bare) and no
        # other was found: nothing read is sure, the faces bare (glare's squares kept as
        # blanks), the letters found on them (a label's print under glare) and beside them.
        for square in squares:
            confidence[square] = min(confidence[square], UNSURE_FACE)
    rows = [["."] * SIZE for _ in range(SIZE)]
    for (r, c), guess in zip(squares, guesses, strict=True):
        rows[r][c] = guess.letter
        confidence[r, c] = min(confidence[r, c], guess.confidence)
    return BoardReading(
        board=["".join(row) for row in rows],
        corners=np.roll(corners, -turns, axis=0),
        confidence=confidence,
        seconds=time.perf_counter() - started,
        orientation=turns,
        sources=dict(zip(squares, sources, strict=True)),
        likeliest={square: guess.likeliest for square, guess in zip(squares, guesses,
                                                                    strict=True)
                   if guess.likeliest},
        likeness={square: guess.likeness for square, guess in zip(squares, guesses, strict=True)
                  if guess.likeness},
        motion_blur=0.0 if deblurred is None else deblurred.smear_squares,
        glyphs={square: glyph.normalised for square, glyph in zip(squares, glyphs, strict=True)
                if glyph is not None},
        covered=tuple(map(tuple, np.argwhere(hidden).tolist())),
        colour_in_doubt=colour_in_doubt,
    )
