"""Host ``codex`` without the real client: exact values observed on Codex CLI 0.171.0 for the
same workspaces (tests/clients/test_codex_agreement.py asks the client itself)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients"))
from codex_workspaces import budget_workspace, rules_workspace, skill, write

from skillshelf.core.catalog import Catalog
from skillshelf.core.compare import CellState, compare
from skillshelf.core.hostlint import host_lint_file
from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.base import EntryState, HostContext
from skillshelf.core.hosts.codex.catalog import PROSE, Budget, budget_for, cap, prose_texts
from skillshelf.core.hosts.codex.discovery import CodexConfig, listing
from skillshelf.core.hosts.codex.parse import ParseError, error_line, extract_frontmatter, parse_skill, repair
from skillshelf.core.model import Status
from skillshelf.core.paths import Environment

NO_CODEX = {"PATH": "/nonexistent"}


@pytest.fixture
def rules(tmp_path):
    ws, home, _ = rules_workspace(str(tmp_path))
    return tmp_path, ws, home


def rel(base, path: str) -> str:
    return os.path.relpath(path, base)


def test_listing_order_names_and_paths(rules):
    base, ws, home = rules
    found = listing(CodexConfig(ws, home, {"HOME": home}))
    got = [(s.scope, s.name, rel(base, s.path)) for s in found.skills]
    assert got[:7] == [
        ("repo", "123", "up/repo/.agents/skills/parse/name-int/SKILL.md"),
        ("repo", "Upper Case: Name", "up/repo/.agents/skills/Upper Case/SKILL.md"),
        ("repo", "colon", "up/repo/.agents/skills/parse/colon/SKILL.md"),
        ("repo", "crlf", "up/repo/.agents/skills/parse/crlf/SKILL.md"),
        ("repo", "cwd-agents", "up/repo/a/b/.agents/skills/cwd-agents/SKILL.md"),
        ("repo", "cwd-codex", "up/repo/a/b/.codex/skills/cwd-codex/SKILL.md"),
        ("repo", "dashes", "up/repo/.agents/skills/parse/dashes/SKILL.md"),
    ]
    assert got[-3:] == [("user", "home-agents", "home/.agents/skills/home-agents/SKILL.md"),
                        ("user", "home-codex", "home/.codex/skills/home-codex/SKILL.md"),
                        ("user", "same", "home/.agents/skills/same-b/SKILL.md")]
    names = [s.name for s in found.skills]
    # six levels are read, the seventh is not; dot folders and file symlinks are skipped
    assert "depth-6" in names and "depth-7" not in names
    assert not {"hidden", "filelink", "top-claude", "top-singular", "above", "home-gemini"} & set(names)
    # every copy of a name is listed; node_modules and nested skills are read
    assert names.count("same") == 2 and {"nm", "inner", "outer", "root-file"} <= set(names)
    linked = next(s for s in found.skills if s.name == "linked")
    assert rel(base, linked.path) == "elsewhere/linked-target/SKILL.md"  # resolved in skills/list
    assert rel(base, linked.discovered) == "up/repo/.agents/skills/linked/SKILL.md"  # as walked
    assert next(s for s in found.skills if s.name == "folded").description == "Folded one two"
    assert next(s for s in found.skills if s.name == "dashes").description == "a---b"
    assert next(s for s in found.skills if s.name == "short").short_description == "Shorter"
    assert "atlas" not in " ".join(names)  # a sidecar for another product removes the skill


def test_error_records_are_codex_messages_in_walk_order(rules):
    base, ws, home = rules
    found = listing(CodexConfig(ws, home, {"HOME": home}))
    got = [(rel(base, e.path).split("/parse/")[1].split("/")[0], e.message) for e in found.errors]
    assert got == [
        ("blank-first", "missing YAML frontmatter delimited by ---"),
        ("bom", "missing YAML frontmatter delimited by ---"),
        ("dup-key", "invalid YAML: duplicate field `name`"),
        ("empty-block", "missing YAML frontmatter delimited by ---"),
        ("empty-desc", "missing field `description`"),
        ("long-name", "invalid name: exceeds maximum length of 64 characters"),
        ("meta-string", 'invalid YAML: metadata: invalid type: string "hello", expected struct '
                        "SkillFrontmatterMetadata at line 3 column 11"),
        ("name-list", "invalid YAML: name: invalid type: sequence, expected a string at line 1 column 7"),
        ("no-desc", "missing field `description`"),
        ("no-frontmatter", "missing YAML frontmatter delimited by ---"),
        ("not-utf8", "failed to read file: invalid utf-8 sequence of 1 bytes from index 36"),
        ("quoted-colon", "invalid YAML: did not find expected key at line 2 column 23, while parsing a block mapping"),
        ("tab", "invalid YAML: found a tab character where an indentation space is expected at line 3 column 1, "
                "while scanning a block scalar at line 2 column 14"),
        ("two-docs", "invalid YAML: deserializing from YAML containing more than one document is not supported"),
        ("unclosed", "missing YAML frontmatter delimited by ---"),
    ]


def test_generation_statuses_reasons_and_rejections(rules):
    base, ws, home = rules
    gen = Catalog.open(ws, env=Environment.from_mapping({"HOME": home, **NO_CODEX}), host="codex").current
    by_name = {s.name: s for s in gen.sources}
    hidden = by_name["side-hidden"]
    assert hidden.status is Status.HIDDEN and "allow_implicit_invocation: false" in (hidden.status_reason or "")
    assert hidden.display_name == "Side Hidden"
    off = by_name["home-codex"]
    assert (off.status, off.enabled) == (Status.DISABLED, False)
    assert off.disabled_reason == f"[[skills.config]] in {home}/.codex/config.toml sets enabled = false"
    assert by_name["linked"].aliases == (f"{base}/up/repo/.agents/skills/linked/SKILL.md",)
    assert [d.code for d in by_name["no-name"].diagnostics] == ["name-from-folder"]
    assert [d.code for d in by_name["colon"].diagnostics] == ["yaml-repaired"]
    rejected = {os.path.basename(os.path.dirname(r.location)): r for r in gen.rejected}
    assert len(rejected) == 15
    tab = rejected["tab"].diagnostics[0]
    assert (tab.code, tab.line, tab.column) == ("invalid-yaml", 4, 1)  # block line 3 = file line 4
    assert rejected["empty-desc"].diagnostics[0].field == "description"


def test_parser_details():
    assert extract_frontmatter("---\n---\nbody") is None
    assert extract_frontmatter(" ---\t\nname: a\n---\n") == "name: a"
    assert repair("description: Use when: x # c") == "description: 'Use when: x' # c"
    assert repair('description: "quoted" then: colon') is None
    assert repair("description: [unclosed") == "description: '[unclosed'"
    assert repair("description: |\n  a: b\nname: x") is None
    parsed = parse_skill("---\ndescription: d\n---\n", "my folder")
    assert (parsed.name, parsed.name_from_folder) == ("my folder", True)
    with pytest.raises(ParseError, match=r"^missing field `description`$"):
        parse_skill("---\nname: a\ndescription: '   '\n---\n", "a")
    assert error_line("invalid YAML: x at line 3 column 6") == (4, 6)
    assert error_line("missing field `description`") == (None, None)
    assert cap("x" * 1025) == "x" * 1021 + "..." and cap("x" * 1024) == "x" * 1024


def test_budget_rule():
    assert budget_for({}, None, None, None) == (Budget(True, 10_000), "2% of model gpt-6.2-sol's 500,000-token window = "
                                                "10,000 tokens (about 40,000 bytes)")
    assert budget_for({}, None, None, 1_000_000)[0] == Budget(True, 17_440)  # capped at 872,000
    assert budget_for({}, "gpt-5.5", None, None)[0] == Budget(True, 5_440)
    assert budget_for({}, None, 100_000, None)[0] == Budget(True, 2_000)
    assert budget_for({}, None, None, 0)[0] == Budget(False, 8_000)
    assert budget_for({"max_context_tokens": 50_000}, None, None, None)[0] == Budget(True, 10_000)
    assert budget_for({}, None, None, 49)[0] == Budget(True, 1)


def test_prose_markers_have_the_exact_lengths():
    texts, missing = prose_texts(None)
    assert set(missing) == set(PROSE)
    assert {k: len(v) for k, v in texts.items()} == {k: n for k, (n, _) in PROSE.items()}
    assert all(v.isascii() for v in texts.values())


@pytest.mark.parametrize("n, desc_len, window, shown, state", [
    (40, 300, 4_000, 8, EntryState.NAME_ONLY),
    (60, 90, 0, 60, EntryState.LISTED),
    (200, 120, 20_000, 44, EntryState.NAME_ONLY),
])
def test_catalog_fitting(tmp_path, n, desc_len, window, shown, state):
    ws, home, _ = budget_workspace(str(tmp_path), n, desc_len)
    cat = Catalog.open(ws, env=Environment.from_mapping({"HOME": home, **NO_CODEX}), host="codex",
                       context_window=window)
    result = cat.model_catalog()
    lines = [line for line in result.text.split("\n") if line.startswith("- s")]
    assert len(lines) == shown and result.listed == shown
    assert {e.state for e in result.entries[:shown]} == {state}
    assert all(e.state is EntryState.OMITTED for e in result.entries[shown:])
    assert result.text.startswith("<skills_instructions>\n## Skills\n[Codex's own intro aliased text")
    assert "- `r0` = `" in result.text and result.notes


def test_lint_target_codex_is_the_host_verdict(tmp_path):
    path = write(str(tmp_path / "x" / "SKILL.md"), "---\nname: x\n---\nbody\n")
    report = host_lint_file(get_host("codex"), path)
    assert not report.valid and [d.code for d in report.diagnostics] == ["missing-description"]
    ok = write(str(tmp_path / "y" / "SKILL.md"), "---\ndescription: fine\n---\nbody\n")
    report = host_lint_file(get_host("codex"), ok)
    assert report.valid and [d.code for d in report.diagnostics] == ["name-from-folder", "codex-loads"]


def test_compare_explains_what_codex_does_not_read(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    home.mkdir()
    skill(str(repo / ".claude" / "skills"), "only-claude", "only-claude", "claude folder")
    deep = skill(str(repo / ".agents" / "skills"), "a/b/c/d/e/f/g", "deep", "seven levels down")
    skill(str(repo / ".agents" / "skills"), ".dot/x", "dotted", "in a dot folder")
    ctx = HostContext(str(repo), Environment.from_mapping({"HOME": str(home), **NO_CODEX}))
    result = compare(ctx, [get_host("zuno"), get_host("codex"), get_host("claude")])
    cells = {os.path.relpath(r.location, repo): r.cells["codex"] for r in result.rows}
    assert cells[".claude/skills/only-claude/SKILL.md"].state is CellState.NOT_READ
    assert cells[".claude/skills/only-claude/SKILL.md"].reason.startswith(f"Codex 0.171.0 does not read {repo}/.claude/skills")
    assert cells[os.path.relpath(deep, repo)].reason == (
        "7 folder level(s) below project .agents/skills; Codex 0.171.0 reads {0..6 levels}/SKILL.md there")
    assert cells[".agents/skills/.dot/x/SKILL.md"].reason == (
        "in a dot folder below project .agents/skills; Codex 0.171.0 skips dot folders there")
