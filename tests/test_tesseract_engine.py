"""Tesseract's engine started from a lean copy of its language data: faster, reading the same."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import tesseract_engine
from vision.tesseract_engine import (
    _LEGACY_UNICHARSET,
    _LSTM,
    _LSTM_UNICHARSET,
    TesseractEngine,
    _components,
    _joined,
    lean_language_data,
)
from vision.tesseract_reader import BORDER_PX, TesseractReader, compose_sheet


def _library():
    lib = tesseract_engine._library()
    if lib is None:
        pytest.skip("the Tesseract library cannot be loaded here")
    return lib


def _installed(language: str) -> Path:
    """The installed language data file, as Tesseract itself finds it."""
    lib = _library()
    handle = TesseractEngine._started(lib, language, None)
    if handle is None:
        pytest.skip(f"no Tesseract language data {language!r} here")
    try:
        folder = Path(lib.TessBaseAPIGetDatapath(handle).decode())
    finally:
        lib.TessBaseAPIDelete(handle)
    return folder / f"{language}.traineddata"


def _names(unicharset: bytes) -> list[str]:
    return [line.split(" ")[0] for line in unicharset.decode().split("\n")[1:] if line]


def _sheet(text: str) -> np.ndarray:
    inks = []
    for letter in text:
        canvas = np.zeros((60, 60), np.uint8)
        cv2.putText(canvas, letter, (8, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 255, 3, cv2.LINE_AA)
        ys, xs = np.nonzero(canvas > 127)
        inks.append(canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])
    sheet, _ = compose_sheet(inks)
    return cv2.copyMakeBorder(sheet, BORDER_PX, BORDER_PX, BORDER_PX, BORDER_PX,
                              cv2.BORDER_CONSTANT, value=255)


def test_lean_data_renames_only_the_letters_and_digits_the_whitelist_excludes():
    data = _installed("eng").read_bytes()
    whitelist = TesseractReader("en").whitelist
    lean = lean_language_data(data, whitelist)
    if lean is None:
        pytest.skip("the installed English data is not LSTM-only")
    before, after = _components(data), _components(lean)
    assert set(before) == set(after)
    for kind in before:
        if kind != _LSTM_UNICHARSET:
            assert before[kind] == after[kind], f"component {kind} changed"
    old, new = _names(before[_LSTM_UNICHARSET]), _names(after[_LSTM_UNICHARSET])
    assert len(old) == len(new) and len(set(new)) == len(new)  # ids and names one to one
    renamed = {o for o, n in zip(old, new, strict=True) if o != n}
    assert {"a", "z", "0", "9"} <= renamed
    assert not renamed & set(whitelist)
    assert all(name.isalnum() for name in renamed)
    kept = set(new) - renamed
    assert set(whitelist) <= kept and {"-", "'", "?"} <= kept


def test_lean_data_only_for_lstm_only_files():
    lines = b"4\nNULL 0 Common 0\nJoined 7 0 Latin 1 0 1 Joined\n|Broken|0|1 f 0 Common 2 10 2\n"
    lstm_only = {_LSTM: b"net", _LSTM_UNICHARSET: lines + b"a 3 0 Latin 3 0 3 a\n",
                 -1: bytes([24])}
    assert lean_language_data(_joined(lstm_only), "A") is not None
    # With the legacy engine's character set, the legacy engine may run: it reads the
    # ambiguities, so the file is left as it is.
    assert lean_language_data(_joined(lstm_only | {_LEGACY_UNICHARSET: b"1\n"}), "A") is None
    with pytest.raises(ValueError, match="not Tesseract language data"):
        lean_language_data(b"PK\x03\x04 not language data", "A")


def test_engine_from_the_lean_copy_reads_exactly_as_from_tesseracts_own(
    tmp_path, monkeypatch
):
    lib = _library()
    _installed("eng")
    monkeypatch.setenv("TILECAM_CACHE", str(tmp_path))
    whitelist = TesseractReader("en").whitelist
    assert tesseract_engine._lean_folder("eng", whitelist) is None
    own = TesseractEngine(lib, "eng", 6, whitelist)  # loads Tesseract's own, makes the copy
    folder = tesseract_engine._lean_folder("eng", whitelist)
    if folder is None:
        own.close()
        pytest.skip("the installed English data is not LSTM-only")
    assert folder.is_relative_to(tmp_path)
    lean = TesseractEngine(lib, "eng", 6, whitelist)
    try:
        for text in ("QUIZJAM", "HELLOWORLD", "O", "BRAVE"):
            sheet = _sheet(text)
            assert lean.hocr(sheet) == own.hocr(sheet), text
    finally:
        own.close()
        lean.close()


def test_a_lean_copy_whose_source_changed_is_not_used(tmp_path, monkeypatch):
    lib = _library()
    _installed("eng")
    monkeypatch.setenv("TILECAM_CACHE", str(tmp_path))
    whitelist = "AB"
    TesseractEngine(lib, "eng", 6, whitelist).close()
    folder = tesseract_engine._lean_folder("eng", whitelist)
    if folder is None:
        pytest.skip("the installed English data is not LSTM-only")
    stamp = json.loads((folder / "source.json").read_text())
    (folder / "source.json").write_text(json.dumps(stamp | {"mtime_ns": 1}))
    assert tesseract_engine._lean_folder("eng", whitelist) is None
    # The next engine loads Tesseract's own data and makes the copy again.
    TesseractEngine(lib, "eng", 6, whitelist).close()
    assert tesseract_engine._lean_folder("eng", whitelist) == folder
    # Another whitelist has a copy of its own.
    assert tesseract_engine._lean_folder_for("eng", "ABC") != folder


def test_a_broken_lean_copy_falls_back_to_tesseracts_own(tmp_path, monkeypatch, caplog):
    lib = _library()
    _installed("eng")
    monkeypatch.setenv("TILECAM_CACHE", str(tmp_path))
    TesseractEngine(lib, "eng", 6, "AB").close()
    folder = tesseract_engine._lean_folder("eng", "AB")
    if folder is None:
        pytest.skip("the installed English data is not LSTM-only")
    # Same size, nothing Tesseract can load: a copy damaged in place.
    target = folder / "eng.traineddata"
    target.write_bytes(b"\xff" * target.stat().st_size)
    engine = TesseractEngine(lib, "eng", 6, "AB")
    try:
        assert "could not load the lean language data" in caplog.text
        assert "A" in engine.hocr(_sheet("AB"))
    finally:
        engine.close()


def test_data_that_can_have_no_lean_copy_is_looked_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TILECAM_CACHE", str(tmp_path / "cache"))
    data = tmp_path / "data"
    data.mkdir()
    legacy = {_LSTM: b"net", _LSTM_UNICHARSET: b"1\nNULL 0 Common 0\n",
              _LEGACY_UNICHARSET: b"1\n", -1: bytes([24])}
    (data / "xyz.traineddata").write_bytes(_joined(legacy))

    class Library:  # what the copy is made from: the folder an engine loaded
        @staticmethod
        def TessBaseAPIGetDatapath(handle):  # noqa: N802 (the C function's name)
            return str(data).encode() + b"/"

    assert not tesseract_engine._no_lean_copy("xyz", "A")
    tesseract_engine._make_lean_copy(Library(), 1, "xyz", "A")
    assert tesseract_engine._lean_folder("xyz", "A") is None
    assert tesseract_engine._no_lean_copy("xyz", "A")
    # Changed data is looked at again.
    (data / "xyz.traineddata").write_bytes(_joined(legacy) + b"\0")
    assert not tesseract_engine._no_lean_copy("xyz", "A")
