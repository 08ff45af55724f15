"""The ``skillshelf`` console script (pyproject ``[project.scripts]``).

Its one job before the command line runs (:func:`skillshelf.app.cli.console`): the compiled
methods of dataclasses are taken from skillshelf's cache from here on
(:mod:`skillshelf.app.codecache`), before the modules that make them are imported.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

__all__ = ["console"]


def console() -> NoReturn:
    """Run the command line of this process as the ``skillshelf`` command."""
    from skillshelf.app.output import standard_streams

    standard_streams()  # (first: no file opened from here on takes a closed standard descriptor)
    from skillshelf.app import codecache

    codecache.install(os.environ, sys.argv[1:])
    from skillshelf.app.cli import console as run

    run()


if __name__ == "__main__":  # pragma: no cover
    console()
