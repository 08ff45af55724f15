"""core/filter.py: tiers, catalog order inside a tier, typo tolerance, keywords, limit."""

from __future__ import annotations

from skillshelf.core.filter import FilterHit, FilterIndex, filter_sources, keywords_of
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
