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
import threading
from array import array
from collections.abc import Callable, Sequence
from itertools import compress, count, repeat
from operator import contains
from typing import Any, NamedTuple, TypeVar

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

T = TypeVar("T")

#: Shortest query (word) that gets fuzzy matching beyond transpositions.
FUZZY_MIN = 5
#: Query lengths (characters) that get transposition-tolerant matching on the name.
SHORT_QUERY = (3, 4)
#: Scores of a short-query Damerau–Levenshtein hit on the whole name / on one word of it.
TRANSPOSED_NAME_SCORE, TRANSPOSED_PART_SCORE = 90.0, 88.0
_NAME_WORD = re.compile(r"[^-_./: ]+")
#: Marks each word start of a name in the index (``\w`` never matches it; :func:`_marked`).
_SEP = "\0"
#: Queries whose rankings an index keeps.
_MEMO = 32
#: Names and queries are compared with their word separators as spaces (``test driven`` finds
#: ``test-driven-development``); one character for one, so positions (spans) stay the same.
_SPACED = str.maketrans("-_./:", "     ")
_TEXT_WORD = re.compile(r"\w+")
#: Letters after each word start of a name indexed for the near-miss candidates (queries allowing
#: fewer typos than this use the index).
_OFFSETS = 3


class FilterHit(NamedTuple):
    """One match: ``index`` into the input sequence, ``score`` (0–100, see module doc) and
    ``spans`` (half-open character ranges in the name)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: callers read hit.index
    score: float
    spans: tuple[tuple[int, int], ...]


def keywords_of(frontmatter: Any) -> tuple[str, ...]:
    """The string items of ``keywords`` and ``tags`` lists in a frontmatter mapping (top level,
    then under ``metadata``). Anything that is not a list of strings is ignored (never raises)."""
    if isinstance(frontmatter, dict) and not ("keywords" in frontmatter or "tags" in frontmatter
                                              or "metadata" in frontmatter):
        return ()
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
    keywords = keywords_of(item.frontmatter)
    if isinstance(item, Source):
        parts = [v for v in (item.description, item.short_description, item.display_name) if v]
        if keywords:
            parts.extend(keywords)
        return "\n".join(parts).casefold() if len(parts) != 1 else parts[0].casefold()
    return "\n".join(keywords).casefold()


def _span(name: str, name_cf: str, start: int, length: int) -> tuple[tuple[int, int], ...]:
    """``(start, start + length)`` when casefolding kept the name's length (else no span)."""
    if len(name_cf) != len(name) or start < 0:
        return ()
    return ((start, start + length),)


def _spaced(text: str) -> str:
    """``text`` with the word separators of names as spaces (``str.translate`` with
    :data:`_SPACED`, several times faster)."""
    for ch in "-_./:":
        if ch in text:
            text = text.replace(ch, " ")
    return text


def _all_casefolded(names: Sequence[str]) -> list[str]:
    """``_spaced(name.casefold())`` of each of ``names``, all at once when no name holds the
    ``\\x01`` they are joined by (casefolding and the separators work character by character)."""
    joined = "\x01".join(names)
    if joined.count("\x01") != max(len(names) - 1, 0):
        return [_spaced(n.casefold()) for n in names]
    return joined.casefold().translate(_SPACED).split("\x01") if names else []


def _merged(theirs: Sequence[T], fresh: Sequence[T], taking: Sequence[int]) -> list[T]:
    """Per row, ``theirs[k]`` for a row taken from basis row ``k``, else the next of ``fresh``
    (made for the rows not taken, in row order)."""
    made = iter(fresh)
    return [theirs[k] if k >= 0 else next(made) for k in taking]


def _word_starts(name_cf: str) -> tuple[int, ...]:
    """Where the words (runs between spaces) of a casefolded, spaced name start."""
    if " " not in name_cf:
        return (0,) if name_cf else ()
    at: list[int] = []
    pos = 0
    for word in name_cf.split(" "):
        if word:
            at.append(pos)
        pos += len(word) + 1
    return tuple(at)


def _marked(name_cf: str) -> str:
    """``name_cf`` with :data:`_SEP` before its first character and after each space: every
    word start, as a word starts at the beginning or after a space (``""`` for no name). A
    normalised query (no leading, trailing or double space) starts at a word start of the name
    exactly where :func:`_marked_query` of it occurs (a name holding :data:`_SEP` itself can
    give a false hit, never a missed one: such rows are confirmed)."""
    return _SEP + name_cf.replace(" ", " " + _SEP) if name_cf else ""


