"""The model-facing render forms and budget fitting (SPEC P1–P6; conformance §3, Z078–Z105).

Three forms, all joined with ``\\n`` and never newline-terminated (Z085):

- ``Form.INDEX``: the compact ``<skill_index>`` the agent puts in its prompt (SPEC P2). Name,
  ``source`` and description are HTML-escaped (P3); descriptions are whitespace-collapsed and
  capped per entry at 1,024 characters (P4); ``source="LOCATOR"`` is printed only for a name that
  two or more entries of the *whole* input declare (P2).
- ``Form.LIST``: ``## Available Skills`` then ``- **NAME**: DESCRIPTION`` per skill, raw text.
- ``Form.VERBOSE``: the ``<available_skills>`` XML block; only the location is escaped (Z087).

Candidates (P1, conformance "Budget algorithm reference"): the index form keeps
``entry.indexed`` entries (exposure ``index`` and described); list and verbose keep
``entry.searchable`` ones (exposure not ``explicit`` and described). Filtering happens before the
emptiness check: no candidates → :data:`NO_SKILLS`, whatever the budget (Z084, Z086, Z097).
Candidates are ordered by Zuno's locale order of the name, then the locator's UTF-8 bytes.

All lengths and budgets are Unicode scalar values (Python ``len`` of a ``str``), never bytes
(SPEC U). Skill text is untrusted (SPEC X1): it is copied, escaped where the host escapes it, and
never interpreted.

Performance: every per-entry string (escaped name, source attribute, normalised and escaped
description) is computed once; the index budget search computes the assembled length of a
uniform cap arithmetically (sorted description lengths + prefix sums), so the text is built
only once at the chosen cap.
"""

from __future__ import annotations

import enum
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from skillshelf.core.collate import PRIMARY_MAP, name_key
from skillshelf.core.model import Exposure, SkillEntry

__all__ = [
    "INDEX_DESCRIPTION_MAX_CHARS",
    "INDEX_FRAME_CHARS",
    "NO_SKILLS",
    "Budgeted",
    "Form",
    "duplicate_names",
    "escape_html",
    "normalize_description",
    "render",
    "render_budgeted",
    "truncate_description",
]


class Form(str, enum.Enum):
    """Which model-facing form to render (SPEC P, conformance §3)."""

    INDEX = "index"
    LIST = "list"
    VERBOSE = "verbose"


#: The sentence every form renders when no candidate is left (Z084, Z086, Z097, Z099, Z100).
NO_SKILLS = "No skills are currently available."

#: Per-entry description cap in the index form, in characters (SPEC P4).
INDEX_DESCRIPTION_MAX_CHARS = 1_024

_ELLIPSIS = "..."

_INDEX_OPEN = "<skill_index>"
_INDEX_CLOSE = "</skill_index>"
_LIST_OPEN = "## Available Skills"
_VERBOSE_OPEN = "<available_skills>"
_VERBOSE_CLOSE = "</available_skills>"

#: Characters of the index frame: open line + close line + the newline before the close line
#: (13 + 14 + 1 = 28; SPEC P5).
INDEX_FRAME_CHARS = len(_INDEX_OPEN) + len(_INDEX_CLOSE) + 1

# Rust's `char::is_whitespace` (Unicode White_Space), which Zuno's `split_whitespace` and
# `trim_end` use. Python's `str.split()` would also split on U+001C..U+001F, which Zuno keeps.
_WS_CLASS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_WS_RUN = re.compile(f"[{_WS_CLASS}]+")
_WS_CHARS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

# Extra characters each escaped character adds (`&` → `&amp;` adds 4, …).
_ESCAPE_EXTRA = {"&": 4, "<": 3, ">": 3, '"': 5, "'": 4}
_ESCAPABLE = re.compile("[&<>\"']")


