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
from typing import NamedTuple

from rich.cells import cell_len, set_cell_size
from textual.content import Content

from skillshelf.core.collate import name_key
from skillshelf.core.model import Exposure, Generation, Provenance, Rejected, Severity, Source, Status
from skillshelf.core.textsafe import visible
from skillshelf.core.tokens import approx_tokens
from skillshelf.widgets.places import LABEL_MAX, distinguishing_parts, short_root_label

__all__ = [
    "AMBIGUOUS",
    "DISABLED",
    "EXPLICIT_ONLY",
    "EXPOSURE_WIDTH",
    "HIDDEN",
    "KEPT",
    "LEGEND",
    "LEGEND_ITEMS",
    "LINT",
    "NAME_KEEP",
    "NAME_KEEP_WITH_LABEL",
    "NAME_MAX",
    "NAME_MIN",
    "OK",
    "RACE",
    "REJECTED",
    "SEARCH_ONLY",
    "SHADOWED",
    "SORTS",
    "VALUE_WIDTH",
    "CatalogRow",
    "RowLayout",
    "build_rows",
    "builtin_place",
    "fit",
    "fit_end",
    "fit_layout",
    "group_hits",
    "legend",
    "next_sort",
    "row_prompt",
    "row_tokens",
    "short_location",
    "size_cell",
    "sort_order",
]

OK, AMBIGUOUS, DISABLED, REJECTED, KEPT = "✓", "◆", "○", "✗", "↺"
SHADOWED, RACE, HIDDEN = "↓", "⇄", "◌"
#: Name column width bounds, in cells.
NAME_MIN, NAME_MAX = 8, 30
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


class CatalogRow(NamedTuple):
    """One catalog line. ``item`` is the :class:`Source` or :class:`Rejected` it shows;
    ``state`` and ``flag`` are the two status cells (see module doc); ``ambiguous`` is the
    number of enabled sources sharing the name (0 when the name is unique);
    ``provenance_label`` the host's word for the row's root when it has one (``agent:reviewer``,
    ``project .claude/skills``), shown (shortened) instead of the provenance value.
    Immutable; a named tuple because a list shows one per file (10,000 are made in a few
    milliseconds, a third of a dataclass's time)."""

    item: Item
    state: str
    flag: str
    ambiguous: int = 0
    provenance_label: str = ""
    #: For a name several source rows share: the shortest part of this copy's path that no other
    #: copy's path holds (:func:`~skillshelf.widgets.places.distinguishing_parts`); else ``""``.
    distinct: str = ""

    @property
    def root_label(self) -> str:
        """The row's root in a few words (``project .zuno``, ``user .claude``, ``path``)."""
        return short_root_label(self.item.provenance, self.provenance_label)

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


#: The second status cell of a source without errors, by exposure.
_EXPOSURE_FLAG = {Exposure.SEARCH: SEARCH_ONLY, Exposure.EXPLICIT: EXPLICIT_ONLY}


def _flag(item: Item, lint_errors: Collection[str] = ()) -> str:
    if item.location in lint_errors:
        return LINT
    for d in item.diagnostics:  # (a loop: no generator per row, most rows have none)
        if d.severity is Severity.ERROR:
            return LINT
    if isinstance(item, Source):
        return _EXPOSURE_FLAG.get(item.exposure, " ")
    return " "


def _state(member: Source, n: int) -> str:
    """The first status cell of ``member``, ``n`` enabled unshadowed sources sharing its name."""
    status = member.status
    if not member.enabled or status is Status.DISABLED:
        return DISABLED
    if status is Status.KEPT_LAST_VALID:
        return KEPT
    if status is Status.SHADOWED:
        return SHADOWED
    if status is Status.RACE:
        return RACE
    if n > 1:
        return AMBIGUOUS
    if status is Status.HIDDEN:
        return HIDDEN
    return OK


