"""The one-line catalog header:
``skillshelf ─ Zuno 0.10.3 ─ <cwd> ─ generation N ─ counts ─ changed: +2 ~1 −1 ─ what-if window 128,000``.

One format per width (:func:`header_text` ``width``), kept while generations come and go: full
labels when wide, abbreviated ones (``gen 14``, ``212 src · 3 amb · 2 brk``) when not, and no
program name or directory when narrower still; the middle of the working directory gives way to
``…`` so the counts always show.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

from skillshelf.core.model import Generation, Status
from skillshelf.core.textsafe import visible

__all__ = ["CWD_MIN", "FULL_FROM", "NAMED_FROM", "CatalogHeader", "HeaderState", "counts_text", "header_text", "middle_ellipsis"]

#: Fewest cells the working directory keeps before the header switches to short labels.
CWD_MIN = 12


def counts_text(generation: Generation, *, short: bool = False) -> str:
    """``212 sources · 3 ambiguous · 2 broken`` (plus ``· N kept-last-valid``, ``· N disabled``,
    ``· N shadowed`` and ``· N hidden`` when N > 0). Sources count every listed source, disabled
    ones included; ambiguous counts names (SPEC D6); broken counts rejected files (SPEC F6);
    kept-last-valid counts sources the host keeps from before their file broke (SPEC H3);
    shadowed and hidden count a client's settled and model-hidden copies (SPEC N3).
    ``short``: ``212 src · 3 amb · 2 brk · 1 kept · 4 off · 1 shd · 2 hid``."""
    kept, disabled, shadowed, hidden, ambiguous = _counts(generation)
    words = ("src", "amb", "brk", "kept", "off", "shd", "hid") if short else (
        "sources", "ambiguous", "broken", "kept-last-valid", "disabled", "shadowed", "hidden")
    first = words[0] if short or len(generation.sources) != 1 else "source"
    parts = [f"{len(generation.sources):,} {first}", f"{ambiguous:,} {words[1]}",
             f"{len(generation.rejected):,} {words[2]}"]
    for n, word in ((kept, words[3]), (disabled, words[4]), (shadowed, words[5]), (hidden, words[6])):
        if n:
            parts.append(f"{n:,} {word}")
    return " · ".join(parts)


#: The generation last counted and its counts: the header is drawn several times per generation
#: (each status change, each width it tries), and counting 10,000 sources takes milliseconds.
_last_counts: tuple[Generation, tuple[int, int, int, int, int]] | None = None


def _counts(generation: Generation) -> tuple[int, int, int, int, int]:
    """(kept-last-valid, disabled, shadowed, hidden, ambiguous names) of ``generation``."""
    global _last_counts
    last = _last_counts
    if last is not None and last[0] is generation:
        return last[1]
    kept = disabled = shadowed = hidden = 0
    for s in generation.sources:
        status = s.status
        if not s.enabled:
            disabled += 1
        if status is Status.KEPT_LAST_VALID:
            kept += 1
        elif status is Status.SHADOWED:
            shadowed += 1
        elif status is Status.HIDDEN:
            hidden += 1
    counts = (kept, disabled, shadowed, hidden, len(generation.ambiguous_names()))
    _last_counts = (generation, counts)
    return counts


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells by replacing its middle with ``…`` (the end of a path is
    what tells folders apart, its start says where it lives); unchanged when it fits."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:max(width, 0)]
    keep = width - 1
    head_n = keep // 3
    tail_n = keep - head_n
    head = ""
    for ch in text:
        if cell_len(head + ch) > head_n:
            break
        head += ch
    tail = ""
    for ch in reversed(text):
        if cell_len(ch + tail) > tail_n:
            break
        tail = ch + tail
    return head + "…" + tail


def _session_text(window: int | None, mct: int | str | None, short: bool) -> str:
    parts = []
    if window is not None:
        parts.append(f"window {window:,}")
    if isinstance(mct, int):
        parts.append(f"maxContextTokens {mct:,}")
    elif mct is None:
        parts.append("maxContextTokens unset")
    if not parts:
        return ""
    text = "what-if " + " · ".join(parts)
    return text.replace("maxContextTokens", "mct") if short else text


#: Widths (cells) from which the header uses full labels / keeps the program name and cwd.
FULL_FROM, NAMED_FROM = 110, 64


def header_text(
    host: str,
    cwd: str,
    generation: Generation | None,
    status: str = "",
    agent: str | None = None,
    *,
    client: str = "",
    changes: str = "",
    window: int | None = None,
    mct: int | str | None = "config",
    width: int | None = None,
    refusal: str = "",
) -> Content:
    """The header line: ``skillshelf ─ Zuno 0.10.3 ─ <cwd> ─ generation N ─ [agent:
    NAME ─] <counts>``, then what comes and goes: ``changes`` (``changed: +2 ~1 −1``, what the
    last live generation changed, SPEC H2), the session's what-if values (``window`` tokens:
    ``what-if window 128,000``; ``mct``, the session ``maxContextTokens``: an int, ``None`` =
    unset, ``"config"`` = not overridden) and ``status`` (``loading…``, an error). ``client``
    names the client and version emulated (``Host.describe()``), shown instead of the host name
    (``host zuno`` only when no client is given). ``cwd`` is shown as given
    (made visible, SPEC X1). ``agent`` (an agent view, SPEC E4): the counts are then the
    agent's view.

    ``width`` (cells; ``None`` = unlimited) picks one format for that width, whatever comes and
    goes: full labels from :data:`FULL_FROM` cells when the cwd keeps :data:`CWD_MIN` cells
    beside them (or all of it), short ones (``gen 14``, ``212 src · 3 amb · 2 brk``) otherwise,
    and under :data:`NAMED_FROM` no program name and no cwd. The cwd's middle
    gives way to ``…`` so the counts fit (it is left out below :data:`CWD_MIN` cells); what
    comes and goes follows the counts and is what the line's end cuts.

    ``refusal`` (``Zuno would refuse to start: FILE:LINE:COL: reason``, conformance Z-K) adds a
    second line, prominent (``⚠``, bold error colour), so the first line keeps its format.
    """
    cwd_v = visible(cwd)
    level = 0 if width is None or width >= FULL_FROM else 1 if width >= NAMED_FROM else 2
    short = level >= 1

    def build(cwd_text: str | None) -> list[str | tuple[str, str]]:
        parts: list[str | tuple[str, str]] = []
        if level < 2:
            parts += [("skillshelf", "bold"), " ─ "]
        # the client and version emulated name the host too ("host zuno · Zuno …" said it twice
        # and cost the working directory its room at 130 columns)
        parts.append(visible(client) if client else (host if short else f"host {host}"))
        if cwd_text is not None:
            parts += [" ─ ", cwd_text]
        if generation is not None:
            parts.append(f" ─ generation {generation.number}" if not short else f" ─ gen {generation.number}")
            parts.append(" ─ ")
            if agent is not None:
                parts += [(("agent: " if not short else "") + visible(agent), "bold $accent"), " ─ "]
            parts.append(counts_text(generation, short=short))
        return parts

    def transient() -> list[str | tuple[str, str]]:
        parts: list[str | tuple[str, str]] = []
        if changes and generation is not None:
            parts += [" ─ ", (changes.removeprefix("changed: ") if short else changes, "bold $accent")]
        session = _session_text(window, mct, short)
        if session:
            parts += [" ─ ", (session, "bold $warning")]
        if status:
            parts += [" ─ ", (visible(status), "$warning")]
        return parts

    if width is not None and level == 0:
        # full labels only while the working directory keeps a readable part beside them
        room = width - Content.assemble(*build("")).cell_length
        if room < min(cell_len(cwd_v), CWD_MIN):
            level, short = 1, True
    cwd_text: str | None = cwd_v
    if width is not None:
        cwd_text = None
        if level < 2:
            room = width - Content.assemble(*build("")).cell_length
            if cell_len(cwd_v) <= room:
                cwd_text = cwd_v
            elif room >= CWD_MIN:
                cwd_text = middle_ellipsis(cwd_v, room)
    line = Content.assemble(*build(cwd_text), *transient())
    if refusal:
        line = Content.assemble(line, "\n", ("⚠ " + visible(refusal), "bold $error"))
    return line


@dataclass(frozen=True)
class HeaderState:
    """What the header shows (the arguments of :func:`header_text` but the width)."""

    host: str
    cwd: str
    generation: Generation | None
    status: str = ""
    agent: str | None = None
    client: str = ""
    changes: str = ""
    window: int | None = None
    mct: int | str | None = "config"
    refusal: str = ""


class CatalogHeader(Static):
    """Static header; the screen calls :meth:`show`. Re-fits itself to its width on resize."""

    DEFAULT_CSS = """
    CatalogHeader {
        height: auto;
        max-height: 2;
        width: 1fr;
        background: $panel;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self.state: HeaderState | None = None

    def _width(self) -> int | None:
        width = self.content_region.width if self.is_mounted else 0
        return width if width > 0 else None

    def _render_header(self) -> None:
        st = self.state
        if st is None:
            return
        self.update(header_text(st.host, st.cwd, st.generation, st.status, st.agent, client=st.client,
                                changes=st.changes, window=st.window, mct=st.mct, width=self._width(),
                                refusal=st.refusal))

    def show(self, state: HeaderState) -> None:
        """Re-render for ``state``; see :func:`header_text`."""
        self.state = state
        self._render_header()

    def on_resize(self) -> None:
        self._render_header()

    @property
    def plain(self) -> str:
        """The header as plain text (tests)."""
        content = self.content
        return content.plain if isinstance(content, Content) else str(content)