def _all_marked(names_cf: Sequence[str]) -> list[str]:
    """:func:`_marked` of each of ``names_cf``, all at once when none holds ``\\x01``."""
    joined = "\x01".join(names_cf)
    if not names_cf or joined.count("\x01") != len(names_cf) - 1:
        return list(map(_marked, names_cf))
    marked = (_SEP + joined.replace("\x01", "\x01" + _SEP)).replace(" ", " " + _SEP).split("\x01")
    return [m if len(m) > 1 else "" for m in marked]


def _marked_query(q: str) -> str:
    """A normalised query as :func:`_marked` marks a name."""
    return _SEP + q.replace(" ", " " + _SEP)


class FilterIndex:
    """The rows of one generation, prepared once for many queries: casefolded names, the starts of
    their words, each name marked at its word starts and each row's other text, so a keystroke runs a few
    C-speed passes (``in`` and compiled patterns mapped over the rows) instead of Python work per
    row.

    ``FilterIndex(rows).search(query, limit)`` equals ``filter_sources(rows, query, limit)``;
    the TUI keeps one per generation so each keystroke only does the matching; :meth:`count` is
    the number of hits without a limit. :meth:`prepare` builds what only fuzzy queries use (the
    vocabulary, the short name words by length) ahead of time, e.g. in a background thread;
    otherwise the first query needing it builds it.

    ``basis``: an index of rows that are mostly the same objects (the provisional rows of the
    same build, say): what it made of a row is taken over for the same object, and when it
    was prepared its prepared parts are carried over (:meth:`prepare` then costs a pass over the
    rows it did not have). Results are the same as without it.
    """

    def __init__(self, sources: Sequence[Source | Rejected], *, basis: FilterIndex | None = None) -> None:
        self.sources = sources
        self.names: list[str] = []
        self.names_cf: list[str] = []
        #: per row: where the words of the name start
        self.starts: list[tuple[int, ...]] = []
        #: per row: the name with a ``\0`` before each of its words (:func:`_marked`): a word of
        #: the name starts with a query where the query, marked alike, occurs (one ``in`` test)
        self._marks: list[str] = []
        #: per row: everything but the name a query may match (:func:`_text_of`)
        self._texts: list[str] = []
        #: ``basis``, and per row the basis row it was taken from (-1: made here)
        self._basis: FilterIndex | None = None
        self._from_basis: list[int] = []
        if basis is not None:
            self._basis = basis
            known = {id(item): k for k, item in enumerate(basis.sources)}
            taken = basis.sources
            # (each basis row is taken once; an ``is`` check, as ids are only unique among live objects)
            self._from_basis = [k if k >= 0 and taken[k] is item else -1
                                for item, k in zip(sources, map(known.pop, map(id, sources), repeat(-1)), strict=True)]
            made = [item for item, k in zip(sources, self._from_basis, strict=True) if k < 0]
        else:
            made = list(sources)
        names = [item.name for item in made]
        names_cf = _all_casefolded(names)
        starts = list(map(_word_starts, names_cf))
        marks = _all_marked(names_cf)
        texts = list(map(_text_of, made))
        if basis is None:
            self.names, self.names_cf, self.starts, self._marks, self._texts = names, names_cf, starts, marks, texts
        else:
            taking = self._from_basis
            self.names = _merged(basis.names, names, taking)
            self.names_cf = _merged(basis.names_cf, names_cf, taking)
            self.starts = _merged(basis.starts, starts, taking)
            self._marks = _merged(basis._marks, marks, taking)
            self._texts = _merged(basis._texts, texts, taking)
        #: rows whose name holds the separator itself (untrusted text): their marks are confirmed
        self._odd = frozenset(i for i, n in enumerate(self.names_cf) if _SEP in n)
        self._vocabulary: frozenset[str] | None = None
        self._vocabulary_by_length: dict[int, list[str]] | None = None
        self._parts: _NameParts | None = None
        self._words: tuple[list[str], list[str]] | None = None
        self._memo: dict[str, _Ranking] = {}
        #: held while the part :meth:`prepare` builds is built (a query in another thread that
        #: needs that part waits for it instead of building it again; one lock per part, so a
        #: query never waits for a part it does not use)
        self._building_parts = threading.Lock()
        self._building_vocabulary = threading.RLock()
        self._building_words = threading.Lock()

    def __len__(self) -> int:
        return len(self.names)

    def prepare(self, pause: Callable[[], bool] | None = None) -> None:
        """Build now what makes queries faster (the words of each row between spaces) and what
        the fuzzy tiers use (the vocabulary, the names and name words of the lengths short
        queries compare), instead of at the first query needing it. ``pause`` is called before
        each part (never while a part's lock is held: :class:`~skillshelf.core.foreground.Foreground`);
        it returning False stops the preparation (the first query needing a part builds it)."""
        # the word texts first (every query is faster with them, and the vocabulary is made of
        # them), then in the order queries of growing length need them
        for part in (self._word_texts, self._name_parts, self._vocab_by_length):
            if pause is not None and not pause():
                return
            part()

    def vocabulary(self) -> frozenset[str]:
        """Every word (``\\w+``) of the rows' names and texts (of an index made with a
        ``basis``: also the words of the basis's rows)."""
        vocabulary = self._vocabulary
        if vocabulary is None:
            with self._building_vocabulary:
                vocabulary = self._vocabulary
                if vocabulary is None:
                    basis = self._prepared_basis()
                    texts, names = self._word_texts()
                    if basis is not None and basis._vocabulary is not None:
                        # the basis's words and those of the rows it did not have: words of rows
                        # it had that are gone stay (a near-miss candidate no row holds finds no row)
                        new = [i for i, k in enumerate(self._from_basis) if k < 0]
                        vocabulary = basis._vocabulary | _words_of([texts[i] for i in new] + [names[i] for i in new])
                    else:
                        vocabulary = frozenset(_words_of(texts) | _words_of(names))
                    self._vocabulary = vocabulary
                    self._release_basis()
        return vocabulary

    def _vocab_by_length(self) -> dict[int, list[str]]:
        """:meth:`vocabulary` by word length (characters)."""
        by_length = self._vocabulary_by_length
        if by_length is None:
            with self._building_vocabulary:
                by_length = self._vocabulary_by_length
                if by_length is None:
                    by_length = {}
                    for word in self.vocabulary():
                        by_length.setdefault(len(word), []).append(word)
                    self._vocabulary_by_length = by_length
        return by_length

    def _short_parts(self) -> dict[int, tuple[dict[int, str], list[str], array[int], array[int]]]:
        """Per length 2–5 (what a 3–4 character query can be within distance 1 of): the names of
        that length (row → name) and the words of that length of names, but for a word that is
        the whole name (word, row, start), in catalog order."""
        return self._name_parts()[0]

    def _window_at(self) -> tuple[array[int], array[int], tuple[str, ...]]:
        """Row and start of every word start of every name (row order, then start order), and
        for each offset 0–2 a string holding, at each position of those arrays, the character
        that far after that word start (a space past the name's end: never a query's first
        character)."""
        return self._name_parts()[1]

    def _name_parts(self) -> _NameParts:
        """:meth:`_short_parts` and :meth:`_window_at`, made in a few flat passes over the names'
        word starts (list comprehensions; the columns joined at C speed), not a loop per word
        start and character (carried over from a prepared basis: its rows renumbered, -1 for a
        row gone, and the rows it did not have added)."""
        parts = self._parts
        if parts is not None:
            return parts
        with self._building_parts:
            if self._parts is not None:
                return self._parts
            lengths = range(SHORT_QUERY[0] - 1, SHORT_QUERY[1] + 2)
            basis = self._prepared_basis()
            short: dict[int, tuple[dict[int, str], list[str], array[int], array[int]]]
            if basis is not None and basis._parts is not None:
                renumber = array("i", [-1]) * len(basis)
                for i, k in enumerate(self._from_basis):
                    if k >= 0:
                        renumber[k] = i
                new: Sequence[int] = [i for i, k in enumerate(self._from_basis) if k < 0]
                old_short, (old_rows, old_starts, columns) = basis._parts
                short = {}
                for length, (whole, words, word_rows, word_at) in old_short.items():
                    short[length] = ({renumber[k]: name for k, name in whole.items() if renumber[k] >= 0},
                                     list(words), array("i", map(renumber.__getitem__, word_rows)), array("i", word_at))
                rows = array("i", map(renumber.__getitem__, old_rows))
                starts = array("i", old_starts)
            else:
                new = range(len(self.names_cf))
                short = {length: ({}, [], array("i"), array("i")) for length in lengths}
                rows, starts, columns = array("i"), array("i"), ("",) * _OFFSETS
            names_cf, starts_of = self.names_cf, self.starts
            for i in new:
                if len(names_cf[i]) in lengths:
                    short[len(names_cf[i])][0][i] = names_cf[i]
            # every word start of the new rows, flat: its row, where it starts, its word (the
            # non-empty words of a name split at spaces are its words, in start order)
            flat_rows = [i for i in new for _ in starts_of[i]]
            flat_starts = [s for i in new for s in starts_of[i]]
            flat_words = [w for i in new for w in names_cf[i].split(" ") if w]
            for word, i, s in zip(flat_words, flat_rows, flat_starts, strict=True):
                size = len(word)
                if size in lengths and size != len(names_cf[i]):
                    _whole, words, word_rows, word_at = short[size]
                    words.append(word)
                    word_rows.append(i)
                    word_at.append(s)
            heads = [names_cf[i][s:s + _OFFSETS] for i, s in zip(flat_rows, flat_starts, strict=True)]
            columns = tuple(col + "".join([h[offset:offset + 1] or " " for h in heads])
                            for offset, col in enumerate(columns))
            rows.extend(array("i", flat_rows))
            starts.extend(array("i", flat_starts))
            parts = self._parts = (short, (rows, starts, columns))
            self._release_basis()
        return parts

    def _prepared_basis(self) -> FilterIndex | None:
        """The basis, when it has been prepared (else its parts are not worth waiting for)."""
        basis = self._basis
        if basis is None or basis._parts is None or basis._vocabulary is None:
            return None
        return basis

    def rows_with_word_prefix(self, w: str, rows: list[int] | None = None) -> set[int]:
        """Rows (of ``rows`` only, ascending, when given) where a word of the name or text starts
        with ``w``; for a ``w`` holding other characters than letters and digits, rows whose
        text holds it anywhere."""
        if not _TEXT_WORD.fullmatch(w):
            return set(_holding(self._texts, w, rows=rows))
        words = self._words
        if words is not None:  # (prepared: one ``in`` pass each)
            return set(_holding(words[0], " " + w, rows=rows)) | set(_holding(words[1], " " + w, rows=rows))
        return _word_rows(self._texts, w, rows=rows) | _word_rows(self.names_cf, w, rows=rows)

    def rows_with_word(self, word: str, rows: list[int] | None = None) -> set[int]:
        """Rows (of ``rows`` only, ascending, when given) whose name or text holds the whole word
        ``word`` (letters and digits)."""
        words = self._words
        if words is not None:
            needle = f" {word} "
            return set(_holding(words[0], needle, rows=rows)) | set(_holding(words[1], needle, rows=rows))
        return _word_rows(self._texts, word, whole=True, rows=rows) | _word_rows(self.names_cf, word, whole=True, rows=rows)

    def _word_texts(self) -> tuple[list[str], list[str]]:
        """Per row, the words (``\\w+``) of the text and of the name, each word between spaces
        (``" a b "``): a word starts with ``w`` (letters and digits) exactly where ``" " + w``
        occurs, and is ``w`` where ``" " + w + " "`` does — one ``in`` per row instead of a
        pattern tried at every occurrence of ``w``."""
        words = self._words
        if words is not None:
            return words
        with self._building_words:
            if self._words is not None:
                return self._words
            basis = self._basis
            old = basis._words if basis is not None else None
            if old is not None:
                texts = [old[0][k] if k >= 0 else _between_spaces(self._texts[i]) for i, k in enumerate(self._from_basis)]
                names = [old[1][k] if k >= 0 else _between_spaces(self.names_cf[i]) for i, k in enumerate(self._from_basis)]
            else:
                texts = _all_between_spaces(self._texts)
                names = _all_between_spaces(self.names_cf)
            words = self._words = (texts, names)
            self._release_basis()
        return words

    def _release_basis(self) -> None:
        """Drop the basis once everything it could give has been taken over."""
        if self._parts is not None and self._vocabulary is not None and self._words is not None:
            self._basis = None

    def _name_word_start(self, i: int, needle: str) -> int:
        """Where a word of row ``i``'s name starts with ``needle`` (the first such), or -1."""
        if _marked_query(needle) not in self._marks[i]:
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
        ranking = self._ranked(q)
        out: list[FilterHit] = []
        for score, rows in ranking.tiers:
            for i in rows[:limit - len(out)]:
                out.append(FilterHit(i, score, self._spans(i, q, words)))
        out.extend(ranking.fuzzy[:limit - len(out)])
        return out

    def count(self, query: str) -> int:
        """How many rows match ``query`` (every row for a blank query)."""
        q = _normal(query)
        return len(self.names) if not q else self._ranked(q).total

    def _ranked(self, q: str) -> _Ranking:
        """Every hit of the normalised query ``q``, best first; the last :data:`_MEMO` queries
        are kept (backspacing and retyping cost nothing)."""
        found = self._memo.get(q)
        if found is None:
            found = self._rank(q)
            if len(self._memo) >= _MEMO:
                self._memo.pop(next(iter(self._memo)))
            self._memo[q] = found
        return found

    def _rank(self, q: str) -> _Ranking:
        """The precise tiers found with C-speed passes over the names, marked names and texts, then
        the fuzzy tiers over what is left."""
        names_cf, marks, odd = self.names_cf, self._marks, self._odd
        words = q.split()
        tier100: list[int] = []
        tier99: list[int] = []
        tier98: list[int] = []
        tier97: list[int] = []
        sep_q = _marked_query(q)
        confirm = _SEP in q
        hold = _holding(names_cf, q)
        for i in hold:
            name_cf = names_cf[i]
            if name_cf == q:
                tier100.append(i)
            elif name_cf.startswith(q):
                tier99.append(i)
            elif sep_q in marks[i] and ((not confirm and i not in odd) or self._name_word_start(i, q) >= 0):
                tier98.append(i)
            else:
                tier97.append(i)
        scored = set(hold)
        prefixes: dict[str, set[int]] = {}
        in_name = [set(_holding(marks, _SEP + w)) for w in words]
        if odd:  # (a name holding the separator itself: each row confirmed at a real word start)
            in_name = [found - {i for i in found & odd if self._name_word_start(i, w) < 0}
                       for w, found in zip(words, in_name, strict=True)]
        tier96: list[int] = []
        if len(words) > 1:
            tier96 = sorted(set.intersection(*in_name) - scored)
            scored.update(tier96)
        # rows where every word starts a word of the name or the text: the longest word (the
        # fewest rows, usually) first, the text of a later word only searched in the rows still
        # in the running
        anywhere: set[int] | None = None
        for k in sorted(range(len(words)), key=lambda k: -len(words[k])):
            w, named = words[k], in_name[k]
            if anywhere is None:
                anywhere = named | self._prefix_rows(w, prefixes)
            else:
                anywhere = (anywhere & named) | self.rows_with_word_prefix(w, sorted(anywhere - named))
            if not anywhere:
                break
        tier95 = sorted((anywhere or set()) - scored)
        scored.update(tier95)
        # kept (the memo) as arrays: 4 bytes a row, not a list slot and an int object (~40 bytes)
        tiers = [(score, array("i", rows)) for score, rows in ((100.0, tier100), (99.0, tier99), (98.0, tier98),
                                                               (97.0, tier97), (96.0, tier96), (95.0, tier95)) if rows]
        fuzzy = self._fuzzy(q, words, scored, prefixes) if len(scored) < len(names_cf) else []
        return _Ranking(tiers, fuzzy, len(scored) + len(fuzzy))

    def _prefix_rows(self, w: str, found: dict[str, set[int]]) -> set[int]:
        """:meth:`rows_with_word_prefix`, kept in ``found`` (one query's)."""
        rows = found.get(w)
        if rows is None:
            rows = found[w] = self.rows_with_word_prefix(w)
        return rows

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

    def _fuzzy(self, q: str, words: list[str], scored: set[int], prefixes: dict[str, set[int]]) -> list[FilterHit]:
        """The fuzzy tiers over the rows not in ``scored``, best score first, then catalog order."""
        best: dict[int, tuple[float, tuple[tuple[int, int], ...]]] = {}

        def keep(i: int, score: float, spans: tuple[tuple[int, int], ...]) -> None:
            if score > best.get(i, (0.0, ()))[0]:
                best[i] = (score, spans)

        names, names_cf = self.names, self.names_cf
        n = len(q)
        if SHORT_QUERY[0] <= n <= SHORT_QUERY[1]:
            # distances at C speed (rapidfuzz's loop over the names and name words); only a name
            # or word of length len(q) ± 1 can be within distance 1, so only those are compared
            short = self._short_parts()
            near = range(n - 1, n + 2)
            whole: set[int] = set()
            for length in near:
                for _n, _d, i in process.extract_iter(q, short[length][0], scorer=DamerauLevenshtein.distance,
                                                      score_cutoff=1):
                    if i not in scored:
                        whole.add(i)
            for i in sorted(whole):
                keep(i, TRANSPOSED_NAME_SCORE, _span(names[i], names_cf[i], 0, len(names_cf[i])))
            first: dict[int, tuple[int, int]] = {}
            for length in near:
                _whole, parts, rows, starts = short[length]
                for part, _d, k in process.extract_iter(q, parts, scorer=DamerauLevenshtein.distance, score_cutoff=1):
                    i, start = rows[k], starts[k]
                    if i < 0 or i in scored or i in whole:  # (-1: a row of a basis that is gone)
                        continue
                    if i not in first or start < first[i][0]:
                        first[i] = (start, len(part))
            for i in sorted(first):  # the first word of the name within distance 1
                keep(i, TRANSPOSED_PART_SCORE, _span(names[i], names_cf[i], *first[i]))
        allowed = edits_allowed(n)
        if allowed:
            # candidates at C speed: from each word start the longest window a near miss can use
            # (n + allowed characters) is within Indel distance allowed + 2 of the query (2: one
            # swap); the exact rule then runs on the few candidates only
            rows, starts, columns = self._window_at()
            if allowed < _OFFSETS:
                # a near miss keeps the query's first letter within its first allowed + 1 letters
                # (letters left out before it, or a swap of the first two): only those word starts
                initial = re.compile(re.escape(q[0]))
                picked = sorted(m.start() for offset in range(allowed + 1) for m in initial.finditer(columns[offset]))
            else:
                picked = list(range(len(rows)))
            picked = [k for k in picked if rows[k] >= 0]  # (-1: a row of a basis that is gone)
            width = n + allowed
            windows = [names_cf[rows[k]][starts[k]:starts[k] + width] for k in picked]
            for _w, _d, j in process.extract_iter(q, windows, scorer=Indel.distance, score_cutoff=allowed + 2):
                k = picked[j]
                i, s = rows[k], starts[k]
                if i in scored:
                    continue
                name_cf = names_cf[i]
                for length in range(n, min(n + allowed, len(name_cf) - s) + 1):
                    typos = near_miss(q, name_cf[s:s + length])
                    if typos is not None:
                        keep(i, 90.0 * (1 - typos / n), _span(names[i], name_cf, s, length))
                        break
        if any(len(w) >= FUZZY_MIN for w in words):
            for i, closeness in self._fuzzy_words(words, scored, prefixes).items():
                keep(i, 80.0 * closeness, ())
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return [FilterHit(i, round(score, 2), spans) for i, (score, spans) in ranked]

    def _fuzzy_words(self, words: list[str], scored: set[int], prefixes: dict[str, set[int]]) -> dict[int, float]:
        """Rows not in ``scored`` where every query word starts a word of the name or text or is a
        near miss of one (:func:`near_miss`), at least one only a near miss → the worst word's
        closeness (1 − typos / length)."""
        worst: dict[int, float] | None = None
        rest: list[int] | None = None
        for w in words:
            closeness: dict[int, float] = dict.fromkeys(self._prefix_rows(w, prefixes) - scored, 1.0)
            allowed = edits_allowed(len(w))
            if allowed:
                by_length = self._vocab_by_length()
                # a near miss is len(w) … len(w) + allowed characters long
                vocabulary = [v for length in range(len(w), len(w) + allowed + 1) for v in by_length.get(length, ())]
                for word, _d, _k in process.extract_iter(w, vocabulary, scorer=Indel.distance,
                                                         score_cutoff=allowed + 2):
                    typos = near_miss(w, word)
                    if typos is None:
                        continue
                    if rest is None:
                        rest = [i for i in range(len(self.names_cf)) if i not in scored]
                    for i in self.rows_with_word(word, rest):
                        closeness[i] = max(closeness.get(i, 0.0), 1 - typos / len(w))
            worst = closeness if worst is None else {i: min(worst[i], c) for i, c in closeness.items() if i in worst}
            if not worst:
                return {}
        return {i: c for i, c in (worst or {}).items() if c < 1.0}


