"""The catalog filter behind the TUI's ``/`` box: precise matches first, typo-tolerant ones after.

:func:`filter_sources` is pure: it takes the rows (:class:`~skillshelf.core.model.Source` and
:class:`~skillshelf.core.model.Rejected`; a source's description, short description and display
name and either's frontmatter keywords are searched besides the name) and a query, and returns
hits in display order. Matching is case-insensitive (``str.casefold``). A *word* of a name is a
run between ``-`` ``_`` ``.`` ``/`` ``:`` or spaces; a word of the other text is a run of letters
and digits (``\\w+``).

Tiers, best first; inside a tier the catalog order is kept (the fuzzy tiers sort by score
first). The ``score`` of a hit says which tier it came from:

====== ====================================================================================
score  rule
====== ====================================================================================
100    the name equals the query
99     the name starts with the query
98     a word of the name starts with the query (``pdf`` → ``make-pdf``, ``driven-dev`` →
       ``test-driven-development``)
97     the name contains the query
96     every whitespace-separated word of the query starts a word of the name (``dev test``)
95     every word of the query starts a word of the name, description, display name, short
       description or keywords (frontmatter ``keywords`` / ``tags``, top level or under
       ``metadata``, when they are lists of strings); a query word holding other characters
       than letters and digits (``next.js``) only has to occur in that text
90     (short queries, 3–4 characters) the whole name is within Damerau–Levenshtein
       distance 1 of the query (one insertion, deletion, substitution or transposition of
       adjacent characters: ``pfd`` → ``pdf``)
88     (short queries) a word of the name is within Damerau–Levenshtein distance 1
       (``pfd`` → ``pdf-tools``, ``make-pdf``)
< 90   (queries of 5+ characters) the query is a near miss of a part of the name that starts a
       word — at most one typo per five characters, each a letter left out or two adjacent
       letters swapped (:func:`near_miss`; ``test-drivn`` → ``test-driven`` of
       ``test-driven-development``): 90 × (1 − typos / query length)
< 80   every query word starts a word of the name or text, or (words of 5+ characters) is a
       near miss of one (``spredsheet`` → ``spreadsheets``), at least one only that way:
       80 × (1 − typos / length) of the worst word
====== ====================================================================================

Nothing else matches: a fuzzy hit must be that close (a query that merely shares a few letters
with a name or a description, ``codeql`` and ``code-tour``, is no hit).

``spans`` are half-open ``(start, end)`` character ranges *in the name* that matched (for
highlighting); empty when the match was outside the name or cannot be located.

:func:`body_line` finds the query in a skill's body for the optional body search.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein, Indel, Levenshtein

from skillshelf.core.model import Rejected, Source

__all__ = [
    "FUZZY_MIN",
    "SHORT_QUERY",
    "FilterHit",
    "FilterIndex",
    "body_line",
    "edits_allowed",
    "filter_sources",
    "keywords_of",
    "near_miss",
]

#: Shortest query (word) that gets fuzzy matching beyond transpositions.
FUZZY_MIN = 5
#: Query lengths (characters) that get transposition-tolerant matching on the name.
SHORT_QUERY = (3, 4)
#: Scores of a short-query Damerau–Levenshtein hit on the whole name / on one word of it.
TRANSPOSED_NAME_SCORE, TRANSPOSED_PART_SCORE = 90.0, 88.0
_NAME_WORD = re.compile(r"[^-_./: ]+")
#: Separates the word tails of a name in the index (``\w`` never matches it).
_SEP = "\0"
#: Queries whose rankings an index keeps.
_MEMO = 32
#: Names and queries are compared with their word separators as spaces (``test driven`` finds
#: ``test-driven-development``); one character for one, so positions (spans) stay the same.
_SPACED = str.maketrans("-_./:", "     ")
_TEXT_WORD = re.compile(r"\w+")


#: One ranked hit: row, score, and its spans when the ranking already knows them (fuzzy hits).
_Ranked = tuple[int, float, "tuple[tuple[int, int], ...] | None"]


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


def _span(name: str, name_cf: str, start: int, length: int) -> tuple[tuple[int, int], ...]:
    """``(start, start + length)`` when casefolding kept the name's length (else no span)."""
    if len(name_cf) != len(name) or start < 0:
        return ()
    return ((start, start + length),)


