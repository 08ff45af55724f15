"""skillshelf.core: the skill catalog, pure Python (never imports textual)."""
