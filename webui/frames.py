"""Camera frames handed between the web server and the camera pipeline.

Two objects live here, one of each per game (see :class:`FrameHub`):

* :class:`PushedFrames` is a bounded, thread-safe queue of JPEG frames that a phone posts to
  ``/api/games/<id>/frames``.  A frame source of the pipeline reads it with :meth:`get`.  When the
  reader falls behind, the oldest frames are dropped: a board tracker wants the newest picture,
  not a backlog.
* :class:`LatestFrame` holds the newest frame the pipeline wants shown on the preview page, and the
  grid corners it detected in it.

>>> frames = PushedFrames(capacity=2)
>>> for jpeg in (b"\\xff\\xd8one", b"\\xff\\xd8two", b"\\xff\\xd8three"):
...     frames.push(jpeg)
>>> frames.get(timeout=0.1), frames.dropped
(b'\\xff\\xd8two', 1)
>>> frames.get(timeout=0.1), frames.get(timeout=0.01)
(b'\\xff\\xd8three', None)
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

#: The two bytes every JPEG starts with (start-of-image marker).
JPEG_MAGIC = b"\xff\xd8"


class FrameError(ValueError):
    """Bytes that are not a JPEG frame."""


def check_jpeg(data: bytes) -> None:
    """Raise :class:`FrameError` unless ``data`` starts like a JPEG.

    >>> check_jpeg(b"GIF89a")
    Traceback (most recent call last):
    ...
    webui.frames.FrameError: not a JPEG image (expected the bytes FF D8 first, got 47 49)
    """
    if len(data) < 2 or data[:2] != JPEG_MAGIC:
        head = " ".join(f"{b:02X}" for b in data[:2]) or "nothing"
        raise FrameError(f"not a JPEG image (expected the bytes FF D8 first, got {head})")


class PushedFrames:
    """A thread-safe queue of JPEG frames, newest kept when full.

    ``push`` never blocks (it is called from a web request); ``get`` waits up to ``timeout``
    seconds for a frame and returns ``None`` when none came.
    """

    def __init__(self, capacity: int = 4) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._frames: deque[bytes] = deque(maxlen=capacity)
        self._ready = threading.Condition()
        self.pushed = 0
        self.dropped = 0
        self.last_push: float | None = None

    def push(self, jpeg_bytes: bytes) -> None:
        """Add a frame (checked to be a JPEG); the oldest is dropped when the queue is full."""
        check_jpeg(jpeg_bytes)
        with self._ready:
            if len(self._frames) == self._frames.maxlen:
                self.dropped += 1
            self._frames.append(bytes(jpeg_bytes))
            self.pushed += 1
            self.last_push = time.time()
            self._ready.notify()

    def get(self, timeout: float | None = None) -> bytes | None:
        """The oldest queued frame, waiting up to ``timeout`` seconds (``None``: forever)."""
        with self._ready:
            if not self._ready.wait_for(lambda: bool(self._frames), timeout=timeout):
                return None
            return self._frames.popleft()

    def __len__(self) -> int:
        with self._ready:
            return len(self._frames)


@dataclass(frozen=True)
class GridCorners:
    """Four corners of the board's grid in a frame, in pixels: top-left, top-right,
    bottom-right, bottom-left (as seen in the picture)."""

    points: tuple[tuple[float, float], ...]
    width: int
    height: int

    @staticmethod
    def from_json(data: object) -> GridCorners:
        """Read ``{"corners": [[x, y] * 4], "width": W, "height": H}``, checking every value.

        >>> GridCorners.from_json({"corners": [[0, 0], [9, 0], [9, 9], [0, 9]],
        ...                        "width": 10, "height": 10}).points[2]
        (9.0, 9.0)
        >>> GridCorners.from_json({"corners": [[0, 0]], "width": 10, "height": 10})
        Traceback (most recent call last):
        ...
        webui.frames.FrameError: corners must be a list of 4 [x, y] pairs
        """
        if not isinstance(data, dict):
            raise FrameError("grid must be a JSON object with corners, width and height")
        corners = data.get("corners")
        width, height = data.get("width"), data.get("height")
        if not isinstance(corners, list) or len(corners) != 4:
            raise FrameError("corners must be a list of 4 [x, y] pairs")
        points: list[tuple[float, float]] = []
        for n, point in enumerate(corners, start=1):
            if (
                not isinstance(point, list | tuple)
                or len(point) != 2
                or not all(_is_number(v) for v in point)
            ):
                raise FrameError(f"corner {n} must be [x, y] with numbers, got {point!r}")
            points.append((float(point[0]), float(point[1])))
        for name, value in (("width", width), ("height", height)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 20000:
                raise FrameError(f"{name} must be a whole number of pixels, got {value!r}")
        return GridCorners(tuple(points), width, height)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        return {
            "corners": [list(p) for p in self.points],
            "width": self.width,
            "height": self.height,
        }


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


class LatestFrame:
    """The newest frame to preview and the grid found in it; safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._grid: GridCorners | None = None
        self.updated: float | None = None

    def set_frame(self, jpeg_bytes: bytes) -> None:
        check_jpeg(jpeg_bytes)
        with self._lock:
            self._jpeg = bytes(jpeg_bytes)
            self.updated = time.time()

    def set_grid(self, grid: GridCorners | None) -> None:
        with self._lock:
            self._grid = grid

    @property
    def jpeg(self) -> bytes | None:
        with self._lock:
            return self._jpeg

    @property
    def grid(self) -> GridCorners | None:
        with self._lock:
            return self._grid


class FrameHub:
    """Per-game frame queues and preview frames, created on first use."""

    def __init__(self, capacity: int = 4) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._pushed: dict[str, PushedFrames] = {}
        self._latest: dict[str, LatestFrame] = {}

    def pushed(self, game_id: str) -> PushedFrames:
        """The queue of frames posted by phones for a game (what a frame source reads)."""
        with self._lock:
            if game_id not in self._pushed:
                self._pushed[game_id] = PushedFrames(self._capacity)
            return self._pushed[game_id]

    def latest(self, game_id: str) -> LatestFrame:
        """The frame and grid shown on a game's preview page."""
        with self._lock:
            if game_id not in self._latest:
                self._latest[game_id] = LatestFrame()
            return self._latest[game_id]

    def games(self) -> Sequence[str]:
        with self._lock:
            return sorted(set(self._pushed) | set(self._latest))
