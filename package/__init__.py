"""skillshelf: see exactly which Agent Skills your coding agent will see.

The distribution maps three top-level folders into this package (DESIGN "Layout"):
``core/`` → ``skillshelf.core`` (pure Python, never imports Textual),
``widgets/`` → ``skillshelf.widgets`` and ``app/`` → ``skillshelf.app``.
"""

__version__ = "0.1.0"