#: The names' short words by length, and every word start of every name with its first letters
#: (:meth:`FilterIndex._short_parts`, :meth:`FilterIndex._window_at`).
_NameParts = tuple[dict[int, tuple[dict[int, str], list[str], "array[int]", "array[int]"]],
                   tuple["array[int]", "array[int]", tuple[str, ...]]]


class _Ranking(NamedTuple):
    """Every hit of one query: the precise tiers (score, rows in catalog order), best first, then
    the fuzzy hits (spans known), and how many hits there are in all."""

    tiers: list[tuple[float, array[int]]]
    fuzzy: list[FilterHit]
    total: int


def _words_of(spaced: Sequence[str]) -> set[str]:
    """Every word of ``spaced``, texts made by :func:`_between_spaces` (words between spaces: a
    split at white space gives them), :data:`_CHUNK` texts at a time (a split of all of them at
    once would hold a list of every word)."""
    words: set[str] = set()
    for j in range(0, len(spaced), _CHUNK):
        words.update(" ".join(spaced[j:j + _CHUNK]).split())
    return words


#: ASCII characters that are not ``\\w``, as spaces (:func:`_between_spaces`).
_NOT_WORD_ASCII = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}
#: The same but for ``\\x01``, which separates the texts :func:`_all_between_spaces` joins.
_NOT_WORD_JOINED = {c: " " for c in _NOT_WORD_ASCII if c != 1}
#: Texts joined at once by :func:`_all_between_spaces` and :func:`_words_of` (bounds the size of
#: what is made at once; larger chunks are no faster).
_CHUNK = 1024


