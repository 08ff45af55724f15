"""The catalog filter behind the TUI's ``/`` box: substring first, then typo-tolerant fuzzy.

:func:`filter_sources` is pure: it takes the rows (:class:`~skillshelf.core.model.Source` and
:class:`~skillshelf.core.model.Rejected`; a source's description, short description and display
name and either's frontmatter keywords are searched besides the name) and a query, and returns
hits in display order. Matching is case-insensitive (``str.casefold``).

Tiers, best first; inside a tier the catalog order is kept (the fuzzy tier sorts by score
first). The ``score`` of a hit says which tier it came from:

====== ====================================================================================
score  rule
====== ====================================================================================
100    the name equals the query
99     the name starts with the query
98     the name contains the query
97     every whitespace-separated word of the query occurs in the name, description, display
       name, short description or keywords (frontmatter ``keywords`` / ``tags``, top level or
       under ``metadata``, when they are lists of strings)
≤ 96   fuzzy (rapidfuzz): ``fuzz.WRatio`` against a name at least as long as the query
       (``fuzz.ratio`` against a shorter one), or ``0.9 × fuzz.partial_ratio``
       against the description text for queries of 4+ characters; kept when ≥ 70
90     (short queries, 3–4 characters) the whole name is within Damerau–Levenshtein
       distance 1 of the query (one insertion, deletion, substitution or transposition of
       adjacent characters: ``pfd`` → ``pdf``), which ``WRatio`` misses on so few characters
88     (short queries) a ``-`` / ``_`` / ``.`` / space separated part of the name is within
       Damerau–Levenshtein distance 1 (``pfd`` → ``pdf-tools``, ``make-pdf``)
====== ====================================================================================

A fuzzy-tier row keeps the best of its scores.

``spans`` are half-open ``(start, end)`` character ranges *in the name* that matched (for
highlighting); empty when the match was outside the name or cannot be located.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from rapidfuzz import fuzz, process, utils
from rapidfuzz.distance import DamerauLevenshtein

from skillshelf.core.model import Rejected, Source

__all__ = ["FUZZY_CUTOFF", "FilterHit", "FilterIndex", "filter_sources", "keywords_of"]

#: Minimum fuzzy score (0–100) for a fuzzy-only hit.
FUZZY_CUTOFF = 70.0
_DESCRIPTION_FUZZY_MIN_QUERY = 4
#: Query lengths (characters) that also get transposition-tolerant matching on the name.
SHORT_QUERY = (3, 4)
#: Scores of a short-query Damerau–Levenshtein hit on the whole name / on one part of it.
TRANSPOSED_NAME_SCORE, TRANSPOSED_PART_SCORE = 90.0, 88.0
_PART = re.compile(r"[^-_. ]+")


class FilterHit(NamedTuple):
    """One match: ``index`` into the input sequence, ``score`` (0–100, see module doc) and
    ``spans`` (half-open character ranges in the name)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: callers read hit.index
    score: float
    spans: tuple[tuple[int, int], ...]


def keywords_of(frontmatter: Any) -> tuple[str, ...]:
    """The string items of ``keywords`` and ``tags`` lists in a frontmatter mapping (top level,
    then under ``metadata``). Anything that is not a list of strings is ignored (never raises)."""
    out: list[str] = []
    if not isinstance(frontmatter, dict):
        try:
            frontmatter = dict(frontmatter or {})
        except (TypeError, ValueError):
            return ()
    scopes = [frontmatter]
    meta = frontmatter.get("metadata")
    if isinstance(meta, dict):
        scopes.append(meta)
    for scope in scopes:
        for key in ("keywords", "tags"):
            value = scope.get(key)
            if isinstance(value, (list, tuple)):
                out.extend(v for v in value if isinstance(v, str))
    return tuple(out)


def _text_of(item: Source | Rejected) -> str:
    """Everything but the name that a query may match, casefolded, newline-joined."""
    parts: list[str] = []
    if isinstance(item, Source):
        parts.extend(v for v in (item.description, item.short_description, item.display_name) if v)
    parts.extend(keywords_of(item.frontmatter))
    return "\n".join(parts).casefold()


def _span(name: str, name_cf: str, needle: str) -> tuple[tuple[int, int], ...]:
    """Where ``needle`` (casefolded) sits in ``name``; () when casefolding changed the length."""
    if len(name_cf) != len(name):
        return ()
    at = name_cf.find(needle)
    if at < 0:
        return ()
    return ((at, at + len(needle)),)


