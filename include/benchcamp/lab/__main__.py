"""`python -m benchcamp.lab up|down|status`: the same as `benchcamp lab ...`."""

import sys

from benchcamp.cli import main

sys.exit(main(["lab", *(sys.argv[1:] or ["status"])]))