def _between_spaces(text: str) -> str:
    """The words (``\\w+``) of ``text`` each between spaces: a space before the first and after
    the last, one or more between two (``" "`` or more for none)."""
    if text.isascii():  # (several times faster than the pattern, same words)
        return " " + text.translate(_NOT_WORD_ASCII) + " "
    return " " + " ".join(_TEXT_WORD.findall(text)) + " "


def _all_between_spaces(texts: Sequence[str]) -> list[str]:
    """:func:`_between_spaces` of each of ``texts``, the ASCII ones :data:`_CHUNK` at a time
    (joined by ``\\x01``, translated in one pass, split again: C speed)."""
    out: list[str] = []
    for j in range(0, len(texts), _CHUNK):
        chunk = texts[j:j + _CHUNK]
        joined = " \x01 ".join(chunk)
        if joined.count("\x01") != len(chunk) - 1:  # (a text holding the separator itself)
            out.extend(map(_between_spaces, chunk))
            continue
        parts = (" " + joined + " ").translate(_NOT_WORD_JOINED).split("\x01")
        if not joined.isascii():
            for k, text in enumerate(chunk):
                if not text.isascii():
                    parts[k] = _between_spaces(text)
        out.extend(parts)
    return out


def _holding(values: Sequence[str], needle: str, *, rows: list[int] | None = None) -> list[int]:
    """The indices of ``values`` (of ``rows`` only, ascending, when given) that hold
    ``needle``, ascending; at C speed (``in`` mapped over the values)."""
    if rows is None:
        return list(compress(count(), map(contains, values, repeat(needle))))
    return list(compress(rows, map(contains, map(values.__getitem__, rows), repeat(needle))))


