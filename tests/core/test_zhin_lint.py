"""Lint target ``zhin`` (SPEC F5, Z1–Z2 and the Zhin authoring rules of seed 002) and a corpus
smoke run; own fixtures written in tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.lint import Target, find_skill_files, lint_file, lint_paths
from skillshelf.core.model import Severity

CORPUS = SHARED / "corpus"

WORKFLOW = "## 工作流\n\n### 第 1 步：读输入\n做事。\n\n### 第 2 步：输出\n完成。\n"
FALLBACK = "## 失败与兜底\n\n| 触发条件 | 一线处理 | 仍失败 |\n|---|---|---|\n| 工具超时 | 重试一次 | 告知用户 |\n"


def skill(root: Path, folder: str, text: str) -> str:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(text, encoding="utf-8")
    return str(d / "SKILL.md")


def codes(path: str) -> list[tuple[str, str, int | None]]:
    return [(d.code, d.severity.value, d.line) for d in lint_file(path, target=Target.ZHIN).diagnostics]


def head(name: str = "weather") -> str:
    return f"---\nname: {name}\ndescription: 查询天气。Use when asked about weather.\n---\n\n# Weather\n\n"


def test_zhin_template_shaped_skill_is_clean(tmp_path):
    f = skill(tmp_path, "weather", head() + "## 何时使用\n\n- 问天气\n\n" + WORKFLOW + "\n" + FALLBACK)
    assert codes(f) == []


def test_zhin_workflow_and_fallback_table_missing(tmp_path):
    f = skill(tmp_path, "weather", head() + "## 何时使用\n\n- 问天气\n\n## 说明\n\n随便写。\n")
    assert codes(f) == [("zhin-workflow-missing", "warning", 8), ("zhin-fallback-table-missing", "warning", 8)]
    report = lint_file(f, target=Target.ZHIN)
    assert report.valid  # guidance only: warnings
    assert report.diagnostics[0].column == 1
    assert report.diagnostics[1].hint == "add `## 失败与兜底` with a table: | 触发条件 | 一线处理 | 仍失败 |"


def test_zhin_workflow_forms(tmp_path):
    numbered = skill(tmp_path, "a", head("a") + "## Workflow\n\n1. read\n2. act\n\n" + FALLBACK)
    assert codes(numbered) == []
    # a numbered list under an unrelated heading is not a workflow section
    unrelated = skill(tmp_path, "b", head("b") + "## Notes\n\n1. read\n2. act\n\n" + FALLBACK)
    assert [c for c, _, _ in codes(unrelated)] == ["zhin-workflow-missing"]
    # step headings count under any section name
    steps = skill(tmp_path, "c", head("c") + "## 发布清单\n\n### Step 1: check\nx\n\n" + FALLBACK)
    assert codes(steps) == []
    # a fallback heading without a table does not count
    no_table = skill(tmp_path, "d", head("d") + WORKFLOW + "\n## Failure and fallback\n\nRetry.\n")
    assert [c for c, _, _ in codes(no_table)] == ["zhin-fallback-table-missing"]


def test_authoring_rules_are_zhin_only(tmp_path):
    f = skill(tmp_path, "weather", head() + "## 说明\n\n随便写。\n")
    for target in (Target.SPEC, Target.PORTABLE, Target.ZUNO):
        assert not [d for d in lint_file(f, target=target).diagnostics if d.code.startswith("zhin-")]


def test_zhin_field_rules_with_positions(tmp_path):
    text = ("---\nname: weather\ndescription: " + "x" * 1100 + "\nplatforms: qq\nscopes: [dm]\n"
            "always: 1\n---\n# Weather\n\nBody.\n")
    f = skill(tmp_path, "weather", text)
    got = {c: (s, line) for c, s, line in codes(f)}
    assert got["description-too-long"] == ("warning", 3)
    assert got["list-field-type"] == ("error", 4)
    assert got["scopes-invalid"] == ("error", 5)
    assert got["always-type"] == ("error", 6)
    bad_dir = skill(tmp_path, "Weather_Skill", "---\nname: Weather_Skill\n---\n# W\n")
    assert [c for c, s, _ in codes(bad_dir) if s == "error"] == ["dir-name-invalid"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
def test_zhin_lint_over_the_corpus_never_crashes():
    files = [f for f in find_skill_files(str(CORPUS)) if os.path.basename(f) == "SKILL.md"]
    reports = lint_paths([str(CORPUS)], target=Target.ZHIN)
    assert len(reports) >= len(files)
    for r in reports:
        assert all(d.severity in (Severity.ERROR, Severity.WARNING, Severity.INFO) for d in r.diagnostics)
        assert r.valid == (not any(d.severity is Severity.ERROR for d in r.diagnostics))


@pytest.mark.skipif(not (CORPUS / "zhinjs__zhin").is_dir(), reason="zhinjs__zhin corpus is absent")
def test_zhin_corpus_skills_pass_the_zhin_target():
    reports = lint_paths([str(CORPUS / "zhinjs__zhin")], target=Target.ZHIN)
    skill_md = [r for r in reports if r.path.endswith("SKILL.md")]
    assert len(skill_md) == 14 and all(r.valid for r in skill_md)
    # the skill-creator template follows its own authoring rules
    creator = next(r for r in skill_md if "/skill-creator/" in r.path)
    assert not [d for d in creator.diagnostics if d.code.startswith("zhin-")]
