"""Host ``claude`` against the real Claude Code 2.1.332 (SPEC N2): fixture workspaces covering
every rule, and workspaces built from ``../shared/corpus``.

Per workspace the client runs once (:func:`claude_probe.ask`: control requests + one message to
a loopback mock model) and the host builds the same workspace. Compared: every loaded skill
(key, path, description, listed, the copy that shadows it), the order of the model listing, and
the listing text line by line (user, project and command lines byte for byte; built-in lines by
name and whether their description was kept — exact too when the host found their text).
Every difference must be listed in ``known_differences.tsv``.

Skips when the client is not installed (``SKILLSHELF_CLIENTS_DIR``) and, for the corpus, when
``../shared`` is absent.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import claude_probe
import known
import pytest
import realclients
import rules_table
from tagged import TAGGED, tagged_text

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.base import HostContext
from skillshelf.core.hosts.claude import BUILTIN_SCHEME
from skillshelf.core.hosts.claude.builtins import BUILTIN_SKILLS
from skillshelf.core.model import Status
from skillshelf.core.paths import Environment

BUILTIN_NAMES = {b.name for b in BUILTIN_SKILLS}
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


# ------------------------------------------------------------------------------------- helpers

def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def skill(root: Path, folder: str, text: str | bytes) -> Path:
    return write(root / folder / "SKILL.md", text)


def fm(name: str | None = None, description: str | None = None, extra: str = "", body: str = "Body.\n") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def git(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def rel(path: str | None, ws: Path, home: Path) -> str:
    """``path`` relative to the workspace, or ``~/…`` for the home (``?`` when unknown)."""
    if path is None:
        return "?"
    for base, prefix in ((os.path.realpath(ws), ""), (str(ws), ""), (os.path.realpath(home), "~/"), (str(home), "~/")):
        if path == base or path.startswith(base + "/"):
            return prefix + os.path.relpath(path, base)
    return path


#: Where the host remembers the offsets of the built-in strings in the installed client.
_CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / f"skillshelf-claude-test-cache-{os.getuid()}"


def host_view(ws: Path, home: Path, env: Mapping[str, str]) -> tuple[Any, Any]:
    """The host over the same workspace; it may read the built-in descriptions from the
    installed client (``SKILLSHELF_CLIENTS_DIR``), so those lines are compared exactly too."""
    extra = {"SKILLSHELF_CLIENTS_DIR": os.environ.get(realclients.CLIENTS_ENV, ""), "XDG_CACHE_HOME": str(_CACHE)}
    ctx = HostContext(cwd=str(ws), env=Environment.from_mapping({"HOME": str(home), **env, **extra}))
    cat = Catalog.from_context(get_host("claude"), ctx)
    return cat.current, cat.model_catalog()


def host_rows(gen: Any) -> dict[str, dict[str, Any]]:
    out = {}
    for s in gen.sources:
        if s.location.startswith(BUILTIN_SCHEME):
            continue
        if s.status is Status.HIDDEN and (s.status_reason or "").startswith("conditional"):
            continue  # conditional skills are not loaded until a matching file is touched
        out[s.location] = {"name": s.name, "description": s.description, "listed": s.status is Status.OK,
                           "shadowed_by": s.shadowed_by[0] if s.status is Status.SHADOWED else None}
    return out


def builtin_line(line: str) -> tuple[str, bool] | None:
    m = re.match(r"^- ([a-z-]+)(: )?", line)
    if m and m.group(1) in BUILTIN_NAMES:
        return m.group(1), m.group(2) is not None
    return None


def differences(ws: Path, home: Path, env: Mapping[str, str] | None = None) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """(differences as (path, field, detail), counts of what agreed)."""
    env = dict(env or {})
    answer = claude_probe.ask(str(ws), str(home), env)
    assert "get_skills_dialog" in answer.responses, "the client did not answer the control requests"
    client = claude_probe.listing(str(ws), str(home), env, answer=answer)
    gen, catalog = host_view(ws, home, env)
    mine = host_rows(gen)
    diffs: list[tuple[str, str, str]] = []
    counts = {"rows": 0, "rows_agree": 0, "lines": 0, "lines_agree": 0}
    seen: set[str] = set()
    for row in client:
        counts["rows"] += 1
        path = row["path"]
        r = rel(path, ws, home)
        if path is None or path not in mine:
            diffs.append((r, "listed", f"client loads {row['name']!r}, host does not"))
            continue
        seen.add(path)
        h = mine[path]
        bad = False
        for f in ("name", "description", "listed", "shadowed_by"):
            if row[f] != h[f]:
                diffs.append((r, f, f"client {row[f]!r} host {h[f]!r}"))
                bad = True
        counts["rows_agree"] += not bad
    for path, h in mine.items():
        if path not in seen:
            counts["rows"] += 1
            diffs.append((rel(path, ws, home), "listed", f"host loads {h['name']!r}, client does not"))
    # order of the model listing
    c_order = [r["path"] for r in client if r["listed"]]
    h_order = [s.location for s in gen.sources if s.status is Status.OK and not s.location.startswith(BUILTIN_SCHEME)]
    if c_order != h_order:
        shown = ([rel(p, ws, home) for p in c_order][:8], [rel(p, ws, home) for p in h_order][:8])
        diffs.append(("*", "order", f"client {shown[0]} host {shown[1]}"))
    # the listing text
    c_lines = claude_probe.catalog_lines(answer.text)
    h_lines = claude_probe.catalog_lines(catalog.text)
    if (answer.text or "").startswith(claude_probe.HEADER) != catalog.text.startswith(claude_probe.HEADER):
        diffs.append(("*", "catalog", "header present in one only"))
    for i in range(max(len(c_lines), len(h_lines))):
        counts["lines"] += 1
        c = c_lines[i] if i < len(c_lines) else None
        h = h_lines[i] if i < len(h_lines) else None
        if c is not None and h is not None and c == h:
            counts["lines_agree"] += 1
            continue
        cb, hb = builtin_line(c or ""), builtin_line(h or "")
        if cb is not None and cb == hb and "<<Claude Code built-in" in (h or ""):
            counts["lines_agree"] += 1  # the host has no built-in text: same name, same kept/cut
            continue
        diffs.append((f"line {i + 1}", "catalog", f"client {(c or '')[:160]!r} host {(h or '')[:160]!r}"))
    return diffs, counts


def check(name: str, ws: Path, home: Path, env: Mapping[str, str] | None = None) -> dict[str, int]:
    diffs, counts = differences(ws, home, env)
    left = known.unexplained("claude", name, diffs)
    print(f"[claude agreement] {name}: skills {counts['rows_agree']}/{counts['rows']}, listing lines "
          f"{counts['lines_agree']}/{counts['lines']}, differences {len(diffs)} ({len(left)} unexplained)")
    assert not left, f"{name}: {len(left)} unexplained difference(s):\n" + "\n".join(map(str, left[:40]))
    return counts


@pytest.fixture(autouse=True)
def _client() -> None:
    realclients.require("claude")


# ------------------------------------------------------------------------------------- fixtures

def test_layout_and_parser(tmp_path: Path) -> None:
    """Layout (direct children, dot folders, synced, node_modules, nested, file names, size
    limit, symlinks, loops, dangling links), the frontmatter block, YAML and its fallback,
    description / name / when_to_use / flags / paths, folding, escaping, the entry cap, names."""
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    home.mkdir()
    git(ws)
    s = ws / ".claude" / "skills"
    skill(s, "plain", fm("plain", "A plain skill"))
    write(s / "SKILL.md", fm("in-root", "a SKILL.md in the root itself"))
    skill(s / "group", "nested", fm("nested", "two levels down"))
    skill(s, ".hidden-dir", fm("hidden-dir", "a dot folder"))
    skill(s, "node_modules", fm("nm", "a folder named node_modules"))
    skill(s / "node_modules", "deeper", fm("deeper", "inside node_modules"))
    skill(s, "synced", fm("synced", "the reserved folder name"))
    skill(s, "Synced.", fm("synced2", "reserved name, other case and a dot"))
    write(s / "lowercase" / "skill.md", fm("lowercase", "lower-case file name"))
    write(s / "ext" / "SKILL.MD", fm("ext", "upper-case extension"))
    (s / "dir-file" / "SKILL.md").mkdir(parents=True)
    write(s / "loose.md", fm("loose", "a file in the root"))
    skill(tmp_path / "elsewhere", "real-dir", fm("via-link", "reached through a folder link"))
    os.symlink(tmp_path / "elsewhere" / "real-dir", s / "dir-link")
    write(tmp_path / "files" / "target.md", fm("file-link", "SKILL.md is a link"))
    (s / "file-link").mkdir()
    os.symlink(tmp_path / "files" / "target.md", s / "file-link" / "SKILL.md")
    os.symlink(tmp_path / "nowhere", s / "dangling")
    os.symlink(s / "self", s / "self")
    os.symlink(tmp_path / "files" / "target.md", s / "entry-to-file")
    skill(s, "empty", b"")
    skill(s, "too-big", fm("too-big", "one byte over") + "z" * 1_000_001)
    head = fm("at-limit", "exactly the limit", body="")
    skill(s, "at-limit", head + "q" * (1_000_000 - len(head)))
    # the frontmatter block
    skill(s, "bom", "\ufeff" + fm("bom", "a byte order mark first"))
    skill(s, "two-boms", "\ufeff\ufeff" + fm("two-boms", "two byte order marks"))
    skill(s, "crlf", fm("crlf", "windows line ends", body="Body\n").replace("\n", "\r\n"))
    skill(s, "trailing-ws", "---  \nname: trailing-ws\ndescription: spaces after the dashes\n---   \nBody\n")
    skill(s, "lead-blank", "\n" + fm("lead-blank", "a blank line before the block"))
    skill(s, "unclosed", "---\nname: unclosed\ndescription: never closed\nBody\n")
    skill(s, "dash-in-value", fm("dash-in-value", "left---right"))
    skill(s, "indented-close", "---\nname: indented-close\ndescription: closes indented\n  ---\nBody\n")
    skill(s, "eof-close", "---\nname: eof-close\ndescription: closing at the end\n---")
    skill(s, "second-block", fm("second-block", "first block", body="Body\n---\nname: other\n---\n"))
    # YAML
    skill(s, "colon", fm("colon", "Use when: the user asks: things"))
    skill(s, "colon-hash", fm("colon-hash", "note: keep # this part"))
    skill(s, "tab-bad", "---\nname: tab-bad\n\tdescription: tab indented\n---\nFirst body line\n")
    skill(s, "tab-fixable", fm("tab-fixable", "ok", "metadata:\n\tkey: v"))
    skill(s, "not-mapping", "---\n- a\n- b\n---\nList body\n")
    skill(s, "comment-only", "---\n# nothing here\n---\nComment body\n")
    skill(s, "quoted-unindented", '---\nname: quoted-unindented\ndescription: "first\nsecond"\n---\nQuoted body\n')
    skill(s, "numbers", fm("1.50", "1e3", "version: 012"))
    skill(s, "octal", fm("octal", "0o17"))
    skill(s, "yes-word", fm("yes-word", "yes"))
    skill(s, "date", fm("date", "2024-01-02"))
    skill(s, "anchor", "---\nname: anchor\nbase: &v shared text\ndescription: *v\n---\n")
    skill(s, "unknown-tag", fm("unknown-tag", "!custom tagged value"))
    for folder in TAGGED:
        skill(s, folder, tagged_text(folder))
    skill(s, "nul", fm("nul", "has\x00nul"))
    skill(s, "non-utf8", b"---\nname: non-utf8\ndescription: caf\xe9 \xff bytes\n---\n")
    skill(s, "upper-keys", "---\nName: upper-keys\nDescription: capital keys\n---\nUpper body\n")
    # description
    skill(s, "no-desc", "---\nname: no-desc\n---\n\n\n  ## The Heading  \n\nText\n")
    skill(s, "no-desc-hash", "---\nname: no-desc-hash\n---\n#NoSpace\n")
    skill(s, "no-desc-long", "---\nname: no-desc-long\n---\n" + "word " * 40 + "\n")
    skill(s, "no-desc-nobody", "---\nname: no-desc-nobody\n---\n")
    skill(s, "empty-desc", fm("empty-desc", '""', body="From the body\n"))
    skill(s, "list-desc", fm("list-desc", "[a, b]", body="List description body\n"))
    skill(s, "map-desc", fm("map-desc", "{k: v}", body="Map description body\n"))
    skill(s, "bool-desc", fm("bool-desc", "false"))
    skill(s, "no-fm", "Just a first line\n\nAnd more.\n")
    skill(s, "folded", "---\nname: folded\ndescription: >-\n  folded one\n  folded two\n---\n")
    skill(s, "literal", "---\nname: literal\ndescription: |\n  line one\n    indented\n  line three\n---\n")
    skill(s, "escapes", fm("escapes", '"tab\\tnew\\nline"'))
    skill(s, "ctrl", fm("ctrl", '"ansi \\e[31mred\\e[0m and bell\\a zero\\u200bwidth"'))
    skill(s, "angles", fm("angles", "a <tag> & \"quotes\" 'single'"))
    skill(s, "emoji", fm("emoji", "family 👨‍👩‍👧 warn ⚠️ wide 漢字"))
    skill(s, "long-desc", fm("long-desc", "L" * 1600))
    skill(s, "long-when", fm("long-when", "m" * 1000, "when_to_use: " + "w" * 600))
    skill(s, "surrogate-cut", fm("surrogate-cut", "a" * 1534 + "😀tail"))
    skill(s, "when", fm("when", "main text", "when_to_use: when things happen"))
    skill(s, "when-only", "---\nname: when-only\nwhen_to_use: only the when\n---\nWhen body\n")
    skill(s, "when-list", fm("when-list", "d", "when_to_use: [x, y]"))
    skill(s, "when-dash", fm("when-dash", "d", "when-to-use: ignored key"))
    # flags
    skill(s, "dmi", fm("dmi", "model may not call it", "disable-model-invocation: true"))
    skill(s, "dmi-yes", fm("dmi-yes", "string yes", 'disable-model-invocation: "yes"'))
    skill(s, "dmi-off", fm("dmi-off", "string off", 'disable-model-invocation: "off"'))
    skill(s, "ui-false", fm("ui-false", "not user invocable", "user-invocable: false"))
    skill(s, "paths", fm("paths", "conditional", 'paths: "src/**/*.py"'))
    skill(s, "paths-all", fm("paths-all", "every path", 'paths: "**"'))
    skill(s, "fork", fm("fork", "forked context", "context: fork\nmodel: haiku"))
    # names
    skill(s, "Dir Space", fm("dirspace", "a space in the folder name"))
    skill(s, " lead", fm("lead", "leading space folder"))
    skill(s, "trail ", fm("trail", "trailing space folder"))
    skill(s, "two  space", fm("twospace", "double space folder"))
    skill(s, "a<b", fm("ab", "angle in the folder name"))
    skill(s, ":colon-first", fm("colonfirst", "leading colon"))
    skill(s, "ns:tool", fm("tool", "key ends with :name"))
    skill(s, "anthropic-skills", fm("x", "reserved folder name"))
    skill(s, "fm-reserved", fm("anthropic-skills:thing", "reserved frontmatter name"))
    skill(s, "UPPER", fm("upper", "upper-case folder"))
    skill(s, "n-unicode", fm("café-über", "unicode name"))
    skill(s, "n-slash", fm("My Tool/Thing", "slash and spaces"))
    skill(s, "n-lt", fm("a<b>", "angle in the name"))
    skill(s, "n-tab", fm('"bad\\tname"', "tab in the name"))
    skill(s, "n-list", fm("[a, b]", "list name"))
    skill(s, "n-map", fm("{k: v}", "map name"))
    skill(s, "n-bool", fm("true", "boolean name"))
    skill(s, "n-257", fm("k" * 257, "name over the limit"))
    skill(s, "n-help", fm("help", "name of a slash command"))
    skill(s, "n-same-a", fm("shared-fm", "first with this name"))
    skill(s, "n-same-b", fm("shared-fm", "second with this name"))
    skill(s, "n-points", fm("plain", "frontmatter name is another key"))
    skill(s, "n-empty", fm('""', "empty name"))
    check("claude-fixture-layout", ws, home)


def test_precedence_roots_commands_settings(tmp_path: Path) -> None:
    """User over project, cwd over parent, git root stop, hidden winners, built-in names,
    conditional copies, the same file through two roots, hard links, legacy commands,
    skillOverrides and the per-entry cap from settings."""
    home = tmp_path / "home"
    outer = home / "outer"
    repo = outer / "repo"
    cwd = repo / "sub"
    git(repo)
    cwd.mkdir(parents=True)
    u = home / ".claude" / "skills"
    p = repo / ".claude" / "skills"
    c = cwd / ".claude" / "skills"
    above = outer / ".claude" / "skills"
    for root, who in ((u, "user"), (p, "parent"), (c, "cwd")):
        skill(root, "all3", fm("all3", f"{who} copy of all3"))
    skill(p, "pc", fm("pc", "parent copy of pc"))
    skill(c, "pc", fm("pc", "cwd copy of pc"))
    skill(above, "above", fm("above", "above the git root"))
    skill(above, "pc", fm("pc", "above copy of pc"))
    skill(u, "hid", fm("hid", "hidden user winner", "disable-model-invocation: true"))
    skill(c, "hid", fm("hid", "visible cwd copy"))
    skill(u, "cond", fm("cond", "conditional user copy", "paths: ['src/*.py']"))
    skill(c, "cond", fm("cond", "unconditional cwd copy"))
    skill(u, "simplify", fm("simplify", "my own simplify"))
    skill(c, "init", fm("init", "my own init"))
    skill(c, "Init", fm("Init", "capital Init is another key"))
    skill(u, "dmi-loop", fm("loop-x", "a hidden skill named like a built-in", "disable-model-invocation: true"))
    skill(c, "loop", fm("loop", "hidden built-in name taken", "disable-model-invocation: true"))
    skill(u, "uif", fm("uif", "user copy, not user-invocable", "user-invocable: false"))
    skill(c, "uif", fm("uif", "cwd copy of uif"))
    skill(u, "ovoff", fm("ovoff", "override off"))
    skill(u, "ovname", fm("ovname", "override name-only"))
    skill(u, "ovuio", fm("ovuio", "override user-invocable-only"))
    skill(c, "ovoff", fm("ovoff", "cwd copy of ovoff"))
    skill(c, "capped", fm("capped", "c" * 300))
    write(home / ".claude" / "settings.json",
          '{"skillOverrides": {"ovoff": "off", "ovname": "name-only", "ovuio": "user-invocable-only"},'
          ' "skillListingMaxDescChars": 250}')
    write(repo / ".claude" / "settings.json", '{"skillOverrides": {"pc": "off"}}')  # not the cwd: not read
    write(cwd / ".claude" / "settings.local.json", '{"skillOverrides": {"uif": "name-only"}}')
    # the same file through two roots, and a hard link
    skill(tmp_path / "pool", "shared", fm("shared", "one file, two roots"))
    os.symlink(tmp_path / "pool" / "shared", u / "shared-user")
    os.symlink(tmp_path / "pool" / "shared", c / "shared-cwd")
    skill(u, "hard", fm("hard", "hard linked"))
    (p / "hard").mkdir()
    os.link(u / "hard" / "SKILL.md", p / "hard" / "SKILL.md")
    # legacy commands
    cu = home / ".claude" / "commands"
    cp = cwd / ".claude" / "commands"
    write(cu / "cmd-a.md", "---\ndescription: user command a\n---\nDo a\n")
    write(cu / "grp" / "cmd-b.md", "Command b first line\n")
    write(cp / "all3.md", "---\ndescription: a command named all3\n---\n")
    write(cp / ".dot" / "h.md", "hidden folder command\n")
    write(cp / "withskill" / "SKILL.md", "---\ndescription: skill file in commands\n---\n")
    write(cp / "withskill" / "other.md", "ignored beside SKILL.md\n")
    write(cp / "empty.md", "")
    check("claude-fixture-precedence", cwd, home)


def test_order(tmp_path: Path) -> None:
    """localeCompare order of keys inside each root (punctuation < digits < letters, case,
    accents, other scripts)."""
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    home.mkdir()
    git(ws)
    s = ws / ".claude" / "skills"
    names = ["b", "B", "a", "A", "ab", "aB", "Ab", "a1", "a10", "a9", "a-b", "a_b", "a.b", "a b", "e", "é", "f",
             "Ärger", "arger", "zeta", "Zeta", "ω-omega", "я-ya", "한국", "カナ", "漢字", "1one", "10ten", "2two",
             "_under", "-dash", "~tilde", "$dollar", "(paren", "ｆull"]
    for n in names:
        skill(s, n, fm(None, f"order {n}"))
    check("claude-fixture-order", ws, home)


def _budget_workspace(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    git(ws)
    rng = random.Random(7)
    u = home / ".claude" / "skills"
    p = ws / ".claude" / "skills"
    for i in range(12):
        skill(u, f"u{i:02d}", fm(f"u{i:02d}", "user " + "x" * rng.randrange(20, 700)))
    for i in range(60):
        skill(p, f"p{i:02d}", fm(f"p{i:02d}-fm" if i % 5 == 0 else None,
                                 "project " + "y" * rng.randrange(10, 900)))
    skill(p, "wide", fm("wide", "漢字" * 200))
    skill(p, "emoji-w", fm("emoji-w", "⚠️ " * 150))
    return ws, home


@pytest.mark.parametrize("env", [
    {},
    {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "9000"},
    {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "16000.5"},
    {"ANTHROPIC_MODEL": "claude-sonnet-4-5"},
], ids=["default", "env-9000", "env-float", "sonnet-4-5"])
def test_budget(tmp_path: Path, env: dict[str, str]) -> None:
    """The budget (1% of the default model's window; env override; a 200K / 4-bytes model)
    and the greedy dropping of whole descriptions, widths in terminal columns."""
    ws, home = _budget_workspace(tmp_path)
    check("claude-fixture-budget", ws, home, env)


def test_config_dir_and_walk(tmp_path: Path) -> None:
    """CLAUDE_CONFIG_DIR replaces ~/.claude; the walk without git ends below HOME; a `.git`
    file counts as the git root."""
    home = tmp_path / "home"
    cfg = tmp_path / "cfg"
    skill(home / ".claude" / "skills", "default-user", fm("default-user", "not read with CLAUDE_CONFIG_DIR"))
    skill(cfg / "skills", "cfg-user", fm("cfg-user", "read from CLAUDE_CONFIG_DIR"))
    skill(cfg / ".claude" / "skills", "cfg-nested", fm("cfg-nested", "not read"))
    top = home / "nogit"
    cwd = top / "a" / "b"
    cwd.mkdir(parents=True)
    skill(top / ".claude" / "skills", "top", fm("top", "the folder just below HOME"))
    skill(top / "a" / ".claude" / "skills", "mid", fm("mid", "a parent"))
    skill(cwd / ".claude" / "skills", "here", fm("here", "the cwd"))
    skill(cwd / ".claude" / "skills" / "here", "below", fm("below", "below a skill"))
    skill(cwd / "deep" / ".claude" / "skills", "below-cwd", fm("below-cwd", "below the cwd"))
    skill(cwd / ".agents" / "skills", "agents", fm("agents", "not a Claude folder"))
    check("claude-fixture-cfgdir", cwd, home, {"CLAUDE_CONFIG_DIR": str(cfg)})
    write(top / "a" / ".git", "gitdir: /nonexistent\n")
    check("claude-fixture-gitfile", cwd, home)


# ------------------------------------------------------------------------------------- corpus

def _corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("SKILL.md") if p.is_file())


def _build_corpus_workspace(tmp_path: Path, corpus: Path) -> tuple[Path, Path]:
    """Every corpus SKILL.md under the client's roots: alternately user, project cwd and
    project parent (a folder per skill, named after its own folder; a name already taken in
    that root moves to the next root, else gets a suffix), 60 same-key copies in another root,
    every 9th file a symlinked folder, every 13th a symlinked SKILL.md, one file reached through
    two roots, and broken variants (BOM, bad YAML, unclosed, empty, binary, over the limit,
    a dangling link, a refused folder name)."""
    home = tmp_path / "home"
    repo = home / "work" / "repo"
    cwd = repo / "app"
    git(repo)
    cwd.mkdir(parents=True)
    roots = [home / ".claude" / "skills", cwd / ".claude" / "skills", repo / ".claude" / "skills"]
    pool = tmp_path / "pool"
    files = _corpus_files(corpus)
    taken: list[set[str]] = [set(), set(), set()]
    placed: list[tuple[int, str, Path]] = []
    for i, f in enumerate(files):
        folder = f.parent.name
        r = i % 3
        for k in range(3):
            if folder not in taken[(r + k) % 3]:
                r = (r + k) % 3
                break
        else:
            folder = f"{folder}-{i}"
        taken[r].add(folder)
        data = f.read_bytes()
        if i % 9 == 4:
            target = pool / f"d{i}"
            write(target / "SKILL.md", data)
            roots[r].mkdir(parents=True, exist_ok=True)
            os.symlink(target, roots[r] / folder)
        elif i % 13 == 6:
            write(pool / f"f{i}.md", data)
            (roots[r] / folder).mkdir(parents=True)
            os.symlink(pool / f"f{i}.md", roots[r] / folder / "SKILL.md")
        else:
            write(roots[r] / folder / "SKILL.md", data)
        placed.append((r, folder, f))
    # same-key copies in another root
    for r, folder, f in placed[5:65]:
        other = (r + 1) % 3
        if folder not in taken[other]:
            taken[other].add(folder)
            write(roots[other] / folder / "SKILL.md", f.read_bytes().replace(b"description:", b"description: copy", 1))
    # one file reached through two roots
    write(pool / "twice" / "SKILL.md", files[0].read_bytes())
    os.symlink(pool / "twice", roots[0] / "zz-twice-user")
    os.symlink(pool / "twice", roots[1] / "zz-twice-project")
    # broken variants
    sample = files[len(files) // 2].read_bytes()
    broken = {
        "zz-bom": b"\xef\xbb\xbf" + sample,
        "zz-bad-yaml": b"---\nname: [unclosed\ndescription: a: b: c\n---\nBroken YAML body\n",
        "zz-unclosed": b"---\nname: zz-unclosed\ndescription: no end\n",
        "zz-empty": b"",
        "zz-binary": bytes(range(256)) * 4,
        "zz-huge": sample + b"h" * 1_000_001,
        "zz-a---b": b"---\nname: zz\ndescription: a---b\n---\n",
        "zz bad  key": sample,
    }
    for k, (name, data) in enumerate(broken.items()):
        write(roots[k % 3] / name / "SKILL.md", data)
    os.symlink(tmp_path / "missing", roots[1] / "zz-dangling")
    return cwd, home


@pytest.fixture(scope="module")
def corpus_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    shared = realclients.require_shared()
    corpus = shared / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is absent")
    return _build_corpus_workspace(tmp_path_factory.mktemp("corpus"), corpus)


@pytest.mark.parametrize("env", [{}, {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "10000000"}],
                         ids=["default-budget", "every-description"])
def test_corpus(corpus_workspace: tuple[Path, Path], env: dict[str, str]) -> None:
    """The whole corpus over user and project roots, with same-key copies, links and broken files."""
    cwd, home = corpus_workspace
    counts = check("claude-corpus", cwd, home, env)
    assert counts["rows"] > 1100 and counts["lines"] > 900


@pytest.mark.parametrize("variant", rules_table.VARIANTS)
def test_rules_table(tmp_path: Path, variant: str) -> None:
    """Every row of the rules table in real-clients.md, laid out for Claude Code."""
    cwd, home, env = rules_table.build(tmp_path, "claude", variant)
    check(f"table-{variant}", cwd, home, env)
