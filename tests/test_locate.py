"""Grid location on real photos, on perturbed copies of them, on rendered photos of hard
situations, and where there is no board."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from sim.render import RenderConfig, RenderedPhoto, render_board
from vision.geometry import grid_to_image, order_corners, project, rotate_corners
from vision.locate import BoardLocation, BoardNotFound, check_corners, locate_board
from vision.locate.window import _premium_shift
from vision.rectify import rectify

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GAME = SHARED / "data" / "photos" / "scrabscrap-game01"
JHEIDEL = SHARED / "data" / "photos" / "jheidel"

#: The game's grid corners as given with the photos (approximate, a few pixels).
GAME_CORNERS = np.array([(37, 71), (879, 68), (880, 909), (46, 911)], float)
#: Grid corners of the phone photos, checked by eye on 3x enlargements to within ~5 pixels
#: (squares are 60-90 pixels there).
JHEIDEL_CORNERS = {
    "IMG_20141025_163953.jpg": [(605, 1270), (1784, 1243), (2044, 2488), (454, 2547)],
    "IMG_20151016_170219.jpg": [(964, 682), (2372, 537), (2516, 1781), (1200, 2143)],
    "IMG_20151016_170803.jpg": [(541, 1595), (1317, 1347), (1879, 2039), (1041, 2464)],
}


def read_photo(path: Path) -> np.ndarray:
    if not path.exists():
        pytest.skip(f"shared photo {path.name} not found at {path.parent} (../shared is absent)")
    image = cv2.imread(str(path))
    assert image is not None, f"could not decode {path}"
    return image


def corner_error(found: BoardLocation, expected: np.ndarray) -> float:
    """Largest corner distance, in squares."""
    return float(np.hypot(*(found.corners - expected).T).max() / found.square_px)


# --------------------------------------------------------------------------- real photos


@pytest.mark.parametrize("frame", range(1, 28))
def test_game_frames_locate_within_a_fraction_of_a_square(frame):
    image = read_photo(GAME / f"image-{frame}.jpg")
    found = locate_board(image)
    assert found.corners.dtype == np.float32 and found.corners.shape == (4, 2)
    # The given corners are themselves only near the truth: a tenth of a square is the bar.
    assert corner_error(found, GAME_CORNERS) < 0.1
    assert 54 < found.square_px < 58
    assert found.quality > 0.5


def test_quality_judged_only_when_asked():
    image = read_photo(GAME / "image-27.jpg")
    judged, unjudged = locate_board(image), locate_board(image, quality=False)
    assert np.array_equal(judged.corners, unjudged.corners)
    assert np.array_equal(judged.homography, unjudged.homography)
    assert judged.quality > 0.5 and np.isnan(unjudged.quality)


@pytest.mark.parametrize("name", sorted(JHEIDEL_CORNERS))
def test_phone_photos_locate_the_grid_not_the_board_edge(name):
    image = read_photo(JHEIDEL / name)
    found = locate_board(image)
    # The board's outer edge lies more than a square outside the grid on these boards, so a
    # tenth of a square tells grid from edge.
    assert corner_error(found, np.array(JHEIDEL_CORNERS[name], float)) < 0.1


def test_homography_maps_the_corners_to_the_grid_square():
    image = read_photo(GAME / "image-5.jpg")
    found = locate_board(image)
    grid = project(found.homography, found.corners)
    assert np.allclose(grid, [[0, 0], [15, 0], [15, 15], [0, 15]], atol=1e-6)
    to_canonical = found.homography_to(40, 10)
    assert np.allclose(project(to_canonical, found.corners[:1]), [[9.5, 9.5]], atol=1e-6)


# --------------------------------------------------------------------------- perturbations


def _rotate(image: np.ndarray, corners: np.ndarray, degrees: float):
    height, width = image.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_width, new_height = int(height * sin + width * cos), int(height * cos + width * sin)
    matrix[0, 2] += new_width / 2 - width / 2
    matrix[1, 2] += new_height / 2 - height / 2
    out = cv2.warpAffine(image, matrix, (new_width, new_height), borderValue=(90, 110, 130))
    return out, np.c_[corners, np.ones(4)] @ matrix.T


def _tilt(image: np.ndarray, corners: np.ndarray, degrees: float, axis: str):
    """The photo as a camera turned by ``degrees`` about the image's x or y axis would see it."""
    height, width = image.shape[:2]
    focal = float(max(height, width))
    camera = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    a = np.deg2rad(degrees)
    if axis == "x":
        turn = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    else:
        turn = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    homography = camera @ turn @ np.linalg.inv(camera)
    outline = project(homography, [[0, 0], [width, 0], [width, height], [0, height]])
    low, high = outline.min(axis=0), outline.max(axis=0)
    homography = np.array([[1, 0, -low[0]], [0, 1, -low[1]], [0, 0, 1]]) @ homography
    size = tuple(int(v) for v in high - low)
    out = cv2.warpPerspective(image, homography, size, borderValue=(90, 110, 130))
    return out, project(homography, corners)


def _light_gradient(image: np.ndarray, corners: np.ndarray):
    height, width = image.shape[:2]
    across = np.linspace(0.35, 1.25, width)[None, :, None]
    down = np.linspace(0.8, 1.1, height)[:, None, None]
    gain = across * down
    return np.clip(image * gain, 0, 255).astype(np.uint8), corners


