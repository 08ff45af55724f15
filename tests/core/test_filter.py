"""core/filter.py: tiers, catalog order inside a tier, typo tolerance with a quality floor,
keywords, limit, the body line."""

from __future__ import annotations

from skillshelf.core.filter import FilterHit, FilterIndex, body_line, filter_sources, keywords_of, near_miss
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


def test_exact_then_prefix_then_word_then_description():
    hits = filter_sources(ROWS, "pdf")
    assert names(hits) == ["pdf", "pdf-tools", "make-pdf"]
    assert [h.score for h in hits] == [100.0, 99.0, 98.0]
    assert [h.spans for h in hits] == [((0, 3),), ((0, 3),), ((5, 8),)]
    # inside a word of the name (not at its start): after the word starts
    hits = filter_sources(ROWS, "view")
    assert (names(hits), [h.score for h in hits], hits[0].spans) == (["code-review"], [97.0], ((7, 11),))


def test_description_word_match_keeps_catalog_order():
    # "documents" only appears in docx's description; "files" in pdf-tools and pdf descriptions.
    assert names(filter_sources(ROWS, "files")) == ["pdf-tools", "pdf"]
    assert [h.score for h in filter_sources(ROWS, "files")] == [95.0, 95.0]
    # a word of the text must start with the query word: "ile" is inside "files", not a word
    assert filter_sources(ROWS, "iles") == []


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


# Names sharing letters with a query, and near misses (own fixtures reproducing the corpus cases:
# "codeql" used to list dozens of "code-…" skills; "test-drivn" put the obvious skill fifth).
NEAR = [
    src("code-tour", "Guided tours of a code base"),
    src("codebase-memory", "Remember facts about the codebase"),
    src("sql-code-review", "Review SQL for injection"),
    src("security-review", "Run CodeQL and semgrep on a pull request"),
    src("codeql", "Write and run CodeQL queries"),
    src("playwright-generate-test", "Generate a browser test from a scenario"),
    src("react-test-patterns", "Testing React components"),
    src("unit-test-vue", "Unit tests for Vue stores"),
    src("subagent-driven-development", "Dispatch subagents for each task"),
    src("test-driven-development", "Write the failing test first, then the code"),
    src("agentic-eval", "Evaluate agents, test-driven"),
]


def near(query: str) -> list[tuple[str, float]]:
    return [(NEAR[h.index].name, h.score) for h in filter_sources(NEAR, query)]


def test_a_name_is_not_matched_by_names_merely_sharing_letters():
    # the exact name first; a description naming CodeQL as a word is a precise hit too; no
    # "code-…" name comes along for sharing four letters
    assert near("codeql") == [("codeql", 100.0), ("security-review", 95.0)]
    assert near("codeq") == [("codeql", 99.0), ("security-review", 95.0)]   # "codeq" starts "CodeQL"


def test_near_misses_rank_the_obvious_name_first():
    assert near("test-drivn")[0] == ("test-driven-development", 81.0)
    assert near("test drivn")[0] == ("test-driven-development", 81.0)
    assert near("tset-driven")[0] == ("test-driven-development", 81.82)
    # everything after it is a weaker word-level near miss, never a name that merely holds "test"
    assert [n for n, _ in near("test-drivn")[1:]] == ["agentic-eval"]
    assert all(score < 81.0 for _, score in near("test-drivn")[1:])


def test_word_starts_and_words_in_any_order():
    assert near("driven-dev") == [("subagent-driven-development", 98.0), ("test-driven-development", 98.0)]
    assert near("development test") == [("test-driven-development", 96.0)]
    assert filter_sources(NEAR, "test driven")[0].spans == ((0, 11),)


def test_near_miss_is_left_out_letters_or_one_swap():
    assert near_miss("drivn", "driven") == 1
    assert near_miss("dirven", "driven") == 1
    assert near_miss("codeq", "code") is None           # a shorter word is another word
    assert near_miss("revew", "renew") is None          # a different letter is another word
    assert near_miss("test-drvn", "test-driven") is None    # nine characters: one typo
    assert near_miss("test-drvn-d", "test-driven-d") == 2   # ten or more: two
    assert near_miss("test", "tests") is None           # under five characters: no typos
    assert near_miss("spredsheet", "spreadsheets") == 2


def test_body_line_finds_the_query_or_all_its_words_on_one_line():
    body = "# Title\n\nRun the Linter first.\nThen   fix warnings and run it again\n"
    assert body_line(body, "linter", first_line=5) == (7, "Run the Linter first.")
    assert body_line(body, "fix warnings") == (4, "Then   fix warnings and run it again")
    assert body_line(body, "again fix") == (4, "Then   fix warnings and run it again")
    assert body_line(body, "missing") is None
    assert body_line(body, "  ") is None


# ---------------------------------------------------------------- the index equals a row-by-row scan


