"""Host ``claude`` (Claude Code 2.1.332), one test per rule, without the real client.

Every expected value here was worked out from the rule (and agrees with the real client, see
tests/clients/test_claude_agreement.py). Workspaces are built per test under ``tmp_path``; the
managed folder points into it so the machine's ``/etc/claude-code`` never matters.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from skillshelf.core.catalog import Catalog
from skillshelf.core.hostlint import host_lint_file
from skillshelf.core.hosts import HOSTS, get_host
from skillshelf.core.hosts.base import EntryState, HostContext
from skillshelf.core.hosts.claude import BUILTIN_SCHEME, ClaudeHost
from skillshelf.core.hosts.claude.bunyaml import YamlError
from skillshelf.core.hosts.claude.bunyaml import parse as bun_yaml
from skillshelf.core.hosts.claude.parse import parse_skill, split_frontmatter
from skillshelf.core.hosts.claude.text import js_string, locale_sorted, sanitize, width
from skillshelf.core.model import Provenance, Severity, Status
from skillshelf.core.paths import Environment
from skillshelf.core.tool import ToolError

HEADER = "The following skills are available for use with the Skill tool:\n\n"
#: Full catalog lines of the 13 built-ins in terminal columns: 11 fixed (6,039) + init 67 + security-review 90.
BUILTIN_FIXED = 6039


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def skill(root: Path, folder: str, text: str | bytes) -> Path:
    return write(root / folder / "SKILL.md", text)


def fm(name: str | None, description: str | None, extra: str = "", body: str = "Body.\n") -> str:
    lines = ["---"] + ([f"name: {name}"] if name is not None else []) + (
        [f"description: {description}"] if description is not None else []) + ([extra] if extra else []) + ["---"]
    return "\n".join(lines) + "\n" + body


class WS:
    """A workspace: ``home``, ``ws`` (a git root), the managed folder; ``open()`` builds."""

    def __init__(self, tmp: Path, *, git: bool = True, cwd: Path | None = None) -> None:
        self.tmp = tmp
        self.home = tmp / "home"
        self.home.mkdir(exist_ok=True)
        self.ws = tmp / "ws"
        self.ws.mkdir(exist_ok=True)
        if git:
            (self.ws / ".git").mkdir(exist_ok=True)
        self.cwd = cwd or self.ws
        self.managed = tmp / "managed"
        self.user = self.home / ".claude" / "skills"
        self.project = self.ws / ".claude" / "skills"

    def context(self, env: dict[str, str] | None = None, **kw: object) -> HostContext:
        return HostContext(cwd=str(self.cwd), env=Environment.from_mapping({"HOME": str(self.home), **(env or {})}),
                           **kw)  # type: ignore[arg-type]

    def open(self, env: dict[str, str] | None = None, **kw: object) -> Catalog:
        return Catalog.from_context(ClaudeHost(managed_dir=str(self.managed)), self.context(env, **kw))

    def files(self, env: dict[str, str] | None = None, **kw: object) -> list:  # type: ignore[type-arg]
        return [s for s in self.open(env, **kw).current.sources if not s.location.startswith(BUILTIN_SCHEME)]

    def lines(self, env: dict[str, str] | None = None, **kw: object) -> list[str]:
        text = self.open(env, **kw).model_catalog().text
        assert text.startswith(HEADER)
        return [ln for ln in text[len(HEADER):].split("\n") if not ln.startswith("- ") or
                ln.split(":")[0][2:].split(" ")[0] not in BUILTINS]


BUILTINS = {"dataviz", "update-config", "keybindings-help", "code-review", "simplify", "fewer-permission-prompts",
            "loop", "claude-api", "workflow-authoring", "run", "plugin-authoring", "init", "security-review"}


@pytest.fixture
def w(tmp_path: Path) -> WS:
    return WS(tmp_path)


def listed(sources: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(s.name, s.location) for s in sources if s.status is Status.OK]


# ------------------------------------------------------------------------------------- registry

def test_registered_with_client_and_version() -> None:
    host = get_host("claude")
    assert (host.name, host.client, host.version, host.describe()) == ("claude", "Claude Code", "2.1.332",
                                                                        "Claude Code 2.1.332")
    names = list(HOSTS)
    assert names[:3] == ["zuno", "zhin", "claude"]


# ------------------------------------------------------------------------------------- roots

def test_roots_precedence_managed_user_project_parent(tmp_path: Path) -> None:
    w = WS(tmp_path, cwd=tmp_path / "ws" / "sub")
    w.cwd.mkdir()
    for root, who in ((w.managed / ".claude" / "skills", "managed"), (w.user, "user"),
                      (w.ws / "sub" / ".claude" / "skills", "cwd"), (w.project, "parent")):
        skill(root, "k", fm("k", f"{who} copy"))
    srcs = w.files()
    assert [(s.provenance, s.description, s.status) for s in srcs] == [
        (Provenance.MANAGED, "managed copy", Status.OK),
        (Provenance.USER, "user copy", Status.SHADOWED),
        (Provenance.PROJECT, "cwd copy", Status.SHADOWED),
        (Provenance.PROJECT, "parent copy", Status.SHADOWED),
    ]
    winner = str(w.managed / ".claude" / "skills" / "k" / "SKILL.md")
    assert all(s.shadowed_by == (winner,) for s in srcs[1:])
    assert "comes first: Claude Code lists the first copy of 'k' in root order" in (srcs[1].status_reason or "")
    # CLAUDE_CODE_DISABLE_POLICY_SKILLS switches the managed folder off
    off = w.files({"CLAUDE_CODE_DISABLE_POLICY_SKILLS": "1"})
    assert [(s.description, s.status) for s in off] == [("user copy", Status.OK), ("cwd copy", Status.SHADOWED),
                                                        ("parent copy", Status.SHADOWED)]


def test_project_walk_stops_after_the_git_root(tmp_path: Path) -> None:
    w = WS(tmp_path, cwd=tmp_path / "ws" / "a" / "b")
    w.cwd.mkdir(parents=True)
    skill(tmp_path / ".claude" / "skills", "above", fm("above", "above the repo"))
    skill(w.project, "top", fm("top", "repo root"))
    skill(w.ws / "a" / ".claude" / "skills", "mid", fm("mid", "middle"))
    skill(w.cwd / "deeper" / ".claude" / "skills", "below", fm("below", "below the cwd"))
    assert [s.name for s in w.files()] == ["mid", "top"]


def test_project_walk_stops_before_home(tmp_path: Path) -> None:
    w = WS(tmp_path, git=False)
    w.cwd = w.home / "p" / "q"
    w.cwd.mkdir(parents=True)
    skill(w.home / "p" / "q" / ".claude" / "skills", "q", fm("q", "cwd"))
    skill(w.home / "p" / ".claude" / "skills", "p", fm("p", "just below home"))
    skill(w.home / ".claude" / "skills", "u", fm("u", "user root, never a project folder"))
    assert [(s.name, s.provenance) for s in w.files()] == [("u", Provenance.USER), ("q", Provenance.PROJECT),
                                                            ("p", Provenance.PROJECT)]
    w.cwd = w.home  # cwd == HOME: no project folder at all
    assert [(s.name, s.provenance) for s in w.files()] == [("u", Provenance.USER)]


def test_git_file_and_git_link_count_as_the_git_root(tmp_path: Path) -> None:
    w = WS(tmp_path, git=False, cwd=tmp_path / "ws" / "sub")
    w.cwd.mkdir()
    skill(w.project, "top", fm("top", "repo"))
    skill(w.cwd / ".claude" / "skills", "here", fm("here", "cwd"))
    write(w.cwd / ".git", "gitdir: /nonexistent\n")
    assert [s.name for s in w.files()] == ["here"]
    os.remove(w.cwd / ".git")
    os.symlink(tmp_path / "missing", w.cwd / ".git")  # a dangling link is not a git root
    names = [s.name for s in w.files()]
    assert names[:2] == ["here", "top"]


def test_claude_config_dir_replaces_dot_claude(tmp_path: Path) -> None:
    w = WS(tmp_path)
    cfg = tmp_path / "cfg"
    skill(w.user, "default", fm("default", "~/.claude copy"))
    skill(cfg / "skills", "custom", fm("custom", "CLAUDE_CONFIG_DIR copy"))
    skill(cfg / ".claude" / "skills", "nested", fm("nested", "never read"))
    assert [s.name for s in w.files({"CLAUDE_CONFIG_DIR": str(cfg)})] == ["custom"]
    # relative: read from the working directory
    skill(w.ws / "rel" / "skills", "relative", fm("relative", "relative config dir"))
    assert [s.location for s in w.files({"CLAUDE_CONFIG_DIR": "rel"})] == [
        str(w.ws / "rel" / "skills" / "relative" / "SKILL.md")]


def test_add_dir_reads_only_its_dot_claude_skills(tmp_path: Path) -> None:
    w = WS(tmp_path)
    extra = tmp_path / "extra"
    skill(extra / ".claude" / "skills", "added", fm("added", "from --add-dir"))
    skill(extra / "skills", "not-this", fm("not-this", "plain skills folder"))
    skill(w.project, "mine", fm("mine", "project"))
    srcs = w.files(paths=(str(extra),))
    assert [(s.name, s.exposure_reason) for s in srcs] == [("mine", "project .claude/skills"),
                                                           ("added", "--add-dir .claude/skills")]


def test_symlinked_cwd_is_read_through_its_real_path(tmp_path: Path) -> None:
    w = WS(tmp_path)
    skill(w.project, "a", fm("a", "d"))
    os.symlink(w.ws, tmp_path / "link")
    w.cwd = tmp_path / "link"
    assert [s.location for s in w.files()] == [str(w.project / "a" / "SKILL.md")]


# ------------------------------------------------------------------------------------- layout

def test_layout_direct_children_only(w: WS) -> None:
    s = w.project
    skill(s, "plain", fm("plain", "d"))
    skill(s, ".dot", fm("dot", "dot folders count"))
    skill(s, "node_modules", fm("nm", "counts too"))
    skill(s / "node_modules", "inner", fm("inner", "not searched below"))
    skill(s / "group", "nested", fm("nested", "two levels"))
    write(s / "SKILL.md", fm("rootfile", "in the root itself"))
    write(s / "lower" / "skill.md", fm("lower", "wrong case"))
    write(s / "ext" / "SKILL.MD", fm("ext", "wrong case"))
    (s / "dir" / "SKILL.md").mkdir(parents=True)
    skill(s, "synced", fm("synced", "reserved"))
    skill(s, "SYNCED. ", fm("synced2", "reserved, folded"))
    assert [s.name for s in w.files()] == [".dot", "node_modules", "plain"]


def test_reserved_synced_folder_is_explained(w: WS) -> None:
    skill(w.project, "Synced", fm("x", "d"))
    from skillshelf.core.compare import unread_reason

    gen = w.open().current
    why = unread_reason(gen.roots and get_host("claude"), gen.roots, [str(w.project / "Synced" / "SKILL.md")])
    assert why.startswith("inside Synced/ below project .claude/skills; Claude Code 2.1.332 does not look there")


def test_size_limit_is_one_million_bytes(w: WS) -> None:
    head = fm("at", "exactly the limit", body="")
    skill(w.project, "at", head + "x" * (1_000_000 - len(head)))
    skill(w.project, "over", head + "x" * (1_000_001 - len(head)))
    gen = w.open().current
    assert [s.name for s in gen.sources if s.location.startswith(str(w.ws))] == ["at"]
    assert [(r.name, r.warning.message if r.warning else None) for r in gen.rejected] == [
        ("over", "skipping SKILL.md: 1000001 bytes exceeds 1000000 byte limit")]


def test_symlinks_followed_and_reported_under_the_link(w: WS, tmp_path: Path) -> None:
    skill(tmp_path / "store", "real", fm("real-fm", "through a folder link"))
    w.project.mkdir(parents=True)
    os.symlink(tmp_path / "store" / "real", w.project / "linked")
    write(tmp_path / "f.md", fm("f", "SKILL.md itself is a link"))
    (w.project / "filelink").mkdir()
    os.symlink(tmp_path / "f.md", w.project / "filelink" / "SKILL.md")
    os.symlink(tmp_path / "nowhere", w.project / "dangling")
    os.symlink(w.project / "self", w.project / "self")
    os.symlink(tmp_path / "f.md", w.project / "to-file")
    srcs = w.files()
    assert [(s.name, s.location, s.canonical) for s in srcs] == [
        ("filelink", str(w.project / "filelink" / "SKILL.md"), str(tmp_path / "f.md")),
        ("linked", str(w.project / "linked" / "SKILL.md"), str(tmp_path / "store" / "real" / "SKILL.md")),
    ]


def test_same_file_twice_first_spelling_wins(w: WS, tmp_path: Path) -> None:
    skill(tmp_path / "pool", "one", fm("one", "one file"))
    w.user.mkdir(parents=True)
    w.project.mkdir(parents=True)
    os.symlink(tmp_path / "pool" / "one", w.user / "zz-user")
    os.symlink(tmp_path / "pool" / "one", w.project / "aa-project")
    os.symlink(tmp_path / "pool" / "one", w.project / "bb-project")
    srcs = w.files()
    assert [(s.name, s.location, s.aliases) for s in srcs] == [
        ("zz-user", str(w.user / "zz-user" / "SKILL.md"),
         (str(w.project / "aa-project" / "SKILL.md"), str(w.project / "bb-project" / "SKILL.md")))]


def test_hard_links_are_two_files(w: WS) -> None:
    skill(w.user, "hl", fm("hl", "hard linked"))
    (w.project / "hl").mkdir(parents=True)
    os.link(w.user / "hl" / "SKILL.md", w.project / "hl" / "SKILL.md")
    assert [(s.provenance, s.status) for s in w.files()] == [(Provenance.USER, Status.OK),
                                                             (Provenance.PROJECT, Status.SHADOWED)]


# ------------------------------------------------------------------------------------- the frontmatter block

@pytest.mark.parametrize("text, block, body", [
    ("---\nname: a\n---\nB\n", True, "B\n"),
    ("\ufeff---\nname: a\n---\nB\n", True, "B\n"),
    ("\ufeff\ufeff---\nname: a\n---\nB\n", False, "\ufeff\ufeff---\nname: a\n---\nB\n"),
    ("---  \nname: a\n---  \nB\n", True, "B\n"),
    ("---\r\nname: a\r\n---\r\nB\r\n", True, "B\r\n"),
    ("\n---\nname: a\n---\nB\n", False, "\n---\nname: a\n---\nB\n"),
    ("---yaml\nname: a\n---\n", False, "---yaml\nname: a\n---\n"),
    ("---\nname: a\n", False, "---\nname: a\n"),
    ("---\ndescription: a---b\n---\n", True, "b\n---\n"),
    ("---\nname: a\n  ---\nB\n", True, "B\n"),
    ("---\nname: a\n---", True, ""),
])
def test_frontmatter_block_is_the_lazy_regex(text: str, block: bool, body: str) -> None:
    fmt = split_frontmatter(text)
    assert (fmt.block, fmt.body) == (block, body)


def test_dashes_inside_a_value_end_the_block() -> None:
    s = parse_skill(b"---\nname: x\ndescription: first --- second\n---\n", "x")
    assert s.description == "first"


# ------------------------------------------------------------------------------------- YAML

@pytest.mark.parametrize("text, value", [
    ("a: true", True), ("a: TRUE", True), ("a: yes", "yes"), ("a: on", "on"), ("a: ~", None), ("a:", None),
    ("a: 012", 12), ("a: 09", 9), ("a: 0o17", 15), ("a: 0x1F", 31), ("a: 1.", 1.0), ("a: .5", 0.5),
    ("a: 1e3", 1000.0), ("a: 2024-01-02", "2024-01-02"), ("a: 1_000", "1_000"), ("a: 0b101", "0b101"),
    ("a: !custom x", "x"), ("a:\tb", "b"), ("x: &v hi\na: *v", "hi"), ("a: 1\na: 2", 2),
])
def test_bun_yaml_scalars(text: str, value: object) -> None:
    assert bun_yaml(text)["a"] == value


@pytest.mark.parametrize("text", ['a: "x\ny"', "a: b: c", "a: @x", "a: `x", "\ta: b", "a: [1,\n2]", "a: x\x00"])
def test_bun_yaml_refuses(text: str) -> None:
    with pytest.raises(YamlError):
        bun_yaml(text)


def test_js_string_of_yaml_values() -> None:
    assert [js_string(v) for v in (123, 1.5, 1000.0, True, None, ["a", None, 2], {"k": 1}, 1e21, 1e-7)] == [
        "123", "1.5", "1000", "true", "null", "a,,2", "[object Object]", "1e+21", "1e-7"]


def test_quoting_fallback_keeps_the_value() -> None:
    s = parse_skill(b"---\nname: x\ndescription: Use when: the user asks: things # kept\n---\n", "x")
    assert s.description == "Use when: the user asks: things # kept"
    d = [x for x in s.diagnostics if x.code == "claude-yaml-fallback"]
    assert [(x.severity, x.line) for x in d] == [(Severity.INFO, 3)]


def test_tab_indentation_is_fixed_by_the_fallback() -> None:
    s = parse_skill(b"---\nname: x\ndescription: ok\nmetadata:\n\tkey: v\n---\n", "x")
    assert (s.description, s.metadata["metadata"]) == ("ok", {"key": "v"})


def test_yaml_failing_twice_drops_all_metadata() -> None:
    s = parse_skill(b"---\nname: fm\n\tdescription: tabbed\nuser-invocable: false\n---\nFirst line\n", "key")
    assert (s.display, s.description, s.user_invocable, dict(s.metadata)) == (None, "First line", True, {})
    d = next(x for x in s.diagnostics if x.code == "claude-metadata-dropped")
    assert d.severity is Severity.WARNING and d.line == 3


def test_not_a_mapping_means_no_metadata() -> None:
    s = parse_skill(b"---\n- a\n- b\n---\nList body\n", "k")
    assert (dict(s.metadata), s.description) == ({}, "List body")


def test_keys_are_case_sensitive() -> None:
    s = parse_skill(b"---\nName: n\nDescription: D\n---\nBody upper\n", "k")
    assert (s.display, s.description) == (None, "Body upper")
    assert {d.field for d in s.diagnostics if d.code == "claude-key-case"} == {"Name", "Description"}


def test_nul_and_invalid_utf8() -> None:
    assert parse_skill(b"---\nname: n\ndescription: a\x00b\n---\n", "k").description == "Skill"
    s = parse_skill(b"---\nname: n\ndescription: caf\xe9 \xff\n---\n", "k")
    assert s.description == "caf\ufffd \ufffd"
    assert [d.line for d in s.diagnostics if d.code == "claude-not-utf8"] == [3]


# ------------------------------------------------------------------------------------- fields

@pytest.mark.parametrize("text, description", [
    ("---\nname: n\n---\n\n\n  ## The Heading  \n\nText\n", "The Heading"),
    ("---\nname: n\n---\n#NoSpace\n", "#NoSpace"),
    ("---\nname: n\n---\n###\n\nnext\n", "###"),
    ("---\nname: n\n---\n#\tTab heading\n", "Tab heading"),
    ("---\nname: n\n---\n**Bold** and `code`\n", "**Bold** and `code`"),
    ("---\nname: n\n---\n", "Skill"),
    ("", "Skill"),
    ("Title line\n\nMore\n", "Title line"),
    ("\ufeffBOM line\n", "BOM line"),
    ("---\nname: n\ndescription: \"   \"\n---\nFallback\n", "Fallback"),
    ("---\nname: n\ndescription: [a, b]\n---\nList\n", "List"),
    ("---\nname: n\ndescription: {k: v}\n---\nMap\n", "Map"),
    ("---\nname: n\ndescription: 42\n---\n", "42"),
    ("---\nname: n\ndescription: false\n---\n", "false"),
    ("---\nname: n\ndescription: \"  padded  \"\n---\n", "padded"),
    ("---\nname: n\nwhen_to_use: only\n---\nBody line\n", "Body line"),
    ("---\nname: n\ndescription: never closed\n", "---"),
])
def test_description_and_its_fallbacks(text: str, description: str) -> None:
    assert parse_skill(text.encode(), "k").description == description


def test_first_line_over_100_units_is_cut_to_97_plus_dots() -> None:
    s = parse_skill(("word " * 40).encode(), "k")
    assert s.description == ("word " * 40)[:97] + "..."


def test_folding_controls_and_escaping() -> None:
    s = parse_skill(b'---\nname: n\ndescription: "ansi \\e[31mred\\e[0m, tab\\tnew\\nline, zero\\u200bwidth"\n---\n'
, "k")
    assert s.description == "ansi red, tab new line, zero width"
    assert sanitize("a <tag> & \"q\" 'a' ‹x›") == "a &lt;tag&gt; & \"q\" 'a' ‹x›"
    assert sanitize("a\n  b") == "a   b"
    assert sanitize("family 👨\u200d👩\u200d👧 and \u200d alone") == "family 👨\u200d👩\u200d👧 and   alone"
    literal = parse_skill(b"---\nname: n\ndescription: |\n  one\n    two\n  three\n---\n", "k")
    assert literal.description == "one   two three"


def test_when_to_use_joins_the_listing_only() -> None:
    s = parse_skill(b"---\nname: n\ndescription: main\nwhen_to_use: [a, b]\n---\n", "k")
    assert (s.description, s.when, s.listing_description) == ("main", "a,b", "main - a,b")


@pytest.mark.parametrize("value, dmi", [("true", True), ('"yes"', True), ("1", True), ('" TRUE "', True),
                                        ('"off"', False), ("false", False), ("junk", False)])
def test_disable_model_invocation_values(value: str, dmi: bool) -> None:
    assert parse_skill(f"---\nname: n\ndescription: d\ndisable-model-invocation: {value}\n---\n".encode(), "k").dmi is dmi


@pytest.mark.parametrize("value, ui", [(None, True), ("true", True), ('"yes"', True), ("false", False),
                                       ("", False), ("maybe", False)])
def test_user_invocable_values(value: str | None, ui: bool) -> None:
    extra = "" if value is None else f"\nuser-invocable: {value}"
    assert parse_skill(f"---\nname: n\ndescription: d{extra}\n---\n".encode(), "k").user_invocable is ui


@pytest.mark.parametrize("value, paths", [('"src/**/*.py"', ("src/**/*.py",)), ('"**"', None),
                                          ('"src/**"', ("src",)), ("[]", None), ('"a/{x,y}.md"', ("a/x.md", "a/y.md"))])
def test_paths_make_a_skill_conditional(value: str, paths: tuple[str, ...] | None) -> None:
    assert parse_skill(f"---\nname: n\ndescription: d\npaths: {value}\n---\n".encode(), "k").paths == paths


@pytest.mark.parametrize("name, shown", [
    ("123", "123"), ("1.50", "1.5"), ("true", "true"), ("[a, b]", "a,b"), ("{k: v}", "[object Object]"),
    ('""', None), ("a<b>", None), ('"trail "', None), ('"two  spaces"', None), ('"bad\\tname"', None),
    ('"nb\u00a0sp"', None), ("k" * 257, None), ("k" * 256, "k" * 256), ("My Skill/Name: Thing", "My Skill/Name: Thing"),
    ("a&lt;b", None), ('"rocket 😀"', "rocket 😀"),
])
def test_shown_name_rules(name: str, shown: str | None) -> None:
    assert parse_skill(f"---\nname: {name}\ndescription: d\n---\n".encode(), "key").display == shown


@pytest.mark.parametrize("key, refused", [("ok", False), ("D Space", False), ("D:colon", False), (" lead", True),
                                          ("trail ", True), ("two  spaces", True), ("a<b", True), (":x", True),
                                          ("x:", True), ("a :b", True), ("anthropic-skills", True),
                                          ("Anthropic-Skills:x", True)])
def test_folder_names_that_cannot_be_offered(key: str, refused: bool) -> None:
    assert (parse_skill(fm("n", "d").encode(), key).refused is not None) is refused


def test_reserved_frontmatter_name_is_refused(w: WS) -> None:
    skill(w.project, "fine", fm("anthropic-skills:thing", "d"))
    gen = w.open().current
    assert [r.name for r in gen.rejected] == ["fine"]
    assert gen.rejected[0].warning is not None and "reserved for the skills synced" in gen.rejected[0].warning.message


# ------------------------------------------------------------------------------------- identity, hiding

def test_identity_is_the_folder_name(w: WS) -> None:
    skill(w.project, "folder", fm("other-name", "d"))
    skill(w.project, "same", fm("same", "d"))
    srcs = w.files()
    assert [(s.name, s.display_name) for s in srcs] == [("folder", "other-name"), ("same", None)]


def test_hidden_winner_lets_the_next_copy_be_listed(w: WS) -> None:
    skill(w.user, "hid", fm("hid", "hidden user copy", "disable-model-invocation: true"))
    skill(w.project, "hid", fm("hid", "visible project copy"))
    srcs = w.files()
    assert [(s.provenance, s.status) for s in srcs] == [(Provenance.USER, Status.HIDDEN), (Provenance.PROJECT, Status.OK)]
    assert srcs[0].status_reason is not None and srcs[0].status_reason.startswith("disable-model-invocation: only the user")
    assert w.lines() == ["- hid: visible project copy"]


def test_conditional_copy_never_shadows(w: WS) -> None:
    skill(w.user, "cond", fm("cond", "conditional", "paths: ['src/*.py']"))
    skill(w.project, "cond", fm("cond", "plain copy"))
    srcs = w.files()
    assert [(s.provenance, s.status) for s in srcs] == [(Provenance.USER, Status.HIDDEN), (Provenance.PROJECT, Status.OK)]
    assert (srcs[0].status_reason or "").startswith("conditional skill (paths: src/*.py)")


def test_skill_overrides_from_settings(w: WS) -> None:
    for k in ("off", "only", "name", "on"):
        skill(w.user, k, fm(k, f"{k} description"))
    write(w.home / ".claude" / "settings.json",
          '{"skillOverrides": {"off": "off", "only": "user-invocable-only", "name": "name-only", "on": "bogus"}}')
    srcs = {s.name: s for s in w.files()}
    assert {k: v.status for k, v in srcs.items()} == {"name": Status.OK, "off": Status.HIDDEN, "on": Status.OK,
                                                      "only": Status.HIDDEN}
    assert w.lines() == ["- name", "- on: on description"]
    cat = w.open().model_catalog()
    state = {e.name: (e.state, e.note) for e in cat.entries if e.location.startswith(str(w.home))}
    assert state["name"] == (EntryState.NAME_ONLY, "skillOverrides: name-only (listed without its description)")


def test_project_settings_override_user_settings(w: WS) -> None:
    skill(w.user, "x", fm("x", "d"))
    write(w.home / ".claude" / "settings.json", '{"skillOverrides": {"x": "off"}}')
    write(w.ws / ".claude" / "settings.local.json", '{"skillOverrides": {"x": "on"}}')
    assert [s.status for s in w.files()] == [Status.OK]


def test_user_invocable_false_is_still_listed(w: WS) -> None:
    skill(w.project, "ui", fm("ui", "listed anyway", "user-invocable: false"))
    assert w.lines() == ["- ui: listed anyway"]


def test_a_skill_named_like_a_built_in_replaces_it(w: WS) -> None:
    skill(w.project, "simplify", fm("simplify", "my own"))
    skill(w.project, "Init", fm("Init", "another key (case)"))
    gen = w.open().current
    b = next(s for s in gen.sources if s.location == BUILTIN_SCHEME + "simplify")
    assert (b.status, b.shadowed_by) == (Status.SHADOWED, (str(w.project / "simplify" / "SKILL.md"),))
    init = next(s for s in gen.sources if s.location == BUILTIN_SCHEME + "init")
    assert init.status is Status.OK
    names = [ln.split(":")[0] for ln in w.open().model_catalog().text[len(HEADER):].split("\n") if ln.startswith("- ")]
    assert names.count("- simplify") == 1 and names.index("- simplify") == 1


# ------------------------------------------------------------------------------------- order

def test_locale_compare_order() -> None:
    names = ["b", "B", "a", "A", "ab", "aB", "Ab", "a1", "a10", "a9", "a-b", "a_b", "a b", "é", "e", "f", "1x",
             "_u", "-d", "ω", "я", "漢"]
    assert locale_sorted(names) == ["_u", "-d", "1x", "a", "A", "a b", "a_b", "a-b", "a1", "a10", "a9", "ab", "aB",
                                    "Ab", "b", "B", "e", "é", "f", "ω", "я", "漢"]


def test_listing_order_is_root_order_then_key_then_built_ins(w: WS) -> None:
    for n in ("zeta", "Alpha", "beta"):
        skill(w.project, n, fm(n, "p"))
    skill(w.user, "yak", fm("yak", "u"))
    gen = w.open().current
    assert [s.name for s in gen.sources][:4] == ["yak", "Alpha", "beta", "zeta"]
    assert [s.name for s in gen.sources][4:] == ["dataviz", "update-config", "keybindings-help", "code-review",
                                                 "simplify", "fewer-permission-prompts", "loop", "claude-api",
                                                 "workflow-authoring", "run", "plugin-authoring", "init",
                                                 "security-review"]


# ------------------------------------------------------------------------------------- listing line

def test_listing_name_part_rules(w: WS) -> None:
    s = w.project
    skill(s, "dir-one", fm("same-fm", "first"))
    skill(s, "dir-two", fm("same-fm", "second"))
    skill(s, "fm-help", fm("help", "a slash command's name"))
    skill(s, "ns:tool", fm("tool", "key ends with :name"))
    skill(s, "points", fm("dir-one", "names another key"))
    skill(s, "slash", fm("My Tool/Thing", "not letters, digits, _:.-"))
    skill(s, "uni", fm("café-über", "letters"))
    skill(s, "same", fm("same", "equal to the key"))
    assert w.lines() == [
        "- dir-one (same-fm): first",
        "- dir-two: second",
        "- fm-help: a slash command's name",
        "- ns:tool: key ends with :name",
        "- points: names another key",
        "- same: equal to the key",
        "- slash: not letters, digits, _:.-",
        "- uni (café-über): letters",
    ]


def test_catalog_text_byte_for_byte(w: WS, monkeypatch: pytest.MonkeyPatch) -> None:
    import skillshelf.core.hosts.claude as claude_mod
    from skillshelf.core.hosts.claude.installed import BuiltinTexts

    monkeypatch.setattr(claude_mod, "builtin_texts", lambda env: BuiltinTexts())
    skill(w.user, "alpha", fm("alpha-fm", "The alpha skill", "when_to_use: when testing"))
    skill(w.project, "beta", "No frontmatter, first line\n")
    skill(w.project, "gamma", fm("gamma", "a <b> & c"))
    sizes = [("dataviz", 1436), ("update-config", 690), ("keybindings-help", 228), ("code-review", 835),
             ("simplify", 176), ("fewer-permission-prompts", 163), ("loop", 336), ("claude-api", 1157),
             ("workflow-authoring", 230), ("run", 361), ("plugin-authoring", 255), ("init", 59),
             ("security-review", 71)]
    assert w.open().model_catalog().text == (
        HEADER + "- alpha (alpha-fm): The alpha skill - when testing\n- beta: No frontmatter, first line\n"
        "- gamma: a &lt;b&gt; & c\n"
        + "\n".join(f"- {n}: <<Claude Code built-in description: {k} characters>>" for n, k in sizes))


def test_no_listing_when_nothing_is_listed(w: WS) -> None:
    cat = w.open({"CLAUDE_CODE_DISABLE_BUNDLED_SKILLS": "1"}).model_catalog()
    assert cat.text.startswith(HEADER + "- plugin-authoring: ")
    skill(w.project, "only", fm("only", "d", "disable-model-invocation: true"))
    gen = w.open({"CLAUDE_CODE_DISABLE_BUNDLED_SKILLS": "1"}).current
    assert [s.name for s in gen.sources] == ["only", "plugin-authoring"]


def test_per_entry_cap_is_1536_units(w: WS) -> None:
    skill(w.project, "long", fm("long", "L" * 1600))
    skill(w.project, "exact", fm("exact", "E" * 1536))
    skill(w.project, "cut-pair", fm("cut-pair", "a" * 1534 + "😀tail"))
    lines = w.lines()
    assert lines[2] == "- long: " + "L" * 1535 + "…"
    assert lines[1] == "- exact: " + "E" * 1536
    assert lines[0] == "- cut-pair: " + "a" * 1534 + "\ufffd…"
    cat = w.open().model_catalog()
    st = {e.name: (e.state, e.note) for e in cat.entries}
    assert st["long"] == (EntryState.CUT, "description cut to 1,536 characters")
    assert st["exact"][0] is EntryState.LISTED


def test_entry_cap_from_settings(w: WS) -> None:
    skill(w.project, "c", fm("c", "c" * 300))
    write(w.ws / ".claude" / "settings.json", '{"skillListingMaxDescChars": 250}')
    assert w.lines() == ["- c: " + "c" * 249 + "…"]


# ------------------------------------------------------------------------------------- budget

def test_budget_rules(w: WS) -> None:
    cat = w.open()
    assert cat.index_budget == 30_000
    assert cat.model_catalog().budget_rule == "1% of 1,000,000 tokens × 3 characters per token (claude-opus-5-5) = 30,000 columns"
    assert w.open(context_window=200_000).index_budget == 6_000
    assert w.open({"ANTHROPIC_MODEL": "claude-sonnet-4-5"}).index_budget == 8_000
    assert w.open({"ANTHROPIC_MODEL": "claude-opus-4-7"}).index_budget == 30_000
    assert w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "5000"}).index_budget == 5_000
    assert w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "4999.7"}).index_budget == 4_999
    assert w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "junk"}).index_budget == 30_000
    assert w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "0"}).index_budget == 30_000
    unlimited = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "Infinity"})
    assert (unlimited.index_budget, unlimited.model_catalog().budget) == (None, None)
    write(w.home / ".claude" / "settings.json", '{"skillListingBudgetFraction": 0.02, "model": "claude-haiku-4-5"}')
    assert w.open().index_budget == 16_000


def _three(w: WS) -> None:
    skill(w.project, "a", fm("a", "a" * 100))
    skill(w.project, "b", fm("b", "b" * 200))
    skill(w.project, "c", fm("c", "c" * 50))


def _shape(text: str) -> list[str]:
    out = []
    for ln in text[len(HEADER):].split("\n"):
        if not ln.startswith("- "):
            continue
        name = ln[2:].split(":")[0]
        if name in BUILTINS or name in ("a", "b", "c"):
            out.append(f"{name}{'+' if ': ' in ln else ''}")
    return out


@pytest.mark.parametrize("budget, shape, used", [
    # H = 6,196 built-in + 105 + 205 + 55 + 15 newlines = 6,576
    ("6576", ["a+", "b+", "c+", "init+", "security-review+"], 6576),
    # base = 6,039 fixed + 3 × 3 + 6 + 17 + 15 = 6,086; room 489: a 102, b 202, c 52, init 61 fit; 73 does not
    ("6575", ["a+", "b+", "c+", "init+", "security-review"], 6575 - 72),
    # room 214: a 102 → 112; b 202 does not; c 52 → 60; init 61 and security-review 73 do not
    ("6300", ["a+", "b", "c+", "init", "security-review"], 6086 + 102 + 52),
    # room negative: every truncatable entry is name-only, the fixed ones keep their lines
    ("6000", ["a", "b", "c", "init", "security-review"], 6086),
])
def test_budget_drops_whole_descriptions_greedily(w: WS, budget: str, shape: list[str], used: int) -> None:
    _three(w)
    cat = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": budget}).model_catalog()
    fixed = [n for n in _shape(cat.text) if n.rstrip("+") not in ("a", "b", "c", "init", "security-review")]
    assert all(n.endswith("+") for n in fixed) and len(fixed) == 11
    assert [n for n in _shape(cat.text) if n.rstrip("+") in ("a", "b", "c", "init", "security-review")] == shape
    assert cat.used == used
    if "b" in shape:
        st = {e.name: (e.state, e.note) for e in cat.entries}
        assert st["b"] == (EntryState.NAME_ONLY, f"over budget (6,576 > {int(budget):,} columns): listed by name only")


def test_budget_counts_terminal_columns(w: WS) -> None:
    skill(w.project, "wide", fm("wide", "漢" * 10))  # "- wide: " + 10 wide characters = 8 + 20 columns
    # H = 6,196 + 28 + 13 newlines = 6,237: it fits exactly
    fits = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "6237"}).model_catalog()
    assert "- wide: " + "漢" * 10 in fits.text and fits.used == 6237
    # one column less: base = 6,039 + 6 ("- wide") + 6 + 17 + 13 = 6,081, room 155: wide (22) and init
    # (61) keep theirs, security-review (73) does not
    over = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "6236"}).model_catalog()
    assert "- wide: " + "漢" * 10 in over.text and over.text.endswith("\n- security-review")
    # room 20 < 22 columns (12 characters would fit): wide loses its description
    tight = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "6101"}).model_catalog()
    assert "\n- wide\n" in tight.text
    assert "- wide: " in w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "6103"}).model_catalog().text
    assert width("漢字 ⚠️ 👨\u200d👩\u200d👧 e\u0301") == 12  # 4 + 1 + 2 + 1 + 2 + 1 + 1


def test_usage_priority_decides_which_description_survives(w: WS) -> None:
    _three(w)
    import json
    import time

    write(w.home / ".claude.json", json.dumps({"skillUsage": {"c": {"usageCount": 5, "lastUsedAt": time.time() * 1000},
                                                              "b": {"usageCount": 1, "lastUsedAt": time.time() * 1000}}}))
    cat = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "6300"}).model_catalog()
    # room 214: c (score 5) 52 → 162; b (score 1) 202 does not fit; a 102 → 60; init, security-review do not
    assert [n for n in _shape(cat.text) if n.rstrip("+") in ("a", "b", "c")] == ["a+", "b", "c+"]


def test_builtin_text_missing_is_a_sized_marker_and_a_note(w: WS, monkeypatch: pytest.MonkeyPatch) -> None:
    import skillshelf.core.hosts.claude as claude_mod
    from skillshelf.core.hosts.claude.installed import BuiltinTexts

    monkeypatch.setattr(claude_mod, "builtin_texts", lambda env: BuiltinTexts())
    cat = w.open().model_catalog()
    assert "\n- init: <<Claude Code built-in description: 59 characters>>\n" in cat.text
    assert any("built-in descriptions are not available" in n for n in cat.notes)
    assert cat.used == 6196 + 12


# ------------------------------------------------------------------------------------- legacy commands

def test_legacy_commands_are_listed_after_skills(w: WS) -> None:
    cu = w.home / ".claude" / "commands"
    cp = w.ws / ".claude" / "commands"
    write(cu / "zz.md", "---\ndescription: user command\n---\n")
    write(cp / "grp" / "cmd.md", "Command first line\n")
    write(cp / ".hidden" / "h.md", "")
    write(cp / "withskill" / "SKILL.md", "---\ndescription: folder command\n---\n")
    write(cp / "withskill" / "ignored.md", "beside SKILL.md\n")
    skill(w.project, "zskill", fm("zskill", "a skill"))
    assert w.lines() == ["- zskill: a skill", "- .hidden:h: Custom command", "- grp:cmd: Command first line",
                         "- withskill: folder command", "- zz: user command"]


# ------------------------------------------------------------------------------------- verdict / lint

def test_accept_and_lint_report_the_silent_fallbacks(tmp_path: Path) -> None:
    f = skill(tmp_path, "tool", "---\nname: n\n\tdescription: x\n---\n\nFirst body line\n")
    v = ClaudeHost().accept(str(f), f.read_bytes())
    assert (v.accepted, v.name, v.description, v.display_name) == (True, "tool", "First body line", None)
    codes = [(d.code, d.severity, d.field, d.line) for d in v.diagnostics]
    assert ("claude-metadata-dropped", Severity.WARNING, None, 3) in codes
    assert ("claude-description-fallback", Severity.INFO, "description", 6) in codes
    rep = host_lint_file(get_host("claude"), str(f))
    assert rep.valid and any(d.code == "claude-loads" for d in rep.diagnostics)
    bad = skill(tmp_path, "a<b", fm("x", "d"))
    v2 = ClaudeHost().accept(str(bad), bad.read_bytes())
    assert not v2.accepted and v2.reason is not None and v2.reason.startswith("[names] a<b is not offered")


def test_frontmatter_name_not_shown_is_a_warning_with_its_line(tmp_path: Path) -> None:
    f = skill(tmp_path, "k", "---\ndescription: d\nname: a<b>\n---\n")
    v = ClaudeHost().accept(str(f), f.read_bytes())
    d = next(x for x in v.diagnostics if x.code == "claude-name-ignored")
    assert (d.severity, d.field, d.line) == (Severity.WARNING, "name", 3)


# ------------------------------------------------------------------------------------- Skill tool

def test_skill_tool(w: WS) -> None:
    skill(w.project, "alpha", fm("alpha-fm", "d", body="# Alpha\nDo $ARGUMENTS in ${CLAUDE_SKILL_DIR}\n"))
    skill(w.project, "nofm", "Plain body\n")
    skill(w.project, "hidden", fm("hidden", "d", "disable-model-invocation: true"))
    cat = w.open()
    tool = get_host("claude").skill_tool(cat)
    assert tool is not None
    folder = str(w.project / "alpha")
    r = tool.call({"skill": "alpha", "args": "X Y"})
    assert r.output == f"Launching skill: alpha\n\nBase directory for this skill: {folder}\n\n# Alpha\nDo X Y in {folder}\n"
    assert r.metadata["toolResult"] == "Launching skill: alpha"
    assert tool.call({"skill": "/alpha"}).metadata["toolResult"] == "Launching skill: alpha"
    assert tool.call({"skill": "alpha-fm"}).metadata["text"].endswith("Do  in " + folder + "\n")
    assert tool.call({"skill": "nofm"}).metadata["text"] == f"Base directory for this skill: {w.project / 'nofm'}\n\nPlain body\n"
    with pytest.raises(ToolError) as e:
        tool.call({"skill": "nope"})
    assert e.value.message == "<tool_use_error>Unknown skill: nope. Did you mean nofm?</tool_use_error>"
    with pytest.raises(ToolError) as e:
        tool.call({"skill": "zzzzzzzzz"})
    assert e.value.message == "<tool_use_error>Unknown skill: zzzzzzzzz</tool_use_error>"
    with pytest.raises(ToolError) as e:
        tool.call({"skill": "hidden"})
    assert e.value.message.startswith("<tool_use_error>Skill hidden cannot be used with Skill tool due to "
                                      "disable-model-invocation. Ask the user to run /hidden themselves")
    with pytest.raises(ToolError):
        tool.call({"args": "no skill"})


def test_watch_targets_cover_roots_and_settings(w: WS) -> None:
    cat = w.open()
    t = cat.watch_targets()
    assert str(w.project) in t.roots and str(w.user) in t.roots
    assert str(w.home / ".claude" / "settings.json") in t.config_files
    assert str(w.ws / ".claude" / "settings.local.json") in t.config_files


def test_git_init_workspace_builds(tmp_path: Path) -> None:
    """A real `git init` repository is a git root like a bare `.git` folder."""
    w = WS(tmp_path, git=False)
    subprocess.run(["git", "init", "-q", str(w.ws)], check=True)
    skill(w.project, "x", fm("x", "d"))
    assert [s.name for s in w.files()] == ["x"]


def test_entry_cap_cuts_built_ins_too(w: WS, monkeypatch: pytest.MonkeyPatch) -> None:
    import skillshelf.core.hosts.claude as claude_mod
    from skillshelf.core.hosts.claude.installed import BuiltinTexts

    monkeypatch.setattr(claude_mod, "builtin_texts", lambda env: BuiltinTexts())
    write(w.ws / ".claude" / "settings.json", '{"skillListingMaxDescChars": 250}')
    cat = w.open({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "100000"}).model_catalog()
    assert "\n- claude-api: <<Claude Code built-in description: 1157 characters, cut to 250>>\n" in cat.text
    assert "\n- init: <<Claude Code built-in description: 59 characters>>\n" in cat.text
    # each cut line is name + 4 + 249 + "…" columns; claude-api's first line break (offset 150) counts 0
    cut = {"dataviz": 7, "update-config": 13, "code-review": 11, "loop": 4, "claude-api": 10, "run": 3,
           "plugin-authoring": 16}
    whole = {"keybindings-help": 248, "simplify": 188, "fewer-permission-prompts": 191, "workflow-authoring": 252,
             "init": 67, "security-review": 90}
    columns = sum(n + 4 + 250 for n in cut.values()) - 1 + sum(whole.values()) + 12
    assert cat.used == columns


# ------------------------------------------------------------------------------------- built-in text from an installed client

def _fake_binary(path: Path, strings: list[tuple[str, str]]) -> Path:
    """A file laid out like the client's bytecode string table: length (bit 31 = Latin-1),
    4 bytes of hash, the characters; noise around."""
    import struct

    out = bytearray(b"\x7fELF" + b"\0" * 1000)
    for text, enc in strings:
        raw = text.encode("latin-1") if enc == "latin1" else text.encode("utf-16-le")
        n = len(text) if enc == "latin1" else len(raw) // 2
        out += struct.pack("<I", n | (0x80000000 if enc == "latin1" else 0)) + b"HASH" + raw + b"\0" * 37
    path.write_bytes(bytes(out))
    return path


def test_built_in_text_is_read_and_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    from skillshelf.core.hosts.claude import installed
    from skillshelf.core.hosts.claude.builtins import BuiltinSkill

    def h(t: str) -> str:
        return hashlib.sha256(t.encode()).hexdigest()

    one, two = "First part of a made-up description.", "Second part — with a dash."
    fake = BuiltinSkill("made-up", 0, 0, True, h(one + " - " + two),
                        ((len(one), "latin1", h(one)[:16]), " - ", (len(two), "utf16", h(two)[:16])))
    wrong = BuiltinSkill("wrong", 0, 0, True, "0" * 64, ((len(one), "latin1", h(one)[:16]),))
    monkeypatch.setattr(installed, "BUILTIN_SKILLS", (fake, wrong))
    binary = _fake_binary(tmp_path / "claude", [("noise", "latin1"), (two, "utf16"), (one, "latin1")])
    texts, offsets = installed.read_texts(str(binary))
    assert texts == {"made-up": one + " - " + two}  # "wrong": its parts are found, the whole hash does not match
    again, _ = installed.read_texts(str(binary), offsets)
    assert again == texts
    monkeypatch.setattr(installed, "candidates", lambda env: [str(binary)])
    env = Environment.from_mapping({"HOME": str(tmp_path / "home")})
    got = installed.builtin_texts(env)
    assert (got.texts, got.origin) == (texts, str(binary))
    assert (tmp_path / "home" / ".cache" / "skillshelf" / "claude-builtins.json").is_file()
    assert installed.builtin_texts(env).texts == texts  # from the remembered offsets


def test_no_installed_client_means_no_text(tmp_path: Path) -> None:
    from skillshelf.core.hosts.claude.installed import builtin_texts

    env = Environment.from_mapping({"HOME": str(tmp_path), "PATH": str(tmp_path / "bin")})
    assert builtin_texts(env).texts == {}


def test_workspace_findings_on_listed_files(w: WS) -> None:
    skill(w.project, "fm-help", fm("help", "x"))
    skill(w.project, "one", fm("same", "a"))
    skill(w.project, "two", fm("same", "b"))
    skill(w.project, "long", fm("long", "L" * 1600))
    notes = {s.name: [(d.code, d.message, d.field, d.line) for d in s.diagnostics
                      if d.code in ("claude-name-not-listed", "claude-description-cut")] for s in w.files()}
    assert notes == {
        "fm-help": [("claude-name-not-listed", ("the listing shows `- fm-help` without the frontmatter name: `help` "
                     "is the name of /help"), "name", 2)],
        "long": [("claude-description-cut", "the listing cuts the description (with when_to_use) to 1,536 characters",
                  "description", None)],
        "one": [],
        "two": [("claude-name-not-listed", ("the listing shows `- two` without the frontmatter name: /one comes first "
                 "with the frontmatter name `same`"), "name", 2)],
    }