def _clutter(image: np.ndarray, corners: np.ndarray):
    """Pad with clutter: blurred noise, shapes, lines, a chessboard and loose tiles."""
    rng = np.random.default_rng(7)
    height, width = image.shape[:2]
    pad = int(0.4 * max(height, width))
    out = cv2.GaussianBlur(rng.integers(0, 255, (height + 2 * pad, width + 2 * pad, 3), np.uint8),
                           (0, 0), 3)
    for _ in range(60):
        x, y = (int(v) for v in rng.integers(0, width + 2 * pad, 2))
        size = int(rng.integers(10, 120))
        colour = tuple(int(v) for v in rng.integers(0, 255, 3))
        if rng.random() < 0.5:
            cv2.rectangle(out, (x, y), (x + size, y + int(size * rng.random())), colour, -1)
        else:
            end = (x + int(rng.integers(-300, 300)), y + int(rng.integers(-300, 300)))
            cv2.line(out, (x, y), end, colour, int(rng.integers(1, 5)))
    chess = (np.indices((8, 8)).sum(axis=0) % 2 * 200 + 30).astype(np.uint8)
    out[20:260, 20:260] = cv2.resize(chess, (240, 240), interpolation=cv2.INTER_NEAREST)[..., None]
    for k in range(7):
        x0 = width + 2 * pad - 400 + 52 * k
        out[40:88, x0 : x0 + 48] = (200, 225, 235)
        cv2.putText(out, "ABCDEFG"[k], (x0 + 10, 80), 0, 1.2, (20, 20, 20), 3)
    out[pad : pad + height, pad : pad + width] = image
    return out, corners + pad


def _quarter_turn(image: np.ndarray, corners: np.ndarray):
    height = image.shape[0]
    turned = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    return turned, np.c_[height - 1 - corners[:, 1], corners[:, 0]]


def _half_turn(image: np.ndarray, corners: np.ndarray):
    height, width = image.shape[:2]
    return cv2.rotate(image, cv2.ROTATE_180), np.c_[width - 1 - corners[:, 0],
                                                    height - 1 - corners[:, 1]]


PERTURBATIONS = {
    "rotate 90": _quarter_turn,
    "rotate 180": _half_turn,
    "rotate 30": lambda im, c: _rotate(im, c, 30),
    "rotate -17": lambda im, c: _rotate(im, c, -17),
    "perspective 35 about x": lambda im, c: _tilt(im, c, 35, "x"),
    "perspective 35 about y": lambda im, c: _tilt(im, c, -35, "y"),
    "light gradient": _light_gradient,
    "clutter around": _clutter,
    "perspective, rotation and gradient": lambda im, c: _light_gradient(
        *_rotate(*_tilt(im, c, 35, "x"), 30)
    ),
}


@pytest.fixture(scope="module")
def reference_frames():
    """Frames 1 (five tiles) and 27 (ninety-seven) with the corners found on them untouched."""
    frames = {}
    for frame in (1, 27):
        image = read_photo(GAME / f"image-{frame}.jpg")
        frames[frame] = image, locate_board(image).corners.astype(np.float64)
    return frames


@pytest.mark.parametrize("frame", [1, 27])
@pytest.mark.parametrize("perturbation", sorted(PERTURBATIONS))
def test_perturbed_photos_locate_the_same_grid(reference_frames, frame, perturbation):
    image, corners = reference_frames[frame]
    changed, expected = PERTURBATIONS[perturbation](image, corners)
    found = locate_board(changed)
    # Corners are ordered by their place in the new image, whatever the turn.
    expected = order_corners(expected.astype(np.float32))
    assert corner_error(found, expected) < 0.1, perturbation


def test_corners_are_ordered_in_the_image_whatever_the_turn(reference_frames):
    image, _ = reference_frames[1]
    turned = cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    corners = locate_board(turned).corners
    top_left, top_right, bottom_right, bottom_left = corners
    assert top_left[0] < top_right[0] and bottom_left[0] < bottom_right[0]
    assert top_left[1] < bottom_left[1] and top_right[1] < bottom_right[1]


# --------------------------------------------------------------------------- rendered situations