def build_rows(generation: Generation, lint_errors: Collection[str] = (), home: str | None = None) -> list[CatalogRow]:
    """Rows for ``generation``: sources in catalog order with every later source of the same
    name pulled up right after the first one (SPEC D6 groups), then the rejected files in
    their order. A name is ambiguous when two or more *enabled* sources declare it and none
    of them is shadowed by the host's precedence (a shadowed copy is ``↓``, the winner ``✓``);
    copies in a race (``⇄``) count as ambiguous too.
    ``lint_errors``: locators whose lint found errors (SPEC F5); their flag is ``!`` like a
    host error. A row whose root carries a label (:attr:`Root.label`) gets it as
    :attr:`CatalogRow.provenance_label`. Rows of a name two or more sources share (enabled or
    not) get :attr:`CatalogRow.distinct`, ``home`` shown as ``~`` in it."""
    labels = {r.path: r.label for r in generation.roots if r.label}
    counts: dict[str, int] = {}
    by_name: dict[str, list[Source]] = {}
    for s in generation.sources:
        name = s.name
        group = by_name.get(name)
        if group is None:
            by_name[name] = [s]
        else:
            group.append(s)
        if s.enabled and s.status is not Status.SHADOWED:
            counts[name] = counts.get(name, 0) + 1
    rows: list[CatalogRow] = []
    append = rows.append
    for group in by_name.values():  # (a dict keeps the order in which each name came first)
        if len(group) == 1:
            member = group[0]
            n = counts.get(member.name, 0)
            append(CatalogRow(member, _state(member, n), _flag(member, lint_errors), 0,
                              labels.get(member.root, "") if labels else ""))
            continue
        apart = distinguishing_parts([m.location for m in group], home)
        for member in group:
            n = counts.get(member.name, 0)
            shared = n if n > 1 and member.status is not Status.SHADOWED else 0
            append(CatalogRow(member, _state(member, n), _flag(member, lint_errors), shared,
                              labels.get(member.root, ""), apart.get(member.location, "")))
    for r in generation.rejected:
        append(CatalogRow(r, REJECTED, _flag(r, lint_errors), 0, labels.get(r.root, "")))
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


def builtin_place(item: Item) -> str:
    """A built-in's place in words, as its exposure names it in the source pane (``Zuno 0.10.3
    built-in``, ``Claude Code built-in (bundled)``; a reason without the words ``built-in``, or
    only them: ``built-in``); ``""`` for a row that is not a built-in (no ``builtin://`` locator)."""
    if not isinstance(item, Source) or not item.location.startswith("builtin://"):
        return ""
    reason = " ".join(item.exposure_reason.split())
    return reason if "built-in" in reason else "built-in"


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


#: Width of the sort-key column (``size`` / ``tokens`` sorts), in cells.
VALUE_WIDTH = 11
#: Width of the exposure column, in cells.
EXPOSURE_WIDTH = 8
#: Fewest cells a name keeps before the exposure and root label columns are given up, and
#: before the name is cut further to show what tells copies apart.
NAME_KEEP_WITH_LABEL, NAME_KEEP = 20, 12
#: Fewest cells of the place column worth showing when no row needs it to tell copies apart.
PLACE_MIN = 8


@dataclass(frozen=True)
class RowLayout:
    """Column widths of a list line, in cells: ``name``; ``value`` whether the sort-key column
    (:data:`VALUE_WIDTH`) shows; ``exposure`` whether the exposure column
    (:data:`EXPOSURE_WIDTH`) shows; ``label`` the root label column (0: none — the place
    column then shows the label of a row that has no :attr:`~CatalogRow.distinct` part);
    ``place`` the last column (``None``: as wide as its text; 0: none)."""

    name: int
    value: bool = False
    exposure: bool = True
    label: int = LABEL_MAX
    place: int | None = None


def fit_layout(width: int | None, widest_name: int, *, value: bool = False, widest_label: int = LABEL_MAX,
               widest_distinct: int = 0) -> RowLayout:
    """The richest :class:`RowLayout` for a list ``width`` cells wide (``None``: unlimited) whose
    rows' widest name, root label and distinguishing part are given. What tells copies of a name
    apart (``widest_distinct``) always fits first; the exposure column, then the root label
    column, only while the name keeps :data:`NAME_KEEP_WITH_LABEL` cells (or its whole width
    when shorter); without them the name is cut down to :data:`NAME_KEEP`, then further. The name
    column is the widest name between :data:`NAME_MIN` and :data:`NAME_MAX` cells; what is
    left goes to the place column (a location is cut to its end there)."""
    name = max(NAME_MIN, min(NAME_MAX, widest_name))
    label = min(LABEL_MAX, widest_label)
    if width is None:
        return RowLayout(name, value, True, label, None)
    avail = width - 3 - (1 + VALUE_WIDTH if value else 0)
    need = 1 + widest_distinct if widest_distinct else 0
    keep = min(name, NAME_KEEP)
    for exposure, with_label in ((True, True), (False, True), (False, False)):
        room = avail - (1 + EXPOSURE_WIDTH if exposure else 0) - (1 + label if with_label else 0) - need
        if room >= (keep if not with_label else min(name, NAME_KEEP_WITH_LABEL)):
            shown = min(name, room)
            place = avail - shown - (1 + EXPOSURE_WIDTH if exposure else 0) - (1 + label if with_label else 0) - 1
            if not widest_distinct and place < PLACE_MIN:
                place = 0  # a location cut to ``…s`` tells nothing: no column rather than a useless one
            return RowLayout(shown, value, exposure, label if with_label else 0, max(place, 0))
    shown = max(NAME_MIN, avail - need)
    return RowLayout(shown, value, False, 0, max(avail - shown - 1, 0))


