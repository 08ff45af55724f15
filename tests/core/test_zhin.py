"""Host ``zhin`` (SPEC Z1–Z5; zhin-scenarios H001–H025, H040–H044) on plugin trees written here.

Expected strings are the literals of zhin-scenarios §2 (load header, headings, act-now line,
truncation marker, catalog instruction, qualified names, error messages).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.hosts.zhin.deps import (
    always_bodies,
    check_deps,
    private_tools,
    qualified_tool_name,
)
from skillshelf.core.hosts.zhin.load import zhin_load_text, zhin_read_instructions
from skillshelf.core.hosts.zhin.skills import (
    CATALOG_INSTRUCTION,
    ZhinSkillError,
    build_zhin_generation,
    catalog_description,
    parse_zhin_markdown,
    qualified_skill_name,
    render_zhin_catalog,
    resolve_nearest_owner,
)
from skillshelf.core.model import Provenance, Severity, Status

HEADER = "Skill '{}' loaded. 请立即根据以下指导执行工具调用："
ACT_NOW = "## 立即行动\n根据上面的指导，立即调用工具完成用户请求。禁止重复调用 load_skill，禁止用文本描述代替实际工具调用。"
ZHIN_CORPUS = SHARED / "corpus" / "zhinjs__zhin"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def parse(text: str, local: str = "research", source: str = "/p/skills/research/SKILL.md"):
    return parse_zhin_markdown(text, local_name=local, source=source)


# ---- A. discovery and frontmatter ------------------------------------------------------------


def test_h001_only_skills_name_skill_md(tmp_path):
    write(tmp_path / "skills/research/SKILL.md", "# Research\n\nUse primary sources.")
    write(tmp_path / "skills/research/notes.md", "notes")
    write(tmp_path / "skills/helper.md", "# Helper")
    write(tmp_path / "skills/references/README.md", "# Refs")
    write(tmp_path / "skills/research/deeper/SKILL.md", "# Nested")  # one level only
    gen = build_zhin_generation(str(tmp_path))
    assert [(s.name, s.description, s.provenance) for s in gen.sources] == [
        ("research", "Research", Provenance.ZHIN_PLUGIN)
    ]
    assert gen.rejected == ()
    skill = parse("# Research\n\nUse primary sources.")
    assert skill.instructions == "# Research\n\nUse primary sources."
    assert skill.local_name == "research"


def test_h003_private_tools_and_agent_private_skills(tmp_path):
    write(tmp_path / "skills/research/SKILL.md", "# Research")
    write(tmp_path / "skills/research/tools/search/index.ts", "x")
    write(tmp_path / "agents/reviewer/skills/audit/SKILL.md", "# Audit")
    write(tmp_path / "agents/reviewer/skills/audit/tools/report/index.ts", "x")
    gen = build_zhin_generation(str(tmp_path))
    research, audit = gen.sources
    assert (research.name, audit.name) == ("research", "audit")
    assert audit.provenance is Provenance.ZHIN_AGENT
    assert [q for q, _ in private_tools(research)] == ["skill__research__search"]
    assert [q for q, _ in private_tools(audit)] == ["agent__reviewer__skill__audit__report"]
    assert private_tools(audit)[0][1] == str(tmp_path / "agents/reviewer/skills/audit/tools/report")
    locked = [d.message for d in research.diagnostics if d.code == "private-tool-locked"]
    assert locked == ["private tool skill__research__search stays locked until the skill is loaded"]
    skill = parse_zhin_markdown("# Audit", local_name="agent/reviewer/audit", source="s",
                                private_tool_names=["agent__reviewer__skill__audit__report"])
    assert (skill.name, skill.agent, skill.tool_names) == (
        "audit", "reviewer", ("agent__reviewer__skill__audit__report",))


def test_h004_governed_frontmatter():
    text = (
        "---\nname: research\ndescription: Evidence-first research\ntools: [web_search, read_file]\n"
        "platforms: [qq]\nscopes: [private, group]\npermissions: [role(trusted)]\n"
        "keywords: [sources, citations]\ntags: [research]\nalways: true\n---\n\n# Research\n\nUse primary sources."
    )
    s = parse(text)
    assert s.description == "Evidence-first research"
    assert s.instructions == "# Research\n\nUse primary sources."
    assert s.tool_names == ("web_search", "read_file")
    assert (s.platforms, s.scopes, s.permissions) == (("qq",), ("private", "group"), ("role(trusted)",))
    assert (s.keywords, s.tags, s.always) == (("sources", "citations"), ("research",), True)
    assert isinstance(s.tool_names, tuple)


def test_h005_identity_and_scope_errors():
    with pytest.raises(ZhinSkillError) as e:
        parse("---\nname: deploy\n---\n# Research", source="/p/skills/research/SKILL.md")
    assert str(e.value) == "Skill /p/skills/research/SKILL.md name deploy must match directory research"
    assert (e.value.field, e.value.line) == ("name", 2)
    with pytest.raises(ZhinSkillError) as e:
        parse("---\nscopes: [dm]\n---\n# Research")
    assert str(e.value) == "Skill frontmatter scopes must be private, group, or channel"


@pytest.mark.parametrize(
    "text, message",
    [
        ("   \n\n", "Skill S must contain Markdown instructions"),
        ("---\nname: research\n---\n   \n", "Skill S must contain Markdown instructions"),
        ("---\n- a\n- b\n---\n# R", "Skill S frontmatter must be an object"),
        ("---\nname: ''\n---\n# R", "Skill frontmatter name must be a non-empty string"),
        ("---\ndescription:\n---\n# R", "Skill frontmatter description must be a non-empty string"),
        ("---\ntags: [ok, '  ']\n---\n# R", "Skill frontmatter tags must contain non-empty strings"),
        ("---\ntools: web_search\n---\n# R", "Skill frontmatter tools must contain non-empty strings"),
        ("---\nalways: 'yes'\n---\n# R", "Skill frontmatter always must be a boolean"),
    ],
)
def test_z2_parse_error_texts(text, message):
    with pytest.raises(ZhinSkillError) as e:
        parse(text, source="S")
    assert str(e.value) == message


def test_z2_description_defaults_and_yaml_rules():
    assert parse("Intro line\n\n  ## Setup steps  \nmore").description == "Setup steps"
    assert parse("no heading at all").description == "research"
    assert parse("#hashtag only\n###   Real one").description == "Real one"
    assert parse("---\ndescription: '  padded  '\n---\nB").description == "padded"
    assert parse("---\nname: yes\n---\nB", local="yes").name == "yes"  # YAML 1.2: a string
    with pytest.raises(ZhinSkillError) as e:
        parse("---\ntags: [a]\ntags: [b]\n---\nB")
    assert e.value.code == "yaml-error"  # duplicate keys are refused, as js-yaml does
    # frontmatter needs `---` + newline exactly; `---yaml` is not frontmatter (whole file = instructions)
    assert parse("---yaml\nname: x\n---\n# T").instructions == "---yaml\nname: x\n---\n# T"


def test_h040_heading_description():
    assert parse("# Research v1\n\nResearch carefully.\n").description == "Research v1"


def test_z1_invalid_folder_names_are_reported_not_loaded(tmp_path):
    write(tmp_path / "skills/My_Skill/SKILL.md", "# Mine")
    write(tmp_path / "skills/-lead/SKILL.md", "# Lead")
    write(tmp_path / "skills/ok-1/SKILL.md", "# Ok")
    write(tmp_path / "agents/Bad/skills/x/SKILL.md", "# X")
    gen = build_zhin_generation(str(tmp_path))
    assert [s.name for s in gen.sources] == ["ok-1"]
    assert sorted(r.name for r in gen.rejected) == ["-lead", "My_Skill", "x"]
    assert all(r.diagnostics[0].code == "dir-name-invalid" for r in gen.rejected)
    assert {w.kind for w in gen.warnings} == {"dir-name-invalid"}


def test_z1_rejected_skill_keeps_zhin_message_and_paths(tmp_path):
    f = write(tmp_path / "skills/research/SKILL.md", "---\nname: deploy\n---\n# Research")
    gen = build_zhin_generation(str(tmp_path), paths=["missing-dir"])
    (rej,) = gen.rejected
    assert rej.warning.message == f"Skill {f} name deploy must match directory research"
    assert rej.diagnostics[-1].code == "name-mismatch"
    assert rej.frontmatter == {"name": "deploy"}
    missing = str(tmp_path / "missing-dir")
    assert [(w.kind, w.message) for w in gen.warnings if w.kind == "PathNotFound"] == [
        ("PathNotFound", f"skill path not found: {missing}")
    ]


def test_h3_keep_last_valid_and_aliases(tmp_path):
    f = write(tmp_path / "skills/research/SKILL.md", "---\ndescription: good\n---\n# R")
    other = tmp_path / "other"
    (other / "skills").mkdir(parents=True)
    os.symlink(tmp_path / "skills/research", other / "skills/research")
    first = build_zhin_generation(str(tmp_path), paths=[str(other)])
    (src,) = first.sources
    assert src.aliases == (str(other / "skills/research/SKILL.md"),)
    write(f, "---\ntags: nope\n---\n# R")
    second = build_zhin_generation(str(tmp_path), paths=[str(other)], previous=first)
    assert second.number == 2
    (kept,) = second.sources
    assert kept.status is Status.KEPT_LAST_VALID and kept.description == "good"
    assert "kept-last-valid" in [w.kind for w in second.warnings]
    assert second.digest != first.digest


def test_non_utf8_loads_with_replacement_and_warning(tmp_path):
    write(tmp_path / "skills/bytes/SKILL.md", b"# Caf\xe9 notes\n")
    (src,) = build_zhin_generation(str(tmp_path)).sources
    assert src.description == "Caf\ufffd notes"
    assert [d.code for d in src.diagnostics] == ["not-utf8"]


# ---- B. qualified names and nested owners ----------------------------------------------------


def test_h006_qualified_tool_names():
    assert qualified_tool_name("research", "search") == "skill__research__search"
    assert qualified_tool_name("audit", "report", "reviewer") == "agent__reviewer__skill__audit__report"


def test_h002_h008_nearest_owner():
    owned = {(): {"review": "Root review", "shared": "root", "global": "global"},
             ("child",): {"review": "Child review", "shared": "child"}}
    assert resolve_nearest_owner("review", ("child",), owned) == "Child review"
    assert resolve_nearest_owner("review", (), owned) == "Root review"
    assert resolve_nearest_owner("global", ("child",), owned) == "global"
    assert resolve_nearest_owner("nothing", ("child",), owned) is None
    names = sorted(qualified_skill_name(owner, n) for owner, skills in [((), ["shared", "global"]),
                                                                         (("child",), ["shared"])]
                   for n in skills)
    assert names == ["child__shared", "global", "shared"]
    assert qualified_skill_name((), "agent/planner/review") == "agent__planner__review"


# ---- F. catalog ------------------------------------------------------------------------------


def test_h025_catalog_section_exact(tmp_path):
    write(tmp_path / "skills/demo/SKILL.md", "---\ndescription: " + "x" * 200 + "\n---\nB")
    gen = build_zhin_generation(str(tmp_path))
    assert render_zhin_catalog(gen.sources) == (
        "# Skills (catalog)\n - demo: " + "x" * 95 + "…\n\n" + CATALOG_INSTRUCTION
    )
    assert CATALOG_INSTRUCTION == (
        "Use discover(kind) to find matching skills, load_skill for instructions, then load_tool or "
        "call unlocked tools. Delegate specialist work with spawn_task."
    )


def test_z3_cut_and_collapse():
    assert catalog_description("y" * 96) == "y" * 96
    assert catalog_description("y" * 97) == "y" * 95 + "…"
    assert catalog_description("  a \n\t b  ") == "a b"
    assert catalog_description("a" * 94 + "  b" + "c" * 10) == "a" * 94 + " " + "…"


def test_z3_name_order_and_h011_agent_private_only_for_selected_agent(tmp_path):
    write(tmp_path / "skills/zeta/SKILL.md", "# Zeta")
    write(tmp_path / "skills/alpha/SKILL.md", "# Alpha")
    write(tmp_path / "agents/planner/skills/research/SKILL.md", "# Plan research")
    gen = build_zhin_generation(str(tmp_path))
    assert render_zhin_catalog(gen.sources).split("\n")[1:3] == [" - alpha: Alpha", " - zeta: Zeta"]
    assert " - research" not in render_zhin_catalog(gen.sources)
    assert " - research: Plan research" in render_zhin_catalog(gen.sources, agent="planner").split("\n")
    assert render_zhin_catalog([]) == ""


# ---- E. load_skill extraction ----------------------------------------------------------------

NINJA = "---\nname: ninja\ndescription: test skill\n---\n\n## 执行规则\nDo the thing.\n"


def test_h017_h019_rules_section():
    out = zhin_load_text(("ninja", NINJA))
    assert out == HEADER.format("ninja") + "\n\n## 执行规则\nDo the thing.\n\n" + ACT_NOW
    assert "Do the thing" in out


def test_z4_rules_beat_workflow_and_workflow_is_case_insensitive():
    text = "---\nname: a\n---\n## WORKFLOW\n1. one\n## 执行规则\nrule\n## Next\nx"
    assert zhin_load_text(("a", text)).split("\n")[2:4] == ["## 执行规则", "rule"]
    wf = "# A\n\nintro\n\n## workflow\n1. one\n2. two\n\n## Other\nx"
    assert zhin_load_text(("a", wf)) == HEADER.format("a") + "\n\n## workflow\n1. one\n2. two\n\n" + ACT_NOW


def test_z4_workflow_never_truncated():
    long = "## Instructions\n" + "w" * 5000
    out = zhin_load_text(("a", long))
    assert "w" * 5000 in out and "...(truncated)" not in out


def test_z4_guide_with_truncation_marker():
    body = "Short intro.\n\n## Details\n" + "d" * 5000
    out = zhin_load_text(("a", body))
    detail = ("## Details\n" + "d" * 5000)[:4000]
    assert out == (HEADER.format("a") + "\n\n## 指导\nShort intro.\n\n" + detail + "\n...(truncated)\n\n" + ACT_NOW)
    wide = zhin_load_text(("a", body), limit=8000)
    assert "d" * 5000 + "\n\n" + ACT_NOW in wide and "...(truncated)" not in wide


def test_z4_guide_quick_start_and_auth_detail():
    text = "---\nname: a\n---\n\n" + "i" * 250 + "\n## Quick Start\nqs\n## Auth\nau\n## Misc\nm"
    out = zhin_load_text(("a", text))
    assert out == (HEADER.format("a") + "\n\n## 指导\n" + "i" * 250 + "\n\n## Quick Start\nqs\n\n## Auth\nau\n\n" + ACT_NOW)


def test_z4_long_intro_without_sections_has_no_detail():
    text = "i" * 300 + "\n## Misc\nm"
    assert zhin_load_text(("a", text)) == HEADER.format("a") + "\n\n## 指导\n" + "i" * 300 + "\n\n" + ACT_NOW


def test_z4_quick_actions_only_at_small_limits():
    text = "---\nname: a\n---\nintro\n## Quick Actions\n- go\n## 执行规则\nrule"
    small = zhin_load_text(("a", text), limit=2000)
    assert small == HEADER.format("a") + "\n\n## Quick Actions\n- go\n\n" + ACT_NOW
    assert "## 执行规则\nrule" in zhin_load_text(("a", text), limit=2001)


def test_z4_tools_block_only_for_block_lists():
    block = "---\nname: a\ntools:\n  - memory_upsert\n  - memory_search\n---\n## 执行规则\nr"
    assert zhin_load_text(("a", block)).split("\n")[2:6] == [
        "## 可用工具", ["tools:", "  - memory_upsert", "  - memory_search"][0], "  - memory_upsert",
        "  - memory_search"]
    flow = "---\nname: a\ntools: [x, y]\n---\n## 执行规则\nr"
    assert "## 可用工具" not in zhin_load_text(("a", flow))


def test_z4_empty_body_and_bad_limit():
    assert zhin_load_text(("a", "---\nname: a\n---\n")) == HEADER.format("a") + "\n\n" + ACT_NOW
    with pytest.raises(ValueError, match="Skill instruction maxChars must be a positive integer"):
        zhin_load_text(("a", "x"), limit=0)


def test_z4_reads_the_source_file(tmp_path):
    write(tmp_path / "skills/ninja/SKILL.md", NINJA)
    (src,) = build_zhin_generation(str(tmp_path)).sources
    assert zhin_load_text(src) == zhin_load_text(("ninja", NINJA))


# ---- Z5 dependencies, always -----------------------------------------------------------------


def test_z5_missing_deps_one_warning():
    fm = {"compatibility": {"deps": ["git", "  ", 7, "nope-cli", "also-missing"]}}
    d = check_deps(fm, which=lambda n: "/usr/bin/git" if n == "git" else None)
    assert d.severity is Severity.WARNING and d.code == "missing-deps"
    assert d.message == "⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能：nope-cli, also-missing"
    assert check_deps(fm, which=lambda n: "/x") is None
    assert check_deps({"deps": ["nope"]}, which=lambda n: None) is None  # only compatibility.deps


def test_z5_dependency_warning_prefixes_instructions():
    text = "---\nname: a\ncompatibility:\n  deps: [nope-cli]\n---\n## 执行规则\nr"
    out = zhin_read_instructions(("a", text), which=lambda n: None)
    assert out == "⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能：nope-cli\n\n" + zhin_load_text(("a", text))


def test_z5_deps_checked_on_given_path_in_generation(tmp_path):
    write(tmp_path / "skills/a/SKILL.md", "---\ncompatibility:\n  deps: [zz-tool]\n---\n# A")
    bindir = tmp_path / "bin"
    (src,) = build_zhin_generation(str(tmp_path), search_path=str(bindir)).sources
    assert [d.code for d in src.diagnostics] == ["missing-deps"]
    write(bindir / "zz-tool", "#!/bin/sh\n")
    os.chmod(bindir / "zz-tool", 0o755)
    (src,) = build_zhin_generation(str(tmp_path), search_path=str(bindir)).sources
    assert src.diagnostics == ()


def test_z5_always_skills_count_against_selected_budget(tmp_path):
    write(tmp_path / "skills/base/SKILL.md", "---\nalways: true\n---\n\n" + "b" * 41 + "\n")
    write(tmp_path / "skills/other/SKILL.md", "---\nalways: false\n---\n# O")
    write(tmp_path / "agents/p/skills/priv/SKILL.md", "---\nalways: true\n---\n# P")
    gen = build_zhin_generation(str(tmp_path))
    bodies = always_bodies(gen)
    assert [(b.label, b.tokens) for b in bodies] == [("always: base", 11)]
    base = gen.sources[0]
    assert "always-injected" in [d.code for d in base.diagnostics]


# ---- corpus ----------------------------------------------------------------------------------

ZHIN_PLUGINS = ["examples/full-bot", "examples/test-bot", "packages/toolkit/create-zhin/template", ".github"]


@pytest.mark.skipif(not ZHIN_CORPUS.is_dir(), reason="../shared/corpus/zhinjs__zhin is absent")
def test_h041_h044_zhin_corpus_catalog_via_catalog_open(tmp_path):
    from skillshelf.core.catalog import Catalog
    from skillshelf.core.paths import Environment

    env = Environment.from_mapping({"HOME": str(tmp_path)})
    cat = Catalog.open(str(ZHIN_CORPUS), env=env, host="zhin",
                       paths=[str(ZHIN_CORPUS / p) for p in ZHIN_PLUGINS], pull_remote=False)
    gen = cat.current
    names = {s.name for s in gen.sources}
    assert {"skill-creator", "summarize", "github", "plugin-init", "plugin-develop", "plugin-test",
            "plugin-quality", "plugin-publish", "memory-consolidate"} <= names
    assert gen.rejected == ()
    text = render_zhin_catalog(gen.sources)
    lines = text.split("\n")
    assert lines[0] == "# Skills (catalog)" and lines[-1] == CATALOG_INSTRUCTION and lines[-2] == ""
    rows = lines[1:-2]
    assert len(rows) == len(gen.sources)
    assert [r.split(":")[0] for r in rows] == sorted(f" - {n}" for n in names)
    for s in gen.sources:
        line = f" - {s.name}: {catalog_description(s.description)}"
        assert line in rows and len(catalog_description(s.description)) <= 96
    mem = gen.get("memory-consolidate")
    body = zhin_load_text(mem)
    assert "memory_upsert" in body and "memory_search" in body  # H044
    assert body.split("\n")[2] == "## 可用工具" and body.endswith(ACT_NOW)