#: Positions from games of the rendered-photo benchmark (bench/eval_rendered.py, seed 1 unless
#: said).
ROWS = {
    "early": (
        "...........COBB", ".............L.", ".............A.", "........FEAZING",
        ".............D.", "........APE..E.", ".......ALANINS.", "D..HOMEY.....TO",
        "O....ONE......C", "JUMpeRS.......R", "O.............E", "..............A",
        "..............T", "..............E", "...............",
    ),
    "late": (
        "JETON..B.......", "....AQUARIAL...", "..M....I.......", "..O....L.E.....",
        "..I....O.M.....", "..RE...REF..d.A", "..AX....N...U.V", "...COSIED...N.I",
        "...I....O...G.A", "...T....W...E.T", "...OF...I...O.E", "...NO..UNYEAnED",
        "..ASH...G...S..", "..Y............", "PREZ...........",
    ),
    "full": (
        "...ADENINE..ZAX", ".BRIEF.TUFA.AG.", "TEE.R.......pA.", "...MIR.CHURL.I.",
        "...OSE....HAEN.", "...WOP.CAVORTS.", "Q...R.MAW....T.", "A.SKYlINE......",
        "I..I..BEDU.....", "DJINNI...POET..", "...G...LOOED...", "...L...........",
        "...E...........", "...T...........", "GUVS...........",
    ),
    "full, top rows covered": (
        ".DAINTIER.....W", "BEY....G......a", ".VERTU.OMICRONS", "..........HE.UP",
        ".........POX...", ".....FACIAL....", "B.VIDE...LO....", "O..FORTH.AsWOON",
        "D.G.YA.A.D.....", "I.A.EL.U.IT....", "N.U.N..L.NA....", "GAZES..I..JEER.",
        "S.ET..METE.....", ".....KIR.......", ".......S.......",
    ),
    "late, tiles in the left columns": (
        "S..WHILE.......", "U..I.FIN.......", "R..N...........", "G.TO...........",
        "YAR............", ".XU............", "W.M..AEROBIA...", "A.PALATE...BEAM",
        "I.E...HIDE.ORDO", "FAD......N.....", ".V.......O.....", "KITTING..U.....",
        ".O.......N.....", ".N.......C.....", ".......QUEY....",
    ),
    "full, tiles in the top rows": (
        "CROFT.MAYAN.JIG", ".I..OXEN.HOBOS.", ".DECEIT.....L..", "...E..HYDRIAE..",
        "..ANI.....FA...", ".BRONZE........", "...T...........", "...EQUIPS......",
        "....U...TOLL...", ".K.GAG.MAW.....", ".R..I..IT......", "VOWELS.NU......",
        ".NET...DEV.....", ".E...APeS......", "ARbOURED.......",
    ),
    "full, bottom row covered": (
        ".......A.ANURIC", ".......TABU....", "....G.PIAL.....", "...ZORIL.A.T...",
        "....DENTITION..", ".....E...E.FAVE", ".....N.....T...", "....AJAR.......",
        "...SHOW.UGH....", ".QaT.YE..EAU...", "..IRES.FOLD....", "..LI...R.......",
        "..SCOOPER...GEY", "...KEX.M.....MI", "VOWS...DONNErED",
    ),
    # Seed 3.
    "full, the middle columns played": (
        ".......L.......", "......PI.......", "......RE.......", ".....TANKER....",
        ".....AT.I......", ".....BI.V......", "D.JIN.Q.AE.....", "OP.FOCUS.E....C",
        "WOO...EH.R....O", "ET..AA.A.Y.S..R", "r...DELFT.ME..N", "YAULD..TI.AE..E",
        ".....eXISTING.O", ".WHA.GUN..Z...U", "DOMINO.G.BEVELS",
    ),
    "middle, tiles in the top left": (
        "......MAYA.....", "....OXEN.HOBOS.", ".DECEIT........", "...E..HYDRIAE..",
        "...N...........", ".BRONZE........", "...T...........", "...EQUIPS......",
        "........T......", ".......MA......", ".......IT......", ".......NU......",
        ".......DE......", ".......eS......", "ARbOURED.......",
    ),
    # Seed 4.
    "middle, tiles down the left and along the bottom": (
        "S......W.......", "UH.....R.......", "QAID...E.......", ".J.EPEEs.......",
        ".I..A..T.......", "..RITZ.........", "N...C...E......", "O...HOMER......",
        "R...O...G......", "IF..UP.........", "AL..LI.........", ".OFAYS........T",
        ".G............A", ".SADLY....WRICK", ".....EVIcTEE..A",
    ),
    "late, tiles on the right and along the bottom": (
        "..EQuATE.....BA", "..R....DOE..WET", "..N.....WRITHE.", "..E........HAST",
        "..........NOR.R", ".........JO.VIA", ".........E..ENG", ".......PLUCKs.I",
        "..........L...C", ".........YID...", "I.........V....", "X.........IN...",
        "O.........AA...", "ROSY....UNSOLD.", "A..AUROUS..I...",
    ),
    "early, one word across the middle": (
        "...............", "...............", "...............", "...............",
        "...............", ".....V.........", ".....I.........", "....ARVO.......",
        ".....T.FANNING.", ".....U.........", "...............", "...............",
        "...............", "...............", "...............",
    ),
    "full, turned upside down": (
        "UN.....T..EXINE", "POMELO.WEFT....", ".MONORAIL......", "...F...G..T....",
        "G.QAIDs..OE....", "E..C..AR.HEIR..", "T..E.SWAYS.....", "U..DRONGO..A...",
        "PAL..R.....y...", ".ZINEB...BHUT..", ".OE.DINKLY.R...", ".T...C.A...V...",
        "JEU....V...E...", ".S.....A...D...", ".......S...A...",
    ),
    # Seed 2.
    "middle, tiles in the top half": (
        "....D........A.", ".BRIEF.......G.", "....R........A.", "...MIR.......I.",
        "...OSE....HAEN.", "...WOP.CAVORTS.", "....R.MAW....T.", "..SKYlINE......",
        "...............", "...............", "...............", "...............",
        "...............", "...............", "...............",
    ),
    # Seed 4.
    "full, tiles in the left columns and down the right": (
        "S..WHILES......", "U..I.FINO.G....", "R..N....J.E....", "G.TO...CAREER..",
        "YAR.....S.Z....", ".XU...T........", "W.M..AEROBIA.P.", "A.PALATE...BEAM",
        "I.E...HIDE.ORDO", "FAD......N...L.", ".V.......O.E.O.", "KITTING..U.V.c.",
        ".O.......N.I.k.", ".N.......C.L.E.", ".......QUEYS.D.",
    ),
    "full, tiles in the top rows and bottom right": (
        "...FLIRT.......", "....OX.........", ".....I.........", "IRRIGATE...C...",
        "...V.....FLAPS.", ".J.I.QAt...BOON", "YOWE...OUREBIS.", "E.ADNATE...Y...",
        "C.l..D......U..", "HOKE.Z......NU.", "S.O.REED..PEAT.", "..UM..RANGING..",
        "..TO...W....I..", "..SI...E..HALE.", "...L...D..AMENT",
    ),
    # Seed 6.
    "full, tiles in the top left": (
        "TENPIN.AD.....E", "IF.I...AIN....S", "...N...HAE....C", "...I.R..S.....U",
        "..COPILOT.ZIN.D", ".Q.N.V.FAY.LOBO", ".U...I..S.AERO.", "GAMBlE.RELAX.WE",
        ".....R.........", "....WE.GETTER..", ".J..A.HeMOID...", ".O.UVEAL.......",
        "GUTTERY........", ".K..D..........", ".S.............",
    ),
    "full, tiles in the top right": (
        "R......N...WEBS", "I......O.I.A.I.", "DEX..L.O.G.I.L.", "..IMPARK.L.V.L.",
        "....IN...ORE.E.", "....AY.F.OE..D.", "V.C.NA.I..W....", "A.ABORTS..E....",
        "M.J..D.T..I.Z..", "OHO..S.N..G.OF.", "sUN...PoUCHIER.", "ER.....T....AE.",
        ".SQUATTED...ENG", ".T...........AE", "..............Y",
    ),
    "late, seed 7, tiles along the left and top": (
        "..............R", "............EMU", "............RUN", "...........P.L.",
        "..........LAIC.", ".........ZAG.TO", ".......GHI.O..R", "......LOOTED..B",
        "..E....ADIT.WHY", "..N.........A..", "..G..NARCISSI.W", "..U.TAX.....V.I",
        "..L..BED....E.N", "JEFEs....MITRED", "...FORSAKE....Y",
    ),
    "early, seed 9, words in the top left": (
        "...............", ".....I.........", "VALUING........", ".....C.........",
        "....JO.........", "....AG.........", "....D..........", "...WEAvE.......",
        "...............", "...............", "...............", "...............",
        "...............", "...............", "...............",
    ),
    "late, seed 11, tiles down the left": (
        "UT.....O.......", "HAM....T.......", ".XIS...T.......", "BITE...OS......",
        "LIEGE...L......", "EN.ORZO.ACTA...", "AG....KAB......", "R....JAGS......",
        ".....I.........", "...D.V.........", "...EYEN........", "...MODI........",
        "VOWEL.N........", "....k.O........", "PLEASaNT.......",
    ),
    "full, seed 12, tiles down the left and right": (
        "R......N...WEBS", "I......O.I.A.I.", "DEX..L.O.G.I.L.", "..IMPARK.L.V.L.",
        "....IN...ORE.E.", "....AY.F.OE..D.", "V.C.NA.I..W....", "A.ABORTS..E....",
        "M.J..D.T..I.Z..", "OHO..S.N..G.OF.", "sUN...PoUCHIER.", "ER.....T....AE.",
        ".SQUATTED...ENG", ".T...........AE", "..............Y",
    ),
    "final, seed 7, tiles over most of the board": (
        "K.JEER.F...ZEAL", "N.a....A...o...", "O.D...AVIATORS.", "T.I....A..US.T.",
        "TITRANTS..Q..O.", "Y.I.R.....U..PA", "..C.A.....E..PA", "....BEGS.....EL",
        "....L...HEWN.R.", ".VICED.FIX.....", ".E.O...E.......", "EN.L...U.......",
        "HEMOID.I.......", ".RUBDOWN.......", "MY.I.GOGO......",
    ),
    "middle, seed 24, words in the middle and down the left": (
        "...............", "...............", "...............", "...............",
        "..........T....", "D...T.JIBER....", "W...ALA...U....", "I...HOWE..D....",
        "N..PIGS...G....", "EQUINE....E....", "....I.....R....", "OUzOS..YOUSE...",
        "...............", "...............", "...............",
    ),
    "early, seed 24, a few words left of the middle": (
        "...............", "...............", "...............", "...............",
        "...............", "......C........", "......R........", "...FACES.......",
        "..WAY.P........", ".BOD..T........", "..GEUM.........", "...............",
        "...............", "...............", "...............",
    ),
    "late, seed 15, words down the middle and along the bottom": (
        ".......V.......", ".......ASP.....", ".......TAE.....", "...RECOUNTED...",
        "........I......", ".......MOJO....", "......Z.U......", "...HEMINS......",
        "...O..NE.......", ".REWAN.G......B", "...FRAILEST...U", "...F...E..AWA.O",
        ".......cRAVENLY", "...PIX.T......E", "HOmINIDS..EQUID",
    ),
    "middle, seed 32, words down the left": (
        "...............", "...............", "...............", "...P...........",
        "...A...........", ".E.G.JO......T.", ".u.E.UP......R.", ".L.BORERS....O.",
        ".OHO.AR.W....I.", ".GOY.TA.I....K.", ".IN.....V....a.", ".AD....DIDACTS.",
        "..A.....N......", "........G......", "...............",
    ),
    "final, seed 32": (
        "...........GAED", ".........QUALM.", "..SH.GLOP..I...", ".FOY.I.U...N...",
        ".A.DUVETINES...", ".V.R.E.B.......", "NE.IF..u.......", "I..CIRRI......G",
        "E...NOEL....T.O", "C....WITTY..R.O", "E........ETHERS", "......KNEW.ON.E",
        ".......AX..ADZ.", ".....JAM...R.A.", "SALTBOx....DOPA",
    ),
    "final, seed 19": (
        ".....QAIDS.....", "OKE.Nu...P.....", ".AMBEER..A..T..", "...AGE....PEAL.",
        "...YAR..SNAFU..", "....T...OUR.T..", "....R..AX...E..", "...HOODY..GIRTH",
        "..BENDEE.......", ".ZIN.....V.....", "..O......AL....", "JETS...CITING..",
        "O.I......IF.E..", "WINDoW..OCELLI.", "S....OVUM.R....",
    ),
    "final, seed 15, a column of tiles down the left edge": (
        "ELOIGN.O...LIEF", "MOW.OUTBID...HI", "A.NUT..V..C...G", "COSS.PRENOON..H",
        "I......R..WE.AT", "A......TEG...Z.", "T....Q..YAM.JO.", "E....A.RELAXInS",
        "....LINER.PUB..", ".....DUI....EKE", ".FARTS...YIRD..", ".E.............",
        ".N.............", ".D.............", "AsEA...........",
    ),
}