def escape_html(s: str) -> str:
    """Escape ``s`` entity for entity as Zuno does (SPEC P3, Z088, Z103).

    ``&`` → ``&amp;`` first (so there is no double-escape protection: ``&amp;`` becomes
    ``&amp;amp;``), then ``<`` ``&lt;``, ``>`` ``&gt;``, ``"`` ``&quot;``, ``'`` ``&#39;``.
    Everything else is copied unchanged.
    """
    if not _ESCAPABLE.search(s):
        return s
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


_NOT_RUST_WS = re.compile("[\x1c-\x1f]")


def normalize_description(description: str | None) -> str:
    """Collapse every run of Unicode whitespace to one space and trim both ends (SPEC P3).

    ``None`` gives ``""``. Whitespace is Unicode ``White_Space`` (Rust's definition, which the
    host uses), so U+001C–U+001F are *not* whitespace here (Python's ``str.split`` would split
    on them; it is used only when they are absent, as the fast path).
    """
    if not description:
        return ""
    if _NOT_RUST_WS.search(description) is None:
        return " ".join(description.split())
    return _WS_RUN.sub(" ", description).strip(" ")


# The same maps for ASCII names as byte tables (bytes.translate is far faster than
# str.translate): primary weights, and a case key (lowercase before uppercase).
_PRIMARY_BYTES = bytes(ord(PRIMARY_MAP[o]) for o in range(128)) + bytes(range(128, 256))
_CASE_BYTES = bytes(2 if 65 <= o <= 90 else 1 for o in range(256))


def truncate_description(normalized: str, cap: int) -> str:
    """Cut an already normalised description to ``cap`` characters (SPEC P4).

    ``cap`` 0 → ``""``; a description of at most ``cap`` characters is returned unchanged; a cap
    of 3 or less gives that many dots; otherwise the first ``cap - 3`` characters, trailing
    whitespace trimmed, plus ``...``.
    """
    if cap <= 0:
        return ""
    if len(normalized) <= cap:
        return normalized
    if cap <= len(_ELLIPSIS):
        return "." * cap
    return normalized[: cap - len(_ELLIPSIS)].rstrip(_WS_CHARS) + _ELLIPSIS


def duplicate_names(entries: Sequence[SkillEntry]) -> frozenset[str]:
    """Names declared by two or more of ``entries`` — all of them, whatever their exposure or
    description (SPEC P2: hidden sources count)."""
    seen: set[str] = set()
    dup: set[str] = set()
    for e in entries:
        if e.name in seen:
            dup.add(e.name)
        else:
            seen.add(e.name)
    return frozenset(dup)


@dataclass(frozen=True)
class Budgeted:
    """A budgeted render and what did not fit (SPEC P5–P6).

    ``text``: the rendered form, at most ``budget`` characters — except the
    :data:`NO_SKILLS` sentence, returned whatever the budget (Z097). ``rendered``: skills the text
    names. ``omitted``: candidates left out. ``truncated``: descriptions shortened, counted as the
    host counts them — in the index form 0 when the 1,024 cap fits, the number of descriptions
    longer than the uniform cap after a binary search, and *every* kept entry in the name-only
    fallback. ``omitted_names`` and ``truncated_names`` name those entries in P1 order (their
    lengths equal ``omitted`` and ``truncated``). ``search_only``: described entries with
    exposure ``search`` (in list/search, not in the index; E1). ``budget``: the budget asked for,
    in characters. ``cap``: the uniform per-description cap used in the index form (1,024, the
    searched cap, or 0 for the name-only fallback); ``None`` for the list and verbose forms and
    when nothing was rendered. ``omitted_locations`` / ``truncated_locations``: the locators of
    those entries, parallel to the name tuples (names are not identities, SPEC D6).
    """

    text: str
    rendered: int
    omitted: int
    truncated: int
    omitted_names: tuple[str, ...] = ()
    truncated_names: tuple[str, ...] = ()
    search_only: int = 0
    budget: int = 0
    cap: int | None = None
    omitted_locations: tuple[str, ...] = ()
    truncated_locations: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# candidates


