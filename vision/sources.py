"""Where frames come from: a camera, a video file, a network stream, still images, a web page.

Every source is an iterator of ``(timestamp, frame)`` pairs (seconds, BGR ``uint8`` image) with
``close()`` and three counters: ``frames_read``, ``corrupt_skipped`` and ``reconnects``.
:func:`open_source` picks the kind from the form of its argument:

- an ``int`` (or a string of digits): a local camera, by OpenCV device index;
- a URL (``rtsp://``, ``http://``, ``https://``, ...): a network stream (RTSP, HTTP MJPEG);
- a folder, or a glob pattern (``shots/*.jpg``): still images in natural order
  (``image-2`` before ``image-10``);
- any other existing file: a video file;
- an object with ``get(timeout) -> bytes | None``: JPEG frames pushed by a web page.

Photos are decoded by OpenCV (JPEG, PNG, WebP, TIFF, BMP), turned as their EXIF says; HEIF
photos (an iPhone's ``.heic``), which OpenCV does not decode, by libheif through pillow-heif
(:func:`decode_image`, :func:`read_image`).

A frame that cannot be decoded is skipped and counted, never fatal.  A camera or stream that
stops delivering is reopened with growing pauses, a bounded number of times, each attempt
logged; a video file or a folder simply ends.

Timestamps: the capture's own position for video files (so a replay runs at the recorded
pace whatever the machine's speed), the clock for live sources, and the index for stills
(one still per turn has no meaningful time).

>>> natural_key("image-10.jpg") > natural_key("image-2.jpg")
True
>>> sorted(["b-10.png", "b-9.png", "a.png"], key=natural_key)
['a.png', 'b-9.png', 'b-10.png']
"""

from __future__ import annotations

import glob
import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

__all__ = [
    "CameraSource",
    "FrameSource",
    "ImageFolderSource",
    "PushedFrameSource",
    "PushedFrames",
    "SourceError",
    "StreamSource",
    "VideoFileSource",
    "decode_image",
    "natural_key",
    "open_source",
    "read_image",
]

log = logging.getLogger(__name__)

#: Suffixes taken as still images in a folder.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".heic",
                            ".heif"})
#: Brands of an ISO media file (bytes 8-12, after ``ftyp``) that say it holds HEIF images.
_HEIF_BRANDS = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1",
                          b"msf1"})
#: URL schemes handed to OpenCV's capture as network streams.
STREAM_SCHEMES = ("rtsp://", "rtsps://", "rtmp://", "http://", "https://", "udp://", "tcp://")


class SourceError(RuntimeError):
    """A source that cannot be opened at all (says which and why)."""


@runtime_checkable
class PushedFrames(Protocol):
    """What a web page's frame queue offers: the next JPEG, or None after ``timeout``."""

    def get(self, timeout: float) -> bytes | None: ...


def natural_key(name: str | Path) -> tuple:
    """Sort key that orders runs of digits by value: ``image-2`` before ``image-10``."""
    text = Path(name).name if isinstance(name, Path) else str(name)
    parts = re.split(r"(\d+)", text)
    return tuple((0, int(p), p) if p.isdigit() else (1, 0, p.lower()) for p in parts)


def decode_image(data: bytes) -> np.ndarray | None:
    """A BGR image from encoded bytes (JPEG, PNG, WebP, TIFF, BMP, HEIC), turned upright as
    the file says, or None when they do not decode.

    >>> decode_image(b"not a picture") is None
    True
    """
    if not data:
        return None
    buffer = np.frombuffer(data, np.uint8)
    image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    if image is None and data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        image = _decoded_heif(data)
    return image if image is not None and image.size else None


def _decoded_heif(data: bytes) -> np.ndarray | None:
    """A HEIF photo as BGR, 8 bits a channel, with the turn and mirror its file records
    applied (libheif's default, as a phone shows it); None where it does not decode."""
    try:
        import pillow_heif
    except ImportError:
        log.warning("a HEIF photo, and pillow-heif is not installed to decode it")
        return None
    try:
        rgb = np.asarray(pillow_heif.open_heif(data, convert_hdr_to_8bit=True))
    except (ValueError, RuntimeError, OSError, SyntaxError) as exc:
        log.warning("a HEIF photo that does not decode: %s", exc)
        return None
    if rgb.ndim != 3 or rgb.shape[2] not in (3, 4) or rgb.dtype != np.uint8:
        log.warning("a HEIF photo of an unexpected layout: %s %s", rgb.shape, rgb.dtype)
        return None
    return cv2.cvtColor(rgb, cv2.COLOR_RGBA2BGR if rgb.shape[2] == 4 else cv2.COLOR_RGB2BGR)


