"""What each host says for the browser's source pane (``HostSession.source_facts``) and what it
hands the model when a skill is loaded, page by page (``HostSession.load_page``): SPEC L3–L6
(zuno's skill tool), Z3–Z5 (zhin's load_skill text, facts and always-injected instructions)."""

from __future__ import annotations

from pathlib import Path

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.base import Fact
from skillshelf.core.hosts.zuno.loading import body_first_line, body_only
from skillshelf.core.model import Severity
from skillshelf.core.paths import Environment
from skillshelf.core.tool import READ_PAGE_CONTENT_BYTES


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_l3_body_first_line_is_the_line_after_the_frontmatter(tmp_path):
    f = tmp_path / "SKILL.md"
    f.write_text("---\nname: a\ndescription: d\n---\n# Title\nline\n", encoding="utf-8")
    assert body_first_line(str(f), "# Title\nline\n") == 5
    assert body_first_line(str(f), "not in the file") == 1
    assert body_first_line(str(tmp_path / "missing.md"), "x") == 1


def test_l3_body_only_strips_the_wrappers():
    out = ("Loaded skill `a`.\nSource: `/p/a/SKILL.md`\nResource root: `/p/a`\nhint\n\n--- BEGIN SKILL BODY ---\n"
           "line --- BEGIN SKILL BODY ---\nmore\n--- END SKILL BODY ---")
    assert body_only(out, "/p/a/SKILL.md") == "line --- BEGIN SKILL BODY ---\nmore"


def _zuno(tmp_path: Path) -> Catalog:
    (tmp_path / "w" / ".git").mkdir(parents=True)
    skills = tmp_path / "w" / ".zuno" / "skill"
    _write(skills / "big" / "SKILL.md", "---\nname: big\ndescription: Big\n---\n" + ("y" * 99 + "\n") * 1500)
    _write(skills / "big" / "notes.md", "Notes.\n")
    _write(skills / "empty" / "SKILL.md", "---\nname: empty\ndescription: Nothing\n---\n  \n")
    env = Environment.from_mapping({"HOME": str(tmp_path / "home")})
    return Catalog.open(str(tmp_path / "w"), env=env, pull_remote=False)


def test_l3_zuno_pages_follow_the_tool_cursors(tmp_path):
    cat = _zuno(tmp_path)
    big = next(s for s in cat.current.sources if s.name == "big")
    session = cat.session
    (select,) = session.source_facts(big)  # Z-A: $name, /name and the bare name
    assert (select.label, select.value, select.detail) == ("select", "3 of 3 ways select it", (
        "$big  preloads this skill", "/big  runs this skill",
        "big (in a prompt)  preloads this skill when the word stands alone"))
    first = session.load_page(big)
    assert (first.label, first.pages, first.first_line, first.complete) == ("skill tool load", 3, 5, False)
    assert first.text.startswith("Loaded skill `big`.") and "--- BEGIN SKILL BODY ---" in first.text
    assert len(first.body.encode()) == READ_PAGE_CONTENT_BYTES and first.body in first.text
    second = session.load_page(big, first.next_cursor)
    assert second.text.startswith("Continuing skill `big`.") and second.pages is None and second.first_line is None
    third = session.load_page(big, second.next_cursor)
    assert third.complete and third.next_cursor is None
    assert first.body + second.body + third.body == ("y" * 99 + "\n") * 1500
    notes = session.load_page(big, resource="notes.md")
    assert (notes.label, notes.body, notes.pages, notes.first_line) == ("skill tool read_resource", "Notes.\n", 1, 1)


def test_l6_zuno_refusals_are_errors_not_raised(tmp_path):
    cat = _zuno(tmp_path)
    empty = next(s for s in cat.current.sources if s.name == "empty")
    page = cat.session.load_page(empty)
    assert (page.error_code, page.text, page.complete) == ("bodyless", "", True)
    assert page.error.startswith("Skill `empty` was discovered but its body is empty")
    missing = cat.session.load_page(empty, resource="no/such.md")
    assert missing.error_code == "resource-unavailable"


def test_z3_z5_zhin_facts_page_and_injected_instructions(tmp_path):
    root = tmp_path / "bot"
    (root / ".git").mkdir(parents=True)
    _write(root / "skills" / "weather" / "SKILL.md",
           "---\nname: weather\ndescription: Look up the weather\ncompatibility:\n  deps:\n    - sh\n    - no-such-cli\n"
           "---\n\n## Workflow\n\n1. Ask.\n")
    (root / "skills" / "weather" / "tools" / "forecast").mkdir(parents=True)
    _write(root / "skills" / "greeter" / "SKILL.md",
           "---\nname: greeter\ndescription: Greets\nalways: true\n---\n\n## 执行规则\nSay hello.\n")
    _write(root / "agents" / "rev" / "skills" / "audit" / "SKILL.md",
           "---\nname: audit\ndescription: Audit\nalways: true\n---\nCheck.\n")
    env = Environment.from_mapping({"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"})
    cat = Catalog.open(str(root), env=env, host="zhin", pull_remote=False)
    by_name = {s.name: s for s in cat.current.sources}
    facts = cat.session.source_facts(by_name["weather"])
    assert facts[0] == Fact("catalog", " - weather: Look up the weather")
    assert facts[1] == Fact("tools", "1 private  locked until load_skill", ("🔒 skill__weather__forecast",),
                            Severity.WARNING)
    assert facts[2].label == "deps" and facts[2].value.endswith("no-such-cli") and facts[2].severity is Severity.WARNING
    assert Fact("agent", "rev  (agent-private: listed only for this agent)") in cat.session.source_facts(by_name["audit"])
    page = cat.session.load_page(by_name["weather"])
    assert (page.label, page.pages, page.complete, page.body, page.injected) == ("load_skill text", 1, True, None, None)
    assert page.text.startswith("⚠️ 当前环境缺少以下依赖，请先安装后再使用本技能：no-such-cli\n\nSkill 'weather' loaded.")
    assert cat.session.load_page(by_name["greeter"]).injected == "## 执行规则\nSay hello."
    assert cat.session.load_page(by_name["audit"]).injected is None  # agent-private: only for its agent
    refused = cat.session.load_page(by_name["weather"], resource="tools/forecast")
    assert refused.error_code == "no-resources" and refused.text == ""
    # agent-private roots carry the agent in the host's words
    assert [r.label for r in cat.current.roots if r.label] == ["agent:rev"]
