"""Board states over time: when a move was made, on which squares, and when the view is blocked.

The tracker sits between :mod:`vision` (which reads one image) and :mod:`pipeline` (which turns
its events into scored moves).  :mod:`tracker.board_states` holds the per-frame loop.
"""

from tracker.board_states import (
    BoardRelocated,
    MoveCommitted,
    NoPlacement,
    TilesAdded,
    TilesRemoved,
    Tracker,
    TrackerConfig,
    TrackEvent,
    ViewObstructed,
    in_one_line,
)

__all__ = [
    "BoardRelocated",
    "MoveCommitted",
    "NoPlacement",
    "TilesAdded",
    "TilesRemoved",
    "TrackEvent",
    "Tracker",
    "TrackerConfig",
    "ViewObstructed",
    "in_one_line",
]
