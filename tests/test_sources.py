"""Frame sources: folders in natural order, corrupt frames skipped, video files, pushed frames,
reconnection of a lost live capture."""

from __future__ import annotations

import queue

import cv2
import numpy as np
import pytest

from vision.sources import (
    CameraSource,
    ImageFolderSource,
    PushedFrameSource,
    SourceError,
    VideoFileSource,
    decode_image,
    natural_key,
    open_source,
    read_image,
)


def _image(value: int, size: tuple[int, int] = (48, 64)) -> np.ndarray:
    image = np.zeros((*size, 3), np.uint8)
    image[:] = value
    return image


def test_folder_natural_order_and_corrupt_file(tmp_path):
    for n in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"image-{n}.png"), _image(n * 10))
    (tmp_path / "image-3.jpg").write_bytes(b"not a jpeg at all")
    (tmp_path / "notes.txt").write_text("ignored")
    source = open_source(str(tmp_path))
    assert isinstance(source, ImageFolderSource)
    frames = list(source)
    assert [int(frame[0, 0, 0]) for _, frame in frames] == [10, 20, 100]
    assert [t for t, _ in frames] == [0.0, 1.0, 2.0]
    assert source.frames_read == 3 and source.corrupt_skipped == 1
    assert source.counters() == {"frames_read": 3, "corrupt_skipped": 1, "reconnects": 0}


def _heic(path, image: np.ndarray, quality: int = 90) -> None:
    """``image`` (BGR) saved as a phone saves its photos: HEIF, HEVC-coded."""
    import pillow_heif

    rgb = np.ascontiguousarray(image[:, :, ::-1])
    pillow_heif.from_bytes("RGB", (rgb.shape[1], rgb.shape[0]), rgb.tobytes()).save(
        str(path), quality=quality)


def test_heic_photos_decode_where_opencv_cannot(tmp_path):
    # A phone's HEIC photo (an iPhone's default) is read by libheif, upright and in BGR order.
    image = np.zeros((64, 96, 3), np.uint8)
    image[:, :48] = (30, 90, 200)  # a warm orange on the left (BGR)
    image[:, 48:] = (200, 120, 40)
    _heic(tmp_path / "IMG_0001.HEIC", image)
    data = (tmp_path / "IMG_0001.HEIC").read_bytes()
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) is None
    decoded = read_image(tmp_path / "IMG_0001.HEIC")
    assert decoded is not None and decoded.shape == image.shape
    assert np.abs(decoded.astype(int) - image).mean() < 4
    cv2.imwrite(str(tmp_path / "IMG_0002.jpg"), image)
    frames = list(open_source(str(tmp_path)))
    assert len(frames) == 2 and all(f.shape == image.shape for _, f in frames)
    # Not a photo: None, whatever its name says.
    (tmp_path / "broken.heic").write_bytes(data[:40])
    assert read_image(tmp_path / "broken.heic") is None
    assert read_image(tmp_path / "missing.heic") is None
    assert decode_image(b"") is None


def test_glob_pattern(tmp_path):
    for n in (11, 9):
        cv2.imwrite(str(tmp_path / f"shot{n}.png"), _image(n))
    cv2.imwrite(str(tmp_path / "other.png"), _image(200))
    frames = list(open_source(str(tmp_path / "shot*.png")))
    assert [int(f[0, 0, 0]) for _, f in frames] == [9, 11]


def test_natural_key_orders_numbers_by_value():
    names = ["image-10.jpg", "image-2.jpg", "image-1.jpg", "Image-3.jpg"]
    assert sorted(names, key=natural_key) == [
        "image-1.jpg", "image-2.jpg", "Image-3.jpg", "image-10.jpg"
    ]


def test_video_file_round_trip(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for n in range(12):
        writer.write(_image(20 * (n % 10) + 5))
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, VideoFileSource)
    with source:
        frames = list(source)
    assert len(frames) == 12 and source.frames_read == 12
    times = [t for t, _ in frames]
    assert times == sorted(times) and times[-1] == pytest.approx(1.1, abs=0.11)
    assert abs(int(frames[3][1].mean()) - 65) <= 3  # the fourth frame's grey level


def test_pushed_frames_object():
    pushed: queue.Queue[bytes] = queue.Queue()

    class Pushed:  # what the web layer offers: get(timeout) -> bytes | None
        def get(self, timeout: float) -> bytes | None:
            try:
                return pushed.get(timeout=timeout)
            except queue.Empty:
                return None

    ok, jpeg = cv2.imencode(".jpg", _image(128))
    assert ok
    pushed.put(jpeg.tobytes())
    pushed.put(b"\xff\xd8 broken")
    pushed.put(jpeg.tobytes())
    source = open_source(Pushed(), poll=0.01, idle_timeout=0.05)
    assert isinstance(source, PushedFrameSource)
    frames = list(source)
    assert len(frames) == 2 and source.corrupt_skipped == 1
    assert abs(int(frames[0][1].mean()) - 128) <= 2


def test_lost_camera_reopened_with_backoff():
    pauses: list[float] = []

    class FlakyCapture:
        """Delivers 3 frames, then fails until reopened; the first reopen fails too."""

        opened = 0

        def __init__(self) -> None:
            FlakyCapture.opened += 1
            self.left = 3 if FlakyCapture.opened != 2 else 0
            self.ok = FlakyCapture.opened != 2

        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return self.ok

        def read(self):
            if self.left <= 0:
                return False, None
            self.left -= 1
            return True, _image(50)

        def get(self, prop: int) -> float:
            return 0.0

        def release(self) -> None:
            pass

    source = CameraSource(0, opener=lambda target: FlakyCapture(), sleep=pauses.append,
                          max_reconnects=3, backoff=0.5)
    frames = []
    for item in source:
        frames.append(item)
        if len(frames) == 6:
            break
    source.close()
    assert len(frames) == 6
    assert source.reconnects == 1  # one failed attempt, then success
    assert pauses == [0.5, 1.0]


def test_unknown_spec_is_an_error():
    with pytest.raises(SourceError, match="no video file"):
        open_source("there/is/no/such.mkv")
    with pytest.raises(SourceError, match="no images"):
        ImageFolderSource([], "an empty folder")


def test_live_frame_that_fails_to_decode_is_skipped_and_counted():
    reads = iter([(True, _image(10)), (False, None), (True, np.zeros((4, 4), np.uint8)),
                  (True, _image(30))])

    class Capture:
        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return True

        def read(self):
            return next(reads, (False, None))

        def get(self, prop: int) -> float:
            return 0.0

        def release(self) -> None:
            pass

    source = CameraSource(1, opener=lambda target: Capture(), sleep=lambda s: None,
                          max_reconnects=0)
    frames = [int(frame[0, 0, 0]) for _, frame in source]
    assert frames == [10, 30]
    assert source.corrupt_skipped == 2 and source.frames_read == 2
