"""What is learnt about one camera, board and tile set, kept in a profile folder."""

from calibration.profile import Profile, ProfileError

__all__ = ["Profile", "ProfileError"]
