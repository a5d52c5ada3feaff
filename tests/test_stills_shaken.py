"""A photographed game whose last photo the camera's motion smeared (a phone held by hand): the
move it shows is read from the photo with its blur undone, as a single photo is, and scored."""

from __future__ import annotations

import json
import shutil

import cv2

from tests.real_photos import GAME, GAME_SQUARE_PX, game_boards
from tilecam.cli import main
from vision.letters import Blur

#: The smear's direction (degrees; it failed so in every direction tried).
SMEAR_ANGLE = 60.0


def test_the_last_move_in_a_smeared_photo_is_scored(tmp_path, capsys):
    """Move 27 (BÜ down) photographed while the camera moved by a fifth of a square: its
    letters, found in the photo as taken, showed no glyph and were read as blanks, of which the
    set has no more (both were played): the move was refused, and with no photo after it the
    game ended a move short.  Read with the blur undone, it is scored."""
    game_boards()  # skips, saying so, where the photos are absent
    stills = tmp_path / "stills"
    stills.mkdir()
    for n in range(1, 28):
        shutil.copy(GAME / f"image-{n}.jpg", stills / f"image-{n:02d}.jpg")
    last = cv2.imread(str(GAME / "image-27.jpg"))
    smeared = Blur(motion=0.2, angle=SMEAR_ANGLE).apply(last, GAME_SQUARE_PX)  # type: ignore[arg-type]
    cv2.imwrite(str(stills / "image-27.jpg"), smeared, [cv2.IMWRITE_JPEG_QUALITY, 95])
    status = main(["replay", str(stills), "--stills", "--tileset", "de", "--lettered-rows",
                   "--players", "Stefan,Hanns", "--answers", str(GAME / "nu19_stefan-hanns.gcg"),
                   "--json"])
    assert status == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["moves"]) == 27
    assert result["final_scores"] == {"Stefan": 377, "Hanns": 374}
