"""A footer that shows only the keys that fit whole, rebuilt only when its keys change.

Textual's :class:`~textual.widgets.Footer` clips its last key mid-word when the keys are wider
than the screen (``n Conflic`` at 80 columns); :class:`FittingFooter` hides every key from the
first one that would be cut, so what shows is always a whole key (``?`` lists them all).
Textual's footer also rebuilds its keys whenever the screen's bindings are refreshed (every
focus change); each rebuild mounts and styles a dozen widgets, so a start that moves the focus
a few times spent ~0.1 s of the event loop on footers that looked the same.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.widget import Widget
from textual.widgets import Footer

__all__ = ["FittingFooter"]

#: The CSS type of a footer key (Textual does not export the class).
_KEY = "FooterKey"


class FittingFooter(Footer):
    """:class:`~textual.widgets.Footer` whose keys that do not fit whole are hidden (left of the
    command-palette key, which stays). Re-fitted after every rebuild and resize; rebuilt only
    when what it shows changed (:meth:`shown_keys`)."""

    _composed: Hashable | None = None

    def shown_keys(self) -> Hashable:
        """Everything :meth:`compose` reads from the screen's bindings: per shown binding its key,
        key display, description, action, group, enabled state and tooltip, plus the
        command-palette key's; ``None`` before the bindings are ready."""
        if not self._bindings_ready or not self.is_attached:
            return None
        app = self.app
        active = self.screen.active_bindings
        shown = tuple((b.key, app.get_key_display(b), b.description, b.action, b.group, enabled, tooltip)
                      for (_node, b, enabled, tooltip) in active.values() if b.show)
        palette = active.get(app.COMMAND_PALETTE_BINDING) if self.show_command_palette else None
        extra = (palette.binding.key, app.get_key_display(palette.binding), palette.binding.description,
                 palette.enabled, palette.binding.tooltip) if palette is not None else None
        return shown, extra, app.ENABLE_COMMAND_PALETTE, self.combine_groups

    async def recompose(self) -> None:
        keys = self.shown_keys()
        if keys is not None and keys == self._composed and self.children:
            return  # the same keys: nothing to rebuild (the fit stands)
        self._composed = keys
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
