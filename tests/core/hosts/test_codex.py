"""Host ``codex`` (Codex CLI 0.171.0): one test per rule, exact values, no real client needed.

Expected values are Codex's own (observed on the real client for the same inputs; the
differential tests in ``tests/clients/test_codex_agreement.py`` check them against it). Codex's
catalog sentences are replaced by same-length markers here (no Codex binary on ``PATH``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import get_host, host_names
from skillshelf.core.hosts.base import EntryState, HostContext
from skillshelf.core.hosts.codex import CODEX, CodexHost, error_records, skill_records
from skillshelf.core.hosts.codex import walk as walk_mod
from skillshelf.core.hosts.codex.catalog import Budget, CatalogItem, allocate, budget_for, render
from skillshelf.core.hosts.codex.parse import extract_frontmatter, parse_sidecar, parse_skill, repair_scalars
from skillshelf.core.hosts.codex.prose import PROSE, find_binary, find_texts, marker
from skillshelf.core.hosts.codex.serde import collapse, rust_lines
from skillshelf.core.model import Provenance, Severity, Status
from skillshelf.core.paths import Environment

M = {k: marker(k) for k in PROSE}


# ------------------------------------------------------------------------------------- helpers

def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def fm(name: str | None, description: str | None = "Does a thing.", extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    return "\n".join(lines + ["---", "body", ""])


def skill(root: Path, folder: str, name: str | None = None, description: str = "Does a thing.", extra: str = "") -> Path:
    return write(root / folder / "SKILL.md", fm(folder.rsplit("/", 1)[-1] if name is None else name, description, extra))


def git(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


class WS:
    """A workspace: ``tmp/home`` is HOME, ``tmp/etc`` the system folder, ``cwd`` the project."""

    def __init__(self, tmp: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.home = tmp / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.cwd = cwd or tmp / "repo"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.env = {"HOME": str(self.home), "PATH": "", **(env or {})}
        self.host = CodexHost(system_dir=str(tmp / "etc"))

    def context(self, **kw: object) -> HostContext:
        return HostContext(cwd=str(self.cwd), env=Environment.from_mapping(self.env), **kw)  # type: ignore[arg-type]

    def catalog(self, **kw: object) -> Catalog:
        return Catalog.from_context(self.host, self.context(**kw))

    def names(self) -> list[tuple[str, str]]:
        """(scope, name) of every listed skill, in skills/list order."""
        return [(str(r["scope"]), str(r["name"])) for r in skill_records(self.catalog().current)]

    def roots(self) -> list[tuple[str, str]]:
        return [(r.provenance.value, r.path) for r in self.host.roots(self.context()).roots]


# ------------------------------------------------------------------------------------- the host

def test_registered_and_described() -> None:
    assert "codex" in host_names()
    host = get_host("codex")
    assert host is CODEX
    assert (host.name, host.client, host.version, host.describe()) == ("codex", "Codex", "0.171.0", "Codex 0.171.0")
    assert host.skill_tool(object()) is None


# ------------------------------------------------------------------------------------- §1 roots

def test_root_order(tmp_path: Path) -> None:
    """cwd .codex first, then each parent up to the project root; $CODEX_HOME/skills;
    ~/.agents/skills; .system; the admin root; .agents from the project root down to cwd."""
    repo = git(tmp_path / "repo")
    cwd = repo / "a" / "b"
    for d in (repo, repo / "a", cwd):
        (d / ".codex").mkdir(parents=True)
        (d / ".agents/skills").mkdir(parents=True)
    ws = WS(tmp_path, cwd)
    h = str(ws.home)
    assert ws.roots() == [
        ("project", f"{cwd}/.codex/skills"), ("project", f"{repo}/a/.codex/skills"), ("project", f"{repo}/.codex/skills"),
        ("user", f"{h}/.codex/skills"), ("user", f"{h}/.agents/skills"), ("system", f"{h}/.codex/skills/.system"),
        ("managed", f"{tmp_path}/etc/skills"),
        ("project", f"{repo}/.agents/skills"), ("project", f"{repo}/a/.agents/skills"), ("project", f"{cwd}/.agents/skills"),
    ]


def test_codex_folder_must_be_a_folder_and_not_codex_home(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    write(repo / ".codex", "a file")
    ws = WS(tmp_path, repo)
    assert not any(p.endswith("/.codex/skills") and p.startswith(str(repo)) for _, p in ws.roots())
    # cwd = HOME: ~/.codex is CODEX_HOME, not a project layer; ~/.agents/skills stays a user root
    home = git(tmp_path / "h2")
    skill(home / ".agents/skills", "mine")
    skill(home / ".codex/skills", "theirs")
    ws2 = WS(tmp_path, home, env={"HOME": str(home)})
    ws2.home = home
    assert ws2.names() == [("user", "mine"), ("user", "theirs")]
    roots = ws2.roots()
    assert [p for _, p in roots].count(f"{home}/.agents/skills") == 1
    assert ("user", f"{home}/.agents/skills") in roots


def test_codex_home(tmp_path: Path) -> None:
    alt = tmp_path / "alt"
    skill(alt / "skills", "from-alt")
    ws = WS(tmp_path, git(tmp_path / "repo"), env={"CODEX_HOME": str(alt)})
    skill(ws.home / ".codex/skills", "not-read")
    assert ws.names() == [("user", "from-alt")]
    assert ("system", f"{alt}/skills/.system") in ws.roots()


def test_codex_home_missing_is_fatal(tmp_path: Path) -> None:
    ws = WS(tmp_path, git(tmp_path / "repo"), env={"CODEX_HOME": str(tmp_path / "nope")})
    skill(ws.cwd / ".agents/skills", "x")
    cat = ws.catalog()
    gen = cat.current
    assert gen.roots == () and gen.sources == ()
    assert [w.message for w in gen.warnings] == [f'CODEX_HOME points to "{tmp_path}/nope", but that path does not exist']
    assert cat.model_catalog().text == ""


def test_untrusted_layers_still_give_roots_and_bundled_off(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    skill(repo / ".codex/skills", "proj")
    ws = WS(tmp_path, repo)
    write(ws.home / ".codex/config.toml", "[skills.bundled]\nenabled = false\n")
    assert ws.names() == [("repo", "proj")]
    assert not any(k == "system" for k, _ in ws.roots())


@pytest.mark.parametrize("setup, expected", [
    ("nogit", ["here"]),
    ("git", ["top", "mid", "here"]),
    ("gitfile", ["top", "mid", "here"]),
    ("dangling-git", ["here"]),
    ("hg", ["mid", "here"]),
    ("no-markers", ["here"]),
])
def test_project_root_markers(tmp_path: Path, setup: str, expected: list[str]) -> None:
    """The project root is the nearest ancestor with a marker (default .git; any existing
    path; a dangling link does not count); none or [] means cwd only."""
    repo = tmp_path / "repo"
    cwd = repo / "mid" / "here"
    for d, tag in ((repo, "top"), (repo / "mid", "mid"), (cwd, "here")):
        skill(d / ".agents/skills", tag)
    ws = WS(tmp_path, cwd)
    if setup in ("git", "hg", "no-markers"):
        git(repo)
    if setup == "gitfile":
        write(repo / ".git", "gitdir: /elsewhere\n")
    if setup == "dangling-git":
        os.symlink(tmp_path / "gone", repo / ".git")
    if setup == "hg":
        (repo / "mid" / ".hg").mkdir()
        write(ws.home / ".codex/config.toml", 'project_root_markers = [".hg"]\n')
    if setup == "no-markers":
        write(ws.home / ".codex/config.toml", "project_root_markers = []\n")
    # catalog order inside the repo scope is by name; the roots say where each came from
    agents = [p for k, p in ws.roots() if p.endswith("/.agents/skills") and k == "project"]
    tags = {str(repo / ".agents/skills"): "top", str(repo / "mid/.agents/skills"): "mid", str(cwd / ".agents/skills"): "here"}
    assert [tags[p] for p in agents] == expected


def test_git_without_head(tmp_path: Path) -> None:
    """A .git folder without HEAD: the .agents finder stops there, the .codex finder goes on."""
    repo = git(tmp_path / "repo")
    cwd = repo / "a" / "b"
    (repo / "a" / ".git").mkdir(parents=True)
    for d in (repo, repo / "a", cwd):
        (d / ".codex").mkdir(parents=True)
        (d / ".agents/skills").mkdir(parents=True)
    ws = WS(tmp_path, cwd)
    roots = [p for k, p in ws.roots() if k == "project"]
    assert roots == [f"{cwd}/.codex/skills", f"{repo}/a/.codex/skills", f"{repo}/.codex/skills",
                     f"{repo}/a/.agents/skills", f"{cwd}/.agents/skills"]


def test_folders_never_read(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    cwd = repo / "sub"
    ws = WS(tmp_path, cwd)
    for d in (repo, cwd):
        for other in (".claude/skills", ".gemini/skills", ".opencode/skills", ".agents/skill", "skills"):
            skill(d / other, "x" + other.replace("/", "-"))
    skill(cwd / "below/.agents/skills", "below")
    skill(tmp_path / ".agents/skills", "above")
    for other in (".claude/skills", ".config/agents/skills", ".config/codex/skills", ".gemini/skills"):
        skill(ws.home / other, "h" + other.replace("/", "-"))
    assert ws.names() == []


def test_cwd_used_as_given(tmp_path: Path) -> None:
    """A symlinked cwd does not see the real parents (no .git above the link)."""
    repo = git(tmp_path / "repo")
    skill(repo / ".agents/skills", "top")
    (repo / "sub").mkdir()
    os.symlink(repo / "sub", tmp_path / "link")
    ws = WS(tmp_path, tmp_path / "link")
    assert ws.names() == []
    ws_real = WS(tmp_path, repo / "sub")
    assert ws_real.names() == [("repo", "top")]


# ------------------------------------------------------------------------------------- config

def test_skills_config_rules(tmp_path: Path) -> None:
    """Rules from the user config only, in order (later wins); path selectors canonical; name
    selectors trimmed and matching every copy; both or neither or a blank name ignored."""
    repo = git(tmp_path / "repo")
    r = repo / ".agents/skills"
    for n in ("keep", "by-name", "by-path", "toggled", "both", "proj-off"):
        skill(r, n)
    skill(tmp_path / "home/.agents/skills", "by-name", description="user copy")
    os.symlink(r / "by-path", tmp_path / "alias")
    ws = WS(tmp_path, repo)
    write(repo / ".codex/config.toml", '[[skills.config]]\nname = "proj-off"\nenabled = false\n')
    write(ws.home / ".codex/config.toml",
          '[[skills.config]]\nname = "by-name"\nenabled = false\n'
          f'[[skills.config]]\npath = "{tmp_path}/alias/SKILL.md"\nenabled = false\n'
          '[[skills.config]]\nname = "toggled"\nenabled = false\n'
          '[[skills.config]]\nname = "  toggled "\nenabled = true\n'
          f'[[skills.config]]\nname = "both"\npath = "{r}/both/SKILL.md"\nenabled = false\n'
          '[[skills.config]]\nenabled = false\n'
          '[[skills.config]]\nname = ""\nenabled = false\n')
    cat = ws.catalog()
    recs = {(r_["scope"], r_["name"]): r_["enabled"] for r_ in skill_records(cat.current)}
    assert recs == {("repo", "both"): True, ("repo", "by-name"): False, ("repo", "by-path"): False,
                    ("repo", "keep"): True, ("repo", "proj-off"): True, ("repo", "toggled"): True,
                    ("user", "by-name"): False}
    off = [s for s in cat.current.sources if not s.enabled]
    assert all(s.status is Status.DISABLED for s in off)
    assert off[0].disabled_reason == (f"skills.config entry 1 in {ws.home}/.codex/config.toml disables it (Codex lists "
                                      "it with enabled: false; not in the catalog)")
    shown = [e.name for e in cat.model_catalog().entries]
    assert "by-name" not in shown and "by-path" not in shown and "keep" in shown


def test_include_instructions_off(tmp_path: Path) -> None:
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.cwd / ".agents/skills", "one")
    write(ws.home / ".codex/config.toml", "[skills]\ninclude_instructions = false\n")
    cat = ws.catalog()
    assert ws.names() == [("repo", "one")]
    shown = cat.model_catalog()
    assert shown.text == ""
    assert any("include_instructions = false" in n for n in shown.notes)


def test_trusted_project_config(tmp_path: Path) -> None:
    """A trusted project's .codex/config.toml joins the configuration (here the window); an
    untrusted one gives only its skills root."""
    repo = git(tmp_path / "repo")
    skill(repo / ".agents/skills", "one")
    write(repo / ".codex/config.toml", "model_context_window = 20000\n")
    ws = WS(tmp_path, repo)
    assert ws.catalog().model_catalog().budget == 10000
    write(ws.home / ".codex/config.toml", f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    shown = ws.catalog().model_catalog()
    assert (shown.budget, shown.unit) == (400, "tokens")


@pytest.mark.parametrize("text, message", [
    ('project_root_markers = "x"\n', 'config.toml:1:24: invalid type: string "x", expected a sequence'),
    ('[[skills.config]]\nname = "a"\nenabled = "no"\n', 'config.toml:3:11: invalid type: string "no", expected a boolean'),
    ('[[skills.config]]\nname = "a"\n', "config.toml:1:1: missing field `enabled`"),
    ("[skills]\nmax_context_tokens = 0\n", "config.toml:2:22: invalid value: integer `0`, expected a nonzero usize"),
    ("[skills]\nmax_context_tokens = -3\n", "config.toml:2:22: invalid value: integer `-3`, expected a nonzero usize"),
    ('model_context_window = "big"\n', 'config.toml:1:24: invalid type: string "big", expected i64'),
])
def test_config_codex_refuses(tmp_path: Path, text: str, message: str) -> None:
    """A user config with a wrong type for a key Codex knows: no skill, one error at the cwd."""
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.cwd / ".agents/skills", "hidden-by-config")
    write(ws.home / ".codex/config.toml", text)
    gen = ws.catalog().current
    assert gen.sources == ()
    assert error_records(gen) == [{"path": str(ws.cwd), "count": 1,
                                   "message": f"failed to reload config: {ws.home}/.codex/config.toml:" + message.split(":", 1)[1]}]


def test_config_files_play_session_flags(tmp_path: Path) -> None:
    """--config files are -c flags: above the user config (budget) and may carry rules."""
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.cwd / ".agents/skills", "one")
    flags = write(tmp_path / "flags.toml", '[skills]\nmax_context_tokens = 700\n[[skills.config]]\nname = "one"\nenabled = false\n')
    cat = ws.catalog(config_files=(str(flags),))
    assert cat.model_catalog().budget == 700
    assert [s.enabled for s in cat.current.sources] == [False]


# ------------------------------------------------------------------------------------- system root

def test_system_root(tmp_path: Path) -> None:
    """Hand-added skills in .system are system scope; links there are not followed; errors there
    are not reported (the file is still shown as rejected, with why)."""
    ws = WS(tmp_path, git(tmp_path / "repo"))
    system = ws.home / ".codex/skills/.system"
    skill(system, "added")
    write(system / "broken/SKILL.md", "no frontmatter\n")
    skill(tmp_path / "outside", "linked")
    os.symlink(tmp_path / "outside/linked", system / "linked")
    gen = ws.catalog().current
    assert [(s.provenance, s.name) for s in gen.sources] == [(Provenance.SYSTEM, "added")]
    assert error_records(gen) == []
    assert [d.code for d in gen.rejected[0].diagnostics] == ["codex-error", "codex-error-unreported"]


def test_missing_system_folder_is_a_hint(tmp_path: Path) -> None:
    ws = WS(tmp_path, git(tmp_path / "repo"))
    gen = ws.catalog().current
    assert [d.code for d in gen.diagnostics] == ["codex-system-skills"]


def test_paths_option_ignored(tmp_path: Path) -> None:
    ws = WS(tmp_path, git(tmp_path / "repo"))
    gen = ws.catalog(paths=(str(tmp_path / "x"),)).current
    assert [w.kind for w in gen.warnings] == ["codex-path-ignored"]


# ------------------------------------------------------------------------------------- §2 the walk

def _layout(tmp_path: Path) -> WS:
    repo = git(tmp_path / "repo")
    r = repo / ".agents/skills"
    write(r / "SKILL.md", fm("at-root"))
    path = ""
    for i in range(1, 8):
        path = f"{path}/d{i}" if path else f"d{i}"
        skill(r, path, name=f"depth-{i}")
    skill(r, ".dot/in", name="in-dot")
    skill(r, "ok/.deeper/x", name="deeper-dot")
    skill(r, "node_modules/nm", name="nm")
    skill(r, "outer", name="outer")
    skill(r, "outer/inner", name="inner")
    write(r / "lower/skill.md", fm("lower"))
    (r / "dir/SKILL.md").mkdir(parents=True)
    skill(tmp_path / "out", "target", name="linked")
    os.symlink(tmp_path / "out/target", r / "link")
    skill(tmp_path / "out", ".dotted", name="to-dot")
    os.symlink(tmp_path / "out/.dotted", r / "to-dot")
    skill(tmp_path / "out", "plain", name="dot-link")
    os.symlink(tmp_path / "out/plain", r / ".dot-link")
    src = skill(tmp_path / "out", "filesrc", name="file-link")
    (r / "file-link").mkdir()
    os.symlink(src, r / "file-link/SKILL.md")
    os.symlink(tmp_path / "gone", r / "dangling")
    (r / "loop").mkdir()
    os.symlink("..", r / "loop/up")
    os.symlink(r / "outer", r / "outer-again")
    return WS(tmp_path, repo)


def test_walk_layout(tmp_path: Path) -> None:
    """Depth ≤ 6 folders; exactly SKILL.md, a regular file; dot folders listed, not entered
    (names checked, not targets); nested skills; node_modules plain; links followed once."""
    ws = _layout(tmp_path)
    names = [n for _, n in ws.names()]
    assert names == ["at-root", "depth-1", "depth-2", "depth-3", "depth-4", "depth-5", "depth-6", "inner", "linked",
                     "nm", "outer", "to-dot"]
    gen = ws.catalog().current
    kinds = sorted({w.kind for w in gen.warnings})
    assert kinds == ["broken-symlink", "codex-file-symlink", "dot-folder-skipped", "wrong-file-name"]
    r = ws.cwd / ".agents/skills"
    # what Codex passes over in silence is said (skillshelf's warnings)
    assert sorted((w.kind, w.source) for w in gen.warnings if w.kind in ("dot-folder-skipped", "wrong-file-name")) == [
        ("dot-folder-skipped", f"{r}/.dot"), ("dot-folder-skipped", f"{r}/.dot-link"),
        ("dot-folder-skipped", f"{r}/ok/.deeper"), ("wrong-file-name", f"{r}/lower/skill.md")]
    linked = next(s for s in gen.sources if s.name == "linked")
    assert linked.location == f"{tmp_path}/out/target/SKILL.md"
    assert linked.catalog_location == f"{r}/link/SKILL.md"
    inner = next(s for s in gen.sources if s.name == "inner")
    assert inner.catalog_location is None  # reached first as outer/inner, not outer-again/inner


def test_walk_breadth_first_sorted(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for rel in ("b/x", "a/y/z", "a", "c", "a/b"):
        skill(root, rel)
    walked = walk_mod.walk(str(root), follow=True)
    assert [os.path.relpath(d, root) for d, _ in walked.files] == ["a/SKILL.md", "c/SKILL.md", "a/b/SKILL.md",
                                                                   "b/x/SKILL.md", "a/y/z/SKILL.md"]


def test_walk_link_counts_as_a_level(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    path = ""
    for i in range(1, 8):
        path = f"{path}/t{i}" if path else f"t{i}"
        skill(tree, path, name=f"via-{i + 1}")
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(tree, root / "lnk")
    walked = walk_mod.walk(str(root), follow=True)
    assert len(walked.files) == 5  # lnk/t1 … lnk/t1/…/t5: 6 folders deep at most


def test_walk_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MAX_DIRS folders entered (the root counts); MAX_ENTRIES entries listed, then the
    walk stops (what was found stays)."""
    root = tmp_path / "root"
    for i in range(7):
        skill(root, f"s{i}")
    monkeypatch.setattr(walk_mod, "MAX_DIRS", 5)
    walked = walk_mod.walk(str(root), follow=True)
    assert [os.path.basename(os.path.dirname(d)) for d, _ in walked.files] == ["s0", "s1", "s2", "s3"]
    assert [w.kind for w in walked.warnings] == ["codex-walk-limit"]
    monkeypatch.setattr(walk_mod, "MAX_DIRS", 2000)
    monkeypatch.setattr(walk_mod, "MAX_ENTRIES", 9)  # 7 folders + s0/SKILL.md + s1/SKILL.md
    walked = walk_mod.walk(str(root), follow=True)
    assert [os.path.basename(os.path.dirname(d)) for d, _ in walked.files] == ["s0", "s1"]


