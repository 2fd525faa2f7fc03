"""``python -m gpusim``: the command line (:mod:`gpusim.cli`)."""
import sys

from gpusim.cli import main

sys.exit(main())
