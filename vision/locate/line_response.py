"""Picking out the grid's thin lines (step 1 of :mod:`vision.locate`): the hat filter's line
response (ridges), the line mask whose enclosed regions are the empty squares, and the response
averaged along short strokes that the last looks use on faint lines among noise."""

from __future__ import annotations

import cv2
import numpy as np

#: Width of the hat filter; lines up to about half of it wide are picked out.
_HAT_SIZE = 7
#: Line-mask components spanning less than the image's long side over this are noise specks.
_SPECK_FRACTION = 100
#: Length (working pixels) and number of orientations of the short strokes along which the line
#: response is averaged in the last look (see :func:`_along_strokes`).
_STROKE_LENGTH = 9
_STROKE_ANGLES = 8
#: Gains on the stroke-averaged line response, tried in turn against the line mask's fixed
#: thresholds: averaging lowers a blurred line's peak as well as the noise, by an amount that
#: depends on the blur.
_STROKE_GAINS = (1.0, 1.25, 1.5, 1.75, 2.0)


def _grey(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise TypeError("image must be a uint8 numpy array (BGR or grey)")
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 2:
        return image
    raise ValueError(f"image must be HxWx3 (BGR) or HxW (grey), got shape {image.shape}")


def _ridges(work: np.ndarray, dark_lines: bool) -> np.ndarray:
    """Strength of thin dark (or light) lines at each pixel, uint8.

    On a colour image each channel is filtered and the strongest response kept: a line that
    differs from its squares in one colour more than in brightness (dark green lines on green
    squares, pale green on green) stands out in that channel.
    """
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_HAT_SIZE, _HAT_SIZE))
    operation = cv2.MORPH_BLACKHAT if dark_lines else cv2.MORPH_TOPHAT
    hat = cv2.morphologyEx(work, operation, kernel)
    if hat.ndim == 2:
        return hat
    # The channels' largest, by OpenCV: NumPy's max over a last axis of three takes a
    # hundred times as long.
    channels = cv2.split(hat)
    strongest = channels[0]
    for channel in channels[1:]:
        strongest = cv2.max(strongest, channel)
    return strongest


#: For each local maximum m of the line response, the response a pixel must exceed to be on a
#: line: 6 (strong), or 4 where it is also strong against the strongest line nearby (20 r > 7 m,
#: for whole numbers r > floor(7 m / 20)).
_LINE_THRESHOLD = np.clip(np.arange(256) * 7 // 20, 4, 6).astype(np.uint8)


def _line_mask(ridges: np.ndarray, despeckle: bool = False) -> np.ndarray:
    """Pixels on lines: strong relative to the strongest line nearby, so faint grids still close."""
    window = max(9, (max(ridges.shape) // 40) | 1)
    local_max = cv2.dilate(ridges, cv2.getStructuringElement(cv2.MORPH_RECT, (window, window)))
    # A pixel is on a line where ridges > 6, or ridges > 4 and 20 * ridges > 7 * local_max:
    # one threshold per value of the local maximum, looked up (the same mask, without five
    # passes over the picture in 16 bits).
    mask = np.greater(ridges, cv2.LUT(local_max, _LINE_THRESHOLD)).view(np.uint8)
    if despeckle:
        # Sensor noise leaves specks of "line" inside the squares, whose holes spoil the
        # squares' shape: a speck is a component much smaller than a square.  (Faint grids
        # break into short pieces too, so this is a second try, not the first.)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        speck = max(4, max(ridges.shape) // _SPECK_FRACTION)
        extent = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        keep = (extent >= speck).astype(np.uint8)
        keep[0] = 0
        mask = keep[labels]
    # Closing one-pixel breaks keeps neighbouring squares from merging into one region.
    return cv2.dilate(mask, np.ones((3, 3), np.uint8))


def _stroke_kernels() -> list[np.ndarray]:
    """Normalised kernels of straight strokes :data:`_STROKE_LENGTH` long, one per orientation."""
    kernels = []
    middle = (_STROKE_LENGTH - 1) / 2
    along = np.linspace(-middle, middle, 4 * _STROKE_LENGTH)
    for angle in np.pi * np.arange(_STROKE_ANGLES) / _STROKE_ANGLES:
        kernel = np.zeros((_STROKE_LENGTH, _STROKE_LENGTH), np.float32)
        columns = np.rint(middle + along * np.cos(angle)).astype(int)
        rows = np.rint(middle + along * np.sin(angle)).astype(int)
        kernel[rows, columns] = 1
        kernels.append(kernel / kernel.sum())
    return kernels


_STROKES = _stroke_kernels()


def _along_strokes(ridges: np.ndarray) -> np.ndarray:
    """The line response averaged along short straight strokes, the best orientation's (float32).

    Under blur and sensor noise a thin line's response is as weak as the noise's: thresholded,
    the noise bites into the squares and the line breaks, so few regions keep a square's shape.
    Along a stroke lying on the line its response stays, while noise specks average away.
    """
    response = ridges.astype(np.float32)
    return np.max([cv2.filter2D(response, -1, kernel) for kernel in _STROKES], axis=0)
