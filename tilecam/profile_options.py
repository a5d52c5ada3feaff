"""The ``--profile DIR`` and ``--tileset`` options that the reading commands share.

A profile knows its tile set; ``--tileset`` names one when there is no profile, and must agree
with the profile's when both are given.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calibration.profile import Profile
    from scorer.tiles import TileSet


class OptionError(ValueError):
    """An option that cannot be used, with the reason in words for the command line."""


def profile_and_tileset(
    profile_dir: Path | None, tileset: str | None, *, may_be_new: bool = False
) -> tuple[Profile | None, TileSet]:
    """The profile in ``profile_dir`` (None without one) and the game's tile set.

    ``may_be_new``: a folder without a profile yet is not an error (a profile will be made
    there), and there is no profile to load.

    >>> profile, tiles = profile_and_tileset(None, "de")
    >>> profile is None, tiles.code
    (True, 'de')
    >>> try:
    ...     profile_and_tileset(None, "xx")
    ... except OptionError as exc:
    ...     print(exc)
    unknown tile set 'xx'; known: ca, de, en, es, fr, nl, no, pl, sl
    """
    from calibration.profile import Profile, ProfileError
    from scorer.tiles import TileError, TileSet

    profile = None
    if profile_dir is not None and not (may_be_new and not (profile_dir / "profile.json").exists()):
        try:
            profile = Profile.load(profile_dir)
        except ProfileError as exc:
            raise OptionError(str(exc)) from exc
    try:
        tiles = TileSet.named(tileset or (profile.tileset if profile else "en"))
    except TileError as exc:
        raise OptionError(str(exc)) from exc
    if profile is not None and tiles.code != profile.tileset:
        raise OptionError(f"--tileset {tiles.code} differs from the profile's tile set "
                          f"{profile.tileset}")
    return profile, tiles