def row_prompt(
    row: CatalogRow,
    layout: RowLayout,
    spans: Sequence[tuple[int, int]] = (),
    *,
    value: str | None = None,
    matched: tuple[int, str] | None = None,
) -> Content:
    """The list line: ``<state><flag> <name> [<value>] [<exposure>] [<root label>] <place>`` in
    the widths of ``layout``. The place is what tells the row apart from other copies of its
    name (:attr:`CatalogRow.distinct`), else its location relative to its root, its end kept
    when cut (``…/skills/pdf``); without a label column a row with no distinguishing part
    shows its root label there instead. ``value``: the sort key shown while sorting by size or
    tokens. ``spans`` (character ranges in the name, from the filter) are emphasised.
    ``matched``: the body line the body search found (file line number, text), shown in the
    place column as ``42: the line`` (after what tells copies apart). Text is made visible
    first (SPEC X1)."""
    name = visible(row.name)
    name_cell = fit(name, layout.name)
    parts: list[str | tuple[str, str] | Content] = [
        (row.state, _GLYPH_STYLE.get(row.state, "")),
        (row.flag, _GLYPH_STYLE.get(row.flag, "")),
        " ",
    ]
    if spans and name == row.name:
        limit = min(len(name), len(name_cell) - (1 if cell_len(name) > layout.name else 0))
        name_content = Content(name_cell)
        for start, end in spans:
            end = min(end, limit)
            if start < end:
                name_content = name_content.stylize("bold underline", start, end)
        parts.append(name_content)
    else:
        parts.append(name_cell)
    muted = "$foreground-muted"
    if layout.value and value is not None:
        cut = fit(value, VALUE_WIDTH).rstrip() if cell_len(value) > VALUE_WIDTH else value
        parts += [" ", (cut.rjust(VALUE_WIDTH), "$accent")]
    elif layout.value:
        parts += [" ", " " * VALUE_WIDTH]
    if layout.exposure:
        parts += [" ", (fit(row.exposure, EXPOSURE_WIDTH), muted if row.exposure == "—" else "")]
    builtin = builtin_place(row.item) if layout.label and not row.distinct and matched is None else ""
    if builtin:
        # the tail of a ``builtin://`` locator (``…ize-zuno``) repeats the name: the root label
        # and place columns together say which client it is built into, as the source pane does
        width = None if layout.place is None else layout.label + (1 + layout.place if layout.place else 0)
        text = visible(builtin)
        parts += [" ", (text if width is None else fit(text, width).rstrip(), "")]
        return Content.assemble(*parts)
    if layout.label:
        parts += [" ", (fit(visible(row.root_label), layout.label), "")]
    if layout.place != 0:
        if row.distinct:
            place, style = visible(row.distinct), "$accent"
        elif layout.label:
            place, style = visible(short_location(row.item)), muted
        else:
            place, style = visible(row.root_label), ""
        if matched is not None:
            line = f"{matched[0]}: {visible(' '.join(matched[1].split()))}"
            place, style = (f"{visible(row.distinct)} {line}" if row.distinct else line), "$accent"
            if layout.place is not None:
                place = fit(place, layout.place).rstrip()
        elif layout.place is not None:
            place = fit_end(place, layout.place) if row.distinct or layout.label else fit(place, layout.place).rstrip()
        parts += [" ", (place, style)]
    return Content.assemble(*parts)


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
    - ``name``: Zuno's locale order of names (SPEC P1, :func:`~skillshelf.core.collate.name_key`); rows of one name stay
      adjacent in catalog order (the D6 group), rejected files sort by folder name;
    - ``provenance``: root kind in SPEC D1 order (built-in first), then name;
    - ``size``: file size in bytes, largest first;
    - ``tokens``: ``tokens(item)`` largest first (the screen passes the description's chars/4,
      or the file size/4 when there is none).

    Every sort is stable, so ties keep catalog order.
    """
    if sort == "name":
        return sorted(order, key=lambda i: name_key(rows[i].name))
    if sort == "provenance":
        return sorted(order, key=lambda i: (_PROVENANCE_RANK.get(rows[i].item.provenance, 99), name_key(rows[i].name)))
    if sort == "size":
        return sorted(order, key=lambda i: -int(rows[i].item.size or 0))
    if sort == "tokens":
        return sorted(order, key=lambda i: -tokens(rows[i].item))
    return list(order)
