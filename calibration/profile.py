"""A calibration profile: what has been learnt about one camera, board and tile set.

A profile is a folder:

``profile.json``
    ``{"version": 1, "tileset": "de", "corners": [[x, y] x4] or null, "orientation": 0..3 or
    null, "occupancy": {...} or null}``.  ``corners`` are kept when every calibration photo
    found the grid in the same place (a fixed camera); ``orientation`` is the number of
    counter-clockwise quarter turns of the rectified photo that make the tiles upright.
``samples.npz``
    ``glyphs`` uint8 (N, 24, 24), normalised glyphs of the user's own tiles, ``labels`` (N,)
    their letters (``?`` labels a blank tile on which ink was nevertheless found), ``blurs``
    (N,) the blur each was learnt under (:class:`vision.letters.Blur` tags, ``""`` as
    photographed) and ``format``, the kind of normalised glyph (:data:`GLYPH_FORMAT`).  Files
    without ``format`` hold the box-scaled glyphs of earlier versions; they are still read (and
    compared with glyphs scaled the same way, see :class:`vision.letters.LetterClassifier`).
    ``features`` float16 (N, D) and ``features_version`` keep the glyphs' classifier features,
    so that a read in a fresh process need not compute them (used while the version matches).

Photos whose contents are known (:meth:`Profile.extend`) and moves the players confirmed
(:meth:`Profile.extend_from_squares`) add samples: each tile's glyph as photographed, and as
it would look under each of :data:`vision.letters.BLURS`, so that a photo blurred by a moving
hand or a soft focus is read with the letters learnt from sharp ones.

>>> profile = Profile(tileset="de")
>>> profile.counts()
{}
>>> parse_board_rows(["." * 15] * 14 + ["......ab.......".upper()])[14][6:8]
'AB'
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scorer.tiles import TileSet
from vision.glyphs import BLANK, GLYPH_PX, crop_margin_px
from vision.letters import (
    AS_PHOTOGRAPHED,
    BLURS,
    BOXED,
    FEATURES_VERSION,
    Blur,
    LetterClassifier,
    features,
)

PROFILE_VERSION = 1
PROFILE_FILE = "profile.json"
SAMPLES_FILE = "samples.npz"
OCCUPANCY_FILE = "occupancy_frames.npz"
#: Calibration photos kept (small, rectified) to refit the occupancy model as photos are added.
MAX_OCCUPANCY_FRAMES = 12
SIZE = 15
#: Largest corner disagreement (pixels, relative to the grid's width) still taken as the same
#: camera position.
FIXED_CAMERA_TOLERANCE = 0.01
#: Samples kept per letter: more add time to every read and little accuracy.
MAX_SAMPLES_PER_LETTER = 60
#: Samples kept per letter and blur (each blur adds as many samples as the photos had tiles).
MAX_BLURRED_PER_LETTER = 4
#: The normalised glyphs that samples.npz holds: 2 since glyphs are drawn from their shading
#: at a fixed scale (earlier files hold box-scaled binary glyphs and have no format).
GLYPH_FORMAT = 2


class ProfileError(ValueError):
    """A profile folder or a known board that cannot be used (says what and where)."""


def parse_board_rows(rows: Sequence[str], tileset: TileSet | None = None) -> list[str]:
    """Check 15 rows of 15 squares (``.`` empty, upper case letter, lower case blank).

    >>> parse_board_rows(["x" * 15] * 14)
    Traceback (most recent call last):
    ...
    calibration.profile.ProfileError: a board has 15 rows, got 14
    """
    rows = [row.strip() for row in rows if row.strip()]
    if len(rows) != SIZE:
        raise ProfileError(f"a board has {SIZE} rows, got {len(rows)}")
    for number, row in enumerate(rows, 1):
        if len(row) != SIZE:
            raise ProfileError(f"board row {number} has {len(row)} squares, not {SIZE}: {row!r}")
        if tileset is not None:
            for col, ch in enumerate(row, 1):
                if ch != "." and ch.upper() not in tileset.counts:
                    raise ProfileError(
                        f"board row {number}, column {col}: {ch!r} is not a letter of the "
                        f"{tileset.name} tile set"
                    )
    return rows


def read_board_file(path: str | Path, tileset: TileSet | None = None) -> list[str]:
    """The known board in a text file: 15 lines as :func:`parse_board_rows` takes them."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"cannot read board file {path}: {exc.strerror}") from exc
    try:
        return parse_board_rows(text.splitlines(), tileset)
    except ProfileError as exc:
        raise ProfileError(f"{path}: {exc}") from None


