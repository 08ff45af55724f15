"""skillshelf.core: the skill catalog, pure Python (never imports textual).

Modules log through ``logging.getLogger(__name__)``; the package logger has a ``NullHandler``, so
nothing reaches stderr (or a running TUI) unless the application configures logging.
"""

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())