def read_image(path: str | Path) -> np.ndarray | None:
    """A photo file as a BGR image (see :func:`decode_image`), or None where it cannot be
    read or decoded."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return decode_image(data)


def _usable(frame: object) -> bool:
    return (
        isinstance(frame, np.ndarray)
        and frame.dtype == np.uint8
        and frame.ndim == 3
        and frame.shape[2] == 3
        and min(frame.shape[:2]) >= 16
    )


class FrameSource:
    """Base of all sources: the counters, ``close()`` and use as a context manager."""

    #: Human-readable description of where the frames come from.
    description: str = "frames"

    def __init__(self) -> None:
        self.frames_read = 0
        self.corrupt_skipped = 0
        self.reconnects = 0
        self.closed = False

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        return self.frames()

    def frames(self) -> Iterator[tuple[float, np.ndarray]]:
        raise NotImplementedError

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def counters(self) -> dict[str, int]:
        """The counters as a dict (for logs and the web page)."""
        return {
            "frames_read": self.frames_read,
            "corrupt_skipped": self.corrupt_skipped,
            "reconnects": self.reconnects,
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}: {self.counters()}>"


class ImageFolderSource(FrameSource):
    """Still images, one per turn, in natural order; unreadable files are skipped and counted.

    Timestamps are the images' positions (0, 1, 2, ...) among the readable ones.
    """

    def __init__(self, paths: list[Path], description: str) -> None:
        super().__init__()
        self.paths = sorted(paths, key=natural_key)
        self.description = description
        if not self.paths:
            raise SourceError(f"no images in {description}")

    @classmethod
    def from_spec(cls, spec: str) -> ImageFolderSource:
        """A folder (its image files) or a glob pattern."""
        path = Path(spec)
        if path.is_dir():
            files = [p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
            return cls(files, f"folder {path}")
        files = [Path(p) for p in glob.glob(spec) if Path(p).is_file()]
        return cls(files, f"images matching {spec}")

    def frames(self) -> Iterator[tuple[float, np.ndarray]]:
        index = 0
        for path in self.paths:
            if self.closed:
                return
            try:
                frame = decode_image(path.read_bytes())
            except OSError as exc:
                log.warning("cannot read %s: %s", path, exc)
                frame = None
            if frame is None:
                log.warning("skipping %s: not a readable image", path)
                self.corrupt_skipped += 1
                continue
            self.frames_read += 1
            yield float(index), frame
            index += 1


class _CaptureSource(FrameSource):
    """A cv2.VideoCapture reopened with back-off when it stops delivering (live sources)."""

    #: Failed reads in a row after which a live capture is taken as lost.
    FAILED_READS_LOST = 25

    def __init__(
        self,
        target: int | str,
        description: str,
        *,
        live: bool,
        max_reconnects: int = 8,
        backoff: float = 0.5,
        max_backoff: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
        opener: Callable[[int | str], cv2.VideoCapture] | None = None,
    ) -> None:
        super().__init__()
        self.target = target
        self.description = description
        self.live = live
        self.max_reconnects = max_reconnects
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        self._opener = opener or cv2.VideoCapture
        self._capture = self._open()
        if self._capture is None:
            raise SourceError(f"cannot open {description}")

    def _open(self) -> cv2.VideoCapture | None:
        capture = self._opener(self.target)
        if capture is None or not capture.isOpened():
            if capture is not None:
                capture.release()
            return None
        return capture

    def _reopen(self) -> bool:
        """Reopen a lost live capture with growing pauses; False once the attempts run out."""
        if self._capture is not None:
            self._capture.release()
            self._capture = None
        pause = self.backoff
        for attempt in range(1, self.max_reconnects + 1):
            if self.closed:
                return False
            log.warning("%s lost: reconnect attempt %d of %d in %.1f s",
                        self.description, attempt, self.max_reconnects, pause)
            self._sleep(pause)
            capture = self._open()
            if capture is not None:
                self._capture = capture
                self.reconnects += 1
                log.info("%s reconnected", self.description)
                return True
            pause = min(self.max_backoff, pause * 2)
        log.error("%s: giving up after %d reconnect attempts", self.description,
                  self.max_reconnects)
        return False

    def _timestamp(self) -> float:
        if not self.live and self._capture is not None:
            msec = self._capture.get(cv2.CAP_PROP_POS_MSEC)
            if msec and msec > 0:
                return float(msec) / 1000.0
            fps = self._capture.get(cv2.CAP_PROP_FPS) or 25.0
            return self.frames_read / float(fps)
        return time.monotonic()

    def frames(self) -> Iterator[tuple[float, np.ndarray]]:
        failed = 0
        while not self.closed:
            if self._capture is None:
                return
            ok, frame = self._capture.read()
            if not ok or frame is None:
                if not self.live:
                    # A file ends at its last frame; a read error mid-file is a bad frame only
                    # if the position still advances.
                    total = self._capture.get(cv2.CAP_PROP_FRAME_COUNT)
                    position = self._capture.get(cv2.CAP_PROP_POS_FRAMES)
                    if total > 0 and position < total - 1 and failed < self.FAILED_READS_LOST:
                        failed += 1
                        self.corrupt_skipped += 1
                        continue
                    return
                failed += 1
                if failed >= self.FAILED_READS_LOST:
                    failed = 0
                    if not self._reopen():
                        return
                continue
            if not _usable(frame):
                self.corrupt_skipped += 1
                continue
            # Reads that failed without losing the source were frames that did not decode.
            self.corrupt_skipped += failed if self.live else 0
            failed = 0
            self.frames_read += 1
            yield self._timestamp(), frame

    def close(self) -> None:
        super().close()
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class CameraSource(_CaptureSource):
    """A local camera by OpenCV device index; reopened with back-off when it is lost."""

    def __init__(self, index: int, **options: object) -> None:
        super().__init__(index, f"camera {index}", live=True, **options)  # type: ignore[arg-type]


class StreamSource(_CaptureSource):
    """A network stream (RTSP, HTTP MJPEG, ...) by URL; reopened with back-off when it drops."""

    def __init__(self, url: str, **options: object) -> None:
        super().__init__(url, f"stream {_redact(url)}", live=True, **options)  # type: ignore[arg-type]


class VideoFileSource(_CaptureSource):
    """A video file; timestamps are the positions in the video."""

    def __init__(self, path: str | Path, **options: object) -> None:
        path = Path(path)
        if not path.is_file():
            raise SourceError(f"no video file {path}")
        super().__init__(str(path), f"video {path}", live=False, **options)  # type: ignore[arg-type]


class PushedFrameSource(FrameSource):
    """JPEG frames pushed by a web page through any object with ``get(timeout)``.

    ``get`` returns the next frame's bytes, or None when nothing came within ``timeout``.  The
    source ends after ``idle_timeout`` seconds without a frame (None: it waits for ever, until
    ``close()``).
    """

    def __init__(
        self,
        queue: PushedFrames,
        *,
        poll: float = 0.5,
        idle_timeout: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        if not callable(getattr(queue, "get", None)):
            raise SourceError(f"{type(queue).__name__} has no get(timeout) method")
        self.queue = queue
        self.poll = poll
        self.idle_timeout = idle_timeout
        self._clock = clock
        self.description = f"frames pushed through {type(queue).__name__}"

    def frames(self) -> Iterator[tuple[float, np.ndarray]]:
        last = self._clock()
        while not self.closed:
            data = self.queue.get(self.poll)
            now = self._clock()
            if data is None:
                if self.idle_timeout is not None and now - last >= self.idle_timeout:
                    return
                continue
            last = now
            frame = decode_image(data)
            if frame is None:
                self.corrupt_skipped += 1
                continue
            self.frames_read += 1
            yield now, frame


def _redact(url: str) -> str:
    """A URL without its password, for logs."""
    return re.sub(r"(//[^:/@]+):[^@/]*@", r"\1:***@", url)


def open_source(spec: str | int | PushedFrames, **options: object) -> FrameSource:
    """The frame source that ``spec`` names (see the module notes for the forms).

    >>> open_source("no/such/file.mp4")
    Traceback (most recent call last):
    ...
    vision.sources.SourceError: no video file, folder, image pattern or stream: 'no/such/file.mp4'
    """
    if not isinstance(spec, (str, int, Path)):
        return PushedFrameSource(spec, **options)  # type: ignore[arg-type]
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CameraSource(int(spec), **options)
    text = str(spec)
    if text.lower().startswith(STREAM_SCHEMES):
        return StreamSource(text, **options)
    path = Path(text)
    if path.is_dir() or any(ch in text for ch in "*?["):
        return ImageFolderSource.from_spec(text)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return ImageFolderSource([path], f"image {path}")
        return VideoFileSource(path, **options)
    raise SourceError(f"no video file, folder, image pattern or stream: {text!r}")
