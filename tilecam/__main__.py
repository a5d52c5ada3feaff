"""`python -m tilecam`: the same as the `tilecam` command."""

import sys

from tilecam.cli import main

sys.exit(main())