def test_system_walk_follows_no_links(tmp_path: Path) -> None:
    root = tmp_path / "root"
    skill(tmp_path / "out", "x")
    root.mkdir()
    os.symlink(tmp_path / "out/x", root / "x")
    assert walk_mod.walk(str(root), follow=False).files == []
    assert len(walk_mod.walk(str(root), follow=True).files) == 1


def test_same_file_through_several_roots(tmp_path: Path) -> None:
    """Keyed by the canonical path: the first root in Codex's order keeps it (with its scope);
    errors are repeated once per root."""
    repo = git(tmp_path / "repo")
    r = repo / ".agents/skills"
    skill(r, "shared")
    write(r / "broken/SKILL.md", "nothing\n")
    ws = WS(tmp_path, repo)
    (ws.home / ".agents").mkdir()
    os.symlink(r, ws.home / ".agents/skills")
    (repo / ".codex").mkdir()
    os.symlink(r, repo / ".codex/skills")
    gen = ws.catalog().current
    assert [(s.name, s.provenance, s.root) for s in gen.sources] == [("shared", Provenance.PROJECT, f"{repo}/.codex/skills")]
    assert error_records(gen) == [{"path": f"{r}/broken/SKILL.md", "message": "missing YAML frontmatter delimited by ---",
                                   "count": 3}]
    # a user-root link into the project makes it user: user roots come before .agents roots
    repo2 = git(tmp_path / "repo2")
    skill(repo2 / ".agents/skills", "crossed")
    ws2 = WS(tmp_path / "two", repo2)
    (ws2.home / ".agents/skills").mkdir(parents=True)
    os.symlink(repo2 / ".agents/skills/crossed", ws2.home / ".agents/skills/crossed")
    assert ws2.names() == [("user", "crossed")]


