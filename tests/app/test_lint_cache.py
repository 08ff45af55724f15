"""The lint cache of the TUI (SPEC F4–F5, H3): keyed by content, kept-last-valid rows keyed by the file on disk."""

from __future__ import annotations

from dataclasses import replace

from skillshelf.app.lint_cache import LintCache
from skillshelf.core.model import Provenance, Severity, Source, Status


def test_h3_lint_of_kept_last_valid_describes_the_file_on_disk(tmp_path):
    f = tmp_path / "pdf" / "SKILL.md"
    f.parent.mkdir()
    f.write_text("---\nname: pdf\ndescription: Read PDF files\n---\nBody.\n", encoding="utf-8")
    kept = Source(name="pdf", location=str(f), provenance=Provenance.PROJECT_ZUNO, canonical=str(f),
                  status=Status.KEPT_LAST_VALID, content_sha256="old-version-hash")
    cache = LintCache("spec")
    assert cache.lint(kept) == ()
    # the file breaks on disk; the host keeps the old entry (same sha in the Source) — lint follows the disk
    f.write_text("---\nname: Not_Valid\n---\nBody.\n", encoding="utf-8")
    codes = {d.code for d in cache.lint(kept) if d.severity is Severity.ERROR}
    assert codes and cache.has_errors(kept)
    assert cache.get(kept) == cache.lint(kept)
    # a normal source is still keyed by its content hash (the generation's view of the file)
    ok = replace(kept, status=Status.OK, content_sha256="h1")
    assert LintCache.key(ok) == (str(f), "h1")
    assert LintCache.key(kept)[1].startswith("disk:")


def test_clean_and_flagged_versions_of_one_file_are_each_found_by_their_own_key(tmp_path):
    f = tmp_path / "pdf" / "SKILL.md"
    f.parent.mkdir()
    good, bad = "---\nname: pdf\ndescription: Read PDF files\n---\nBody.\n", "---\nname: Not_Valid\n---\nBody.\n"
    item = Source(name="pdf", location=str(f), provenance=Provenance.PROJECT_ZUNO, canonical=str(f),
                  content_sha256="good")
    flagged = replace(item, content_sha256="bad")
    cache = LintCache("spec")
    assert cache.get(item) is None and cache.get(flagged) is None
    f.write_text(good, encoding="utf-8")
    assert cache.lint(item) == () and cache.get(item) == ()
    assert cache.get(flagged) is None
    f.write_text(bad, encoding="utf-8")
    found = cache.lint(flagged)
    assert cache.has_errors(flagged) and cache.get(flagged) == found
    assert cache.get(item) == () and not cache.has_errors(item)  # the clean version's key still finds it
    f.write_text(good, encoding="utf-8")
    assert cache.lint(replace(item, content_sha256="good again")) == ()
    assert cache.get(flagged) == found and cache.get(item) is None  # one clean key kept per file


def test_a_pass_sharing_one_memo_finds_what_each_file_alone_finds_with_fewer_probes(tmp_path, monkeypatch):
    """The lint of every listed file shares the enclosing-skill answers of one pass: the same
    findings as each file linted alone (nested skills found, a ``.git`` stopping the search),
    with each ancestor folder looked at once."""
    from skillshelf.core import fsprobe

    def skill(*parts: str) -> Source:
        f = tmp_path.joinpath(*parts, "SKILL.md")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"---\nname: {parts[-1]}\ndescription: Does {parts[-1]}\n---\nBody.\n", encoding="utf-8")
        return Source(name=parts[-1], location=str(f), provenance=Provenance.PROJECT_AGENTS, canonical=str(f),
                      content_sha256=parts[-1])

    items = [skill("outer"), *(skill("outer", "group", f"inner-{i}") for i in range(5)),
             *(skill("repo", "cat", f"plain-{i}") for i in range(5))]
    (tmp_path / "repo" / ".git").mkdir()
    calls = {"n": 0}
    for name in ("exists", "isfile"):
        real = getattr(fsprobe, name)

        def counted(path, _real=real):
            calls["n"] += 1
            return _real(path)

        monkeypatch.setattr(fsprobe, name, counted)
    alone = [LintCache("spec").lint(item) for item in items]
    probes_alone, calls["n"] = calls["n"], 0
    memo: dict[str, str | None] = {}
    cache = LintCache("spec")
    shared = [cache.lint(item, memo) for item in items]
    assert shared == alone
    codes = [[d.code for d in found] for found in shared]
    assert codes == [[]] + [["nested-skill"]] * 5 + [[]] * 5
    # each later sibling asks only about its own folder: 4 × 3 probes (group, outer) and 4 × 4
    # (cat, repo) fewer than alone
    assert probes_alone - calls["n"] == 4 * 3 + 4 * 4
