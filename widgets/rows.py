"""Catalog rows: one per source and per rejected file, grouped by name, with status glyphs.

The row model (:class:`CatalogRow`, :func:`build_rows`, :func:`group_hits`) is plain Python so it
is tested without an app; :func:`row_prompt` turns a row into the fixed-width
:class:`~textual.content.Content` line the :class:`~skillshelf.widgets.catalog_list.CatalogList`
shows. All skill-derived text goes through :func:`skillshelf.core.textsafe.visible` and plain
``Content`` constructors, never markup (SPEC X1).

Status column, two cells, readable without colour (DESIGN "The TUI"; colour only reinforces):

first cell (state)                  second cell (flag)
``✓`` ok                            ``!`` has error-severity diagnostics (host or lint)
``◆`` ambiguous name                ``s`` search-only exposure
``↓`` shadowed: another copy wins   ``e`` explicit-only exposure
``⇄`` race: either copy may win     `` `` none of these (``!`` wins over ``s``/``e``)
``◌`` hidden from the model
``○`` disabled
``✗`` rejected (broken)
``↺`` kept last valid

The glyphs are the compare screen's (SPEC N3–N4): a client's shadowed, racing and hidden copies
are never shown as plain ``ok`` or ``ambiguous``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from textual.content import Content

from skillshelf.core.collate import locale_key
from skillshelf.core.model import Exposure, Generation, Provenance, Rejected, Severity, Source, Status
from skillshelf.core.textsafe import visible
from skillshelf.core.tokens import approx_tokens

__all__ = [
    "AMBIGUOUS",
    "DISABLED",
    "EXPLICIT_ONLY",
    "HIDDEN",
    "KEPT",
    "LEGEND",
    "LEGEND_ITEMS",
    "LINT",
    "OK",
    "RACE",
    "REJECTED",
    "SEARCH_ONLY",
    "SHADOWED",
    "SORTS",
    "VALUE_WIDTH",
    "CatalogRow",
    "build_rows",
    "fit",
    "fit_end",
    "group_hits",
    "legend",
    "next_sort",
    "prompt_fixed_width",
    "provenance_cell",
    "row_prompt",
    "row_tokens",
    "short_location",
    "size_cell",
    "sort_order",
]

OK, AMBIGUOUS, DISABLED, REJECTED, KEPT = "✓", "◆", "○", "✗", "↺"
SHADOWED, RACE, HIDDEN = "↓", "⇄", "◌"
LINT, SEARCH_ONLY, EXPLICIT_ONLY = "!", "s", "e"

#: (glyph, meaning) in legend order; shown under the table and on the help screen.
LEGEND_ITEMS: tuple[tuple[str, str], ...] = (
    (OK, "ok"),
    (AMBIGUOUS, "ambiguous"),
    (SHADOWED, "shadowed"),
    (RACE, "either may win"),
    (HIDDEN, "hidden"),
    (DISABLED, "disabled"),
    (REJECTED, "rejected"),
    (KEPT, "kept-last-valid"),
    (SEARCH_ONLY, "search-only"),
    (EXPLICIT_ONLY, "explicit-only"),
    (LINT, "lint errors"),
)
#: Glyphs the legend under the table shows only when some row has them (the line is short).
_WHEN_PRESENT = frozenset({AMBIGUOUS, SHADOWED, RACE, HIDDEN})
#: The legend before any row is known (the help screen lists every glyph).
LEGEND = "  ".join(f"{g} {m}" for g, m in LEGEND_ITEMS if g not in _WHEN_PRESENT or g == AMBIGUOUS)


def legend(rows: Sequence[CatalogRow]) -> str:
    """The legend line for ``rows``: the glyphs of :data:`LEGEND`, with ambiguous, shadowed,
    race and hidden only when a row shows them."""
    present = {r.state for r in rows}
    return "  ".join(f"{g} {m}" for g, m in LEGEND_ITEMS if g not in _WHEN_PRESENT or g in present)

_GLYPH_STYLE = {
    OK: "$success",
    AMBIGUOUS: "$warning",
    SHADOWED: "$foreground-muted",
    RACE: "$warning",
    HIDDEN: "$foreground-muted",
    DISABLED: "$foreground-muted",
    REJECTED: "$error",
    KEPT: "$warning",
    LINT: "$error",
    SEARCH_ONLY: "$accent",
    EXPLICIT_ONLY: "$accent",
}

Item = Source | Rejected


@dataclass(frozen=True)
class CatalogRow:
    """One catalog line. ``item`` is the :class:`Source` or :class:`Rejected` it shows;
    ``state`` and ``flag`` are the two status cells (see module doc); ``ambiguous`` is the
    number of enabled sources sharing the name (0 when the name is unique);
    ``provenance_label`` the host's word for the row's root when it has one (``agent:reviewer``,
    ``project .claude/skills``), shown instead of the provenance value."""

    item: Item
    state: str
    flag: str
    ambiguous: int = 0
    provenance_label: str = ""

    @property
    def rejected(self) -> bool:
        """True for a host-refused file (SPEC F6)."""
        return isinstance(self.item, Rejected)

    @property
    def name(self) -> str:
        """The skill name (folder name for a rejected file); raw, untrusted."""
        return self.item.name

    @property
    def location(self) -> str:
        """The locator; raw, untrusted."""
        return self.item.location

    @property
    def exposure(self) -> str:
        """``index`` / ``search`` / ``explicit``, or ``—`` for a rejected file."""
        if isinstance(self.item, Rejected):
            return "—"
        return self.item.exposure.value


def _flag(item: Item, lint_errors: Collection[str] = ()) -> str:
    if item.location in lint_errors or any(d.severity is Severity.ERROR for d in item.diagnostics):
        return LINT
    if isinstance(item, Source):
        if item.exposure is Exposure.SEARCH:
            return SEARCH_ONLY
        if item.exposure is Exposure.EXPLICIT:
            return EXPLICIT_ONLY
    return " "


def build_rows(generation: Generation, lint_errors: Collection[str] = ()) -> list[CatalogRow]:
    """Rows for ``generation``: sources in catalog order with every later source of the same
    name pulled up right after the first one (SPEC D6 groups), then the rejected files in
    their order. A name is ambiguous when two or more *enabled* sources declare it and none
    of them is shadowed by the host's precedence (a shadowed copy is ``↓``, the winner ``✓``);
    copies in a race (``⇄``) count as ambiguous too.
    ``lint_errors``: locators whose lint found errors (SPEC F5); their flag is ``!`` like a
    host error. A row whose root carries a label (:attr:`Root.label`) gets it as
    :attr:`CatalogRow.provenance_label`."""
    labels = {r.path: r.label for r in generation.roots if r.label}
    counts: dict[str, int] = {}
    for s in generation.sources:
        if s.enabled and s.status is not Status.SHADOWED:
            counts[s.name] = counts.get(s.name, 0) + 1
    by_name: dict[str, list[Source]] = {}
    for s in generation.sources:
        by_name.setdefault(s.name, []).append(s)
    rows: list[CatalogRow] = []
    done: set[str] = set()
    for s in generation.sources:
        if s.name in done:
            continue
        done.add(s.name)
        for member in by_name[s.name]:
            n = counts.get(member.name, 0)
            if not member.enabled or member.status is Status.DISABLED:
                state = DISABLED
            elif member.status is Status.KEPT_LAST_VALID:
                state = KEPT
            elif member.status is Status.SHADOWED:
                state = SHADOWED
            elif member.status is Status.RACE:
                state = RACE
            elif n > 1:
                state = AMBIGUOUS
            elif member.status is Status.HIDDEN:
                state = HIDDEN
            else:
                state = OK
            shared = n if n > 1 and member.status is not Status.SHADOWED else 0
            rows.append(CatalogRow(member, state, _flag(member, lint_errors), shared, labels.get(member.root, "")))
    for r in generation.rejected:
        rows.append(CatalogRow(r, REJECTED, _flag(r, lint_errors), 0, labels.get(r.root, "")))
    return rows


def group_hits(rows: Sequence[CatalogRow], hits: Sequence[int]) -> list[int]:
    """Re-order filter hits (row indices, best first) so rows of one source name stay adjacent:
    each name's hits follow its best-ranked hit, in row order. Rejected rows are never grouped."""
    by_name: dict[str, list[int]] = {}
    for i in hits:
        if not rows[i].rejected:
            by_name.setdefault(rows[i].name, []).append(i)
    out: list[int] = []
    placed: set[int] = set()
    for i in hits:
        if i in placed:
            continue
        if rows[i].rejected:
            out.append(i)
            placed.add(i)
            continue
        for j in sorted(by_name[rows[i].name]):
            if j not in placed:
                out.append(j)
                placed.add(j)
    return out