def _word_starts(name_cf: str) -> list[int]:
    """Where the words of a (casefolded) name start."""
    return [m.start() for m in _NAME_WORD.finditer(name_cf)]


def _at_word_start(name_cf: str, needle: str) -> int:
    """The first position where ``needle`` occurs at the start of a word of the name, or -1."""
    for start in _word_starts(name_cf):
        if name_cf.startswith(needle, start):
            return start
    return -1


class FilterIndex:
    """The rows of one generation, prepared once for many queries: casefolded names, the starts of
    their words, and the rows' words (name and text) and texts each joined into one string, so
    a keystroke runs a few ``str.find`` scans instead of a loop per row.

    ``FilterIndex(rows).search(query, limit)`` equals ``filter_sources(rows, query, limit)``;
    the TUI keeps one per generation so each keystroke only does the matching; :meth:`count` is
    the number of hits without a limit.
    """

    def __init__(self, sources: Sequence[Source | Rejected]) -> None:
        self.sources = sources
        self.names: list[str] = []
        self.names_cf: list[str] = []
        #: per row: where the words of the name start
        self.starts: list[tuple[int, ...]] = []
        #: per row: each word of the name to the end of the name, each after a ``\0`` (one ``in``
        #: test tells whether a word of the name starts with a query); kept only joined
        tails: list[str] = []
        texts: list[str] = []
        for item in sources:
            name = item.name
            name_cf = name.casefold().translate(_SPACED)
            starts = tuple(_word_starts(name_cf))
            self.names.append(name)
            self.names_cf.append(name_cf)
            self.starts.append(starts)
            tails.append("".join(_SEP + name_cf[s:] for s in starts))
            texts.append(_text_of(item))
        self._texts = _Joined(texts)
        del texts
        self._names = _Joined(self.names_cf)
        self._tails = _Joined(tails)
        self._vocabulary: frozenset[str] | None = None
        self._memo: dict[str, list[_Ranked]] = {}

    def __len__(self) -> int:
        return len(self.names)

    def vocabulary(self) -> frozenset[str]:
        """Every word (``\\w+``) of the rows' names and texts."""
        if self._vocabulary is None:
            words: set[str] = set()
            for joined in (self._texts, self._names):
                joined.add_words(words)
            self._vocabulary = frozenset(words)
        return self._vocabulary

    def rows_with_word_prefix(self, w: str) -> set[int]:
        """Rows where a word of the name or text starts with ``w``; for a ``w`` holding other
        characters than letters and digits, rows whose text holds it anywhere."""
        if not _TEXT_WORD.fullmatch(w):
            return self._texts.rows_holding(w)
        return self._texts.rows_holding(w, word_start=True) | self._names.rows_holding(w, word_start=True)

    def rows_with_word(self, word: str) -> set[int]:
        """Rows whose name or text holds the whole word ``word`` (letters and digits)."""
        return (self._texts.rows_holding(word, word_start=True, word_end=True)
                | self._names.rows_holding(word, word_start=True, word_end=True))

    def _name_word_start(self, i: int, needle: str) -> int:
        """Where a word of row ``i``'s name starts with ``needle`` (the first such), or -1."""
        if not self._tails.row_holds(i, _SEP + needle):
            return -1
        name_cf = self.names_cf[i]
        # a name may hold the separator itself (untrusted text): confirm at a real word start
        return next((s for s in self.starts[i] if name_cf.startswith(needle, s)), -1)

    def search(self, query: str, limit: int = 500) -> list[FilterHit]:
        """See :func:`filter_sources`."""
        q = _normal(query)
        if not q:
            return [FilterHit(i, 100.0, ()) for i in range(len(self.names))]
        if limit < 1:
            return []
        words = q.split()
        return [FilterHit(i, score, spans if spans is not None else self._spans(i, q, words))
                for i, score, spans in self._ranked(q)[:limit]]

    def count(self, query: str) -> int:
        """How many rows match ``query`` (every row for a blank query)."""
        q = _normal(query)
        return len(self.names) if not q else len(self._ranked(q))

    def _ranked(self, q: str) -> list[_Ranked]:
        """Every hit of the normalised query ``q``, best first; the last :data:`_MEMO` queries
        are kept (backspacing and retyping cost nothing)."""
        found = self._memo.get(q)
        if found is None:
            found = self._rank(q)
            if len(self._memo) >= _MEMO:
                self._memo.pop(next(iter(self._memo)))
            self._memo[q] = found
        return found

    def _rank(self, q: str) -> list[_Ranked]:
        """The tiers found with ``str.find`` over the joined names, word tails and texts (no
        Python loop over every row), then the fuzzy tiers over what is left."""
        names_cf = self.names_cf
        words = q.split()
        scored: dict[int, float] = {}
        for i in self._names.rows_holding(q):
            name_cf = names_cf[i]
            if name_cf == q:
                scored[i] = 100.0
            elif name_cf.startswith(q):
                scored[i] = 99.0
            elif self._name_word_start(i, q) >= 0:
                scored[i] = 98.0
            else:
                scored[i] = 97.0
        in_name = [self._tails.rows_holding(_SEP + w) for w in words]
        in_text = [self.rows_with_word_prefix(w) for w in words]
        if len(words) > 1:
            for i in set.intersection(*in_name) - scored.keys():
                scored[i] = 96.0
        anywhere = set.intersection(*(a | b for a, b in zip(in_name, in_text, strict=True)))
        for i in anywhere - scored.keys():
            scored[i] = 95.0
        hits: list[_Ranked] = [(i, score, None) for i, score in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))]
        if len(scored) < len(names_cf):
            rest = [i for i in range(len(names_cf)) if i not in scored] if scored else list(range(len(names_cf)))
            hits.extend((h.index, h.score, h.spans) for h in self._fuzzy(q, words, rest))
        return hits

    def _spans(self, i: int, q: str, words: list[str]) -> tuple[tuple[int, int], ...]:
        """Where the query sits in row ``i``'s name (a precise hit): the whole query where it
        occurs, else each word at the start of a word of the name."""
        name, name_cf = self.names[i], self.names_cf[i]
        if name_cf == q:
            return _span(name, name_cf, 0, len(q))
        if name_cf.startswith(q):
            return _span(name, name_cf, 0, len(q))
        at = self._name_word_start(i, q)
        if at < 0:
            at = name_cf.find(q)
        if at >= 0:
            return _span(name, name_cf, at, len(q))
        return _spans(name, name_cf, words, [self._name_word_start(i, w) for w in words])

    def _fuzzy(self, q: str, words: list[str], rest: list[int]) -> Iterable[FilterHit]:
        """The fuzzy tiers over the rows in ``rest`` (indices), best score first, then catalog order."""
        best: dict[int, tuple[float, tuple[tuple[int, int], ...]]] = {}

        def keep(i: int, score: float, spans: tuple[tuple[int, int], ...]) -> None:
            if score > best.get(i, (0.0, ()))[0]:
                best[i] = (score, spans)

        names, names_cf = self.names, self.names_cf
        if SHORT_QUERY[0] <= len(q) <= SHORT_QUERY[1]:
            # distances at C speed (rapidfuzz's loop over every row); only a name or word of
            # length len(q) ± 1 can be within distance 1, so only those are compared
            near = range(len(q) - 1, len(q) + 2)
            whole = {i for _n, _d, i in process.extract_iter(
                q, {i: names_cf[i] for i in rest if len(names_cf[i]) in near},
                scorer=DamerauLevenshtein.distance, score_cutoff=1)}
            parts: dict[tuple[int, int], str] = {}
            for i in rest:
                name_cf = names_cf[i]
                if i in whole:
                    keep(i, TRANSPOSED_NAME_SCORE, _span(names[i], name_cf, 0, len(name_cf)))
                    continue
                for m in _NAME_WORD.finditer(name_cf):
                    if m.end() - m.start() == len(name_cf):
                        break
                    if m.end() - m.start() in near:
                        parts[(i, m.start())] = m.group()
            first: dict[int, tuple[int, int]] = {}
            for part, _d, (i, start) in process.extract_iter(q, parts, scorer=DamerauLevenshtein.distance, score_cutoff=1):
                if i not in first or start < first[i][0]:
                    first[i] = (start, len(part))
            for i in sorted(first):  # the first word of the name within distance 1
                keep(i, TRANSPOSED_PART_SCORE, _span(names[i], names_cf[i], *first[i]))
        n = len(q)
        allowed = edits_allowed(n)
        if allowed:
            # candidates at C speed: from each word start the longest window a near miss can use
            # (n + allowed characters) is within Indel distance allowed + 2 of the query (2: one
            # swap); the exact rule then runs on the few candidates only
            windows = {(i, s): names_cf[i][s:s + n + allowed] for i in rest for s in self.starts[i]}
            for _w, _d, (i, s) in process.extract_iter(q, windows, scorer=Indel.distance, score_cutoff=allowed + 2):
                name_cf = names_cf[i]
                for length in range(n, min(n + allowed, len(name_cf) - s) + 1):
                    typos = near_miss(q, name_cf[s:s + length])
                    if typos is not None:
                        keep(i, 90.0 * (1 - typos / n), _span(names[i], name_cf, s, length))
                        break
        if any(len(w) >= FUZZY_MIN for w in words):
            for i, closeness in self._fuzzy_words(words, set(rest)).items():
                keep(i, 80.0 * closeness, ())
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return [FilterHit(i, round(score, 2), spans) for i, (score, spans) in ranked]

    def _fuzzy_words(self, words: list[str], rows: set[int]) -> dict[int, float]:
        """Rows of ``rows`` where every query word starts a word of the name or text or is a
        near miss of one (:func:`near_miss`), at least one only a near miss → the worst word's
        closeness (1 − typos / length)."""
        worst: dict[int, float] | None = None
        for w in words:
            closeness: dict[int, float] = dict.fromkeys(self.rows_with_word_prefix(w) & rows, 1.0)
            allowed = edits_allowed(len(w))
            if allowed:
                for word, _d, _k in process.extract_iter(w, self.vocabulary(), scorer=Indel.distance,
                                                         score_cutoff=allowed + 2):
                    typos = near_miss(w, word)
                    if typos is None:
                        continue
                    for i in self.rows_with_word(word) & rows:
                        closeness[i] = max(closeness.get(i, 0.0), 1 - typos / len(w))
            worst = closeness if worst is None else {i: min(worst[i], c) for i, c in closeness.items() if i in worst}
            if not worst:
                return {}
        return {i: c for i, c in (worst or {}).items() if c < 1.0}