def _p1_key(e: SkillEntry) -> str:
    # Locale order of the name (see name_key), then the locator. Comparing Python strings
    # by code point is the same order as comparing their UTF-8 (surrogatepass) bytes; the case
    # parts of equal primaries have equal lengths, so the separator aligns the locators.
    name = e.name
    if name.isascii():
        b = name.encode("ascii")
        # the case part differs from `swapcase`, but only where primaries tie, and there both
        # orders put lowercase first
        return (b.translate(_PRIMARY_BYTES) + b"\0" + b.translate(_CASE_BYTES)).decode("latin-1") + "\0" + e.location
    return name.translate(PRIMARY_MAP) + "\0" + name.swapcase() + "\0" + e.location


def _candidates(entries: Sequence[SkillEntry], form: Form) -> list[SkillEntry]:
    """Candidates of ``form`` in P1 order (locale order of the name, then locator bytes)."""
    # SkillEntry.indexed / .searchable, spelled out (no property calls) for 10,000-entry speed
    if form is Form.INDEX:
        index = Exposure.INDEX
        keep = [e for e in entries if e.exposure is index
                and (e.short_description is not None or e.description is not None)]
    else:
        explicit = Exposure.EXPLICIT
        keep = [e for e in entries if e.exposure is not explicit
                and (e.short_description is not None or e.description is not None)]
    keep.sort(key=_p1_key)
    return keep


def _search_only(entries: Sequence[SkillEntry]) -> int:
    search = Exposure.SEARCH  # (SkillEntry.described spelled out, as in _candidates)
    return sum(1 for e in entries if e.exposure is search and (e.short_description is not None
                                                              or e.description is not None))


# Characters that make a description need normalising or escaping (besides double, leading
# and trailing spaces, checked separately).
_SPECIAL = re.compile(f"[{_WS_CLASS.replace(' ', '')}\x1c-\x1f&<>\"']")
_ASCII_SPECIAL = bytes(range(0x09, 0x0E)) + bytes(range(0x1C, 0x20)) + b"&<>\"'"


