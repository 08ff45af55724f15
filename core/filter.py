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
from bisect import bisect_right
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


#: Joins the casefolded names (and texts) of an index into one string searched in C.
_SEP = "\x00"
#: Queries whose rankings an index keeps (backspacing and retyping cost nothing).
_MEMO = 32


class _Ranked(NamedTuple):
    """One query's full ranking: ``(index, score, tier)`` best first (tier 0–3 the substring
    tiers, 4 fuzzy) and the fuzzy tier's part spans (short queries)."""

    hits: list[tuple[int, float, int]]
    part_spans: dict[int, tuple[int, int]]


class FilterIndex:
    """The rows of one generation, prepared once (casefolded names and texts, joined for C-speed
    substring search, pre-processed for the fuzzy scorers) for many queries.

    ``FilterIndex(rows).search(query, limit)`` equals ``filter_sources(rows, query, limit)``;
    the TUI keeps one per generation so each keystroke only does the matching. A query's
    ranking is kept (the last few queries); spans are worked out only for the hits returned.
    :meth:`count` is the number of hits without a limit.
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
        self._memo: dict[str, _Ranked] = {}
        self._prepared: tuple[list[str], list[str]] | None = None
        self._parts: tuple[list[str], list[tuple[int, int, int]]] | None = None
        # one string per field, rows separated by _SEP, with each row's start offset
        self._blobs: tuple[str, list[int], str, list[int]] | None = None
        if not any(_SEP in n for n in self.names_cf) and not any(_SEP in t for t in self.texts):
            self._blobs = (*_joined(self.names_cf), *_joined(self.texts))

    def __len__(self) -> int:
        return len(self.names)

    def search(self, query: str, limit: int = 500) -> list[FilterHit]:
        """See :func:`filter_sources`."""
        q = query.strip().casefold()
        if not q:
            return [FilterHit(i, 100.0, ()) for i in range(len(self.names))]
        if limit < 1:
            return []
        ranked = self._ranked(q)
        names, names_cf = self.names, self.names_cf
        words = q.split()
        out: list[FilterHit] = []
        for i, score, tier in ranked.hits[:limit]:
            name, name_cf = names[i], names_cf[i]
            spans: tuple[tuple[int, int], ...]
            if tier == 0:
                spans = ((0, len(name)),) if len(name_cf) == len(name) else ()
            elif tier < 3:
                spans = _span(name, name_cf, q)
            elif tier == 3:
                spans = tuple(sorted(s for w in words for s in _span(name, name_cf, w)))
            else:
                spans = _fuzzy_spans(q, i, names, names_cf, ranked.part_spans)
            out.append(FilterHit(i, score, spans))
        return out

    def count(self, query: str) -> int:
        """How many rows match ``query`` (every row for a blank query)."""
        q = query.strip().casefold()
        return len(self.names) if not q else len(self._ranked(q).hits)

    # ---- ranking
    def _ranked(self, q: str) -> _Ranked:
        found = self._memo.get(q)
        if found is None:
            found = self._rank(q)
            if len(self._memo) >= _MEMO:
                self._memo.pop(next(iter(self._memo)))
            self._memo[q] = found
        return found

    def _rank(self, q: str) -> _Ranked:
        n = len(self.names)
        words = q.split()
        tier_of = self._tiers(q, words)
        hits: list[tuple[int, float, int]] = []
        for tier, score in ((0, 100.0), (1, 99.0), (2, 98.0), (3, 97.0)):
            hits.extend((i, score, tier) for i in sorted(i for i, t in tier_of.items() if t == tier))
        if len(tier_of) == n:
            return _Ranked(hits, {})
        rest = [i for i in range(n) if i not in tier_of] if tier_of else list(range(n))
        fuzzy, part_spans = self._fuzzy(q, rest)
        hits.extend((i, round(min(score, 96.0), 2), 4) for i, score in fuzzy)
        return _Ranked(hits, part_spans)

    def _tiers(self, q: str, words: list[str]) -> dict[int, int]:
        """Row → tier (0 exact, 1 prefix, 2 inside the name, 3 every word somewhere) for the
        rows in a substring tier."""
        names_cf, texts = self.names_cf, self.texts
        tier_of: dict[int, int] = {}
        blobs = self._blobs
        if blobs is None or _SEP in q:
            for i, name_cf in enumerate(names_cf):
                if name_cf == q:
                    tier_of[i] = 0
                elif name_cf.startswith(q):
                    tier_of[i] = 1
                elif q in name_cf:
                    tier_of[i] = 2
                elif all(w in name_cf or w in texts[i] for w in words):
                    tier_of[i] = 3
            return tier_of
        name_blob, name_starts, text_blob, text_starts = blobs
        for i in _rows_containing(name_blob, name_starts, q):
            name_cf = names_cf[i]
            tier_of[i] = 0 if name_cf == q else 1 if name_cf.startswith(q) else 2
        candidates: set[int] | None = None
        for w in words:
            having = set(_rows_containing(name_blob, name_starts, w))
            having.update(_rows_containing(text_blob, text_starts, w))
            candidates = having if candidates is None else candidates & having
            if not candidates:
                break
        for i in candidates or ():
            tier_of.setdefault(i, 3)
        return tier_of

    def _prepare(self) -> tuple[list[str], list[str]]:
        """Names and texts as the fuzzy scorers' processor turns them (done once)."""
        if self._prepared is None:
            self._prepared = ([utils.default_process(n) for n in self.names_cf],
                              [utils.default_process(t) if t else "" for t in self.texts])
        return self._prepared

    def _name_parts(self) -> tuple[list[str], list[tuple[int, int, int]]]:
        """Every ``-`` / ``_`` / ``.`` / space separated part of the names that have two or
        more, with (row, start, end), in row then name order."""
        if self._parts is None:
            texts: list[str] = []
            where: list[tuple[int, int, int]] = []
            for i, name in enumerate(self.names_cf):
                found = [(m.start(), m.end(), m.group()) for m in _PART.finditer(name)]
                if not found or found[0][1] - found[0][0] == len(name):
                    continue  # one part: the whole name, already compared
                for a, b, part in found:
                    texts.append(part)
                    where.append((i, a, b))
            self._parts = (texts, where)
        return self._parts

    def _fuzzy(self, q: str, rest: list[int]) -> tuple[list[tuple[int, float]], dict[int, tuple[int, int]]]:
        """The fuzzy tier over the rows in ``rest`` (see :func:`_fuzzy`): ``(row, score)`` best
        score first, then catalog order, and the short-query part spans."""
        names_p, texts_p = self._prepare()
        names_cf = self.names_cf
        qp = utils.default_process(q)
        best: dict[int, float] = {}
        # A name shorter than the query is compared whole (fuzz.ratio): "pdf merge" must not match
        # "pdf" just because the name sits inside the query.
        longer = {i: names_p[i] for i in rest if len(names_cf[i]) >= len(q)}
        shorter = {i: names_p[i] for i in rest if len(names_cf[i]) < len(q)}
        for choices, scorer in ((longer, fuzz.WRatio), (shorter, fuzz.ratio)):
            if choices:
                for _choice, score, i in process.extract(qp, choices, scorer=scorer, processor=None,
                                                         score_cutoff=FUZZY_CUTOFF, limit=None):
                    best[i] = float(score)
        if len(q) >= _DESCRIPTION_FUZZY_MIN_QUERY:
            text_choices = {i: texts_p[i] for i in rest if self.texts[i]}
            if text_choices:
                for _choice, score, i in process.extract(qp, text_choices, scorer=fuzz.partial_ratio, processor=None,
                                                         score_cutoff=FUZZY_CUTOFF / 0.9, limit=None):
                    scaled = float(score) * 0.9
                    if scaled > best.get(i, 0.0):
                        best[i] = scaled
        part_spans: dict[int, tuple[int, int]] = {}
        if SHORT_QUERY[0] <= len(q) <= SHORT_QUERY[1]:
            whole = {i: names_cf[i] for i in rest if names_cf[i]}
            close = {i for _c, _d, i in process.extract(q, whole, scorer=DamerauLevenshtein.distance,
                                                         score_cutoff=1, limit=None)}
            for i in close:
                if best.get(i, 0.0) < TRANSPOSED_NAME_SCORE:
                    best[i] = TRANSPOSED_NAME_SCORE
                    part_spans[i] = (0, len(names_cf[i]))
            part_texts, where = self._name_parts()
            if part_texts:
                rest_set = set(rest)
                first_part: dict[int, tuple[int, int]] = {}
                near = process.extract(q, part_texts, scorer=DamerauLevenshtein.distance, score_cutoff=1, limit=None)
                for k in sorted(k for _c, _d, k in near):
                    i, a, b = where[k]
                    if i in rest_set and i not in close and i not in first_part:
                        first_part[i] = (a, b)
                for i, span in first_part.items():
                    if best.get(i, 0.0) < TRANSPOSED_PART_SCORE:
                        best[i] = TRANSPOSED_PART_SCORE
                        part_spans[i] = span
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked, part_spans


