"""``python -m rankscope``: the ``rankscope`` command."""

import sys

from rankscope.cli import main

sys.exit(main())
