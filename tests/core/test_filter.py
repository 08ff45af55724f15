"""core/filter.py: tiers, catalog order inside a tier, typo tolerance, keywords, limit."""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz import fuzz, process, utils
from rapidfuzz.distance import DamerauLevenshtein

from skillshelf.core.filter import (
    _DESCRIPTION_FUZZY_MIN_QUERY,
    _PART,
    FUZZY_CUTOFF,
    SHORT_QUERY,
    TRANSPOSED_NAME_SCORE,
    TRANSPOSED_PART_SCORE,
    FilterHit,
    FilterIndex,
    _span,
    _text_of,
    filter_sources,
    keywords_of,
)
from skillshelf.core.model import Provenance, Rejected, Source


def src(name: str, description: str | None = None, **frontmatter) -> Source:
    loc = f"/w/.zuno/skill/{name}/SKILL.md"
    return Source(name=name, location=loc, provenance=Provenance.PROJECT_ZUNO, canonical=loc,
                  description=description, frontmatter=frontmatter)


ROWS = [
    src("docx", "Create and edit Word documents"),
    src("pdf-tools", "Fill PDF forms and merge files"),
    src("pdf", "Read PDF files"),
    src("code-review", "Review a pull request", keywords=["github", "pr"]),
    src("xlsx", "Spreadsheets with formulas", metadata={"tags": ["excel"]}),
    src("make-pdf", "Render markdown to paper"),
    src("frontend-design", "Design web pages"),
]


def names(hits: list[FilterHit]) -> list[str]:
    return [ROWS[h.index].name for h in hits]


def test_empty_query_is_everything_in_catalog_order():
    hits = filter_sources(ROWS, "   ", limit=2)
    assert [h.index for h in hits] == list(range(len(ROWS)))
    assert all(h.score == 100.0 and h.spans == () for h in hits)


def test_exact_then_prefix_then_substring_then_description():
    hits = filter_sources(ROWS, "pdf")
    assert names(hits) == ["pdf", "pdf-tools", "make-pdf"]
    assert [h.score for h in hits] == [100.0, 99.0, 98.0]
    assert [h.spans for h in hits] == [((0, 3),), ((0, 3),), ((5, 8),)]


def test_description_word_match_keeps_catalog_order():
    # "documents" only appears in docx's description; "files" in pdf-tools and pdf descriptions.
    assert names(filter_sources(ROWS, "files")) == ["pdf-tools", "pdf"]
    assert [h.score for h in filter_sources(ROWS, "files")] == [97.0, 97.0]


def test_case_insensitive_and_multi_word():
    hits = filter_sources(ROWS, "PDF Merge")
    assert names(hits) == ["pdf-tools"]
    assert hits[0].spans == ((0, 3),)


def test_keywords_and_metadata_tags_match():
    assert names(filter_sources(ROWS, "github")) == ["code-review"]
    assert names(filter_sources(ROWS, "excel")) == ["xlsx"]


def test_typo_tolerant_name():
    hits = filter_sources(ROWS, "revew")
    assert names(hits)[0] == "code-review"
    assert hits[0].score < 97.0
    hits = filter_sources(ROWS, "frontnd")
    assert names(hits) == ["frontend-design"]


def test_nonsense_matches_nothing():
    assert filter_sources(ROWS, "zzqqxx") == []


def test_limit_caps_hits():
    assert names(filter_sources(ROWS, "pdf", limit=2)) == ["pdf", "pdf-tools"]
    assert filter_sources(ROWS, "pdf", limit=0) == []


def test_rejected_rows_filter_by_folder_name():
    rows = [Rejected(location="/r/broken/SKILL.md", provenance=Provenance.GLOBAL_AGENTS,
                     canonical="/r/broken/SKILL.md", name="broken"), src("other")]
    assert [h.index for h in filter_sources(rows, "brok")] == [0]


def test_index_reuse_equals_function():
    ix = FilterIndex(ROWS)
    assert len(ix) == len(ROWS)
    for q in ("pdf", "files", "revew", ""):
        assert ix.search(q) == filter_sources(ROWS, q)


def test_keywords_of_ignores_non_lists():
    assert keywords_of({"keywords": "a, b", "tags": ["x", 3, "y"], "metadata": {"keywords": ["z"]}}) == ("x", "y", "z")
    assert keywords_of(None) == ()


def test_short_query_transposition_matches_name_and_name_parts():
    # "pfd": WRatio finds nothing on three characters; one adjacent transposition away from "pdf"
    hits = filter_sources(ROWS, "pfd")
    assert names(hits) == ["pdf", "pdf-tools", "make-pdf"]
    assert [h.score for h in hits] == [90.0, 88.0, 88.0]
    assert [h.spans for h in hits] == [((0, 3),), ((0, 3),), ((5, 8),)]


def test_short_query_transposition_four_characters_and_limits():
    assert names(filter_sources(ROWS, "dcox")) == ["docx"]
    assert names(filter_sources(ROWS, "xslx")) == ["xlsx"]
    # two edits away: nothing; two characters: no transposition matching (too loose)
    assert filter_sources(ROWS, "fpdx") == []
    assert filter_sources(ROWS, "dp") == []


# ---------------------------------------------------------------- the index equals a row-by-row scan


def _reference(sources, query: str, limit: int) -> list[FilterHit]:
    """The filter as a plain loop over every row (the definition the index must reproduce)."""

    class Plain:
        def __init__(self):
            self.names = [s.name for s in sources]
            self.names_cf = [n.casefold() for n in self.names]
            self.texts = [_text_of(s) for s in sources]

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

    return Plain().search(query, limit)


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


_WORDS = ["pdf", "pfd", "make", "tools", "docx", "code", "review", "straße", "STRASSE", "İstanbul", "a", "ab",
          "data-base", "db_tool", "x.y", "deploy", "depoly", "sql", "Σίσυφος", "ﬁle", "file", "", "zz"]


def _random_rows(rng, n):
    rows = []
    for k in range(n):
        parts = [rng.choice(_WORDS) for _ in range(rng.randint(1, 3))]
        name = rng.choice(["-", "_", ".", " ", ""]).join(parts) if rng.random() < 0.9 else ""
        desc = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 12))) or None
        kw = {"keywords": [rng.choice(_WORDS)]} if rng.random() < 0.2 else {}
        rows.append(src(name or f"n{k}", desc, **kw) if name or rng.random() < 0.5 else
                    Rejected(location=f"/w/r{k}/SKILL.md", provenance=Provenance.PROJECT_ZUNO,
                             canonical=f"/w/r{k}/SKILL.md", name=name))
    return rows


def test_the_index_equals_a_row_by_row_scan_on_random_rows():
    import random

    rng = random.Random(5)
    for _ in range(40):
        rows = _random_rows(rng, rng.randint(1, 60))
        index = FilterIndex(rows)
        for _ in range(12):
            query = rng.choice([rng.choice(_WORDS), " ".join(rng.sample(_WORDS, 2)), rng.choice(_WORDS)[:3],
                                rng.choice(_WORDS)[::-1], "pfd", "sqll", "dta"])
            limit = rng.choice([1, 3, 500])
            expected = _reference(rows, query, limit)
            assert index.search(query, limit) == expected, (query, limit)
            assert index.search(query, limit) == expected  # from the index's memory of the query
            assert index.count(query) == (len(rows) if not query.strip() else len(_reference(rows, query, 10**9)))
