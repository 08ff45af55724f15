"""``j`` / ``k`` in the lists of the modal screens: one step of the cursor, as the arrows take it."""

from __future__ import annotations

from textual.widgets import DataTable, OptionList

__all__ = ["step_cursor"]


def step_cursor(widget: OptionList | DataTable[object], step: int) -> None:
    """Move ``widget``'s cursor one row down (``step`` > 0) or up, exactly as the arrow keys do
    (an option list skips disabled options and group titles)."""
    if step > 0:
        widget.action_cursor_down()
    else:
        widget.action_cursor_up()
