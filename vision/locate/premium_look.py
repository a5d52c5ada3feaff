"""The very last look, past the lines altogether: the grid placed by matching the premium
squares' layout to the blobs of their red and blue on a colour photo."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import GRID_SIZE, project
from vision.locate.corner_check import check_corners
from vision.locate.lattice import _find_cells
from vision.locate.line_fit import _CENTRE_TO_LINES, _refine
from vision.locate.line_response import _ridges
from vision.locate.looks import at_working_size
from vision.locate.placement import _photo_corners, _Placement
from vision.locate.premium import _PREMIUM, _RED_LAYOUT, _colour_families
from vision.medians import median

#: The premium squares' centres (column, row) on the layout, and which are of the red family.
_PREMIUM_SITES = np.argwhere(_PREMIUM)[:, ::-1].astype(float)
_PREMIUM_RED = _RED_LAYOUT[_PREMIUM]
#: Farthest apart (in squares) two premium squares may lie to start a guess from, and how many
#: of each blob's nearest blobs are paired with it.
_PAIR_REACH = 4.5
_PAIRS_PER_BLOB = 6
#: A premium square's blob spans this share of the square's side (letters or labels printed on
#: it, blur and the colour's edge take some): specks of a carpet or of noise span less.
_BLOB_SIZES = (0.45, 1.15)
#: How many of the best guesses are refined, in how many rounds, and how far (in squares) a
#: blob may lie from a premium square's place to match it there.
_GUESSES_REFINED = 20
_REFINE_ROUNDS = 5
_MATCH_REACH = 0.4
#: Fewest premium squares (of the layout's 61) that must be matched to place the grid.
_MIN_PREMIUM_MATCHED = 24


def _premium_blobs(work: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Square-like regions of premium colour in a BGR work image: centres, sides (square root
    of the area), whether each is red (else blue), and a map of them: for each colour family,
    the index of the region each pixel lies in (within half a side of its centre), else -1.

    Specks of noise or of a carpet's weave, a pixel or two wide, are opened away first.
    """
    blue, red = _colour_families(work)
    kernel = np.ones((3, 3), np.uint8)
    centres, sides, reds = [], [], []
    for is_red, mask in ((False, blue), (True, red)):
        opened = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel)
        cells = _find_cells(1 - opened)
        centres.append(cells.centres)
        sides.append(np.sqrt(cells.areas))
        reds.append(np.full(len(cells.areas), is_red))
    centres_all, sides_all = np.vstack(centres), np.concatenate(sides)
    reds_all = np.concatenate(reds)
    where = np.full((2, *work.shape[:2]), -1, np.int32)
    for index, (centre, side, is_red) in enumerate(
            zip(centres_all, sides_all, reds_all, strict=True)):
        cv2.circle(where[int(is_red)], (int(round(centre[0])), int(round(centre[1]))),
                   max(1, int(round(side / 2))), index, -1)
    return centres_all, sides_all, reds_all, where