def _reference(sources, query: str) -> list[tuple[int, float]]:
    """The ranking as a plain loop over every row, with regular expressions where the index uses
    joined strings and a pre-filter (the definition the index must reproduce): (row, score)."""
    import re

    from rapidfuzz.distance import DamerauLevenshtein

    from skillshelf.core.filter import _NAME_WORD, _SPACED, _text_of, edits_allowed

    q = " ".join(query.translate(_SPACED).split()).casefold()
    words = q.split()
    names = [s.name.casefold().translate(_SPACED) for s in sources]
    texts = [_text_of(s) for s in sources]

    def starts(name: str) -> list[int]:
        return [m.start() for m in _NAME_WORD.finditer(name)]

    def word_start(name: str, needle: str) -> bool:
        return any(name.startswith(needle, s) for s in starts(name))

    def in_text(i: int, w: str) -> bool:
        if re.fullmatch(r"\w+", w):
            pattern = r"(?<!\w)" + re.escape(w)
            return re.search(pattern, texts[i]) is not None or re.search(pattern, names[i]) is not None
        return w in texts[i]

    tiers: list[tuple[int, float]] = []
    rest = []
    for i, name in enumerate(names):
        if name == q:
            tiers.append((i, 100.0))
        elif name.startswith(q):
            tiers.append((i, 99.0))
        elif word_start(name, q):
            tiers.append((i, 98.0))
        elif q in name:
            tiers.append((i, 97.0))
        elif len(words) > 1 and all(word_start(name, w) for w in words):
            tiers.append((i, 96.0))
        elif all((len(words) > 1 and word_start(name, w)) or in_text(i, w) for w in words):
            tiers.append((i, 95.0))
        else:
            rest.append(i)
    ranked = sorted(tiers, key=lambda h: -h[1])  # stable: catalog order inside a tier
    best: dict[int, float] = {}
    if 3 <= len(q) <= 4:
        for i in rest:
            if names[i] and DamerauLevenshtein.distance(q, names[i]) <= 1:
                best[i] = 90.0
                continue
            parts = list(_NAME_WORD.finditer(names[i]))
            if len(parts) > 1 and any(DamerauLevenshtein.distance(q, m.group()) <= 1 for m in parts):
                best[i] = 88.0
    if edits_allowed(len(q)):
        for i in rest:
            for s in starts(names[i]):
                for length in range(len(q), len(q) + edits_allowed(len(q)) + 1):
                    if s + length <= len(names[i]):
                        d = near_miss(q, names[i][s:s + length])
                        if d is not None:
                            best[i] = max(best.get(i, 0.0), 90.0 * (1 - d / len(q)))
    if any(len(w) >= 5 for w in words):
        vocab = {i: set(re.findall(r"\w+", texts[i])) | set(re.findall(r"\w+", names[i])) for i in rest}
        for i in rest:
            worst = 1.0
            for w in words:
                if any(v.startswith(w) for v in vocab[i]):
                    continue
                ds = [d for v in vocab[i] if (d := near_miss(w, v)) is not None]
                if not ds:
                    worst = 0.0
                    break
                worst = min(worst, 1 - min(ds) / len(w))
            if 0.0 < worst < 1.0:
                best[i] = max(best.get(i, 0.0), 80.0 * worst)
    ranked += [(i, round(score, 2)) for i, score in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))]
    return ranked


_WORDS = ["pdf", "pfd", "make", "tools", "docx", "code", "review", "revew", "straße", "STRASSE", "İstanbul", "a",
          "ab", "data-base", "db_tool", "x.y", "deploy", "depoly", "deployment", "sql", "Σίσυφος", "ﬁle", "file",
          "", "zz", "spreadsheet", "spredsheets"]


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
        if rng.random() < 0.5:  # prepared: the word tests run on the words between spaces
            index.prepare()
        for _ in range(12):
            query = rng.choice([rng.choice(_WORDS), " ".join(rng.sample(_WORDS, 2)), rng.choice(_WORDS)[:3],
                                rng.choice(_WORDS)[::-1], "pfd", "sqll", "dta", "deploymnt", "revew"])
            limit = rng.choice([1, 3, 500])
            expected = _reference(rows, query)
            got = [(h.index, h.score) for h in index.search(query, limit)]
            assert got == expected[:limit] if query.strip() else True, (query, limit)
            assert index.search(query, limit) == index.search(query, limit)  # from the index's memory
            assert index.count(query) == (len(rows) if not query.strip() else len(expected))