class _Index:
    """The index-form columns of the candidates (SPEC P2–P5), each computed once, lazily.

    ``attrs[i]`` is ``  <skill name="NAME"[ source="LOCATOR"]`` (escaped). Descriptions are
    normalised and escaped only when a description-bearing text can fit (the name-only text
    fits), and the by-length tables only when a cap has to be searched. Lengths at any uniform
    cap come from :meth:`total` without building text.
    """

    def __init__(self, cands: Sequence[SkillEntry], dups: frozenset[str]) -> None:
        attrs: list[str] = []
        for e in cands:
            name = e.name
            if "&" in name or "<" in name or ">" in name or '"' in name or "'" in name:
                name = escape_html(name)
            if e.name in dups:
                attrs.append(f'  <skill name="{name}" source="{escape_html(e.location)}"')
            else:
                attrs.append(f'  <skill name="{name}"')
        self.cands = cands
        self.attrs = attrs
        self.n = n = len(cands)
        self.attr_lens = attr_lens = [len(a) for a in attrs]
        # name-only line: attrs + " />"
        self.name_only_total = sum(attr_lens) + 3 * n
        self._described = False
        self._sorted = False

    def _describe(self) -> None:
        """Normalised (``norms``) and escaped (``escs``) descriptions and their lengths."""
        if self._described:
            return
        special = _SPECIAL.search
        ascii_special = _ASCII_SPECIAL
        norms: list[str] = []
        escs: list[str] = []
        for e in self.cands:
            d = e.short_description
            if d is None:
                d = e.description or ""
            if d.isascii():
                plain = len(d.encode("ascii").translate(None, ascii_special)) == len(d)
            else:
                plain = special(d) is None
            if plain and "  " not in d and d[:1] != " " and d[-1:] != " ":
                norms.append(d)
                escs.append(d)
            else:
                d = normalize_description(d)
                norms.append(d)
                escs.append(escape_html(d))
        self.norms = norms
        self.escs = escs
        self.norm_lens = [len(d) for d in norms]
        # whole line: attrs + ">" + ESC + "</skill>", or name-only when the description is empty
        self.full_lens = [a + (9 + len(x) if x else 3) for a, x in zip(self.attr_lens, escs, strict=True)]
        self._described = True

    def _sort_by_length(self) -> None:
        """Tables in description-length order for :meth:`total` at caps below 1,024."""
        if self._sorted:
            return
        self._describe()
        norm_lens = self.norm_lens
        order = sorted(range(self.n), key=norm_lens.__getitem__)
        self.sorted_lens = [norm_lens[i] for i in order]
        self.sorted_norms = [self.norms[i] for i in order]
        full = self.full_lens
        self.full_prefix = [0, *accumulate(full[i] for i in order)]
        attr_lens = self.attr_lens
        self.attr_suffix = [*accumulate((attr_lens[i] for i in reversed(order)), initial=0)][::-1]
        escs = self.escs
        # positions (in by-length order) of descriptions holding escapable characters
        self.escaping = [j for j, i in enumerate(order) if len(escs[i]) != norm_lens[i]]
        self._marks: dict[int, tuple[tuple[int, int], ...]] = {}
        self._sorted = True

    def fits_whole(self, budget: int) -> bool:
        """True when the text with the 1,024 cap fits ``budget`` (SPEC P5, first case)."""
        self._describe()
        if max(self.norm_lens, default=0) > INDEX_DESCRIPTION_MAX_CHARS:
            # some descriptions are cut at 1,024: measure through the cap tables
            return self.total(INDEX_DESCRIPTION_MAX_CHARS) <= budget
        return INDEX_FRAME_CHARS + self.n + sum(self.full_lens) <= budget

    def _escaped_prefix_len(self, j: int, k: int) -> int:
        """Escaped length of the first ``k`` characters of ``sorted_norms[j]``."""
        marks = self._marks.get(j)
        if marks is None:
            extra = 0
            found: list[tuple[int, int]] = []
            for m in _ESCAPABLE.finditer(self.sorted_norms[j]):
                extra += _ESCAPE_EXTRA[m.group()]
                found.append((m.start(), extra))
            marks = self._marks[j] = tuple(found)
        i = bisect_left(marks, (k, -1))  # marks strictly before position k
        return k + (marks[i - 1][1] if i else 0)

    def total(self, cap: int) -> int:
        """Characters of the index text assembled with the uniform ``cap`` (SPEC P4–P5)."""
        n = self.n
        if cap <= 0:
            return INDEX_FRAME_CHARS + self.name_only_total + n
        self._sort_by_length()
        i = bisect_right(self.sorted_lens, cap)  # these keep their whole description
        total = INDEX_FRAME_CHARS + n + self.full_prefix[i]
        long_count = n - i
        if not long_count:
            return total
        # a cut line: attrs + ">" + escaped cut description + "</skill>"
        total += self.attr_suffix[i] + long_count * 9
        if cap <= len(_ELLIPSIS):
            return total + long_count * cap  # dots only
        keep = cap - len(_ELLIPSIS)
        total += long_count * cap
        last = keep - 1
        # A normalised description holds single spaces only, so `trim_end` of a prefix removes
        # at most its last character.
        norms = self.sorted_norms
        total -= sum(1 for j in range(i, n) if norms[j][last] == " ")
        escaping = self.escaping
        for jj in range(bisect_left(escaping, i), len(escaping)):
            j = escaping[jj]
            k = keep - 1 if norms[j][last] == " " else keep
            total += self._escaped_prefix_len(j, k) - k
        return total

    def line(self, i: int, cap: int) -> str:
        """The index line of candidate ``i`` with the description cap ``cap``."""
        self._describe()
        norm = self.norms[i]
        if cap > 0 and norm and len(norm) <= cap:
            return f"{self.attrs[i]}>{self.escs[i]}</skill>"
        desc = truncate_description(norm, cap)
        if not desc:
            return self.attrs[i] + " />"
        return f"{self.attrs[i]}>{escape_html(desc)}</skill>"

    def assemble(self, cap: int, rows: Sequence[int] | None = None) -> str:
        """The index text of ``rows`` (default: every candidate, P1 order) at ``cap``."""
        if rows is None:
            rows = range(self.n)
        attrs = self.attrs
        if cap <= 0:
            body = [attrs[i] + " />" for i in rows]
        else:
            self._describe()
            norms, escs = self.norms, self.escs
            body = [
                f"{attrs[i]}>{escs[i]}</skill>" if 0 < len(norms[i]) <= cap else self.line(i, cap)
                for i in rows
            ]
        return "\n".join([_INDEX_OPEN, *body, _INDEX_CLOSE])


