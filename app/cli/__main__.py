"""``python -m app.cli``: how the window starts its sandbox when not frozen."""

import sys

from app.cli import main

sys.exit(main())