def test_the_word_texts_of_many_rows_equal_those_made_one_by_one():
    """Rows' words between spaces made a chunk of rows at a time (joined by \\x01, translated
    at once) are each row's own, whatever the rows hold: the joining character itself, other
    control characters, non-ASCII words and white space, nothing at all."""
    import re

    from skillshelf.core import filter as f

    odd = ["", " ", "a\x01b", "\x01", "déjà vu—ça", "x\ty\nz", "under_score c++ a.b", "\x00\x1f\x7f", "中文 技能", "İstanbul"]
    rows = [odd[k % len(odd)] + f" w{k}" * (k % 3) for k in range(2 * f._CHUNK + 7)]
    for texts in (rows, [r for r in rows if "\x01" not in r], [r for r in rows if r.isascii() and "\x01" not in r]):
        made = f._all_between_spaces(texts)
        assert made == [f._between_spaces(t) for t in texts]
        for text, spaced in zip(texts, made, strict=True):
            words = re.findall(r"\w+", text)
            assert spaced.split() == words and spaced.startswith(" ") and spaced.endswith(" "), text
        assert f._words_of(made) == {w for t in texts for w in re.findall(r"\w+", t)}


def test_the_vocabulary_is_every_word_of_the_rows_whether_prepared_or_not():
    import random
    import re

    from skillshelf.core.filter import _text_of

    rng = random.Random(7)
    rows = _random_rows(rng, 80)
    lazy = FilterIndex(rows)
    prepared = FilterIndex(rows)
    prepared.prepare()
    texts = [_text_of(r) for r in rows] + list(lazy.names_cf)
    assert lazy.vocabulary() == prepared.vocabulary() == {w for t in texts for w in re.findall(r"\w+", t)}
    for query in ("deploymnt", "spredsheets", "pfd", "dta", "revew", "sqll"):
        assert lazy.search(query) == prepared.search(query) == filter_sources(rows, query)


def test_typing_a_query_character_by_character_equals_a_row_by_row_scan():
    import random

    from skillshelf.core.filter import _normal

    rng = random.Random(11)
    words = [*_WORDS, "c++", "a(b", "x\ny", "de", "dep", "ed", "pdf\tx", "s", "_s", "d_e"]
    for _ in range(25):
        rows = []
        for k, row in enumerate(_random_rows(rng, rng.randint(1, 50))):
            if isinstance(row, Source) and rng.random() < 0.3:  # names holding regex and line-break characters
                row = src(rng.choice(["", "-", " "]).join(rng.choice(words) for _ in range(rng.randint(1, 3))) or f"m{k}",
                          " ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) or None)
            rows.append(row)
        index = FilterIndex(rows)
        if rng.random() < 0.5:
            index.prepare()
        for query in rng.sample(words, 4) + ["pdf sql", "dep lo"]:
            for k in range(1, len(query) + 1):
                typed = query[:k]
                assert [(h.index, h.score) for h in index.search(typed)] == (_reference(rows, typed) if _normal(typed) else
                                                                            [(i, 100.0) for i in range(len(rows))]), typed


def test_an_index_made_over_a_basis_ranks_exactly_as_a_fresh_one():
    import random

    rng = random.Random(13)
    queries = [*_WORDS, "pfd", "sqll", "dta", "deploymnt", "revew", "spredsheets", "tset", "pdf sql", "dep lo",
               "make pdf", "dcox", "xslx", "fiel", "databse"]
    for round_ in range(30):
        old = _random_rows(rng, rng.randint(1, 60))
        basis = FilterIndex(old)
        if round_ % 3:  # prepared (its parts are carried over) or not (made afresh)
            basis.prepare()
        # the final rows: most of the same objects, some gone, some new, another order, and
        # now and then the same object twice
        rows = [r for r in old if rng.random() < 0.85] + _random_rows(rng, rng.randint(0, 8))
        rng.shuffle(rows)
        if rows and rng.random() < 0.3:
            rows.append(rows[0])
        index = FilterIndex(rows, basis=basis)
        index.prepare()
        fresh = FilterIndex(rows)
        for query in queries:
            assert index.search(query) == fresh.search(query), query
            assert index.count(query) == fresh.count(query), query
        assert index.vocabulary() >= fresh.vocabulary()


def test_a_name_holding_the_separator_never_makes_a_word_start_of_its_own():
    """A name may hold ``\\0``, the character the index marks word starts with: a query word
    that only follows such a character inside a word does not start a word of the name (no
    every-word tier), whether the index was made anew or over a basis."""
    rows = [src("x\x00deploy zz"), src("zz-deploy"), src("ab\x00 cd", "cd\x00 ab notes")]
    for index in (FilterIndex(rows), FilterIndex(rows, basis=FilterIndex(list(reversed(rows))))):
        # (row 0: "deploy" starts a word of letters and digits there, not a word of the name)
        assert [(h.index, h.score) for h in index.search("zz deploy")] == [(1, 100.0), (0, 95.0)]
        assert [(h.index, h.score) for h in index.search("deploy zz")] == [(0, 97.0), (1, 96.0)]  # (0: contains it)
        for query in ("zz deploy", "deploy zz", "deploy", "x deploy", "cd ab", "\x00 cd", "ab \x00", "\x00"):
            assert [(h.index, h.score) for h in index.search(query)] == _reference(rows, query), query