def short_location(item: Item) -> str:
    """The locator shortened for the list: relative to its root when under it, without the
    trailing ``/SKILL.md``; built-in URLs unchanged. Raw (callers make it visible)."""
    loc = item.location
    if loc.startswith("builtin://"):
        return loc
    if loc.endswith("/SKILL.md"):
        loc = loc[: -len("/SKILL.md")]
    root = (item.root or "").rstrip("/")
    if root and loc.startswith(root + "/"):
        return loc[len(root) + 1 :]
    parts = loc.rsplit("/", 2)
    return "…/" + "/".join(parts[-2:]) if len(parts) == 3 else loc


def fit(text: str, width: int) -> str:
    """Pad or cut ``text`` to exactly ``width`` terminal cells; a cut ends in ``…``."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + "…"


def fit_end(text: str, width: int) -> str:
    """``text`` cut from the *start* to at most ``width`` cells: ``…/skills/pdf`` (the end of a
    path is what tells folders apart); unchanged when it fits; not padded."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    tail = ""
    for ch in reversed(text):
        if cell_len(ch + tail) > width - 1:
            break
        tail = ch + tail
    return "…" + tail


def row_tokens(item: Item) -> int:
    """The ``tokens`` sort key: the agent's estimate (characters / 4) of the catalog description —
    what the row costs in the index — or of the file (``size`` bytes / 4, rounded up) for rows
    without one (undescribed, rejected)."""
    if isinstance(item, Source) and item.catalog_description is not None:
        return approx_tokens(item.catalog_description)
    return -(-int(item.size or 0) // 4)


def size_cell(item: Item) -> str:
    """The ``size`` sort column: the file size in bytes (``12,345 B``)."""
    return f"{int(item.size or 0):,} B"


def provenance_cell(row: CatalogRow) -> str:
    """The provenance column: the root's label in the host's words when it has one
    (``agent:reviewer`` for a Zhin agent-private skill, SPEC Z1), else the provenance value.
    Raw (callers make it visible)."""
    return row.provenance_label or row.item.provenance.value


#: Width of the sort-key column (``size`` / ``tokens`` sorts), in cells.
VALUE_WIDTH = 11


def row_prompt(
    row: CatalogRow,
    name_width: int,
    spans: Sequence[tuple[int, int]] = (),
    *,
    value: str | None = None,
    location_width: int | None = None,
) -> Content:
    """The list line: ``<state><flag> <name> [<value>] <exposure> <provenance> <short location>``
    with fixed widths (name ``name_width`` cells, value :data:`VALUE_WIDTH` right-aligned,
    exposure 8, provenance 15). ``value``: the sort key shown while sorting by size or tokens
    (``None`` = no column). ``location_width``: cells left for the location; a longer one keeps
    its end (``…/skills/pdf``). ``spans`` (character ranges in the name, from the filter) are
    emphasised. Text is made visible first (SPEC X1)."""
    name = visible(row.name)
    name_cell = fit(name, name_width)
    parts: list[str | tuple[str, str] | Content] = [
        (row.state, _GLYPH_STYLE.get(row.state, "")),
        (row.flag, _GLYPH_STYLE.get(row.flag, "")),
        " ",
    ]
    if spans and name == row.name:
        limit = min(len(name), len(name_cell) - (1 if cell_len(name) > name_width else 0))
        name_content = Content(name_cell)
        for start, end in spans:
            end = min(end, limit)
            if start < end:
                name_content = name_content.stylize("bold underline", start, end)
        parts.append(name_content)
    else:
        parts.append(name_cell)
    provenance = provenance_cell(row)
    muted = "$foreground-muted"
    if value is not None:
        cut = fit(value, VALUE_WIDTH).rstrip() if cell_len(value) > VALUE_WIDTH else value
        parts += [" ", (cut.rjust(VALUE_WIDTH), "$accent")]
    location = visible(short_location(row.item))
    if location_width is not None:
        location = fit_end(location, location_width)
    parts += [
        " ",
        (fit(row.exposure, 8), muted if row.exposure == "—" else ""),
        " ",
        (fit(visible(provenance), 15), ""),
        " ",
        (location, muted),
    ]
    return Content.assemble(*parts)


def prompt_fixed_width(name_width: int, value: bool) -> int:
    """Cells a :func:`row_prompt` line uses before the location column."""
    return 3 + name_width + (1 + VALUE_WIDTH if value else 0) + 1 + 8 + 1 + 15 + 1


#: Sort orders ``s`` cycles through, in order. ``catalog`` is the host's order (built-ins, then
#: discovery order, same-name rows grouped); the others are stable sorts of it.
SORTS: tuple[str, ...] = ("catalog", "name", "provenance", "size", "tokens")

_PROVENANCE_RANK = {p: i for i, p in enumerate(Provenance)}


def next_sort(current: str) -> str:
    """The sort after ``current`` in :data:`SORTS` (wrapping; unknown → ``catalog``)."""
    try:
        return SORTS[(SORTS.index(current) + 1) % len(SORTS)]
    except ValueError:
        return SORTS[0]


def sort_order(
    rows: Sequence[CatalogRow], order: Sequence[int], sort: str, tokens: Callable[[Item], int]
) -> list[int]:
    """``order`` (row indices) re-sorted by ``sort``:

    - ``catalog``: unchanged;
    - ``name``: Zuno's locale order of names (SPEC P1, :func:`locale_key`); rows of one name stay
      adjacent in catalog order (the D6 group), rejected files sort by folder name;
    - ``provenance``: root kind in SPEC D1 order (built-in first), then name;
    - ``size``: file size in bytes, largest first;
    - ``tokens``: ``tokens(item)`` largest first (the screen passes the description's chars/4,
      or the file size/4 when there is none).

    Every sort is stable, so ties keep catalog order.
    """
    if sort == "name":
        return sorted(order, key=lambda i: locale_key(rows[i].name))
    if sort == "provenance":
        return sorted(order, key=lambda i: (_PROVENANCE_RANK.get(rows[i].item.provenance, 99), locale_key(rows[i].name)))
    if sort == "size":
        return sorted(order, key=lambda i: -int(rows[i].item.size or 0))
    if sort == "tokens":
        return sorted(order, key=lambda i: -tokens(rows[i].item))
    return list(order)
