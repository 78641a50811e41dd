"""``python -m verify`` is ``attncheck``."""

import sys

from verify.cli import main

sys.exit(main())