class FilterIndex:
    """The rows of one generation, prepared once (casefolded names and texts) for many queries.

    ``FilterIndex(rows).search(query, limit)`` equals ``filter_sources(rows, query, limit)``;
    the TUI keeps one per generation so each keystroke only does the matching.
    """

    def __init__(self, sources: Sequence[Source | Rejected]) -> None:
        self.sources = sources
        self.names: list[str] = []
        self.names_cf: list[str] = []
        self.texts: list[str] = []
        for item in sources:
            name = item.name
            self.names.append(name)
            self.names_cf.append(name.casefold())
            self.texts.append(_text_of(item))

    def __len__(self) -> int:
        return len(self.names)

    def search(self, query: str, limit: int = 500) -> list[FilterHit]:
        """See :func:`filter_sources`."""
        q = query.strip().casefold()
        if not q:
            return [FilterHit(i, 100.0, ()) for i in range(len(self.names))]
        if limit < 1:
            return []
        words = q.split()
        exact: list[FilterHit] = []
        prefix: list[FilterHit] = []
        inner: list[FilterHit] = []
        wordy: list[FilterHit] = []
        rest: list[int] = []
        texts = self.texts
        for i, (name, name_cf) in enumerate(zip(self.names, self.names_cf, strict=True)):
            if name_cf == q:
                exact.append(FilterHit(i, 100.0, ((0, len(name)),) if len(name_cf) == len(name) else ()))
            elif name_cf.startswith(q):
                prefix.append(FilterHit(i, 99.0, _span(name, name_cf, q)))
            elif q in name_cf:
                inner.append(FilterHit(i, 98.0, _span(name, name_cf, q)))
            elif all(w in name_cf or w in texts[i] for w in words):
                spans = tuple(s for w in words for s in _span(name, name_cf, w))
                wordy.append(FilterHit(i, 97.0, tuple(sorted(spans))))
            else:
                rest.append(i)
        hits = exact + prefix + inner + wordy
        if len(hits) >= limit or not rest:
            return hits[:limit]
        hits.extend(_fuzzy(q, rest, self.names, self.names_cf, texts))
        return hits[:limit]


def filter_sources(sources: Sequence[Source | Rejected], query: str, limit: int = 500) -> list[FilterHit]:
    """Rank ``sources`` against ``query``; return at most ``limit`` hits, best first.

    An empty or blank query returns every row in catalog order (score 100, no spans) and
    ignores ``limit``. Otherwise tiers are as in the module doc. ``limit`` < 1 returns ``[]``
    for a non-empty query.
    """
    return FilterIndex(sources).search(query, limit)


def _fuzzy(q: str, rest: list[int], names: list[str], names_cf: list[str], texts: list[str]) -> Iterable[FilterHit]:
    """The fuzzy tier over the rows in ``rest`` (indices), best score first, then catalog order."""
    best: dict[int, float] = {}
    # A name shorter than the query is compared whole (fuzz.ratio): "pdf merge" must not match
    # "pdf" just because the name sits inside the query.
    longer = {i: names_cf[i] for i in rest if len(names_cf[i]) >= len(q)}
    shorter = {i: names_cf[i] for i in rest if len(names_cf[i]) < len(q)}
    for choices, scorer in ((longer, fuzz.WRatio), (shorter, fuzz.ratio)):
        for _choice, score, i in process.extract_iter(
            q, choices, scorer=scorer, processor=utils.default_process, score_cutoff=FUZZY_CUTOFF
        ):
            best[i] = float(score)
    if len(q) >= _DESCRIPTION_FUZZY_MIN_QUERY:
        text_choices = {i: texts[i] for i in rest if texts[i]}
        cutoff = FUZZY_CUTOFF / 0.9
        for _choice, score, i in process.extract_iter(
            q, text_choices, scorer=fuzz.partial_ratio, processor=utils.default_process, score_cutoff=cutoff
        ):
            scaled = float(score) * 0.9
            if scaled > best.get(i, 0.0):
                best[i] = scaled
    part_spans: dict[int, tuple[int, int]] = {}
    if SHORT_QUERY[0] <= len(q) <= SHORT_QUERY[1]:
        for i in rest:
            name = names_cf[i]
            if not name:
                continue
            if DamerauLevenshtein.distance(q, name, score_cutoff=1) <= 1:
                if best.get(i, 0.0) < TRANSPOSED_NAME_SCORE:
                    best[i] = TRANSPOSED_NAME_SCORE
                    part_spans[i] = (0, len(name))
                continue
            for m in _PART.finditer(name):
                if m.end() - m.start() == len(name):
                    break
                if DamerauLevenshtein.distance(q, m.group(), score_cutoff=1) <= 1:
                    if best.get(i, 0.0) < TRANSPOSED_PART_SCORE:
                        best[i] = TRANSPOSED_PART_SCORE
                        part_spans[i] = (m.start(), m.end())
                    break
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[FilterHit] = []
    for i, score in ranked:
        spans: tuple[tuple[int, int], ...] = ()
        if i in part_spans and len(names[i]) == len(names_cf[i]):
            spans = (part_spans[i],)
        elif names[i] and len(names[i]) == len(names_cf[i]):
            al = fuzz.partial_ratio_alignment(q, names_cf[i])
            if al is not None and al.score >= FUZZY_CUTOFF and al.dest_end > al.dest_start:
                spans = ((al.dest_start, al.dest_end),)
        out.append(FilterHit(i, round(min(score, 96.0), 2), spans))
    return out