def benchmark_camera(number: int, seed: int = 1) -> RenderConfig:
    """The camera, light and scene of photo ``number`` of the rendered-photo benchmark."""
    return RenderConfig.random(seed * 100_003 + number, max_tilt=35, hand_probability=0.0)


#: Situations in which the grid was once lost: (edition, position, camera).
SITUATIONS = {
    # Dark green lines on green squares fade in grey when the camera moves across them; in the
    # green channel they still show.
    "green lines blurred by camera motion across the columns": (
        "green", "late", RenderConfig(motion_blur=6.0, motion_angle=76.0, noise=3.0,
                                      defocus=0.3, tilt=15.0, tilt_azimuth=150.0, rotation=10.0,
                                      board_scale=0.8, scene_seed=3),
    ),
    "green lines blurred by camera motion along the rows": (
        "green", "late", RenderConfig(motion_blur=5.0, motion_angle=0.0, noise=2.0,
                                      defocus=0.3, tilt=15.0, tilt_azimuth=150.0, rotation=10.0,
                                      board_scale=0.8, scene_seed=3),
    ),
    # Pale lines out of focus in dim light, tile racks beside the board.
    "pale green_print lines out of focus": ("green_print", "early", benchmark_camera(81)),
    "green_print in dim light with sensor noise": ("green_print", "full", benchmark_camera(99)),
    # The frame's bands and the carpet look like more rows below the grid, while tiles hide the
    # top rows' lines: the premium squares must move the window by two rows.
    "frame and carpet below, tiles on the top rows": (
        "green", "full, top rows covered", benchmark_camera(159),
    ),
    # Glare and barrel distortion leave the premium squares no clear say: the lines decide.
    "glare and lens distortion on a full board": (
        "green_print", "full, bottom row covered", benchmark_camera(227),
    ),
    # Tiles stand above the board: at a slant their edges and the gaps between them lie a
    # fifth of a square off the printed lines they cover, all the same way.
    "tiles' edges beside the lines, camera tilted 12 degrees": (
        "deluxe", "late, tiles in the left columns", benchmark_camera(26),
    ),
    "tiles' edges beside the lines, camera tilted 6 degrees": (
        "green_print", "full, tiles in the top rows", benchmark_camera(191),
    ),
    # Glare washes out the right half of the board and tiles cover the top rows: the empty
    # squares are found in the bottom left quarter alone, the camera tilted 35 degrees and
    # moving.
    "glare on the right, tiles on the top, empty squares bottom left": (
        "red", "middle, tiles in the top half", benchmark_camera(93, seed=2),
    ),
    # The camera moves along the rows, tilted 24 degrees: in grey, at either resolution, the
    # columns' lines are smeared into the squares; only the green channel at the lower one
    # shows them.
    "green lines blurred along the rows, tilted 24 degrees, a full board": (
        "green", "full, the middle columns played", benchmark_camera(47, seed=3),
    ),
    # The camera moves across the rows of a small, turned board: at full resolution few empty
    # squares stand out, and few of those side by side, all on one half of the board.
    "red board blurred, empty squares side by side on one half": (
        "red", "middle, tiles in the top left", benchmark_camera(181, seed=3),
    ),
    # Cells found off the board (a tile rack's squares) stretch the box the lattice's squares
    # fill, so that counting them along a diagonal packed them tighter than along the lines.
    "small sharp green board, a tile rack above it": (
        "green", "middle, tiles down the left and along the bottom", benchmark_camera(54, seed=4),
    ),
    "red board turned 75 degrees, tile racks above and below": (
        "red", "late, tiles on the right and along the bottom", benchmark_camera(162, seed=4),
    ),
    # Blurred, and small enough for a closer look, which finds a smaller lattice of the wrong
    # size; the farther look finds the board.
    "small blurred green_print board, squares too small at first": (
        "green_print", "early, one word across the middle", benchmark_camera(284, seed=4),
    ),
    # The cream band between a red board's grid and its frame looks like one more row, and
    # tiles cover most premium squares: the layout still matches one window best, though by
    # less than it does on emptier boards.
    "red board upside down, tiles over most premium squares": (
        "red", "full, turned upside down", benchmark_camera(279, seed=4),
    ),
    # Out of focus, with sensor noise, the camera tilted 33-34 degrees: the green lines are as
    # faint as the noise, which bites into the squares, so that at no resolution nor in any
    # channel do 12 empty squares keep a square's shape.
    "green board out of focus with sensor noise, tilted 34 degrees": (
        "green", "full, tiles in the left columns and down the right",
        benchmark_camera(15, seed=4),
    ),
    # The same, and the frame's band beyond the grid looks like one more row at either end.
    "green board out of focus with sensor noise, tilted 33 degrees, the frame's band seen": (
        "green", "full, tiles in the top rows and bottom right", benchmark_camera(223, seed=4),
    ),
    # Sensor noise on a carpet: among hundreds of its specks shaped like squares, a dozen land
    # by chance on sites of the board's lattice far across the photo.
    "noisy red board on a carpet, specks on the lattice's far sites": (
        "red", "full, tiles in the top left", benchmark_camera(163, seed=6),
    ),
    # A small red board, the camera moving across its lines, with sensor noise: at the first
    # resolution its squares are too small for the strokes, and only the closer look along
    # them keeps a dozen squares' shape.
    "small red board blurred with sensor noise, squares too small for the strokes": (
        "red", "full, tiles in the top right", benchmark_camera(127, seed=6),
    ),
    # A deluxe board out of focus (1.5 px) in glare: at the first resolution two dozen empty
    # squares are found, bunched where the lines are sharpest, and the lines beyond them are
    # not seen.
    "deluxe board out of focus, squares found on part of it only": (
        "deluxe", "late, seed 7, tiles along the left and top", benchmark_camera(50, seed=7),
    ),
    # A small green board out of focus (1.5 px) with sensor noise and glare, tiles over most of
    # it: its lines are as faint as the noise, and no line mask, at any resolution or gain
    # along the strokes, keeps the shape of a dozen squares side by side.
    "small green board out of focus with noise, its lines as faint as the noise": (
        "green", "final, seed 7, tiles over most of the board", benchmark_camera(55, seed=7),
    ),
    # The first line mask finds two dozen squares on one lattice, enough to look no further,
    # but a wrong one: on a sharp green_print board, a checkerboard of every other square (the
    # window placed 16 squares off); under motion blur along the rows, squares whose lines
    # across are smeared, on a lattice sheared along the rows (3 squares off).
    "green_print board, a checkerboard of every other square found first": (
        "green_print", "early, seed 9, words in the top left", benchmark_camera(24, seed=9),
    ),
    "green_print board blurred along the rows, a sheared lattice found first": (
        "green_print", "late, seed 11, tiles down the left", benchmark_camera(166, seed=11),
    ),
    # The first mask's lattice of 71 squares (many of them specks of the carpet) has a
    # diagonal for an axis: the window lands 10 squares off, where neither the premium squares
    # nor the lines are seen.
    "red board on a carpet, a sheared lattice of many squares found first": (
        "red", "full, seed 12, tiles down the left and right", benchmark_camera(103, seed=12),
    ),
    # Out of focus with sensor noise, the pale lines close few squares: the first look's
    # lattice of 37 bends (14 steps of it cover 15 squares), and the grid lies right along two
    # edges and 1.8 squares off at the far corner, its lines seen there between the printed ones.
    "green_print board out of focus with noise, a bent lattice found first": (
        "green_print", "middle, seed 24, words in the middle and down the left",
        benchmark_camera(149, seed=24),
    ),
    # Glare on a dark deluxe board with 80 tiles: the window two squares up and right, half of
    # it on the table, matched the premium layout's contrast best (0.17 against 0.01).
    "deluxe board under glare on a table, many tiles": (
        "deluxe", "late, seed 15, words down the middle and along the bottom",
        benchmark_camera(6, seed=15),
    ),
    # Small boards out of focus, among sensor noise (on a carpet; in dim light with glare, on a
    # table): no look finds a lattice of empty squares, but the premium squares show.
    "small green board out of focus with noise on a carpet, tilted 34 degrees": (
        "green", "early, seed 24, a few words left of the middle", benchmark_camera(72, seed=24),
    ),
    "small red board out of focus with noise, dim, under glare": (
        "red", "final, seed 19", benchmark_camera(255, seed=19),
    ),
    # Squares too small at first call for a closer look, which finds 55 squares on a lattice a
    # square and a half off where the first found 98 on the right one.
    "deluxe board moving, under glare, tilted 34 degrees, a closer look wrong": (
        "deluxe", "middle, seed 32, words down the left", benchmark_camera(233, seed=32),
    ),
    # Smeared 7 px by motion: the only lattice, of 13 squares, lies 1.8 squares off; its lines
    # and premium squares are not seen there, and the premium squares place the board.
    "red board smeared by motion, a lattice of a dozen squares off the grid": (
        "red", "final, seed 32", benchmark_camera(295, seed=32),
    ),
    # Tiles down the left edge hide the grid's first line: the first look's lines put the
    # window a column off, where its premium squares match the layout no better than chance.
    "classic board, tiles hiding the first line, the window a column off at first": (
        "classic", "final, seed 15, a column of tiles down the left edge",
        benchmark_camera(79, seed=15),
    ),
}