# ------------------------------------------------------------------------------------- namespaces

def test_plugin_namespaces(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    write(repo / ".claude-plugin/plugin.json", '{"name": "outer"}')
    r = repo / ".agents/skills"
    skill(r, "top")
    write(r / "p/.codex-plugin/plugin.json", '{"name": "first"}')
    write(r / "p/.claude-plugin/plugin.json", '{"name": "second"}')
    skill(r / "p", "a")
    write(r / "p/q/.cursor-plugin/plugin.json", '{"name": "deep"}')
    skill(r / "p/q", "b")
    write(r / "blank/.codex-plugin/plugin.json", '{"name": ""}')
    skill(r / "blank", "c")
    write(r / "bad/.codex-plugin/plugin.json", "{oops")
    skill(r / "bad", "d")
    write(tmp_path / "ext/.codex-plugin/plugin.json", '{"name": "ext"}')
    skill(tmp_path / "ext", "e")
    os.symlink(tmp_path / "ext/e", r / "e")
    skill(tmp_path / "bare", "f")
    os.symlink(tmp_path / "bare/f", r / "f")
    write(r / "long/.codex-plugin/plugin.json", '{"name": "' + "n" * 70 + '"}')
    skill(r / "long", "g", name="m" * 60)
    ws = WS(tmp_path, repo)
    gen = ws.catalog().current
    assert sorted(s.name for s in gen.sources) == ["blank:c", "deep:b", "ext:e", "f", "first:a", "outer:d", "outer:top"]
    assert [s.display_name for s in gen.sources if s.name == "first:a"] == ["a"]
    assert error_records(gen) == [{"path": f"{r}/long/g/SKILL.md", "count": 1,
                                   "message": "invalid qualified name: exceeds maximum length of 129 characters"}]
    assert [w.source for w in gen.warnings if w.kind == "codex-plugin-manifest"] == [f"{r}/bad/.codex-plugin/plugin.json"]


# ------------------------------------------------------------------------------------- §3 the parser

PARSE_OK: list[tuple[str, str | bytes, str, str]] = [
    ("plain", fm("plain", "An ordinary description."), "plain", "An ordinary description."),
    ("colon-value", fm("colon-value", "Use it when: the build breaks"), "colon-value", "Use it when: the build breaks"),
    ("colon-name", fm("colon: named", "x"), "colon: named", "x"),
    ("hash", fm("hash", "keeps # from here"), "hash", "keeps"),
    ("hash-tight", fm("hash-tight", "keeps a#b"), "hash-tight", "keeps a#b"),
    ("quoted", fm("quoted", "'quoted: and fine'"), "quoted", "quoted: and fine"),
    ("dq", fm("dq", '"with \\"escapes\\" and \\u00fc"'), "dq", 'with "escapes" and ü'),
    ("folded", "---\nname: folded\ndescription: >-\n  first part\n  second part\n\n  new paragraph\n---\n", "folded",
     "first part second part new paragraph"),
    ("literal", "---\nname: literal\ndescription: |\n  row one\n    indented row\n  row three\n---\n", "literal",
     "row one indented row row three"),
    ("multiline", "---\nname: multiline\ndescription: begins here\n  and goes on\n---\n", "multiline",
     "begins here and goes on"),
    ("spaces", '---\nname: spaces\ndescription: "tab\\there\\u00a0nbsp   wide\\u2003em"\n---\n', "spaces",
     "tab here nbsp wide em"),
    ("crlf", fm("crlf", "windows").replace("\n", "\r\n"), "crlf", "windows"),
    ("no-name", fm(None, "x"), "no-name", "x"),
    ("empty-name", fm("", "x"), "empty-name", "x"),
    ("blank-name", fm("'   '", "x"), "blank-name", "x"),
    ("null-name", fm("~", "x"), "null-name", "x"),
    ("word-null", fm("null", "x"), "word-null", "x"),
    ("quoted-null", fm("'null'", "x"), "null", "x"),
    ("number-name", fm("2024", "x"), "2024", "x"),
    ("float-name", fm("3.10", "x"), "3.10", "x"),
    ("bool-name", fm("false", "x"), "false", "x"),
    ("hex", fm("0x2A", "x"), "0x2A", "x"),
    ("yes", fm("yes", "x"), "yes", "x"),
    ("int-tag", fm("!!int 12", "x"), "12", "x"),
    ("custom-tag", fm("!mine value", "x"), "value", "x"),
    ("number-desc", fm("number-desc", "7"), "number-desc", "7"),
    ("date-desc", fm("date-desc", "2025-12-31"), "date-desc", "2025-12-31"),
    ("name-64", fm("x" * 64, "x"), "x" * 64, "x"),
    ("name-64-wide", fm("ß" * 64, "x"), "ß" * 64, "x"),
    ("indented-fence", "  ---\nname: f\ndescription: x\n---\n", "f", "x"),
    ("fence-spaces", "---  \nname: f\ndescription: x\n --- \n", "f", "x"),
    ("nbsp-fence", "\u00a0---\nname: f\ndescription: x\n---\t\n", "f", "x"),
    ("dots-then-fence", "---\nname: f\ndescription: x\n...\n---\n", "f", "x"),
    ("repaired-flow", "---\nname: f\ndescription: [never closed\n---\n", "f", "[never closed"),
    ("repaired-other", "---\nname: f\ndescription: fine\nother: [open\n---\n", "f", "fine"),
    ("at-start", fm("f", "@someone first"), "f", "@someone first"),
    ("tick-start", fm("f", "`cmd` first"), "f", "`cmd` first"),
    ("brace-start", fm("f", "{half: open"), "f", "{half: open"),
    ("amp-start", fm("f", "&anchor then text"), "f", "then text"),
    ("bang-start", fm("f", "!tagged text"), "f", "text"),
    ("markup", fm("f", "Has <em>tags</em> & 'single' \"double\""), "f", "Has <em>tags</em> & 'single' \"double\""),
    ("odd-name", fm("Odd Name/With:*?", "x"), "Odd Name/With:*?", "x"),
    ("newline-name", '---\nname: "one\\ntwo"\ndescription: x\n---\n', "one two", "x"),
    ("anchor", "---\nname: &a anchor\ndescription: *a\n---\n", "anchor", "anchor"),
    ("apostrophe-colon", fm("f", "don't: stop"), "f", "don't: stop"),
    ("colon-comment", fm("f", "k: v # and a comment"), "f", "k: v"),
    ("colon-then-hash", fm("f", "p: q #r"), "f", "p: q"),
    ("hash-then-colon", fm("f", "p #q: r"), "f", "p"),
    ("flow-colon", fm("f", "[p]: q"), "f", "[p]: q"),
    ("brace-fine", fm("f", "{p: 1}"), "f", "{p: 1}"),
    ("block-then-bad", "---\nname: f\ndescription: |\n  p: q\nother: p: q\n---\n", "f", "p: q"),
    ("tab-value", "---\nname: f\ndescription: p\tq: r\n---\n", "f", "p q: r"),
    ("controls", '---\nname: f\ndescription: "bell\\a esc\\e[0m"\n---\n', "f", "bell\x07 esc\x1b[0m"),
    ("separators", fm("f", '"p\\u2028q\\u0085r\\u001fs\\u000bt"'), "f", "p q r\x1fs t"),
    ("name-spaces", fm("'   spread   out   '", "x"), "spread out", "x"),
    ("flow-map", "---\n{name: f, description: in flow style}\n---\n", "f", "in flow style"),
    ("indented-map", "---\n   name: f\n   description: indented\n---\n", "f", "indented"),
    ("int-key", "---\nname: f\ndescription: x\n5: five\n---\n", "f", "x"),
    ("unknown-twice", fm("f", "x", "zz: 1\nzz: 2"), "f", "x"),
    ("meta-empty", fm("f", "x", "metadata:"), "f", "x"),
    ("extra-keys", fm("f", "x", "license: MIT\nallowed-tools: [Bash]"), "f", "x"),
]


@pytest.mark.parametrize("folder, text, name, description", PARSE_OK, ids=[c[0] for c in PARSE_OK])
def test_parse_accepts(folder: str, text: str | bytes, name: str, description: str) -> None:
    got = parse_skill(text if isinstance(text, bytes) else text.encode("utf-8"), f"/skills/{folder}")
    assert (got.error, got.name, got.description) == (None, name, description)


PARSE_ERRORS: list[tuple[str, str | bytes, str]] = [
    ("bom", "\ufeff" + fm("f"), "missing YAML frontmatter delimited by ---"),
    ("cr-only", fm("f").replace("\n", "\r"), "missing YAML frontmatter delimited by ---"),
    ("unclosed", "---\nname: f\ndescription: x\n", "missing YAML frontmatter delimited by ---"),
    ("blank-first", "\n" + fm("f"), "missing YAML frontmatter delimited by ---"),
    ("dots-close", "---\nname: f\ndescription: x\n...\n", "missing YAML frontmatter delimited by ---"),
    ("four-dashes", "----\nname: f\ndescription: x\n----\n", "missing YAML frontmatter delimited by ---"),
    ("empty-block", "---\n---\nbody\n", "missing YAML frontmatter delimited by ---"),
    ("empty-file", "", "missing YAML frontmatter delimited by ---"),
    ("blank-block", "---\n\n---\n", "missing field `description`"),
    ("no-desc", fm("f", None), "missing field `description`"),
    ("empty-desc", fm("f", '""'), "missing field `description`"),
    ("blank-desc", fm("f", "'  \t '"), "missing field `description`"),
    ("escaped-blank", fm("f", '"\\t \\n"'), "missing field `description`"),
    ("merge", "---\nbase: &m\n  description: merged\nname: f\n<<: *m\n---\n", "missing field `description`"),
    ("name-65", fm("x" * 65, "x"), "invalid name: exceeds maximum length of 64 characters"),
    ("seq-name", fm("[x, y]", "x"), "invalid YAML: name: invalid type: sequence, expected a string at line 1 column 7"),
    ("map-name", "---\nname:\n  k: v\ndescription: x\n---\n",
     "invalid YAML: name: invalid type: map, expected a string at line 2 column 3"),
    ("list-desc", fm("f", "[p, q]"), "invalid YAML: description: invalid type: sequence, expected a string at line 2 column 14"),
    ("tab-block", "---\nname: f\ndescription: >\n\tTab\n---\n",
     "invalid YAML: found a tab character where an indentation space is expected at line 3 column 1, while scanning "
     "a block scalar at line 2 column 14"),
    ("dup-name", "---\nname: f\nname: g\ndescription: x\n---\n", "invalid YAML: duplicate field `name`"),
    ("bad-indent", "---\nname: f\ndescription: fine\n  oops: indented\n---\n",
     "invalid YAML: mapping values are not allowed in this context at line 3 column 7"),
    ("star-start", fm("f", "*nothing"), "invalid YAML: unknown anchor at line 2 column 14"),
    ("percent-start", fm("f", "%percent"),
     "invalid YAML: found character that cannot start any token at line 2 column 14, while scanning for the next token"),
    ("meta-string", fm("f", "x", "metadata: text"),
     'invalid YAML: metadata: invalid type: string "text", expected struct SkillFrontmatterMetadata at line 3 column 11'),
    ("meta-null", fm("f", "x", "metadata: ~"),
     "invalid YAML: metadata: invalid type: unit value, expected struct SkillFrontmatterMetadata at line 3 column 11"),
    ("meta-int", fm("f", "x", "metadata: 12"),
     "invalid YAML: metadata: invalid type: integer `12`, expected struct SkillFrontmatterMetadata at line 3 column 11"),
    ("meta-bool", fm("f", "x", "metadata: false"),
     "invalid YAML: metadata: invalid type: boolean `false`, expected struct SkillFrontmatterMetadata at line 3 column 11"),
    ("meta-float", fm("f", "x", "metadata: 2.5"),
     "invalid YAML: metadata: invalid type: floating point `2.5`, expected struct SkillFrontmatterMetadata at line 3 column 11"),
    ("meta-short-list", fm("f", "x", "metadata:\n  short-description: [p, q]"),
     "invalid YAML: metadata.short-description: invalid type: sequence, expected a string at line 4 column 22"),
    ("meta-dup", fm("f", "x", "metadata:\n  short-description: a\n  short-description: b"),
     "invalid YAML: metadata: duplicate field `short-description` at line 4 column 3"),
    ("meta-twice", fm("f", "x", "metadata:\n  x: 1\nmetadata:\n  y: 2"), "invalid YAML: duplicate field `metadata`"),
    ("root-string", "---\nonly words here\n---\n",
     'invalid YAML: invalid type: string "only words here", expected struct SkillFrontmatter'),
    ("root-list", "---\n- one\n---\n", "invalid YAML: invalid type: sequence, expected struct SkillFrontmatter"),
    ("root-null", "---\n~\n---\n", "invalid YAML: invalid type: unit value, expected struct SkillFrontmatter"),
    ("docs-dots", "---\nname: f\n...\ndescription: more\n---\n",
     "invalid YAML: deserializing from YAML containing more than one document is not supported"),
    ("docs-dashes", "---\nname: f\n--- more\ndescription: x\n---\n",
     "invalid YAML: deserializing from YAML containing more than one document is not supported"),
    ("directive", "---\n%YAML 1.2\nname: f\ndescription: x\n---\n",
     "invalid YAML: did not find expected <document start> at line 2 column 1"),
    ("complex-key", "---\nname: f\ndescription: x\n? [k]\n: v\n---\n",
     "invalid YAML: invalid type: sequence, expected field identifier at line 3 column 3"),
    ("trailing-colon-name", fm("pq:", "x"), "invalid YAML: mapping values are not allowed in this context at line 1 column 9"),
    ("quote-then-colon", fm("f", '"quoted" and then: colon'),
     "invalid YAML: did not find expected key at line 2 column 23, while parsing a block mapping"),
    ("keyless", "---\nname: f\ndescription: x\n: v\n---\n",
     "invalid YAML: did not find expected key at line 3 column 1, while parsing a block mapping"),
    ("type-then-syntax", "---\nname: [1]\ndescription: ok\nbroken: [\n---\n",
     "invalid YAML: name: invalid type: sequence, expected a string at line 1 column 7"),
    ("syntax-then-type", "---\nbroken: [\nname: [1]\n---\n",
     "invalid YAML: did not find expected ',' or ']' at line 3 column 1, while parsing a flow sequence at line 1 column 9"),
    ("unknown-anchor", "---\nname: *nope\ndescription: x\n---\n", "invalid YAML: unknown anchor at line 1 column 7"),
    ("nul", "---\nname: nul\ndescription: a \x00 in it\n---\n", "invalid YAML: control characters are not allowed at position 25"),
    ("bad-byte", b"---\nname: bad-byte\ndescription: a \xfe byte\n---\n",
     "failed to read file: invalid utf-8 sequence of 1 bytes from index 34"),
    ("cut-short", b"---\nname: cut-short\ndescription: ends inside \xe2\x82",
     "failed to read file: incomplete utf-8 byte sequence from index 45"),
]


@pytest.mark.parametrize("folder, text, message", PARSE_ERRORS, ids=[c[0] for c in PARSE_ERRORS])
def test_parse_rejects(folder: str, text: str | bytes, message: str) -> None:
    got = parse_skill(text if isinstance(text, bytes) else text.encode("utf-8"), f"/skills/{folder}")
    assert (got.name, got.error) == (None, message)
    assert got.diagnostics[-1].code == "codex-error" and got.diagnostics[-1].message == message


def test_parse_positions_and_fallback_diagnostics() -> None:
    """Errors carry the file line/column (the block starts on line 2); fallbacks are noted."""
    got = parse_skill(b"---\nname: f\ndescription: fine\n  oops: indented\n---\n", "/s/f")
    assert (got.line, got.column) == (4, 7)
    got = parse_skill(b"---\nname: nul\ndescription: a \x00 in it\n---\n", "/s/f")
    assert (got.line, got.column) == (3, 16)
    got = parse_skill(fm(None, "x").encode(), "/s/my-folder")
    assert [(d.severity, d.code, d.message) for d in got.diagnostics] == [
        (Severity.WARNING, "codex-name-from-directory",
         "the frontmatter has no name; Codex names the skill after its directory: my-folder")]
    got = parse_skill(b"---\nname: f\ndescription: |\n  a\n  b\n---\n", "/s/f")
    assert [(d.code, d.field, d.line) for d in got.diagnostics] == [("codex-collapsed", "description", 3)]
    got = parse_skill(b"---\nname: f\ndescription: Use when: x\n---\n", "/s/f")
    assert [(d.code, d.line, d.column) for d in got.diagnostics] == [("codex-repaired", 3, 22)]
    assert got.diagnostics[0].message == (  # (the parser's own position is the block's: said so)
        "the frontmatter is not valid YAML (mapping values are not allowed in this context at line 2 column 22, "
        "Codex's parser counting lines from the one after the opening ---); Codex quotes values that hold ': ' "
        "or start like a flow value and reads it again")


def test_short_description_and_description_lengths() -> None:
    got = parse_skill(fm("f", "long one", "metadata:\n  short-description: The  short\n    one").encode(), "/s/f")
    assert got.short_description == "The short one"
    assert parse_skill(fm("f", "x", "metadata:\n  short-description: ''").encode(), "/s/f").short_description is None
    assert parse_skill(fm("f", "x", "metadata:\n  short-description: 9").encode(), "/s/f").short_description == "9"
    assert parse_skill(fm("f", "d" * 1500).encode(), "/s/f").description == "d" * 1500


def test_frontmatter_and_repair_helpers() -> None:
    assert rust_lines("a\r\nb\rc\n") == ["a", "b\rc"]
    assert extract_frontmatter("---\r\nname: x\n---\r\nbody") == "name: x"
    assert extract_frontmatter("---\n---\n") is None
    assert repair_scalars("name: a\ndescription: Use when: x # note\nother: it's: y") == (
        "name: a\ndescription: 'Use when: x' # note\nother: 'it''s: y'")
    assert repair_scalars('description: "quoted" then: colon') is None
    assert repair_scalars("description: |\n  a: b\nx: [ok]") is None
    assert collapse("a\u2028b\u00a0\u3000c\x1fd") == "a b c\x1fd"


# ------------------------------------------------------------------------------------- sidecar

def test_sidecar_interface_and_dependencies() -> None:
    side = parse_sidecar("interface:\n  display_name: Nice Name\n  short_description: From the sidecar\n"
                         "  icon_small: ./assets/a.png\n  icon_large: assets/sub/b.svg\n  brand_color: ' #00AAff '\n"
                         "  default_prompt: Please do it\ndependencies:\n  tools:\n    - type: mcp\n      value: one\n"
                         "      transport: stdio\n    - type: env_var\n", "/s/k")
    assert side.interface == {"displayName": "Nice Name", "shortDescription": "From the sidecar",
                              "iconSmall": "/s/k/assets/a.png", "iconLarge": "/s/k/assets/sub/b.svg",
                              "iconSmallUrl": None, "iconLargeUrl": None, "brandColor": "#00AAff",
                              "defaultPrompt": "Please do it"}
    assert side.dependencies == {"tools": [{"type": "mcp", "value": "one", "transport": "stdio"}]}
    bad = parse_sidecar("interface:\n  display_name: '" + "n" * 65 + "'\n  icon_small: ../x.png\n  icon_large: /a.png\n"
                        "  brand_color: red\n  default_prompt: '  '\n", "/s/k")
    assert bad.interface is None


@pytest.mark.parametrize("text, implicit, products, ignored", [
    ("policy:\n  allow_implicit_invocation: false\n", False, (), False),
    ("policy:\n  allow_implicit_invocation: FALSE\n", False, (), False),
    ("policy:\r\n  allow_implicit_invocation: false\r\n", False, (), False),
    ("\ufeffpolicy:\n  allow_implicit_invocation: false\n", False, (), False),
    ("policy:\n  allow_implicit_invocation: ~\n", None, (), False),
    ("policy:\n  allow_implicit_invocation: 'false'\n", None, (), True),
    ("policy:\n  allow_implicit_invocation: no\n", None, (), True),
    ("policy:\n  a: 1\npolicy:\n  b: 2\n", None, (), True),
    ("policy:\n  allow_implicit_invocation: false\n---\nx: 1\n", None, (), True),
    ("policy:\n  products: codex\n", None, (), True),
    ("policy:\n  products: [vscode]\n", None, (), True),
    ("policy:\n  products: [chatgpt, CODEX]\n", None, ("chatgpt", "codex"), False),
    ("interface: [open\n", None, (), True),
])
def test_sidecar_policy(text: str, implicit: bool | None, products: tuple[str, ...], ignored: bool) -> None:
    side = parse_sidecar(text, "/s/k")
    assert (side.implicit, side.products, side.ignored is not None) == (implicit, products, ignored)


def test_sidecar_in_a_workspace(tmp_path: Path) -> None:
    """Hidden skills stay listed (enabled); products without codex remove the skill; the
    sidecar is read from the canonical folder, links followed; Agents/ does not count."""
    repo = git(tmp_path / "repo")
    r = repo / ".agents/skills"
    for n, y in (("hidden", "policy:\n  allow_implicit_invocation: false\n"), ("chatgpt", "policy:\n  products: [chatgpt]\n"),
                 ("codexok", "policy:\n  products: [codex]\n")):
        skill(r, n)
        write(r / n / "agents/openai.yaml", y)
    skill(r, "upper")
    write(r / "upper/Agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    skill(r, "linked")
    write(tmp_path / "ext/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    os.symlink(tmp_path / "ext", r / "linked/agents")
    ws = WS(tmp_path, repo)
    cat = ws.catalog()
    gen = cat.current
    assert [(s.name, s.status.value) for s in gen.sources] == [("codexok", "ok"), ("hidden", "hidden"),
                                                               ("linked", "hidden"), ("upper", "ok")]
    assert [(r_.name, r_.warning.kind if r_.warning else "") for r_ in gen.rejected] == [("chatgpt", "codex-left-out")]
    assert error_records(gen) == []
    states = {e.name: e.state for e in cat.model_catalog().entries}
    assert states == {"codexok": EntryState.LISTED, "hidden": EntryState.HIDDEN, "linked": EntryState.HIDDEN,
                      "upper": EntryState.LISTED}


def test_accept_for_lint(tmp_path: Path) -> None:
    """accept() reads the sidecar and the nearest manifest too (what lint --target codex shows)."""
    d = tmp_path / "plug"
    write(d / ".codex-plugin/plugin.json", '{"name": "pl"}')
    p = skill(d, "s")
    write(d / "s/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    v = CODEX.accept(str(p), p.read_bytes())
    assert (v.accepted, v.name, v.display_name, v.hidden is not None) == (True, "pl:s", "s", True)
    v = CODEX.accept(str(p), None, error="Permission denied (os error 13)")
    assert (v.accepted, v.reason) == (False, "failed to read file: Permission denied (os error 13)")


# ------------------------------------------------------------------------------------- §4 order

def test_list_order_and_records(tmp_path: Path) -> None:
    """Scope (repo, user, system), name bytes, then path component by component; every copy
    of a name listed; the record's keys."""
    repo = git(tmp_path / "repo")
    r = repo / ".agents/skills"
    for i, n in enumerate(("Zed", "alpha", "_u", "A9", "é", "a b", "a-b", "a_b", "a:b", "B")):
        skill(r, f"o{i}", name=f"'{n}'")
    for rel in ("a-b/x", "a/b", "a.c"):
        skill(r, rel, name="paths", description=rel)
    ws = WS(tmp_path, repo)
    skill(ws.home / ".agents/skills", "alpha")
    skill(ws.home / ".codex/skills/.system", "sys")
    recs = skill_records(ws.catalog().current)
    assert [(x["scope"], x["name"]) for x in recs] == [
        ("repo", "A9"), ("repo", "B"), ("repo", "Zed"), ("repo", "_u"), ("repo", "a b"), ("repo", "a-b"),
        ("repo", "a:b"), ("repo", "a_b"), ("repo", "alpha"), ("repo", "paths"), ("repo", "paths"), ("repo", "paths"),
        ("repo", "é"), ("user", "alpha"), ("system", "sys")]
    assert [x["description"] for x in recs if x["name"] == "paths"] == ["a/b", "a-b/x", "a.c"]
    assert recs[0] == {"name": "A9", "description": "Does a thing.", "path": f"{r}/o3/SKILL.md", "scope": "repo",
                       "enabled": True, "pluginId": None}


def test_error_order(tmp_path: Path) -> None:
    """Roots in root order, then the walk's breadth-first order."""
    repo = git(tmp_path / "repo")
    ws = WS(tmp_path, repo)
    for root in (repo / ".agents/skills", ws.home / ".agents/skills"):
        write(root / "z/SKILL.md", "x")
        write(root / "a/b/SKILL.md", "x")
        write(root / "m/SKILL.md", "x")
    got = [os.path.relpath(str(e["path"]), tmp_path) for e in error_records(ws.catalog().current)]
    assert got == ["home/.agents/skills/m/SKILL.md", "home/.agents/skills/z/SKILL.md", "home/.agents/skills/a/b/SKILL.md",
                   "repo/.agents/skills/m/SKILL.md", "repo/.agents/skills/z/SKILL.md", "repo/.agents/skills/a/b/SKILL.md"]


# ------------------------------------------------------------------------------------- §5 catalog

def test_catalog_text_small_workspace(tmp_path: Path) -> None:
    """Aliased form: roots numbered in root order (user before the project's .agents), entries
    by scope (repo before user), name, path; raw text, the discovery path through links."""
    repo = git(tmp_path / "repo")
    r = repo / ".agents/skills"
    skill(r, "zeta", description="Zeta <b> & `tick`")
    skill(r, "alpha", description="line one\n  line two")
    skill(tmp_path / "out", "real", name="linked", description="through a link")
    os.symlink(tmp_path / "out/real", r / "link")
    ws = WS(tmp_path, repo)
    skill(ws.home / ".agents/skills", "beta", description="User one")
    shown = ws.catalog().model_catalog()
    assert shown.text == (
        "<skills_instructions>\n## Skills\n" + M["intro_aliased"] + "\n### Skill roots\n"
        f"- `r0` = `{ws.home}/.agents/skills`\n- `r1` = `{r}`\n### Available skills\n"
        "- alpha: line one line two (file: r1/alpha/SKILL.md)\n"
        "- linked: through a link (file: r1/link/SKILL.md)\n"
        "- zeta: Zeta <b> & `tick` (file: r1/zeta/SKILL.md)\n"
        "- beta: User one (file: r0/beta/SKILL.md)\n</skills_instructions>")
    assert (shown.budget, shown.unit) == (10000, "tokens")
    assert [e.state for e in shown.entries] == [EntryState.LISTED] * 4
    assert any("markers of the same length" in n for n in shown.notes)


def test_catalog_order_and_cap() -> None:
    """System, admin, repo, user; then name bytes; then the path as a plain string (a-b/x <
    a.c < a/b); descriptions over 1,024 characters become 1,021 + '...'."""
    r, u, s, m = "/a/long/repo/root", "/a/long/user/root", "/a/long/system/root", "/a/long/admin/root"
    items = [CatalogItem("same", "d", "repo", f"{r}/{p}/SKILL.md", f"{r}/{p}/SKILL.md", r, 0) for p in ("a/b", "a-b/x", "a.c")]
    items += [CatalogItem("u", "w" * 1030, "user", f"{u}/u/SKILL.md", f"{u}/u/SKILL.md", u, 1),
              CatalogItem("s", "d", "system", f"{s}/s/SKILL.md", f"{s}/s/SKILL.md", s, 2),
              CatalogItem("m", "d", "admin", f"{m}/m/SKILL.md", f"{m}/m/SKILL.md", m, 3)]
    out = render(items, Budget("tokens", 10000), M)
    lines = out.text.split("\n")
    start = lines.index("### Available skills") + 1
    body = lines[start:-1]
    assert [ln.split(" (file: ")[1] for ln in body] == ["r2/s/SKILL.md)", "r3/m/SKILL.md)", "r0/a-b/x/SKILL.md)",
                                                       "r0/a.c/SKILL.md)", "r0/a/b/SKILL.md)", "r1/u/SKILL.md)"]
    assert body[-1] == "- u: " + "w" * 1021 + "... (file: r1/u/SKILL.md)"


def test_catalog_absolute_form_and_empty_cases(tmp_path: Path) -> None:
    """One skill in each of 14 roots: the root table costs more than the short locators save,
    so the absolute form is kept; with two per root the aliases win. No visible skill: no block."""
    def items(per: int) -> list[CatalogItem]:
        return [CatalogItem(f"s{i}-{j}", "d", "repo", f"/very/long/root/number/{i:02d}/s{j}/SKILL.md",
                            f"/very/long/root/number/{i:02d}/s{j}/SKILL.md", f"/very/long/root/number/{i:02d}", i)
                for i in range(14) for j in range(per)]
    out = render(items(1), Budget("tokens", 10000), M)
    assert not out.aliased
    assert render(items(2), Budget("tokens", 10000), M).aliased
    assert out.text.startswith("<skills_instructions>\n## Skills\n" + M["intro_unaliased"] + "\n### Available skills\n- s0-0: d (file: /very/")
    assert render([], Budget("tokens", 10000), M).text == ""
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.cwd / ".agents/skills", "hidden")
    write(ws.cwd / ".agents/skills/hidden/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    assert ws.catalog().model_catalog().text == ""


def test_catalog_nothing_fits_and_table_kept() -> None:
    """A budget too small for any line: the block stays, unaliased intro, empty list."""
    items = [CatalogItem("s", "d", "repo", "/r/s/SKILL.md", "/r/s/SKILL.md", "/r", 0)]
    out = render(items, Budget("tokens", 1), M)
    assert out.text == ("<skills_instructions>\n## Skills\n" + M["intro_unaliased"] + "\n### Available skills\n"
                        "</skills_instructions>")
    assert out.alloc == (None,)


def test_catalog_usage_text_for_gpt55(tmp_path: Path) -> None:
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.cwd / ".agents/skills", "one")
    write(ws.home / ".codex/config.toml", 'model = "gpt-5.5"\n')
    shown = ws.catalog().model_catalog()
    assert shown.text.endswith("\n### How to use skills\n" + M["usage_aliased"] + "\n</skills_instructions>")
    assert shown.budget == 5440


@pytest.mark.parametrize("model, window, mct, expected", [
    (None, None, None, ("tokens", 10000)),
    (None, 100000, None, ("tokens", 2000)),
    (None, 600000, None, ("tokens", 12000)),
    (None, 872000, None, ("tokens", 17440)),
    (None, 1000000, None, ("tokens", 17440)),
    (None, 20000, None, ("tokens", 400)),
    (None, 3000, None, ("tokens", 60)),
    (None, 50, None, ("tokens", 1)),
    (None, 49, None, ("tokens", 1)),
    (None, 0, None, ("characters", 8000)),
    (None, -5, None, ("characters", 8000)),
    ("gpt-5.5", None, None, ("tokens", 5440)),
    ("gpt-5.5", 300000, None, ("tokens", 5440)),
    ("gpt-6.2-astra", None, None, ("tokens", 5440)),
    ("no-such-model", None, None, ("tokens", 5440)),
    (None, None, 500, ("tokens", 500)),
    (None, 100000, 20000, ("tokens", 10000)),
])
def test_budget_rule(model: str | None, window: int | None, mct: int | None, expected: tuple[str, int]) -> None:
    b = budget_for(model=model, context_window=window, max_context_tokens=mct)
    assert (b.unit, b.limit) == expected


def test_budget_from_the_cli_window(tmp_path: Path) -> None:
    """skillshelf's --context-window plays -c model_context_window; --budget N counts characters."""
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.cwd / ".agents/skills", "one")
    cat = ws.catalog(context_window=100000)
    assert (cat.model_catalog().budget, cat.index_budget) == (2000, 2000)
    shown = cat.model_catalog(budget=123)
    assert (shown.budget, shown.unit, shown.budget_rule) == (123, "characters", "--budget 123 characters")


def _lines(n: int, desc: str = "x" * 10) -> list[tuple[str, str, str]]:
    return [(chr(ord("a") + i), desc, "L") for i in range(n)]


@pytest.mark.parametrize("limit, expected", [
    (52, [10, 10]),       # everything fits: 2 × len("- a: xxxxxxxxxx (file: L)\n")
    (41, [5, 4]),         # shared out one character per line per round; the first is a round ahead
    (40, [4, 4]),
    (31, [0, 0]),         # names and paths only (the first character would cost 2 with its space)
    (30, [0, 0]),
    (29, [0, None]),      # the tail cut
    (14, [None, None]),
])
def test_allocate_characters(limit: int, expected: list[int | None]) -> None:
    assert allocate(_lines(2), Budget("characters", limit)) == expected


def _one_round_at_a_time(lines: list[tuple[str, str, str]], budget: Budget, remaining: int) -> list[int]:
    """Codex's round-robin played one character at a time (the definition the bisection skips)."""
    from skillshelf.core.hosts.codex.catalog import line_text

    def cost(i: int, k: int) -> int:
        name, d, loc = lines[i]
        return budget.line(line_text(name, d[:k], loc)) - budget.line(line_text(name, "", loc)) if k else 0

    alloc, spent, changed = [0] * len(lines), [0] * len(lines), True
    while changed:
        changed = False
        for i, (_, d, _) in enumerate(lines):
            if alloc[i] < len(d) and cost(i, alloc[i] + 1) - spent[i] <= remaining:
                remaining -= cost(i, alloc[i] + 1) - spent[i]
                alloc[i] += 1
                spent[i] = cost(i, alloc[i])
                changed = True
    return alloc


@pytest.mark.parametrize("unit", ["tokens", "characters"])
def test_allocate_equals_the_round_robin_played_out(unit: str) -> None:
    import random

    from skillshelf.core.hosts.codex.catalog import line_text

    rng = random.Random(5)
    for _ in range(40):
        lines = [(f"s{i}", "".join(rng.choice("abc é漢😀") for _ in range(rng.randint(0, 60))), f"r0/s{i}/SKILL.md")
                 for i in range(rng.randint(1, 25))]
        bare = sum(Budget(unit, 0).line(line_text(n, "", loc)) for n, _, loc in lines)
        extra = rng.randint(0, 400)
        got = allocate(lines, Budget(unit, bare + extra))
        full = sum(Budget(unit, 0).line(line_text(n, d, loc)) for n, d, loc in lines)
        if full <= bare + extra:
            assert got == [len(d) for _, d, _ in lines]
        else:
            assert got == _one_round_at_a_time(lines, Budget(unit, bare + extra), extra)


def test_allocate_greedy_keeps_later_shorter_lines() -> None:
    lines = [("a", "x", "a-very-long-locator-for-the-first-line"), ("b", "x", "L")]
    assert allocate(lines, Budget("characters", 20)) == [None, 0]


@pytest.mark.parametrize("limit, expected", [
    (6, [8]),    # "- a: " + 8 chars + " (file: L)\n" = 24 bytes = 6 tokens: a token's rest is free
    (5, [4]),
    (4, [0]),
    (3, [None]),
])
def test_allocate_tokens(limit: int, expected: list[int | None]) -> None:
    assert allocate(_lines(1, "y" * 40), Budget("tokens", limit)) == expected


def test_allocate_tokens_multibyte() -> None:
    # "- a: (file: L)\n" is 15 bytes (4 tokens); each "é" is 2 bytes
    assert allocate([("a", "é" * 20, "L")], Budget("tokens", 6)) == [4]


def test_catalog_entries_under_a_small_budget(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    for i in range(6):
        skill(repo / ".agents/skills", f"s{i}", description="word " * 40)
    ws = WS(tmp_path, repo)
    cat = ws.catalog()
    entries = cat.model_catalog(budget=300).entries
    assert [e.state for e in entries] == [EntryState.CUT] * 6
    assert entries[0].shown is not None and 0 < len(entries[0].shown) < 199
    assert {e.state for e in cat.model_catalog(budget=100).entries} == {EntryState.NAME_ONLY, EntryState.OMITTED}
    assert cat.model_catalog(budget=300).used <= 300


# ------------------------------------------------------------------------------------- prose

def test_markers_and_binary_lookup(tmp_path: Path) -> None:
    """Markers are as long as Codex's texts; the npm launcher leads to the native binary; a
    binary without the texts gives markers and says so."""
    for key, (n, _, _) in PROSE.items():
        assert len(marker(key)) == len(marker(key).encode()) == n
    pkg = tmp_path / "node_modules/@openai/codex"
    write(pkg / "bin/codex.js", "#!/usr/bin/env node\n")
    os.chmod(pkg / "bin/codex.js", 0o755)
    native = write(tmp_path / "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
                   b"\x7fELF not really")
    os.chmod(native, 0o755)
    (tmp_path / "bin").mkdir()
    os.symlink(pkg / "bin/codex.js", tmp_path / "bin/codex")
    env = Environment.from_mapping({"HOME": str(tmp_path), "PATH": str(tmp_path / "bin")})
    assert find_binary(env) == [str(native)]
    texts = find_texts(env)
    assert texts.source is None and texts["intro_aliased"] == M["intro_aliased"]
    assert "does not hold" in texts.note
    env2 = Environment.from_mapping({"HOME": str(tmp_path), "PATH": "", "SKILLSHELF_CODEX_BIN": str(native)})
    assert find_binary(env2) == [str(native)]
    assert "no Codex binary found" in find_texts(Environment.from_mapping({"HOME": str(tmp_path), "PATH": ""})).note


def test_root_table_keeps_roots_whose_skills_were_cut() -> None:
    """The root table is built before fitting: a root whose every skill was left out stays."""
    items = [CatalogItem("a", "d", "repo", "/repo/root/a/SKILL.md", "/repo/root/a/SKILL.md", "/repo/root", 1),
             CatalogItem("b", "d", "repo", "/repo/root/b/SKILL.md", "/repo/root/b/SKILL.md", "/repo/root", 1),
             CatalogItem("u", "d", "user", "/user/root/u/SKILL.md", "/user/root/u/SKILL.md", "/user/root", 0)]
    out = render(items, Budget("characters", 60), M)
    assert out.aliased and out.alloc == (0, 0, None)
    assert out.roots == ("- `r0` = `/user/root`", "- `r1` = `/repo/root`")
    assert "\n- a: (file: r1/a/SKILL.md)\n- b: (file: r1/b/SKILL.md)\n</skills_instructions>" in out.text


def test_symlinked_root_is_canonical_in_the_table(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    skill(tmp_path / "store", "one")
    skill(tmp_path / "store", "two")
    (repo / ".agents").mkdir()
    os.symlink(tmp_path / "store", repo / ".agents/skills")
    ws = WS(tmp_path, repo)
    gen = ws.catalog().current
    assert [s.location for s in gen.sources] == [f"{tmp_path}/store/one/SKILL.md", f"{tmp_path}/store/two/SKILL.md"]
    assert f"- `r0` = `{tmp_path}/store`\n" in ws.catalog().model_catalog().text


def test_empty_git_folder_only(tmp_path: Path) -> None:
    """Only an empty .git/ at the repository: .agents is walked up to it, .codex is cwd only."""
    repo = tmp_path / "repo"
    cwd = repo / "a"
    (repo / ".git").mkdir(parents=True)
    for d in (repo, cwd):
        (d / ".codex").mkdir(parents=True)
        (d / ".agents/skills").mkdir(parents=True)
    ws = WS(tmp_path, cwd)
    assert [p for k, p in ws.roots() if k == "project"] == [f"{cwd}/.codex/skills", f"{repo}/.agents/skills",
                                                           f"{cwd}/.agents/skills"]


def test_name_rule_reaches_system_skills_and_hidden_stay_enabled(tmp_path: Path) -> None:
    ws = WS(tmp_path, git(tmp_path / "repo"))
    skill(ws.home / ".codex/skills/.system", "sys")
    skill(ws.cwd / ".agents/skills", "quiet")
    write(ws.cwd / ".agents/skills/quiet/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    write(ws.home / ".codex/config.toml", '[[skills.config]]\nname = "sys"\nenabled = false\n')
    recs = skill_records(ws.catalog().current)
    assert [(r["name"], r["enabled"]) for r in recs] == [("quiet", True), ("sys", False)]


def test_name_only_line_text(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    for i in range(3):
        skill(repo / ".agents/skills", f"s{i}", description="word " * 40)
    shown = WS(tmp_path, repo).catalog().model_catalog(budget=87)  # 3 × len("- s0: (file: r0/s0/SKILL.md\n")
    assert shown.text.endswith("### Available skills\n- s0: (file: r0/s0/SKILL.md)\n- s1: (file: r0/s1/SKILL.md)\n"
                               "- s2: (file: r0/s2/SKILL.md)\n</skills_instructions>")
    assert [e.state for e in shown.entries] == [EntryState.NAME_ONLY] * 3


# ------------------------------------------------------------------------------------- lint and compare

def test_lint_target_codex_is_the_host_verdict(tmp_path: Path) -> None:
    from skillshelf.core.hostlint import host_lint_file

    bad = write(tmp_path / "x/SKILL.md", "---\nname: x\n---\nbody\n")
    report = host_lint_file(get_host("codex"), str(bad))
    assert not report.valid
    assert [(d.code, d.message) for d in report.diagnostics] == [("codex-error", "missing field `description`")]
    ok = write(tmp_path / "y/SKILL.md", "---\ndescription: fine\n---\nbody\n")
    report = host_lint_file(get_host("codex"), str(ok))
    assert report.valid and [d.code for d in report.diagnostics] == ["codex-name-from-directory", "codex-loads"]


def test_compare_explains_what_codex_does_not_read(tmp_path: Path) -> None:
    from skillshelf.core.compare import CellState, compare

    repo = git(tmp_path / "repo")
    skill(repo / ".claude/skills", "only-claude")
    deep = skill(repo / ".agents/skills", "a/b/c/d/e/f/g", name="deep")
    skill(repo / ".agents/skills", ".dot/x", name="dotted")
    ws = WS(tmp_path, repo)
    result = compare(ws.context(), [get_host("zuno"), ws.host, get_host("claude")])
    cells = {os.path.relpath(r.location, repo): r.cells["codex"] for r in result.rows}
    assert cells[".claude/skills/only-claude/SKILL.md"].state is CellState.NOT_READ
    assert cells[".claude/skills/only-claude/SKILL.md"].reason.startswith(f"Codex 0.171.0 does not read {repo}/.claude/skills")
    assert cells[os.path.relpath(deep, repo)].reason == (
        "7 folder level(s) below project .agents/skills; Codex 0.171.0 reads {0..6 levels}/SKILL.md there")
    assert cells[".agents/skills/.dot/x/SKILL.md"].reason == (
        "in a dot folder below project .agents/skills; Codex 0.171.0 skips dot folders there")
    assert [h.budget_unit for h in result.hosts][:2] == ["characters", "tokens"]


def test_source_facts(tmp_path: Path) -> None:
    repo = git(tmp_path / "repo")
    skill(tmp_path / "out", "real", name="k", extra="metadata:\n  short-description: Brief")
    write(tmp_path / "out/real/agents/openai.yaml", "interface:\n  display_name: Kay\npolicy:\n  allow_implicit_invocation: false\n")
    (repo / ".agents/skills").mkdir(parents=True)
    os.symlink(tmp_path / "out/real", repo / ".agents/skills/k")
    ws = WS(tmp_path, repo)
    cat = ws.catalog()
    facts = cat.session.source_facts(cat.current.sources[0])
    assert [(f.label, f.value) for f in facts] == [
        ("scope", "repo"), ("catalog path", f"{repo}/.agents/skills/k/SKILL.md"), ("short", "Brief"),
        ("sidecar", "agents/openai.yaml: displayName=Kay; allow_implicit_invocation=false")]
