"""Agreement of ``skillshelf lint --target spec`` with the reference validator skills-ref
(``agentskills validate``) on valid/invalid per file (SPEC F4–F5, F2 "which the reference
validator gets wrong").

Every disagreement over ``../shared/corpus`` must be listed in
``tests/fixtures/reference_known_wrong.tsv`` with the reason the reference is wrong; a listed file
that no longer disagrees is a stale entry and fails too. Skipped when skills-ref is not installed
or the corpus is absent. The reference is run in-process (``skills_ref.validator.validate``, what
the ``agentskills validate`` command calls); one test checks the console command agrees with it.
A reference crash (it raises on non-UTF-8 files) counts as "invalid", like the command's exit 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.lint import Target, find_skill_files, lint_file

validator = pytest.importorskip("skills_ref.validator")

REPO = Path(__file__).resolve().parents[2]
CORPUS = SHARED / "corpus"
KNOWN_WRONG = REPO / "tests" / "fixtures" / "reference_known_wrong.tsv"
REASONS = {"allowed-tools-not-checked", "metadata-stringified", "substring-delimiter", "bom", "flow-list"}


def reference_valid(skill_md: Path) -> bool:
    try:
        return not validator.validate(skill_md.parent)
    except Exception:
        return False


def known_wrong() -> dict[str, tuple[bool, bool, str]]:
    out = {}
    for line in KNOWN_WRONG.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        path, ref, ours, reason, explanation = line.split("\t")
        assert reason in REASONS and explanation, line
        out[path] = (ref == "true", ours == "true", reason)
    return out


def agreement() -> tuple[int, int, dict[str, tuple[bool, bool]]]:
    files = [Path(f) for f in find_skill_files(str(CORPUS)) if os.path.basename(f) == "SKILL.md"]
    disagree = {}
    for f in files:
        ref = reference_valid(f)
        ours = lint_file(str(f), target=Target.SPEC).valid
        if ref != ours:
            disagree[f.relative_to(CORPUS).as_posix()] = (ref, ours)
    return len(files) - len(disagree), len(files), disagree


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
def test_corpus_agreement_except_known_reference_faults(capsys):
    agree, total, disagree = agreement()
    listed = known_wrong()
    unexplained = sorted(set(disagree) - set(listed))
    stale = sorted(set(listed) - set(disagree))
    assert unexplained == [], f"skillshelf and skills-ref disagree on unlisted files: {unexplained}"
    assert stale == [], f"listed files no longer disagree: {stale}"
    for path, (ref, ours) in disagree.items():
        assert listed[path][:2] == (ref, ours), path
    with capsys.disabled():
        print(f"\nreference agreement: {agree} of {total} files ({100 * agree / total:.1f}%)")
    assert total > 0


def _skill(tmp_path: Path, folder: str, text: str) -> Path:
    d = tmp_path / folder
    d.mkdir()
    f = d / "SKILL.md"
    f.write_text(text, encoding="utf-8")
    return f


def test_known_wrong_substring_delimiter(tmp_path):
    f = _skill(tmp_path, "demo", "---\nname: demo\ndescription: Demo skill.\n---# Title\n\nBody.\n")
    assert reference_valid(f) is True
    report = lint_file(str(f), target=Target.SPEC)
    assert report.valid is False
    assert "frontmatter-unclosed" in [d.code for d in report.diagnostics]


def test_known_wrong_description_with_dashes_inside(tmp_path):
    # SPEC F2: `a---b` stays one value; the reference splits the frontmatter inside it (both call
    # the file valid, but the reference reads the description as `a`).
    from skills_ref.parser import parse_frontmatter

    from skillshelf.core.frontmatter import parse_skill_file

    text = "---\nname: demo\ndescription: a---b\n---\nBody.\n"
    f = _skill(tmp_path, "demo", text)
    assert lint_file(str(f), target=Target.SPEC).valid is True
    assert parse_skill_file(str(f)).description == "a---b"
    assert parse_frontmatter(text)[0]["description"] == "a"


def test_known_wrong_allowed_tools_list_and_metadata_map(tmp_path):
    f = _skill(tmp_path, "demo", "---\nname: demo\ndescription: Demo.\nallowed-tools:\n  - Read\n  - Bash\n---\nB\n")
    assert reference_valid(f) is True
    assert [d.code for d in lint_file(str(f), target=Target.SPEC).diagnostics] == ["allowed-tools-type"]
    g = _skill(tmp_path, "meta", "---\nname: meta\ndescription: Demo.\nmetadata:\n  tags:\n    - a\n---\nB\n")
    assert reference_valid(g) is True
    assert [d.code for d in lint_file(str(g), target=Target.SPEC).diagnostics] == ["metadata-type"]


@pytest.mark.skipif(shutil.which("agentskills") is None, reason="agentskills command not installed")
def test_console_command_matches_in_process_reference(tmp_path):
    ok = _skill(tmp_path, "good", "---\nname: good\ndescription: Good.\n---\nB\n")
    bad = _skill(tmp_path, "bad", "---\nname: Bad_Name\ndescription: Bad.\n---\nB\n")
    for f in (ok, bad):
        rc = subprocess.run(["agentskills", "validate", str(f.parent)], capture_output=True).returncode
        assert (rc == 0) == reference_valid(f) == lint_file(str(f), target=Target.SPEC).valid