@cache
def rendered(situation: str) -> RenderedPhoto:
    """The photo of one of :data:`SITUATIONS` (rendered once per test session)."""
    edition, position, camera = SITUATIONS[situation]
    return render_board(list(ROWS[position]), tileset="en", edition=edition,
                        seed=camera.scene_seed, config=camera)


def rendered_error(found: BoardLocation, photo: RenderedPhoto) -> float:
    """Largest corner distance in squares of the true grid (the corners in image order)."""
    return corner_error(found, order_corners(photo.corners))


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_rendered_hard_situations_locate_the_grid(situation):
    photo = rendered(situation)
    found = locate_board(photo.image)
    # The benchmark's bar: half a square off, every square is read wrong.  (All are within 0.15
    # of a square; lens distortion leaves one at 0.14, where the best homography is 0.12 off.)
    assert rendered_error(found, photo) < 0.5, situation


@pytest.mark.parametrize("situation", ["tiles' edges beside the lines, camera tilted 12 degrees",
                                       "tiles' edges beside the lines, camera tilted 6 degrees"])
def test_tiles_edges_do_not_pull_the_grid_off_the_printed_lines(situation):
    photo = rendered(situation)
    found = locate_board(photo.image)
    # Fitted to every ridge, tiles' edges included, these grids were a quarter and a third of
    # a square off at a corner; the lines between empty squares put them within a hundredth.
    assert rendered_error(found, photo) < 0.05, situation


