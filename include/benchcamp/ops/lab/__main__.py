"""`python -m benchcamp.ops.lab up|down|status`: the same as `benchcamp lab ...`."""

import sys

from benchcamp.ops.cli import main

sys.exit(main(["lab", *(sys.argv[1:] or ["status"])]))
