"""The frozen app's entry point: the partner-desk command."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