@pytest.mark.parametrize("situation", ["small sharp green board, a tile rack above it",
                                       "red board turned 75 degrees, tile racks above and below"])
def test_a_lattice_counted_along_a_diagonal_is_turned_onto_the_grid_lines(situation):
    photo = rendered(situation)
    found = locate_board(photo.image)
    # With a diagonal for one axis the grid came out a parallelogram, 8.8 and 10.6 squares off
    # at a corner; the axes that meet nearly square in the photo are the grid's.
    assert rendered_error(found, photo) < 0.15, situation


def test_premium_squares_under_many_tiles_still_move_the_window():
    photo = rendered("red board upside down, tiles over most premium squares")
    found = locate_board(photo.image)
    # Its window matched the layout by 0.10 more than the next (the score's units), short of
    # the 0.15 asked then: the grid was taken a row off.  No window of 1,000 other rendered
    # photos nor of the 30 real ones moves with 0.08.
    assert rendered_error(found, photo) < 0.15


def test_a_small_blurred_board_is_looked_at_farther_too():
    photo = rendered("small blurred green_print board, squares too small at first")
    found = locate_board(photo.image)
    # Its squares (about 15 px at the first resolution) called for a closer look, which found
    # 16 squares on a lattice of the wrong size, and a photo with small squares was not looked
    # at farther: the grid came out 3.9 squares off.  Farther, 58 squares lie on the lattice.
    assert rendered_error(found, photo) < 0.15