# --------------------------------------------------------------------------------------------
# assembly of the list and verbose forms


def _entry_lines(e: SkillEntry, form: Form) -> list[str]:
    desc = e.catalog_description or ""
    if form is Form.LIST:
        return [f"- **{e.name}**: {desc}"]
    return [
        "  <skill>",
        f"    <name>{e.name}</name>",
        f"    <description>{desc}</description>",
        f"    <location>{escape_html(e.location)}</location>",
        "  </skill>",
    ]


def _assemble_plain(cands: Sequence[SkillEntry], form: Form) -> str:
    lines = [_LIST_OPEN if form is Form.LIST else _VERBOSE_OPEN]
    for e in cands:
        lines.extend(_entry_lines(e, form))
    if form is Form.VERBOSE:
        lines.append(_VERBOSE_CLOSE)
    return "\n".join(lines)


def render(entries: Sequence[SkillEntry], form: Form) -> str:
    """Render ``entries`` in ``form`` without a budget (SPEC P2–P4; Z078–Z089, Z099–Z102).

    ``entries`` is the whole catalog (every enabled source, any exposure, described or not); the
    form filters it. Returns the text (no trailing newline), or :data:`NO_SKILLS` when no
    candidate is left. The index form uses the 1,024-character per-entry cap.
    """
    form = Form(form)
    cands = _candidates(entries, form)
    if not cands:
        return NO_SKILLS
    if form is Form.INDEX:
        return _Index(cands, duplicate_names(entries)).assemble(INDEX_DESCRIPTION_MAX_CHARS)
    return _assemble_plain(cands, form)


# --------------------------------------------------------------------------------------------
# budget fitting


def _budgeted_index(cands: list[SkillEntry], dups: frozenset[str], budget: int, search_only: int) -> Budgeted:
    index = _Index(cands, dups)
    n = index.n
    if index.total(0) <= budget:
        if index.fits_whole(budget):
            cap = INDEX_DESCRIPTION_MAX_CHARS
            truncated: tuple[str, ...] = ()
            cut_locations: tuple[str, ...] = ()
        else:
            low, high = 0, INDEX_DESCRIPTION_MAX_CHARS
            while low < high:
                middle = low + (high - low + 1) // 2  # upper midpoint
                if index.total(middle) <= budget:
                    low = middle
                else:
                    high = middle - 1
            cap = low
            lens = index.norm_lens
            cut = [e for i, e in enumerate(cands) if lens[i] > cap]
            truncated = tuple(e.name for e in cut)
            cut_locations = tuple(e.location for e in cut)
        return Budgeted(
            text=index.assemble(cap),
            rendered=n,
            omitted=0,
            truncated=len(truncated),
            truncated_names=truncated,
            search_only=search_only,
            budget=budget,
            cap=cap,
            truncated_locations=cut_locations,
        )

    # Name-only fallback: cheapest first (line + 1, then name, then locator — the P1 position
    # breaks those ties), added onto the 28-character frame while they fit.
    attr_lens = index.attr_lens
    spent = INDEX_FRAME_CHARS
    kept: list[int] = []
    for i in sorted(range(n), key=attr_lens.__getitem__):  # stable: ties stay in P1 order
        cost = attr_lens[i] + 4  # name-only line (attrs + " />") + its newline
        if spent + cost > budget:
            break
        spent += cost
        kept.append(i)
    kept.sort()  # back to P1 order
    kept_set = set(kept)
    omitted = tuple(e.name for i, e in enumerate(cands) if i not in kept_set)
    omitted_at = tuple(e.location for i, e in enumerate(cands) if i not in kept_set)
    if not kept:
        return Budgeted(text="", rendered=0, omitted=n, truncated=0, omitted_names=omitted,
                        search_only=search_only, budget=budget, omitted_locations=omitted_at)
    return Budgeted(
        text=index.assemble(0, kept),
        rendered=len(kept),
        omitted=len(omitted),
        truncated=len(kept),
        omitted_names=omitted,
        truncated_names=tuple(cands[i].name for i in kept),
        search_only=search_only,
        budget=budget,
        cap=0,
        omitted_locations=omitted_at,
        truncated_locations=tuple(cands[i].location for i in kept),
    )