class _Joined:
    """Per-row strings joined into one (rows separated by ``\\n``), searched at C speed."""

    #: Characters of the text scanned at once by :meth:`add_words` (a ``findall`` over all of it
    #: held a list of every word: ~70 MB at 10,000 skills).
    CHUNK = 1 << 18

    def __init__(self, parts: Sequence[str]) -> None:
        self.offsets: list[int] = []
        at = 0
        for part in parts:
            self.offsets.append(at)
            at += len(part) + 1
        self.text = "\n".join(parts)

    def row_holds(self, row: int, needle: str) -> bool:
        """Whether row ``row``'s string holds ``needle`` (searched in place, nothing copied)."""
        end = self.offsets[row + 1] - 1 if row + 1 < len(self.offsets) else len(self.text)
        return self.text.find(needle, self.offsets[row], end) >= 0

    def add_words(self, words: set[str]) -> None:
        """Add every word (``\\w+``) of the text to ``words``, a chunk (ending at a row's end)
        at a time."""
        text, size, at = self.text, len(self.text), 0
        while at < size:
            end = text.find("\n", min(at + self.CHUNK, size))
            end = size if end < 0 else end
            words.update(_TEXT_WORD.findall(text, at, end))
            at = end + 1

    def rows_holding(self, needle: str, *, word_start: bool = False, word_end: bool = False) -> set[int]:
        """Rows whose string holds ``needle`` (``word_start`` / ``word_end``: where no letter,
        digit or ``_`` touches it before / after). Each row is searched up to its first hit."""
        rows: set[int] = set()
        text, offsets = self.text, self.offsets
        size, count = len(text), len(offsets)
        if not needle:
            return rows
        pattern: re.Pattern[str] | None = None
        if len(needle) <= 2 and (word_start or word_end):
            # short needles occur inside many words: let the regex engine skip those. The needle comes
            # first and the word-start test after it (a lookbehind over the needle and the character
            # before it): a pattern opening with a literal is scanned for at C speed, one opening
            # with ``(?<!\w)`` is tried at every character (5–60× slower over 10,000 rows)
            escaped = re.escape(needle)
            pattern = re.compile(escaped + (rf"(?<!\w{escaped})" if word_start else "") + (r"(?!\w)" if word_end else ""))
        pos = 0
        while pos < size:
            if pattern is not None:
                m = pattern.search(text, pos)
                if m is None:
                    return rows
                at = m.start()
            else:
                at = text.find(needle, pos)
                if at < 0:
                    return rows
                end = at + len(needle)
                if (word_start and at > 0 and _is_word(text[at - 1])) or (word_end and end < size and _is_word(text[end])):
                    pos = at + 1
                    continue
            row = bisect_right(offsets, at) - 1
            rows.add(row)
            pos = offsets[row + 1] if row + 1 < count else size
        return rows


