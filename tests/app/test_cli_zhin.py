"""``--host zhin`` on the CLI (SPEC Z1–Z4, C): index prints the catalog section, tool loads with
Zhin's extraction, debug lists rejected directory names. Fixture plugin written here."""

from __future__ import annotations

import json
from pathlib import Path

from skillshelf.app.cli import main

LONG = "Research with primary sources and cite every claim; " * 3  # > 96 characters once collapsed


def plugin(root: Path) -> Path:
    (root / "skills/research").mkdir(parents=True)
    (root / "skills/research/SKILL.md").write_text(
        f"---\nname: research\ndescription: {LONG.strip()}\n---\n# Research\n\nIntro line.\n\n"
        "## Workflow\n\n1. Search.\n2. Cite.\n\n## Notes\n\nExtra.\n",
        encoding="utf-8",
    )
    (root / "skills/deploy").mkdir(parents=True)
    (root / "skills/deploy/SKILL.md").write_text("# Deploy   the  app\n\nDo it.\n", encoding="utf-8")
    (root / "skills/Bad_Name").mkdir(parents=True)
    (root / "skills/Bad_Name/SKILL.md").write_text("# Bad\n", encoding="utf-8")
    (root / "agents/reviewer/skills/audit").mkdir(parents=True)
    (root / "agents/reviewer/skills/audit/SKILL.md").write_text("# Audit\n\nCheck.\n", encoding="utf-8")
    return root


def test_index_host_zhin_prints_the_catalog_section(zuno_home, capsys):
    p = plugin(zuno_home / "plug")
    assert main(["index", "--host", "zhin", "--cwd", str(p)]) == 0
    out = capsys.readouterr().out
    collapsed = " ".join(LONG.split())
    assert out == (
        "# Skills (catalog)\n"
        " - deploy: Deploy the app\n"
        f" - research: {collapsed[:95]}…\n"
        "\n"
        "Use discover(kind) to find matching skills, load_skill for instructions, then load_tool or call "
        "unlocked tools. Delegate specialist work with spawn_task.\n"
    )
    assert main(["index", "--host", "zhin", "--json", "--cwd", str(p)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["host"], doc["rendered"], doc["truncatedNames"]) == ("zhin", 2, ["research"])


def test_tool_host_zhin_loads_the_workflow_section_with_the_act_now_ending(zuno_home, capsys):
    p = plugin(zuno_home / "plug")
    assert main(["tool", '{"action":"load","name":"research"}', "--host", "zhin", "--cwd", str(p)]) == 0
    out = capsys.readouterr().out.rstrip("\n")
    assert out.startswith("Skill 'research' loaded. 请立即根据以下指导执行工具调用：")
    assert "## Workflow\n\n1. Search.\n2. Cite." in out
    assert "Extra." not in out  # the Workflow section stops at the next `## `
    assert out.endswith(
        "## 立即行动\n根据上面的指导，立即调用工具完成用户请求。禁止重复调用 load_skill，禁止用文本描述代替实际工具调用。"
    )
    assert main(["tool", '{"action":"load","name":"missing"}', "--host", "zhin", "--cwd", str(p)]) == 1
    assert capsys.readouterr().out.rstrip("\n") == "Skill 'missing' not found in the active generation."


def test_debug_host_zhin_reports_bad_directory_names_and_agent_private_skills(zuno_home, capsys):
    p = plugin(zuno_home / "plug")
    assert main(["debug", "skill", "--json", "--host", "zhin", "--cwd", str(p)]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_name = {s["name"]: s for s in doc["sources"]}
    assert by_name["deploy"]["description"] == "Deploy   the  app"  # Z2: first heading, raw
    assert by_name["audit"]["provenance"] == "zhin-agent"
    assert [r["location"] for r in doc["rejected"]] == [str(p / "skills/Bad_Name/SKILL.md")]
    assert {r["pattern"] for r in doc["roots"]} == {"skills/*/SKILL.md"}
    assert all(s["lint"]["target"] == "zhin" for s in doc["sources"])
