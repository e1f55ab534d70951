"""``python -m metaeval``: the same command as the ``metaeval`` console script."""

import sys

from metaeval.cli import main

sys.exit(main())
