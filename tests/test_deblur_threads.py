"""The deblurring tables do not hang on the processor's BLAS kernel or on how many threads it
runs: the same to the last bit with one thread and two, and with an older kernel
(``vision.deblur._smoothed``), and the blur estimate is the same blur with weights equal to a
millionth.  Before, the tables kept in the user's cache differed in half their values from one
machine to the next, the weights in the fourth digit (now in the ninth), and a blurred photo
could read differently."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from sim.render import RenderConfig, render_board

REPO = Path(__file__).resolve().parents[1]

ESTIMATE = """
import sys
sys.path.insert(0, {repo!r})
import json
import cv2, numpy as np
from vision.deblur import _tables_path, board_box, estimate_blur
image = cv2.imread({photo!r})
corners = np.float32({corners!r})
grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
x0, y0, x1, y1 = board_box(corners, grey.shape)
e = estimate_blur(grey[y0:y1, x0:x1], corners - np.float32([x0, y0]))
print(json.dumps([e.length, e.angle, e.defocus, e.clarity, e.plausible]))
print(_tables_path())
"""

#: BLAS set-ups: threads, and the kernel where OpenBLAS is told one (Prescott runs on any
#: x86-64 processor; elsewhere OpenBLAS ignores it).
SETUPS = [{"OPENBLAS_NUM_THREADS": "1"}, {"OPENBLAS_NUM_THREADS": "2"},
          {"OPENBLAS_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "Prescott"}]


def test_tables_and_estimate_are_the_same_whatever_blas_runs_them(tmp_path):
    rows = ["." * 15, ".QUARTZ.JOCKEY.", "." * 15, ".BLIMPS.HAZED..", "." * 15,
            "..FIGHT.DWARVES", "." * 15, ".WORLD.SPHINX..", "." * 15, "..GLYPH.JUMBOS.",
            "." * 15, ".VEXED.FLAKING.", "." * 15, "..CRYPT.BLOWN..", "." * 15]
    config = replace(RenderConfig.random(3, max_tilt=20, hand_probability=0.0),
                     motion_blur=5.0, motion_angle=35.0, defocus=0.3, sharpen=0.0)
    photo = render_board(rows, tileset="en", edition="classic", seed=config.scene_seed,
                         config=config)
    path = tmp_path / "blurred.png"
    cv2.imwrite(str(path), photo.image)
    code = ESTIMATE.format(repo=str(REPO), photo=str(path), corners=photo.corners.tolist())
    estimates, tables = [], []
    for number, setup in enumerate(SETUPS):
        # A cache folder of its own, so that each run makes the tables itself.
        env = {"PATH": "/usr/bin:/bin", "TILECAM_CACHE": str(tmp_path / f"cache{number}"),
               **setup}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env=env).stdout.splitlines()
        estimates.append(json.loads(out[0]))
        tables.append(np.load(out[1]))
    first = estimates[0]
    assert first[0] > 0  # a motion found
    for other in tables[1:]:
        assert other.tobytes() == tables[0].tobytes()
    for estimate in estimates[1:]:
        # The same blur; the fit's double-precision arithmetic differs in its last bits.
        assert estimate[:3] == first[:3]
        assert estimate[3] == pytest.approx(first[3], rel=1e-6)
        assert [p[1:] for p in estimate[4]] == [p[1:] for p in first[4]]
        assert [p[0] for p in estimate[4]] == pytest.approx([p[0] for p in first[4]], rel=1e-6)