def _is_word(ch: str) -> bool:
    """Whether ``ch`` is a ``\\w`` character."""
    return ch.isalnum() or ch == "_"


def _spans(name: str, name_cf: str, words: list[str], starts: list[int]) -> tuple[tuple[int, int], ...]:
    """The spans of the query ``words`` found at ``starts`` in the name (-1: not in the name)."""
    return tuple(sorted(s for w, at in zip(words, starts, strict=False) if at >= 0
                        for s in _span(name, name_cf, at, len(w))))


def edits_allowed(length: int) -> int:
    """Typos tolerated in a query (word) of ``length`` characters: one per five characters
    (none under :data:`FUZZY_MIN`)."""
    return length // FUZZY_MIN


def near_miss(q: str, word: str) -> int | None:
    """How many typos make ``q`` out of ``word``, when at most :func:`edits_allowed`: letters left
    out of ``word`` (``q`` is a subsequence of it: ``drivn`` ← ``driven``), or one swap of two
    adjacent letters (``dirven``). ``None`` otherwise — a near miss is never a different word
    that merely shares letters (``codeq`` is not ``code``, ``revew`` not ``renew``)."""
    allowed = edits_allowed(len(q))
    extra = len(word) - len(q)
    if not allowed or extra < 0 or extra > allowed:
        return None
    if extra and Indel.distance(q, word) == extra:
        return extra
    if not extra and DamerauLevenshtein.distance(q, word, score_cutoff=1) == 1 and Levenshtein.distance(q, word) == 2:
        return 1
    return None


