"""``python -m checkraise.train``: the command line (:func:`checkraise.train.main`)."""

import sys

from checkraise.train.cli import main

if __name__ == "__main__":
    sys.exit(main())
