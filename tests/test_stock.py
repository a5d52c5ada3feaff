"""The stock letter classifier: samples learnt from installed typefaces, saved, loaded and
used when no profile is given."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.fonts import STOCK_FONTS, FontsMissing, installed_fonts, learn_fonts
from vision.stock import StockError, StockSamples, stock_classifier

GERMAN = set("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ")


@pytest.fixture(scope="module")
def one_font(tmp_path_factory) -> tuple[Path, str]:
    fonts = installed_fonts()
    if not fonts:
        pytest.skip("none of the stock typefaces is installed (setup.sh installs them)")
    font = next(iter(fonts))
    path = tmp_path_factory.mktemp("stock") / "stock-letters.npz"
    report = learn_fonts(path, fonts=(font,))
    assert report.per_font == {font.name: report.samples}
    return path, font.name


def test_learnt_samples_cover_the_letters_under_every_blur(one_font):
    from vision.letters import BLURS

    path, name = one_font
    samples = StockSamples.load(path)
    assert samples.fonts == (name,)
    assert set(samples.labels) == GERMAN
    assert set(samples.blurs) == {""} | {blur.tag for blur in BLURS}
    assert samples.features.dtype == np.float32
    norms = np.linalg.norm(samples.features, axis=1)
    assert np.allclose(norms, 1.0, atol=0.01)  # unit features survive float16 storage


def test_stock_classifier_reads_a_font_it_never_saw():
    """The stock samples read the renderer's own DejaVu tiles, a typeface never learnt (with
    one typeface's samples alone, Liberation Sans, the J of JOKES was read as I)."""
    from vision.read import read_board
    from vision.render import RenderConfig, render_board
    from vision.stock import stock_samples

    if stock_samples() is None:
        pytest.skip("no stock letter samples (the stock typefaces are not installed)")
    rows = ["." * 15] * 6 + ["...QUARTZ......", "...U...........", "...JOKES.......",
                             "...B...........", "...WHY.........", "...MAP........."]
    rows += ["." * 15] * 3
    config = RenderConfig(size=(1280, 720), tilt=12.0, font="sans", defocus=0.6)
    photo = render_board(rows, tileset="en", edition="green", seed=5, config=config)
    reading = read_board(photo.image, None, "en")
    assert reading.board == rows
    # Tesseract was not needed for these sharp tiles.
    assert set(reading.sources.values()) == {"classifier"}


def test_classifier_keeps_only_the_tile_sets_letters(one_font, monkeypatch):
    path, _ = one_font
    monkeypatch.setenv("TILECAM_CACHE", str(path.parent))
    english = stock_classifier(set("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    assert english is not None and english.letters == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert stock_classifier({"Ñ", "Ł"}) is None  # none learnt: Tesseract reads them


def test_without_samples_there_is_no_stock_classifier(tmp_path, monkeypatch):
    monkeypatch.setenv("TILECAM_CACHE", str(tmp_path))
    assert stock_classifier(GERMAN) is None


def test_a_broken_or_foreign_file_is_named(tmp_path, one_font):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(StockError, match="junk.npz: not a stock samples file"):
        StockSamples.load(junk)
    path, _ = one_font
    samples = StockSamples.load(path)
    old = tmp_path / "old.npz"
    with np.load(path) as data:
        np.savez(old, **{k: data[k] for k in data.files if k != "versions"},
                 versions=np.array([0, 0]))
    with pytest.raises(StockError, match=r"old.npz: stock samples of version \[0, 0\]"):
        StockSamples.load(old)
    assert len(samples.labels) > 0


def test_no_typeface_installed_is_a_clear_error(tmp_path, monkeypatch):
    import calibration.fonts as fonts

    monkeypatch.setattr(fonts, "installed_fonts", lambda fonts=STOCK_FONTS: {})
    with pytest.raises(FontsMissing, match="apt-get install fonts-liberation"):
        learn_fonts(tmp_path / "stock.npz")
    assert not (tmp_path / "stock.npz").exists()


def test_render_takes_a_font_file_and_names_unknown_fonts():
    from vision.render import RenderConfig, RenderError

    with pytest.raises(RenderError, match="or a .ttf/.otf file"):
        RenderConfig(font="Comic Sans")