def _budgeted_plain(cands: list[SkillEntry], form: Form, budget: int, search_only: int) -> Budgeted:
    frame = len(_LIST_OPEN) if form is Form.LIST else len(_VERBOSE_OPEN) + len(_VERBOSE_CLOSE) + 1
    costs = [sum(len(line) + 1 for line in _entry_lines(e, form)) for e in cands]
    primaries = [name_key(e.name) for e in cands]
    # cheapest first, then name; the sort is stable, so full ties stay in P1 order
    by_cost = sorted(range(len(cands)), key=lambda i: (costs[i], primaries[i]))
    spent = frame
    kept: list[int] = []
    for i in by_cost:
        if spent + costs[i] > budget:
            break
        spent += costs[i]
        kept.append(i)
    kept_set = set(kept)
    omitted = tuple(e.name for i, e in enumerate(cands) if i not in kept_set)
    omitted_at = tuple(e.location for i, e in enumerate(cands) if i not in kept_set)
    if not kept:
        return Budgeted(text="", rendered=0, omitted=len(cands), truncated=0, omitted_names=omitted,
                        search_only=search_only, budget=budget, omitted_locations=omitted_at)
    # The host re-sorts the kept entries by name only (stable): same-named entries stay in
    # cost order.
    kept.sort(key=primaries.__getitem__)
    return Budgeted(text=_assemble_plain([cands[i] for i in kept], form), rendered=len(kept),
                    omitted=len(omitted), truncated=0, omitted_names=omitted,
                    search_only=search_only, budget=budget, omitted_locations=omitted_at)


def render_budgeted(entries: Sequence[SkillEntry], form: Form, budget: int) -> Budgeted:
    """Render ``entries`` in ``form`` within ``budget`` characters (SPEC P5–P6; Z090, Z097,
    conformance "Budget algorithm reference").

    Index form: if the name-only text fits, use the 1,024 cap when it fits (``truncated`` 0),
    else the largest uniform cap in [0, 1024] that fits (binary search, upper midpoint);
    ``truncated`` = descriptions longer than that cap; every skill stays. Otherwise keep
    name-only lines cheapest first (line length + 1, then name, then locator) on a 28-character
    frame, re-sorted in P1 order; ``omitted`` = the rest. List and verbose forms: whole entries
    cheapest first (sum over their lines of characters + 1, then name) on the form's frame, kept
    ones re-sorted by name; ``truncated`` is always 0. Nothing fits → ``text`` ``""``. No
    candidates → :data:`NO_SKILLS` whatever the budget.

    ``budget`` is in characters (Unicode scalar values) and must be ≥ 0; a negative budget
    raises ``ValueError``.
    """
    form = Form(form)
    if budget < 0:
        raise ValueError(f"budget must be a non-negative number of characters, got {budget}")
    search_only = _search_only(entries)
    cands = _candidates(entries, form)
    if not cands:
        return Budgeted(text=NO_SKILLS, rendered=0, omitted=0, truncated=0, search_only=search_only,
                        budget=budget)
    if form is Form.INDEX:
        return _budgeted_index(cands, duplicate_names(entries), budget, search_only)
    return _budgeted_plain(cands, form, budget, search_only)
