"""A footer that shows only the keys that fit whole.

Textual's :class:`~textual.widgets.Footer` clips its last key mid-word when the keys are wider
than the screen (``n Conflic`` at 80 columns); :class:`FittingFooter` hides every key from the
first one that would be cut, so what shows is always a whole key (``?`` lists them all).
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Footer

__all__ = ["FittingFooter"]

#: The CSS type of a footer key (Textual does not export the class).
_KEY = "FooterKey"


class FittingFooter(Footer):
    """:class:`~textual.widgets.Footer` whose keys that do not fit whole are hidden (left of the
    command-palette key, which stays). Re-fitted after every recompose and resize."""

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        for key in self.query(_KEY).results(Widget):
            key.display = True
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        keys = list(self.query(_KEY).results(Widget))
        palette = [k for k in keys if k.has_class("-command-palette")]
        right = palette[0].region.x if palette and palette[0].region.width else self.region.right
        cut = False
        for key in keys:
            if key.has_class("-command-palette"):
                continue
            cut = cut or key.region.right > right
            key.display = not cut