def test_a_grey_photo_too_blurred_at_first_is_looked_at_farther():
    photo = rendered("green_print in dim light with sensor noise")
    # Without colour the first look finds no lattice at all; that is no reason to skip the
    # look at a lower resolution, where the blur spans fewer pixels.
    found = locate_board(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY))
    assert rendered_error(found, photo) < 0.5


def test_a_colour_photo_too_blurred_at_first_is_looked_at_farther_in_colour():
    photo = rendered("green lines blurred along the rows, tilted 24 degrees, a full board")
    # Grey found no lattice at the first resolution, closer or farther, nor colour at the first
    # resolution (7 squares); colour at the lower resolution finds 40.
    found = locate_board(photo.image)
    assert rendered_error(found, photo) < 0.3


def test_a_lattice_seen_in_one_corner_still_finds_the_whole_grid():
    photo = rendered("glare on the right, tiles on the top, empty squares bottom left")
    found = locate_board(photo.image)
    # The lines were seen over 8 of the 15 columns only, and those beyond them (board on one
    # side, frame and table on the other) both looked like noise: the window went six columns
    # off the board.  The premium squares now choose among every window that holds the lines
    # seen; and the lattice, fitted to the lines between the empty squares alone, was half a
    # square off on the far side until grown again within that window.
    assert rendered_error(found, photo) < 0.3


def test_lines_between_empty_squares_on_half_the_board_do_not_bend_the_other_half():
    photo = rendered("red board blurred, empty squares side by side on one half")
    # Fitted to the lines between two empty squares alone (which span 8 of the 15 rows), the
    # perspective carried the far corner 0.58 of a square off, where the lattice of the empty
    # squares themselves had it within a tenth.
    found = locate_board(photo.image)
    assert rendered_error(found, photo) < 0.3


@pytest.mark.parametrize("situation", [
    "green board out of focus with sensor noise, tilted 34 degrees",
    "green board out of focus with sensor noise, tilted 33 degrees, the frame's band seen",
])
def test_faint_lines_among_noise_are_seen_along_strokes(situation):
    photo = rendered(situation)
    # No lattice of 12 empty squares was found ("no grid of squares found"): the line response
    # averaged along short strokes keeps the lines and loses the noise.  On the second, the
    # frame's band at either end of the lines seen then won the window a row off the grid
    # (its edges are strong lines), until the columns that no line crosses counted against it.
    found = locate_board(photo.image)
    assert rendered_error(found, photo) < 0.1, situation


def test_specks_far_from_the_board_do_not_stretch_its_lattice():
    photo = rendered("noisy red board on a carpet, specks on the lattice's far sites")
    # Eleven specks stretched the lattice of the board's 61 empty squares over 61x48 steps,
    # and it was refused as a repeating pattern; the board's squares crowd into one block.
    found = locate_board(photo.image)
    assert rendered_error(found, photo) < 0.1


def test_faint_lines_of_small_squares_are_seen_along_strokes_closer():
    photo = rendered("small red board blurred with sensor noise, squares too small for the "
                     "strokes")
    # No look found a lattice of 12 squares: the strokes at the first resolution found 9.
    found = locate_board(photo.image)
    # The grid's outer line beside the cream band is not seen on one side: extrapolated
    # there, one corner lies 0.14 of a square off (the others within 0.08).
    assert rendered_error(found, photo) < 0.15


def test_a_lattice_extrapolated_over_much_of_the_grid_is_looked_at_again_farther():
    photo = rendered("deluxe board out of focus, squares found on part of it only")
    # Extrapolated from 27 squares on part of the board, the far corner lay 0.56 of a square
    # off; farther, 73 squares are found and the lines seen span the grid.
    assert rendered_error(locate_board(photo.image), photo) < 0.1


@pytest.mark.parametrize("situation", [
    "green_print board, a checkerboard of every other square found first",
    "green_print board blurred along the rows, a sheared lattice found first",
])
def test_a_doubtful_lattice_is_confirmed_by_the_premium_squares(situation):
    photo = rendered(situation)
    # The lattice of 24 and 44 squares that the first line mask found placed the grid 16 and
    # 3 squares off; the premium squares confirm instead the lattice of 53 and 69 squares
    # that the mask without noise specks finds (0.09 and 0.06 of a square off).
    assert rendered_error(locate_board(photo.image), photo) < 0.1


def test_a_refuted_lattice_gives_way_to_another_masks():
    photo = rendered("red board on a carpet, a sheared lattice of many squares found first")
    # The window on the first mask's lattice matches the premium layout no better than chance
    # (-0.006) and its lines are not seen (0.00): the lattice of 56 squares that the mask
    # without noise specks finds places the grid 0.03 of a square off.
    assert rendered_error(locate_board(photo.image), photo) < 0.1


