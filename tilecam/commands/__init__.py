"""One module per `tilecam` sub-command (see :mod:`tilecam.cli`)."""