def _joined(values: list[str]) -> tuple[str, list[int]]:
    """``values`` joined by :data:`_SEP` and the offset where each one starts."""
    starts: list[int] = []
    at = 0
    for v in values:
        starts.append(at)
        at += len(v) + 1
    return _SEP.join(values), starts


def _rows_containing(blob: str, starts: list[int], needle: str) -> Iterable[int]:
    """The rows (in order) whose text in ``blob`` contains ``needle`` (which holds no separator)."""
    find = blob.find
    pos = find(needle)
    n = len(starts)
    while pos >= 0:
        row = bisect_right(starts, pos) - 1
        yield row
        if row + 1 >= n:
            return
        pos = find(needle, starts[row + 1])


def _fuzzy_spans(q: str, i: int, names: list[str], names_cf: list[str],
                 part_spans: dict[int, tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Where a fuzzy hit sits in its name: its short-query part, else the best partial
    alignment (kept when it scores at least the cutoff)."""
    if i in part_spans and len(names[i]) == len(names_cf[i]):
        return (part_spans[i],)
    if names[i] and len(names[i]) == len(names_cf[i]):
        al = fuzz.partial_ratio_alignment(q, names_cf[i])
        if al is not None and al.score >= FUZZY_CUTOFF and al.dest_end > al.dest_start:
            return ((al.dest_start, al.dest_end),)
    return ()


def filter_sources(sources: Sequence[Source | Rejected], query: str, limit: int = 500) -> list[FilterHit]:
    """Rank ``sources`` against ``query``; return at most ``limit`` hits, best first.

    An empty or blank query returns every row in catalog order (score 100, no spans) and
    ignores ``limit``. Otherwise tiers are as in the module doc. ``limit`` < 1 returns ``[]``
    for a non-empty query.
    """
    return FilterIndex(sources).search(query, limit)
