"""The one-line catalog header:
``skillshelf ─ host zuno ─ <cwd> ─ generation N · changed: +2 ~1 −1 ─ counts ─ what-if window 128,000``."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from skillshelf.core.model import Generation
from skillshelf.core.textsafe import visible

__all__ = ["CatalogHeader", "header_text", "counts_text"]


def counts_text(generation: Generation) -> str:
    """``212 sources · 3 ambiguous · 2 broken`` (plus ``· N disabled`` when N > 0). Sources
    count every listed source, disabled ones included; ambiguous counts names (SPEC D6);
    broken counts rejected files (SPEC F6)."""
    disabled = sum(1 for s in generation.sources if not s.enabled)
    text = (
        f"{len(generation.sources):,} sources · {len(generation.ambiguous_names()):,} ambiguous"
        f" · {len(generation.rejected):,} broken"
    )
    if disabled:
        text += f" · {disabled:,} disabled"
    return text


def header_text(
    host: str,
    cwd: str,
    generation: Generation | None,
    status: str = "",
    agent: str | None = None,
    *,
    changes: str = "",
    window: int | None = None,
) -> Content:
    """The header line; ``status`` (``loading…``, an error) follows the counts when set.
    ``cwd`` is shown as given (made visible, SPEC X1). ``agent`` (an agent view, SPEC E4) adds
    ``agent: NAME`` after the generation; the counts are then the agent's view. ``changes``
    (``changed: +2 ~1 −1``, what the last live generation changed, SPEC H2) follows the
    generation number; ``window`` (tokens) adds ``what-if window 128,000`` — the session context
    window applied from the what-if screen (SPEC U1–U2)."""
    parts: list[str | tuple[str, str]] = [("skillshelf", "bold"), f" ─ host {host} ─ ", visible(cwd)]
    if generation is not None:
        parts.append(f" ─ generation {generation.number}")
        if changes:
            parts += [" · ", (changes, "bold $accent")]
        parts.append(" ─ ")
        if agent is not None:
            parts += [("agent: " + visible(agent), "bold $accent"), " ─ "]
        parts.append(counts_text(generation))
    if window is not None:
        parts += [" ─ ", (f"what-if window {window:,}", "bold $warning")]
    if status:
        parts.append(" ─ ")
        parts.append((visible(status), "$warning"))
    return Content.assemble(*parts)


class CatalogHeader(Static):
    """Static header; the screen calls :meth:`show`."""

    DEFAULT_CSS = """
    CatalogHeader {
        height: 1;
        width: 1fr;
        background: $panel;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def show(self, host: str, cwd: str, generation: Generation | None, status: str = "", agent: str | None = None,
             *, changes: str = "", window: int | None = None) -> None:
        """Re-render for ``generation`` (or the ``status`` alone); see :func:`header_text`."""
        self.update(header_text(host, cwd, generation, status, agent, changes=changes, window=window))

    @property
    def plain(self) -> str:
        """The header as plain text (tests)."""
        content = self.content
        return content.plain if isinstance(content, Content) else str(content)
