import sys

from tilecam.cli import main

sys.exit(main())