@pytest.mark.parametrize(("situation", "within"), [
    ("green_print board out of focus with noise, a bent lattice found first", 0.15),
    ("classic board, tiles hiding the first line, the window a column off at first", 0.15),
    ("deluxe board moving, under glare, tilted 34 degrees, a closer look wrong", 0.15),
    # Placed by the premium squares alone, their blobs smeared along the motion.
    ("red board smeared by motion, a lattice of a dozen squares off the grid", 0.3),
])
def test_a_doubtful_grid_gives_way_to_another_looks_that_fits_clearly_better(situation, within):
    photo = rendered(situation)
    # The first look's grids lay 1.8 and 1.2 squares off: one's lines are seen on the photo at
    # 0.15 (the true grid's 0.60), the other's premium squares match the layout at -0.04 (the
    # true window's 0.15).  Grey farther, colour, or grey closer find the right lattice.  The
    # closer look's grid (1.5 squares off) gives way to the first look's, of more squares; the
    # grid of a dozen squares (1.8 off, its lines seen at 0.03) to the premium squares' (0.24).
    assert rendered_error(locate_board(photo.image), photo) < within


def test_premium_squares_colours_must_agree_with_a_window_they_move():
    photo = rendered("deluxe board under glare on a table, many tiles")
    # On the window the lines chose, 19 squares show the red or blue their premium asks for;
    # on the window two squares off that the premium squares' contrast asked for, none does.
    assert rendered_error(locate_board(photo.image), photo) < 0.1


@pytest.mark.parametrize("situation", [
    "small green board out of focus with noise on a carpet, tilted 34 degrees",
    "small red board out of focus with noise, dim, under glare",
])
def test_where_no_lattice_is_found_the_premium_squares_place_the_grid(situation):
    photo = rendered(situation)
    # No look found a lattice of a dozen empty squares (at most 7 of 70 square-like regions on
    # one), and no two line masks agreed on enough: the board was not found.  Its premium
    # squares' colours, matched to the layout, place it within 0.06 and 0.18 of a square.
    assert rendered_error(locate_board(photo.image), photo) < 0.25


def test_squares_that_several_line_masks_agree_on_make_the_last_look():
    photo = rendered("small green board out of focus with noise, its lines as faint as the noise")
    # No look found a lattice of 12 squares (at most 4 of 26 square-like regions on one):
    # each mask keeps a few squares and as many specks of noise.  The squares two masks agree
    # on (40 on one lattice, every one on the board) place the grid 0.06 of a square off, in
    # the window the premium squares confirm.
    assert rendered_error(locate_board(photo.image), photo) < 0.1


@pytest.mark.parametrize("situation", ["frame and carpet below, tiles on the top rows",
                                       "pale green_print lines out of focus"])
def test_premium_squares_move_a_window_up_to_two_lines_back_onto_the_grid(situation):
    photo = rendered(situation)
    grid_to_photo = grid_to_image(photo.corners)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            # A window (dx, dy) squares off the grid is moved back by (-dx, -dy).
            assert _premium_shift(photo.image, grid_to_photo, dx, dy, 1.0) == (-dx, -dy)


# --------------------------------------------------------------------------- no board


def test_blank_image_has_no_board():
    with pytest.raises(BoardNotFound, match="no grid of squares"):
        locate_board(np.full((720, 1280, 3), 128, np.uint8))


def test_noise_has_no_board():
    noise = np.random.default_rng(3).integers(0, 255, (720, 1280, 3), np.uint8)
    with pytest.raises(BoardNotFound):
        locate_board(cv2.GaussianBlur(noise, (0, 0), 1.5))


def test_carpet_beside_a_board_has_no_board():
    carpet = read_photo(JHEIDEL / "IMG_20151016_170803.jpg")[2600:3264, 1300:2448]
    with pytest.raises(BoardNotFound):
        locate_board(carpet)


def test_a_chessboard_is_not_a_crossword_board():
    chess = (np.indices((8, 8)).sum(axis=0) % 2 * 200 + 30).astype(np.uint8)
    image = np.full((720, 1280), 120, np.uint8)
    image[60:660, 340:940] = cv2.resize(chess, (600, 600), interpolation=cv2.INTER_NEAREST)
    with pytest.raises(BoardNotFound):
        locate_board(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))


def test_wrong_input_is_refused_precisely():
    with pytest.raises(TypeError, match="uint8"):
        locate_board(np.zeros((100, 100, 3), np.float32))
    with pytest.raises(ValueError, match="HxWx3"):
        locate_board(np.zeros((100, 100, 4), np.uint8))


# --------------------------------------------------------------------------- re-check


def test_check_corners_tells_fitting_corners_from_moved_ones(reference_frames):
    for image, corners in reference_frames.values():
        side = np.hypot(*(corners[1] - corners[0])) / 15
        fitting = check_corners(image, corners)
        moved = check_corners(image, corners + [0.5 * side, 0.3 * side])
        turned = check_corners(image, rotate_corners(corners, 1)[[0, 1, 2, 3]] * 0.98)
        assert fitting > 0.6
        assert moved < 0.15
        assert turned < 0.3


def test_rotate_corners_turns_the_rectified_board(reference_frames):
    image, corners = reference_frames[27]
    upright = rectify(image, corners, 20)
    for turns in range(4):
        turned = rectify(image, rotate_corners(corners, turns), 20)
        difference = np.abs(turned.astype(int) - np.rot90(upright, turns).astype(int))
        assert difference.max() <= 1, turns