def _name_window(q: str, name_cf: str) -> tuple[int, int, int] | None:
    """The fewest typos (:func:`near_miss`) between ``q`` and a part of the name that starts a
    word: ``(typos, start, length)``, or ``None`` when there is no near miss."""
    best: tuple[int, int, int] | None = None
    n = len(q)
    for start in _word_starts(name_cf):
        for length in range(n, n + edits_allowed(n) + 1):
            if start + length > len(name_cf):
                break
            d = near_miss(q, name_cf[start:start + length])
            if d is not None and (best is None or d < best[0]):
                best = (d, start, length)
    return best


def _normal(query: str) -> str:
    """The query as the index compares it: casefolded, word separators as spaces, one space
    between words."""
    return " ".join(query.translate(_SPACED).split()).casefold()


def filter_sources(sources: Sequence[Source | Rejected], query: str, limit: int = 500) -> list[FilterHit]:
    """Rank ``sources`` against ``query``; return at most ``limit`` hits, best first.

    An empty or blank query returns every row in catalog order (score 100, no spans) and
    ignores ``limit``. Otherwise tiers are as in the module doc. ``limit`` < 1 returns ``[]``
    for a non-empty query.
    """
    return FilterIndex(sources).search(query, limit)


def body_line(body: str, query: str, first_line: int = 1, *, folded: str | None = None) -> tuple[int, str] | None:
    """The first line of ``body`` holding ``query`` (case-insensitive, runs of whitespace in the
    query matching any whitespace), or else holding every whitespace-separated word of it:
    ``(line number, the line without its line break)``, numbering from ``first_line`` (the
    file's line number of the body's first line). ``None`` when no line matches or the query
    is blank. ``folded``: ``body.casefold()`` when the caller keeps it (casefolding never adds or
    removes a line break, so line numbers carry over)."""
    words = query.casefold().split()
    if not words:
        return None
    text = body.casefold() if folded is None else folded
    whole = re.compile(r"[^\S\n]+".join(re.escape(w) for w in words))
    m = whole.search(text)
    if m is not None:
        n = text.count("\n", 0, m.start())
        return first_line + n, body.split("\n")[n].rstrip("\r")
    if len(words) > 1 and all(w in text for w in words):
        for n, line in enumerate(text.split("\n")):
            if all(w in line for w in words):
                return first_line + n, body.split("\n")[n].rstrip("\r")
    return None