def _word_rows(values: Sequence[str], needle: str, *, whole: bool = False, rows: list[int] | None = None) -> set[int]:
    """The indices of ``values`` (of ``rows`` only, ascending, when given) where ``needle``
    starts a word (no letter, digit or ``_`` before it; ``whole``: nor after it). At C speed:
    ``in`` over the values, then, for a word start, a value opening with the needle or holding
    it after a space is one; a compiled pattern decides the others."""
    found = _holding(values, needle, rows=rows)
    if not found:
        return set()
    sure: set[int] = set()
    if not whole:
        texts = list(map(values.__getitem__, found))
        sure.update(compress(found, map(str.startswith, texts, repeat(needle))))
        sure.update(compress(found, map(contains, texts, repeat(" " + needle))))
        if len(sure) == len(found):
            return sure
        found = [i for i in found if i not in sure]
    # the needle comes first and the word-start test after it (a lookbehind over the needle and
    # the character before it): a pattern opening with a literal is scanned for at C speed, one
    # opening with ``(?<!\w)`` is tried at every character
    escaped = re.escape(needle)
    pattern = re.compile(escaped + rf"(?<!\w{escaped})" + (r"(?!\w)" if whole else ""))
    sure.update(compress(found, map(pattern.search, map(values.__getitem__, found))))
    return sure


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