def _similarities(
    centres: np.ndarray, sides: np.ndarray, reds: np.ndarray
) -> np.ndarray:
    """Guesses of the map from the layout's squares to the work image (2x3 similarities), each
    from one blob and a near one taken for two premium squares of their colours."""
    layout, layout_red = _PREMIUM_SITES, _PREMIUM_RED
    # The layout is symmetric under the board's turns and reflections: the first square of a
    # pair is taken in one eighth of it.
    first = (layout[:, 1] <= layout[:, 0]) & (layout[:, 0] <= GRID_SIZE // 2)
    apart = layout[None, :, :] - layout[:, None, :]
    reach = np.hypot(apart[..., 0], apart[..., 1])
    pair_a, pair_b = np.nonzero(first[:, None] & (reach > 0) & (reach <= _PAIR_REACH))
    distance = np.hypot(*(centres[None, :, :] - centres[:, None, :]).transpose(2, 0, 1))
    np.fill_diagonal(distance, np.inf)
    # Premium squares' blobs are of a size; a speck beside one is no partner.
    ratio = sides[None, :] / sides[:, None]
    distance[(ratio < 0.7) | (ratio > 1 / 0.7)] = np.inf
    guesses = []
    nearest = np.argsort(distance, axis=1)[:, :_PAIRS_PER_BLOB]
    for i in range(len(centres)):
        for j in nearest[i]:
            if not np.isfinite(distance[i, j]) or distance[i, j] > 2 * _PAIR_REACH * sides[i]:
                continue
            fits = (layout_red[pair_a] == reds[i]) & (layout_red[pair_b] == reds[j])
            # The side a square would have: a premium square's blob spans most of it.
            side = distance[i, j] / reach[pair_a, pair_b]
            fits &= (sides[i] > _BLOB_SIZES[0] * side) & (sides[i] < _BLOB_SIZES[1] * side)
            a, b = layout[pair_a[fits]], layout[pair_b[fits]]
            # The similarities z -> p + (z - a) * (q - p) / (b - a), in complex numbers.
            step = complex(*(centres[j] - centres[i])) / ((b - a) @ [1, 1j])
            origin = complex(*centres[i]) - step * (a @ [1, 1j])
            guesses.append(np.stack([
                np.stack([step.real, -step.imag, origin.real], axis=1),
                np.stack([step.imag, step.real, origin.imag], axis=1),
            ], axis=1))
    return np.concatenate(guesses) if guesses else np.zeros((0, 2, 3))


def _premium_matches(
    points: np.ndarray, side: np.ndarray, where: np.ndarray, sides: np.ndarray
) -> np.ndarray:
    """For predicted premium squares' centres (``(..., 61, 2)`` work pixels, on squares of
    ``side`` pixels, ``(...)``), the blob of the square's colour each lands in (see
    :func:`_premium_blobs`) where that blob is of a premium square's size, else -1."""
    height, width = where.shape[1:]
    x = np.rint(points[..., 0])
    y = np.rint(points[..., 1])
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    family = np.broadcast_to(_PREMIUM_RED.astype(np.intp), inside.shape)
    found = where[family, np.where(inside, y, 0).astype(np.intp),
                  np.where(inside, x, 0).astype(np.intp)]
    ratio = sides[found] / np.asarray(side)[..., None]
    sized = (ratio > _BLOB_SIZES[0]) & (ratio < _BLOB_SIZES[1])
    return np.where(inside & (found >= 0) & sized, found, -1)


def _refined_premium_map(
    guess: np.ndarray, centres: np.ndarray, sides: np.ndarray, reds: np.ndarray
) -> tuple[np.ndarray, int]:
    """A guessed map (2x3) from the layout's squares to the work image refined through the
    premium squares it matches (each the nearest blob of its colour and size, within
    :data:`_MATCH_REACH` of a square; an affine map first, then a homography), and how many
    it matches."""
    homography = np.vstack([guess, [0, 0, 1]])
    matched = np.zeros(len(_PREMIUM_SITES), bool)
    for round_number in range(_REFINE_ROUNDS):
        mapped = project(homography, _PREMIUM_SITES)
        side = float(median(np.hypot(
            *(project(homography, _PREMIUM_SITES + [1.0, 0.0]) - mapped).T)))
        offsets = mapped[:, None, :] - centres[None, :, :]
        distance = np.hypot(offsets[..., 0], offsets[..., 1])
        ratio = sides / max(side, 1e-9)
        fits = ((_PREMIUM_RED[:, None] == reds[None, :])
                & ((ratio > _BLOB_SIZES[0]) & (ratio < _BLOB_SIZES[1]))[None, :])
        distance = np.where(fits, distance, np.inf)
        nearest = np.argmin(distance, axis=1)
        matched = distance[np.arange(len(nearest)), nearest] < _MATCH_REACH * side
        if matched.sum() < 8:
            break
        source, target = _PREMIUM_SITES[matched], centres[nearest[matched]]
        if round_number == 0:
            design = np.hstack([source, np.ones((len(source), 1))])
            solution, *_ = np.linalg.lstsq(design, target, rcond=None)
            refit = np.vstack([solution.T, [0, 0, 1]])
        else:
            refit, _ = cv2.findHomography(source, target, 0)
        if refit is None:
            break
        homography = refit
    return homography, int(matched.sum())


def _premium_look(image: np.ndarray) -> _Placement | None:
    """The grid placed by its premium squares' colours alone, where they match the layout
    (:data:`_MIN_PREMIUM_MATCHED`); else None.

    The very last look, where no lattice of empty squares is found at all: a small board out
    of focus, dim, among sensor noise, its lines fainter than the noise, still shows its red
    and blue premium squares.  Every blob of those colours shaped like a square is found; two
    near ones, taken for two premium squares of their colours, give a guess of the map from
    the layout to the photo (a similarity), and the guess under which most premium squares
    land on a blob of their colour is refined (an affine map, then a homography through the
    squares matched).  The lines, where they are seen better than by that fit, refine it.
    """
    if image.ndim != 3:
        return None
    work, scale = at_working_size(image)
    work = cv2.GaussianBlur(work, (3, 3), 0)
    centres, sides, reds, where = _premium_blobs(work)
    if len(centres) < _MIN_PREMIUM_MATCHED:
        return None
    guesses = _similarities(centres, sides, reds)
    if len(guesses) == 0:
        return None
    layout = np.hstack([_PREMIUM_SITES, np.ones((len(_PREMIUM_SITES), 1))])
    side = np.hypot(guesses[:, 0, 0], guesses[:, 1, 0])
    counts = (_premium_matches(np.einsum("kij,nj->kni", guesses, layout), side, where, sides)
              >= 0).sum(axis=1)
    best_matched, homography = 0, None
    # Not every best guess refines well (a similarity fits a slanted board only near the two
    # squares it was taken from): the best few are refined, the one matching most kept.
    for guess in np.argsort(-counts, kind="stable")[:_GUESSES_REFINED]:
        if counts[guess] < _MIN_PREMIUM_MATCHED // 2:
            break
        refined, matched = _refined_premium_map(guesses[guess], centres, sides, reds)
        if matched > best_matched:
            best_matched, homography = matched, refined
    if homography is None or best_matched < _MIN_PREMIUM_MATCHED:
        return None
    placement = _Placement(homography @ _CENTRE_TO_LINES, 0, 0, 0, scale)
    chosen, best_lines = placement, check_corners(image, _photo_corners(placement))
    grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    for dark_lines in (True, False):
        ridges = _ridges(grey, dark_lines).astype(np.float32)
        refined = _refine(ridges, placement.homography, (0, GRID_SIZE), (0, GRID_SIZE),
                          reach=0.2)
        candidate = _Placement(refined, 0, 0, 0, scale)
        lines = check_corners(image, _photo_corners(candidate))
        if lines > best_lines:
            chosen, best_lines = candidate, lines
    return chosen