@dataclass
class ExtendReport:
    """What one calibration photo added."""

    letters: int = 0
    blanks: int = 0
    #: Squares of the known board that held a letter but showed no glyph, or the reverse.
    disagreements: list[tuple[int, int, str]] = field(default_factory=list)
    #: The samples learnt from each square (as photographed and under each blur), uint8 as
    #: the profile keeps them: what :meth:`Profile.relabel` takes when a tile was misnamed.
    samples: dict[tuple[int, int], list[np.ndarray]] = field(default_factory=dict)


@dataclass
class Profile:
    """What is learnt about one camera, board and tile set (see the module's docstring)."""

    tileset: str = "en"
    corners: np.ndarray | None = None
    orientation: int | None = None
    occupancy: dict | None = None
    glyphs: np.ndarray = field(
        default_factory=lambda: np.zeros((0, GLYPH_PX, GLYPH_PX), np.uint8)
    )
    labels: list[str] = field(default_factory=list)
    #: The blur each sample was learnt under (a :class:`vision.letters.Blur` tag; ``""`` as
    #: photographed, :data:`vision.letters.BOXED` for samples of earlier profiles).
    blurs: list[str] = field(default_factory=list)
    version: int = PROFILE_VERSION
    #: Small rectified grids (N, 15*OCCUPANCY_PX, 15*OCCUPANCY_PX, 3) in the photos' own
    #: orientation, and their occupied squares (N, 15, 15), for refitting occupancy.
    occupancy_frames: np.ndarray | None = None
    occupancy_boards: np.ndarray | None = None
    #: Corners found in each calibration photo (to tell a fixed camera); not saved.
    _seen_corners: list[np.ndarray] = field(default_factory=list, repr=False)
    _classifier: LetterClassifier | None = field(default=None, repr=False)
    #: Samples changed since the classifier was built.
    _stale: bool = field(default=True, repr=False)
    #: The samples' classifier features (N, D) float32, when known.
    _features: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.tileset = TileSet.named(self.tileset).code
        if len(self.blurs) != len(self.labels):
            if self.blurs:
                raise ProfileError(f"{len(self.blurs)} blurs but {len(self.labels)} labels")
            self.blurs = [AS_PHOTOGRAPHED] * len(self.labels)

    # ---------------------------------------------------------------- persistence

    @classmethod
    def load(cls, directory: str | Path) -> Profile:
        """Read a profile folder written by :meth:`save`."""
        directory = Path(directory)
        path = directory / PROFILE_FILE
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ProfileError(f"no profile in {directory}: {PROFILE_FILE} missing") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ProfileError(f"cannot read {path}: {exc}") from exc
        if not isinstance(meta, dict):
            raise ProfileError(f"{path}: not a profile (expected a JSON object)")
        if meta.get("version") != PROFILE_VERSION:
            raise ProfileError(
                f"{path}: unsupported profile version {meta.get('version')!r}, "
                f"this program reads version {PROFILE_VERSION}"
            )
        corners = meta.get("corners")
        profile = cls(
            tileset=meta.get("tileset", "en"),
            corners=None if corners is None else np.asarray(corners, np.float32).reshape(4, 2),
            orientation=meta.get("orientation"),
            occupancy=meta.get("occupancy"),
        )
        samples = directory / SAMPLES_FILE
        if samples.exists():
            try:
                with np.load(samples, allow_pickle=False) as data:
                    glyphs = data["glyphs"].astype(np.uint8)
                    labels = [str(x) for x in data["labels"]]
                    glyph_format = int(data["format"]) if "format" in data else 1
                    blurs = ([str(x) for x in data["blurs"]] if "blurs" in data
                             else [AS_PHOTOGRAPHED] * len(labels))
                    saved_features = (
                        data["features"].astype(np.float32)
                        if "features" in data and "features_version" in data
                        and int(data["features_version"]) == FEATURES_VERSION else None
                    )
            except (OSError, KeyError, ValueError, TypeError) as exc:
                raise ProfileError(f"cannot read {samples}: {exc}") from exc
            if glyphs.shape[1:] != (GLYPH_PX, GLYPH_PX) or len(glyphs) != len(labels):
                raise ProfileError(
                    f"{samples}: glyphs {glyphs.shape} do not match {len(labels)} labels"
                )
            if len(blurs) != len(labels):
                raise ProfileError(f"{samples}: {len(blurs)} blurs but {len(labels)} labels")
            if glyph_format > GLYPH_FORMAT:
                raise ProfileError(
                    f"{samples}: glyph format {glyph_format} is newer than this program's "
                    f"({GLYPH_FORMAT})"
                )
            if glyph_format < GLYPH_FORMAT:
                blurs = [BOXED] * len(labels)  # an earlier version's box-scaled glyphs
            for tag in set(blurs) - {AS_PHOTOGRAPHED, BOXED}:
                try:
                    Blur.parse(tag)
                except ValueError as exc:
                    raise ProfileError(f"{samples}: {exc}") from None
            profile.glyphs, profile.labels, profile.blurs = glyphs, labels, blurs
            if saved_features is not None and len(saved_features) == len(labels):
                profile._features = saved_features
        frames = directory / OCCUPANCY_FILE
        if frames.exists():
            try:
                with np.load(frames, allow_pickle=False) as data:
                    profile.occupancy_frames = data["images"]
                    profile.occupancy_boards = data["occupied"].astype(bool)
            except (OSError, KeyError, ValueError) as exc:
                raise ProfileError(f"cannot read {frames}: {exc}") from exc
        return profile

    def save(self, directory: str | Path) -> None:
        """Write the profile folder (created if missing); samples are written first."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            directory / SAMPLES_FILE,
            glyphs=self.glyphs.astype(np.uint8),
            labels=np.array(self.labels, dtype=str),
            blurs=np.array(self.blurs, dtype=str),
            format=np.int64(GLYPH_FORMAT),
            features=self._sample_features().astype(np.float16),
            features_version=np.int64(FEATURES_VERSION),
        )
        if self.occupancy_frames is not None and self.occupancy_boards is not None:
            np.savez_compressed(
                directory / OCCUPANCY_FILE, images=self.occupancy_frames,
                occupied=self.occupancy_boards,
            )
        meta = {
            "version": self.version,
            "tileset": self.tileset,
            "corners": None if self.corners is None else np.round(self.corners, 2).tolist(),
            "orientation": self.orientation,
            "occupancy": self.occupancy,
        }
        tmp = directory / (PROFILE_FILE + ".tmp")
        tmp.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(directory / PROFILE_FILE)

    # ---------------------------------------------------------------- learning

    def counts(self) -> dict[str, int]:
        """Samples per label (as photographed or from earlier profiles; blurred copies not
        counted)."""
        return dict(sorted(Counter(
            label for label, blur in zip(self.labels, self.blurs, strict=True)
            if blur in (AS_PHOTOGRAPHED, BOXED)
        ).items()))

    def classifier(self) -> LetterClassifier:
        """The letter classifier trained on this profile's samples (built once, then reused)."""
        if self._classifier is None or self._stale or len(self._classifier) != len(self.labels):
            classifier = LetterClassifier()
            if self.labels:
                classifier.fit(self.glyphs.astype(np.float32) / 255.0, self.labels, self.blurs,
                               self._sample_features())
            self._classifier = classifier
            self._stale = False
        return self._classifier

    def _sample_features(self) -> np.ndarray:
        """The samples' classifier features, computed once."""
        if self._features is None or len(self._features) != len(self.glyphs):
            self._features = features(self.glyphs.astype(np.float32) / 255.0)
        return self._features

    def add_samples(self, glyphs: np.ndarray, labels: Sequence[str],
                    blurs: Sequence[str] | None = None) -> None:
        """Add normalised glyphs (float 0..1 or uint8) with their labels, learnt under
        ``blurs`` (:class:`vision.letters.Blur` tags; as photographed when not given), oldest
        dropped first beyond :data:`MAX_SAMPLES_PER_LETTER` of one label as photographed and
        :data:`MAX_BLURRED_PER_LETTER` of one label and blur."""
        glyphs = _as_samples(glyphs)
        if len(glyphs) != len(labels):
            raise ProfileError(f"{len(glyphs)} glyphs but {len(labels)} labels")
        blurs = [AS_PHOTOGRAPHED] * len(labels) if blurs is None else list(blurs)
        if len(blurs) != len(labels):
            raise ProfileError(f"{len(blurs)} blurs but {len(labels)} labels")
        tiles = TileSet.named(self.tileset)
        for label in labels:
            if label != BLANK and label not in tiles.counts:
                raise ProfileError(f"{label!r} is not a letter of the {tiles.name} tile set")
        for tag in set(blurs) - {AS_PHOTOGRAPHED, BOXED}:
            try:
                Blur.parse(tag)
            except ValueError as exc:
                raise ProfileError(str(exc)) from None
        all_glyphs = np.concatenate([self.glyphs, glyphs])
        # Features of the samples kept so far stay; only the new ones are computed.
        known_features = self._features if (
            self._features is not None and len(self._features) == len(self.glyphs)) else None
        all_labels = list(self.labels) + list(labels)
        all_blurs = list(self.blurs) + blurs
        keep = np.ones(len(all_labels), bool)
        seen: Counter[tuple[str, str]] = Counter()
        for i in range(len(all_labels) - 1, -1, -1):
            # Earlier profiles' samples count with those as photographed.
            blur = AS_PHOTOGRAPHED if all_blurs[i] == BOXED else all_blurs[i]
            seen[all_labels[i], blur] += 1
            keep[i] = seen[all_labels[i], blur] <= (
                MAX_SAMPLES_PER_LETTER if blur == AS_PHOTOGRAPHED else MAX_BLURRED_PER_LETTER
            )
        self.glyphs = all_glyphs[keep]
        self.labels = [label for label, k in zip(all_labels, keep, strict=True) if k]
        self.blurs = [blur for blur, k in zip(all_blurs, keep, strict=True) if k]
        self._features = None if known_features is None else np.concatenate(
            [known_features, features(glyphs.astype(np.float32) / 255.0)])[keep]
        self._stale = True

    def extend(self, image: np.ndarray, board_rows: Sequence[str]) -> ExtendReport:
        """Learn from a photo whose board is known (15 rows; lower case = a blank).

        Finds the grid (the profile's corners if they still fit), the orientation (the one
        whose occupied squares match the known board best, then reads best), and adds one
        glyph sample per tile.
        """
        from vision.locate import locate_board
        from vision.rectified import check_image, rectify_with_margin

        tiles = TileSet.named(self.tileset)
        rows = parse_board_rows(board_rows, tiles)
        image = check_image(image)
        corners = locate_board(image).corners
        self._note_corners(np.asarray(corners, np.float32))
        rectified = rectify_with_margin(image, corners)
        # Each photo's own turn: a camera held by hand shows the board turned any way.  The
        # profile keeps the turn of its fixed camera (the first photo's while the camera has
        # not moved, else the latest photo's).
        turns = self._orientation_for(rectified, rows)
        if self.orientation is None or self.corners is None:
            self.orientation = turns
        self._refit_occupancy(rectified, rows, turns)
        return self._learn(np.rot90(rectified, turns), _squares_of(rows))

    def extend_from_squares(
        self, rectified: np.ndarray, squares: Mapping[object, str], square_px: int,
        margin: int = 0,
    ) -> ExtendReport:
        """Learn from confirmed squares of a rectified photo (in the photo's own orientation).

        ``squares`` maps board squares (``(row, col)`` or anything with ``row`` and ``col``,
        in the upright board's coordinates) to their letter; lower case is a blank.
        ``rectified`` is the grid at ``square_px`` per square with ``margin`` pixels around it.
        """
        import cv2

        from vision.rectified import SQUARE_PX

        if self.orientation is None:
            raise ProfileError("the profile has no orientation yet: calibrate from a photo first")
        side = 15 * square_px
        grid = rectified[margin : margin + side, margin : margin + side]
        if grid.shape[:2] != (side, side):
            raise ProfileError(
                f"rectified image {rectified.shape[:2]} is smaller than 15 squares of "
                f"{square_px} px plus a margin of {margin}"
            )
        # Re-sample at the reading scale, with the reading margin (edge tiles may overhang).
        target_margin = crop_margin_px(SQUARE_PX)
        scale = SQUARE_PX / square_px
        have = int(margin * scale)
        resized = cv2.resize(rectified, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        pad = max(0, target_margin - have)
        if pad:
            resized = cv2.copyMakeBorder(resized, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        start = have + pad - target_margin
        full = SQUARE_PX * 15 + 2 * target_margin
        board = resized[start : start + full, start : start + full]
        known: dict[tuple[int, int], str] = {}
        for square, letter in squares.items():
            r, c = (square.row, square.col) if hasattr(square, "row") else square  # type: ignore[attr-defined]
            known[(int(r), int(c))] = letter
        return self._learn(np.rot90(board, self.orientation), known)

    # ---------------------------------------------------------------- internals

    def _learn(self, upright: np.ndarray, known: Mapping[tuple[int, int], str]) -> ExtendReport:
        import cv2

        from vision.rectified import SQUARE_PX, glyphs_of

        report = ExtendReport()
        squares = sorted(known)
        tiles = TileSet.named(self.tileset)
        found = glyphs_of(upright, squares, tileset=tiles)
        glyphs, labels = [], []
        learnt = []
        for square, glyph in zip(squares, found, strict=True):
            letter = known[square]
            is_blank = letter != letter.upper()
            if glyph is None:
                if not is_blank:
                    report.disagreements.append((*square, letter))
                else:
                    report.blanks += 1
                continue
            glyphs.append(glyph.normalised)
            labels.append(BLANK if is_blank else letter)
            learnt.append(square)
            if is_blank:
                report.blanks += 1
            else:
                report.letters += 1
        if not glyphs:
            return report
        blurs = [AS_PHOTOGRAPHED] * len(glyphs)
        # The same tiles under each blur a photo may add: only the part of the board that
        # holds them is blurred and searched (a move's few tiles cost little).
        rows = [r for r, _ in learnt]
        cols = [c for _, c in learnt]
        top, left = min(rows), min(cols)
        margin = crop_margin_px(SQUARE_PX)
        part = upright[top * SQUARE_PX : (max(rows) + 1) * SQUARE_PX + 2 * margin,
                       left * SQUARE_PX : (max(cols) + 1) * SQUARE_PX + 2 * margin]
        if part.ndim == 3:
            # Glyphs are found in grey, and a blur commutes with taking grey: one channel to
            # blur rather than three.
            part = cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
        shifted = [(r - top, c - left) for r, c in learnt]
        letters = labels[:]
        owners = learnt[:]
        for blur in BLURS:
            for glyph, label, square in zip(glyphs_of(blur.apply(part, SQUARE_PX), shifted,
                                                      tileset=tiles), letters, learnt,
                                            strict=True):
                if glyph is not None:
                    glyphs.append(glyph.normalised)
                    labels.append(label)
                    blurs.append(blur.tag)
                    owners.append(square)
        stacked = _as_samples(np.stack(glyphs))
        self.add_samples(stacked, labels, blurs)
        for square, sample in zip(owners, stacked, strict=True):
            report.samples.setdefault(square, []).append(sample)
        return report

    def relabel(self, samples: Sequence[np.ndarray], was: str, letter: str) -> int:
        """Name ``letter`` the kept samples among ``samples`` (as an :class:`ExtendReport`
        gives them) that were learnt as ``was``: a tile found misread after it was learnt
        (``BLANK`` for a blank).  Returns how many changed; samples since dropped are skipped.

        >>> profile = Profile(tileset="en")
        >>> glyph = np.zeros((GLYPH_PX, GLYPH_PX), np.uint8); glyph[4:-4, 8:-8] = 255
        >>> profile.add_samples(glyph[None], ["O"])
        >>> profile.relabel([glyph], "O", "Q"), profile.labels
        (1, ['Q'])
        """
        wanted = {np.ascontiguousarray(s, np.uint8).tobytes() for s in samples}
        changed = 0
        for i, label in enumerate(self.labels):
            if label == was and self.glyphs[i].tobytes() in wanted:
                self.labels[i] = letter
                changed += 1
        if changed:
            self._stale = True
        return changed

    def forget(self, samples: Sequence[np.ndarray]) -> int:
        """Drop the kept samples among ``samples`` (as an :class:`ExtendReport` gives them):
        learnt from a square that held no tile.  Returns how many were dropped.

        >>> profile = Profile(tileset="en")
        >>> glyph = np.zeros((GLYPH_PX, GLYPH_PX), np.uint8); glyph[4:-4, 8:-8] = 255
        >>> profile.add_samples(glyph[None], ["O"])
        >>> profile.forget([glyph]), profile.labels
        (1, [])
        """
        wanted = {np.ascontiguousarray(s, np.uint8).tobytes() for s in samples}
        keep = np.array([g.tobytes() not in wanted for g in self.glyphs], bool)
        dropped = int((~keep).sum())
        if dropped:
            if self._features is not None and len(self._features) == len(self.glyphs):
                self._features = self._features[keep]
            self.glyphs = self.glyphs[keep]
            self.labels = [label for label, k in zip(self.labels, keep, strict=True) if k]
            self.blurs = [blur for blur, k in zip(self.blurs, keep, strict=True) if k]
            self._stale = True
        return dropped

    def _refit_occupancy(self, rectified: np.ndarray, rows: Sequence[str], turns: int) -> None:
        """Add the photo (whose tiles stand upright after ``turns`` counter-clockwise quarter
        turns) to the occupancy model's examples and refit it on the recent ones."""
        from vision.occupancy import OccupancyModel
        from vision.rectified import inner, occupancy_grid

        small = occupancy_grid(inner(rectified))[None]
        # Known rows read upright; the model sees the photo as it stands.
        occupied = np.rot90(np.array([[ch != "." for ch in row] for row in rows]), -turns)[None]
        if self.occupancy_frames is None or self.occupancy_boards is None:
            self.occupancy_frames, self.occupancy_boards = small, occupied
        else:
            self.occupancy_frames = np.concatenate([self.occupancy_frames, small])
            self.occupancy_boards = np.concatenate([self.occupancy_boards, occupied])
        self.occupancy_frames = self.occupancy_frames[-MAX_OCCUPANCY_FRAMES:]
        self.occupancy_boards = self.occupancy_boards[-MAX_OCCUPANCY_FRAMES:]
        boards = [["".join("x" if o else "." for o in row) for row in b]
                  for b in self.occupancy_boards]
        model = OccupancyModel().fit(list(self.occupancy_frames), boards)
        self.occupancy = model.to_dict() if model.calibrated else None

    def _note_corners(self, corners: np.ndarray) -> None:
        self._seen_corners.append(corners)
        if self.corners is None and len(self._seen_corners) == 1:
            self.corners = corners
            return
        reference = self.corners if self.corners is not None else self._seen_corners[0]
        width = float(np.linalg.norm(reference[1] - reference[0]))
        if float(np.abs(corners - reference).max()) > FIXED_CAMERA_TOLERANCE * width:
            self.corners = None  # the camera moved: find the grid in every photo
        elif self.corners is not None:
            self.corners = np.median(np.stack(self._seen_corners), axis=0).astype(np.float32)

    def _orientation_for(self, rectified: np.ndarray, rows: Sequence[str]) -> int:
        """The quarter turns under which the photo's tiles match the known board best."""
        from vision.rectified import glyphs_of, inner, occupancy_of

        # The learnt occupancy model only fits photos from the camera it was learnt with.
        occupied, _ = occupancy_of(inner(rectified), self if self.corners is not None else None)
        expected = np.array([[ch != "." for ch in row] for row in rows])
        mismatches = [int((np.rot90(occupied, k) != expected).sum()) for k in range(4)]
        best = min(mismatches)
        candidates = [k for k in range(4) if mismatches[k] == best]
        if len(candidates) == 1:
            return candidates[0]
        # A symmetric layout: ask which rotation's glyphs Tesseract reads as the known letters.
        from vision.tesseract_reader import TesseractReader

        known = [(sq, letter) for sq, letter in _squares_of(rows).items() if letter.isupper()]
        reader = TesseractReader(self.tileset)
        scores = []
        for k in candidates:
            glyphs = glyphs_of(np.rot90(rectified, k), [sq for sq, _ in known])
            pairs = [(g, letter) for g, (_, letter) in zip(glyphs, known, strict=True) if g]
            answers = reader.read([g.ink for g, _ in pairs])
            right = (a.letter == letter for a, (_, letter) in zip(answers, pairs, strict=True))
            scores.append(sum(right))
        return candidates[int(np.argmax(scores))]


def _as_samples(glyphs: np.ndarray) -> np.ndarray:
    """Normalised glyphs (float 0..1, or uint8 already) as the profile keeps them."""
    glyphs = np.asarray(glyphs)
    if glyphs.dtype != np.uint8:
        glyphs = np.clip(np.round(glyphs * 255.0), 0, 255).astype(np.uint8)
    return glyphs.reshape(-1, GLYPH_PX, GLYPH_PX)


def _squares_of(rows: Sequence[str]) -> dict[tuple[int, int], str]:
    return {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}
