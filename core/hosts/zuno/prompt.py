"""Host ``zuno``: what the model is given for its skills (conformance Z-P; ``zuno-cli``
``turn.rs`` ``announce_skills``), as a :class:`~skillshelf.core.hosts.base.HostCatalog`.

Two prompt sections, joined as Zuno's ``PromptAssembly`` joins sections (``\\n\\n``):

1. ``skills.policy`` (``zuno skill trigger policy``): Zuno's fixed paragraph (read from an
   installed Zuno, else a stand-in of its exact size, :mod:`.installed`);
2. ``skills.index`` (``discovered skill index``): the budgeted ``<skill_index>`` render (SPEC P5)
   followed by Zuno's coverage sentences (:func:`index_section`).

Both are absent when ``skills.includeInstructions`` is false or no source is searchable. Only
the budgeted render counts against the budget (:attr:`HostCatalog.used`); the policy and the
coverage sentences are prompt cost outside it, and :attr:`HostCatalog.sections` gives each
section's size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillshelf.core.budget import (
    INDEX_DEFAULT_CHARS,
    INDEX_MAX_CONTEXT_TOKENS,
    SELECTED_MAX_BYTES,
    index_budget_chars,
    selected_budget_bytes,
)
from skillshelf.core.hosts.base import (
    UNKNOWN_WINDOW,
    CatalogEntry,
    ContextWindow,
    EntryState,
    HostCatalog,
    LazyEntries,
    PromptSection,
)
from skillshelf.core.model import Exposure, SkillEntry, Source
from skillshelf.core.render import (
    Budgeted,
    Form,
    duplicate_names,
    escape_html,
    normalize_description,
    render_budgeted,
    truncate_description,
)
from skillshelf.core.tokens import TokenSpan

__all__ = [
    "INDEX_ID",
    "INDEX_SOURCE",
    "POLICY_ID",
    "POLICY_SOURCE",
    "SECTION_JOIN",
    "IndexSection",
    "budget_rule",
    "index_section",
    "selected_rule",
    "zuno_catalog",
]

POLICY_ID = "skills.policy"
POLICY_SOURCE = "zuno skill trigger policy"
INDEX_ID = "skills.index"
INDEX_SOURCE = "discovered skill index"
#: How Zuno's ``PromptAssembly`` joins sections.
SECTION_JOIN = "\n\n"


def budget_rule(*, max_context_tokens: int | None, window: ContextWindow) -> str:
    """Where the index budget comes from, in words (Zuno ``skill_metadata_budget``):
    ``anthropic/claude-sonnet-4 · 200,000 tokens from the model catalog (…) → index budget 2% =
    4,000 characters``."""
    budget = index_budget_chars(max_context_tokens=max_context_tokens, context_window=window.tokens)
    if max_context_tokens:
        return (f"maxContextTokens {max_context_tokens:,} × 4 characters per token (at most "
                f"{INDEX_MAX_CONTEXT_TOKENS:,} tokens) = {budget:,} characters")
    if window.known:
        return f"{window.describe()} → index budget 2% = {budget:,} characters"
    return f"{window.describe()} → the default index budget of {INDEX_DEFAULT_CHARS:,} characters"


def selected_rule(*, max_selected_context_tokens: int | None, window: ContextWindow) -> str:
    """Where the selected-body budget comes from, in words (Zuno ``selected_skill_prompt_budget``,
    conformance Z-U): tokens × 4 UTF-8 bytes, at most 128,000 bytes."""
    budget = selected_budget_bytes(context_window=window.tokens,
                                   max_selected_context_tokens=max_selected_context_tokens)
    cap = f", at most {SELECTED_MAX_BYTES:,}" if budget == SELECTED_MAX_BYTES else ""
    if max_selected_context_tokens:
        return (f"maxSelectedContextTokens {max_selected_context_tokens:,} × 4 bytes per token{cap} = "
                f"{budget:,} bytes of selected bodies")
    if window.known:
        return f"{window.describe()} → selected bodies 10% (at least 2,000 tokens) × 4{cap} = {budget:,} bytes"
    return f"{window.describe()} → the default 8,000 tokens × 4 = {budget:,} bytes of selected bodies"


@dataclass(frozen=True)
class IndexSection:
    """The ``skills.index`` section: ``text`` (render + coverage sentences), the budgeted
    ``render`` it starts from, and the counts the sentences use."""

    text: str
    render: Budgeted
    indexed: int
    searchable: int

    @property
    def search_only(self) -> int:
        """Searchable sources that are not indexed (exposure ``search``)."""
        return self.searchable - self.indexed

    @property
    def budgeted(self) -> int:
        """Characters of the section counted against the budget (the render, when one is sent)."""
        if self.indexed == 0 or self.render.rendered == 0:
            return 0
        return len(self.render.text)


def index_section(entries: Sequence[SkillEntry], budget: int) -> IndexSection:
    """Zuno's ``skills.index`` text for ``entries`` (the agent's enabled sources) within
    ``budget`` characters, with the coverage sentences exactly as Zuno words them."""
    # SkillEntry.indexed / .searchable, spelled out (no property calls) for 10,000-entry speed
    index, explicit = Exposure.INDEX, Exposure.EXPLICIT
    indexed = searchable = 0
    for e in entries:
        if e.short_description is not None or e.description is not None:
            if e.exposure is index:
                indexed += 1
                searchable += 1
            elif e.exposure is not explicit:
                searchable += 1
    search_only = searchable - indexed
    result = render_budgeted(entries, Form.INDEX, budget)
    if indexed == 0:
        text = (f'<skill_index listed="0" total="0" />\n{search_only} search-only Skill source(s) are available '
                "through action `search` or paged action `list`.")
    elif result.omitted == 0 and result.truncated == 0:
        text = result.text
    elif result.omitted == 0:
        text = (f"{result.text}\n{result.truncated} skill description(s) were shortened to fit the model-visible "
                "metadata budget; every source identity remains available.")
    elif result.rendered == 0:
        text = (f'<skill_index listed="0" total="{indexed}" />\nThe metadata budget omitted {result.omitted} '
                f"entries. Action `list` pages through all {searchable} model-discoverable skills, and action "
                "`search` queries the same set.")
    else:
        text = (f"{result.text}\nCatalog coverage: {result.rendered} of {indexed} indexed source identities; "
                f"{result.omitted} omitted entries remain available through action `list` or `search`. "
                f"{result.truncated} rendered description(s) were shortened first.")
    if indexed > 0 and search_only > 0:
        text += (f"\n{search_only} additional search-only Skill source(s) are omitted from the initial index and "
                 "remain available through action `search` or paged action `list`.")
    return IndexSection(text, result, indexed, searchable)


def _state(source: Source, result: Budgeted, omitted: set[str], cut: set[str], hidden: str | None) -> CatalogEntry:
    name, loc = source.name, source.location
    if hidden is not None:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note=hidden)
    if source.exposure is Exposure.EXPLICIT:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note="explicit-only: loadable by exact name, never listed")
    if not source.described:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note="no description: hidden from model-facing discovery")
    if source.exposure is Exposure.SEARCH:
        return CatalogEntry(loc, name, EntryState.HIDDEN, note="search-only: reachable through search and list")
    if loc in omitted:
        return CatalogEntry(loc, name, EntryState.OMITTED, note="left out of the index by the budget")
    if loc in cut:
        if result.cap == 0:
            return CatalogEntry(loc, name, EntryState.NAME_ONLY, note="description dropped by the budget")
        shown = truncate_description(normalize_description(source.catalog_description), result.cap or 0)
        return CatalogEntry(loc, name, EntryState.CUT, shown, note=f"description cut to {result.cap} characters")
    return CatalogEntry(loc, name, EntryState.LISTED, shown=source.catalog_description)


def zuno_catalog(sources: Sequence[Source], visible: Sequence[Source], budget: int, *, policy: str,
                 policy_stand_in: bool, include_instructions: bool, agent: str, rule: str = "",
                 window: ContextWindow | None = None, selected: str = "",
                 notes: Sequence[str] = (), policy_tokens: int | None = None) -> HostCatalog:
    """What agent ``agent`` is given for ``visible`` (its enabled sources, catalog order) within
    ``budget`` characters: the policy section (``policy``; ``policy_stand_in`` when it is a
    stand-in) and the index section, joined by :data:`SECTION_JOIN`. ``sources`` (every
    source of the generation) gives the entry states; those not visible to the agent are
    hidden. ``rule``, ``window`` and ``selected`` are the budget rules in words; ``notes`` are
    added after the prompt's own. ``policy_tokens``: the real policy's token count (with the
    blank line after it) when ``policy`` is a stand-in; with the built-ins' stored counts it
    gives the :attr:`HostCatalog.token_spans`."""
    entries = [s.entry for s in visible]
    section = index_section(entries, budget)
    said: list[str] = [f"the prompt of agent {agent}", *notes]
    if not include_instructions:
        said.append("skills.includeInstructions is false: neither section is sent (list and search still work)")
    elif section.searchable == 0:
        said.append("no searchable skill: neither section is sent")
    sent = include_instructions and section.searchable > 0
    result = section.render
    omitted = set(result.omitted_locations)
    cut = set(result.truncated_locations)
    # the index holds a stand-in only where a stand-in description is actually rendered
    stand_in_ix = any("description" in s.stand_ins and s.entry.indexed and s.location not in omitted
                      and not (s.location in cut and result.cap == 0) for s in visible)
    sections: tuple[PromptSection, ...] = ()
    if sent:
        sections = (PromptSection(POLICY_ID, POLICY_SOURCE, policy, 0, policy_stand_in),
                    PromptSection(INDEX_ID, INDEX_SOURCE, section.text, section.budgeted, stand_in_ix))
    text = SECTION_JOIN.join(s.text for s in sections)

    def states() -> list[CatalogEntry]:  # read by views and --json only
        seen = {s.location for s in visible}
        return [_state(s, result, omitted, cut, None if s.location in seen else f"not visible to agent {agent}")
                for s in sources if s.enabled]

    spans: list[TokenSpan] = []
    if sent:
        if policy_stand_in:
            spans.append(TokenSpan(0, len(policy) + len(SECTION_JOIN), policy_tokens))
        spans += _description_spans(text, len(policy) + len(SECTION_JOIN), visible, omitted, cut, result.cap)
    return HostCatalog(text=text, budget=budget, used=section.budgeted if sent else 0, entries=LazyEntries(states),
                       budget_rule=rule, notes=tuple(said), sections=sections, selected_rule=selected,
                       window=window if window is not None else UNKNOWN_WINDOW,
                       token_spans=tuple(sorted(spans, key=lambda x: x.start)))


_LINE_END = "</skill>\n"


def _description_spans(text: str, start: int, visible: Sequence[Source], omitted: set[str], cut: set[str],
                       cap: int | None) -> list[TokenSpan]:
    """The spans of rendered stand-in descriptions in ``text`` (the index from ``start``): from
    the description's first character through ``</skill>`` and its newline — where pre-tokens
    of the real text begin and end too — with the real count, or ``None`` when it was cut."""
    dup = duplicate_names([s.entry for s in visible])
    out: list[TokenSpan] = []
    for s in visible:
        if "description" not in s.stand_ins or not s.entry.indexed or s.location in omitted:
            continue
        if s.location in cut and cap == 0:
            continue  # name only: no description in the text
        head = f'  <skill name="{escape_html(s.name)}"'
        if s.name in dup:
            head += f' source="{escape_html(s.location)}"'
        at = text.find(head + ">", start)
        if at < 0:
            continue
        begin = at + len(head) + 1
        end = text.find(_LINE_END, begin)
        if end < 0:
            continue
        tokens = None if s.location in cut else s.real_tokens("description")
        out.append(TokenSpan(begin, end + len(_LINE_END), tokens))
    return out
