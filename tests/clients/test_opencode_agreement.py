"""Host ``opencode`` against the real opencode 1.18.33 (SPEC N2–N3): fixture workspaces covering
every rule, and workspaces built from ``../shared/corpus``.

Per workspace the client runs once (:func:`opencode_probe.debug_skill`) and the host builds the
same workspace with the same environment. Compared, per skill file: listed or not, name, path,
description; for a same-name group, the client's winner must be one of the host's race
candidates (the client's outcome is a race: any copy may win) and every other copy a loser; the
files the client fails with an ``ERROR`` must be host rejections it logs; a workspace the
client refuses to start must be one the host says it refuses. The catalog is captured for two
workspaces and compared byte for byte, rendered with the client's own race winners. Every
difference must be listed in ``known_differences.tsv``.

Skips when the client is not installed (``SKILLSHELF_CLIENTS_DIR``) and, for the corpus, when
``../shared`` is absent. One client process at a time; never a tree with two symlink loops.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import known
import opencode_probe
import pytest
import realclients
import rules_table
from tagged import TAGGED, tagged_text

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.base import HostContext
from skillshelf.core.hosts.opencode import BUILTIN_LOCATION, OPENCODE, catalog_of
from skillshelf.core.hosts.opencode.catalog import Entry, render
from skillshelf.core.model import Generation, Source, Status
from skillshelf.core.paths import Environment

LOGGED = ("opencode-read-error", "opencode-frontmatter-error")


@pytest.fixture(scope="module")
def client_env() -> dict[str, str]:
    """The clients' bin folder on PATH: opencode finds ``rg`` as usual, and the host reads the
    built-in's text from the same binary."""
    exe = realclients.require("opencode")
    return {"PATH": os.path.dirname(exe) + os.pathsep + os.environ.get("PATH", os.defpath)}


# ----------------------------------------------------------------------------------- building


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def skill(folder: Path, name: str, description: str | None = None) -> Path:
    desc = f"description: {description if description is not None else 'about ' + name}\n"
    return write(folder / "SKILL.md", f"---\nname: {name}\n{desc}---\nBody of {name}.\n")


def git_init(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)


#: Parser cases placed as files: (folder, text with {n} for a unique name).
PARSER_FILES = {
    "bom": "\ufeff---\nname: {n}\ndescription: with a BOM\n---\n",
    "crlf": "---\r\nname: {n}\r\ndescription: crlf lines\r\n---\r\nbody\r\n",
    "cr-only": "---\rname: {n}\rdescription: cr only\r---\r",
    "leading-blank": "\n---\nname: {n}\ndescription: x\n---\n",
    "no-frontmatter": "# {n}\n\nJust text.\n",
    "unclosed": "---\nname: {n}\ndescription: never closed\n",
    "unclosed-body": "---\nname: {n}\ndescription: never closed\n\n# Heading\n\nText.\n",
    "four-dash": "----\nname: {n}\ndescription: x\n----\n",
    "lang-yaml": "---yaml\nname: {n}\ndescription: tagged yaml\n---\n",
    "lang-json": '---json\n{{"name": "{n}", "description": "json block"}}\n---\n',
    "lang-js": '---js\n({{name: "{n}", description: "sum " + (1 + 2)}})\n---\n',
    "lang-toml": '---toml\nname = "{n}"\n---\n',
    "close-suffix": "---\nname: {n}\ndescription: suffix closes\n---tail\nbody\n",
    "empty-block": "---\n---\nbody\n",
    "tab-after-colon": "---\nname:\t{n}\ndescription:\ttabbed\n---\n",
    "tab-first": "---\n\tname: {n}\ndescription: x\n---\n",
    "dup-key": "---\nname: {n}\ndescription: a\ndescription: b\n---\n",
    "name-int": "---\nname: 31337\ndescription: int\n---\n",
    "name-yes": "---\nname: on\ndescription: on is a string\n---\n",
    "name-date": "---\nname: 2023-04-05\ndescription: date\n---\n",
    "name-quoted-int": '---\nname: "90210"\ndescription: index-like name\n---\n',
    "name-small-int": '---\nname: "8"\ndescription: index-like name\n---\n',
    "name-spaces": "---\nname: Name With Spaces {n}\ndescription: spaces\n---\n",
    "name-unicode": "---\nname: ünï-{n}\ndescription: “unicode” — dash\n---\n",
    "name-proto": "---\nname: __proto__\ndescription: proto\n---\n",
    "name-constructor": "---\nname: constructor\ndescription: a prototype member\n---\n",
    "no-description": "---\nname: {n}\n---\nbody\n",
    "empty-description": "---\nname: {n}\ndescription: ''\n---\n",
    "null-description": "---\nname: {n}\ndescription:\n---\n",
    "int-description": "---\nname: {n}\ndescription: 7\n---\n",
    "literal": "---\nname: {n}\ndescription: |\n  line one\n  line two\n---\n",
    "folded": "---\nname: {n}\ndescription: >\n  folded one\n  folded two\n---\n",
    "colon": "---\nname: {n}\ndescription: Use when: a colon appears\n---\n",
    "colon-hyphen-key": "---\nname: {n}\nallowed-tools: Bash: x\ndescription: d\n---\n",
    "colon-and-error": "---\nname: {n}\ndescription: Use when: y\nlist: [\n---\n",
    "html": "---\nname: {n}\ndescription: <b>bold</b> & 'single' \"double\"\n---\n",
    "ctrl": "---\nname: {n}\ndescription: bell\x07here\n---\n",
    "nel": "---\nname: {n}\ndescription: a\x85b\n---\n",
    "anchor-merge": "---\nbase: &b\n  description: merged in\nname: {n}\n<<: *b\n---\n",
    "long": "---\nname: {n}\ndescription: " + "long " * 500 + "\n---\n",
    "quote-tail": "---\nname: {n}\ndescription: 'quoted' tail: x\n---\n",
}


def build_rules(base: Path) -> tuple[Path, Path]:
    """The rules workspace: every root kind and the folders not read, layout, symlinks (one
    loop), skills.paths, parser cases, races, the cache quirk, permissions."""
    home, repo = base / "home", base / "R"
    sub = repo / "sub"
    git_init(repo)
    sub.mkdir(parents=True)
    skill(home / ".claude/skills/u-claude", "u-claude")
    skill(home / ".claude/skills/.dotted/u-dot", "u-dot")
    skill(home / ".agents/skills/u-agents", "u-agents")
    skill(home / ".config/opencode/skill/u-cfg1", "u-cfg1")
    skill(home / ".config/opencode/skills/u-cfg2", "u-cfg2")
    skill(home / ".config/opencode/skills/.hid/u-hid", "u-hid")
    skill(home / ".opencode/skills/u-oc", "u-oc")
    for i, folder in enumerate([home / ".codex/skills/a", home / ".gemini/skills/a", home / ".config/agents/skills/a",
                                sub / "deeper/.claude/skills/a", base / ".claude/skills/above", repo / ".github/skills/a",
                                sub / "skills/a", sub / ".claude/skill/a", sub / ".agents/skill/a"]):
        skill(folder, f"not-read-{i}")
    (home / ".agents/skills/twice").symlink_to(home / ".claude/skills/u-claude")
    skill(repo / ".claude/skills/p-top", "p-top")
    skill(sub / ".agents/skills/p-cwd", "p-cwd")
    skill(sub / ".opencode/skill/p-sing", "p-sing")
    skill(repo / ".opencode/skills/p-oc-top", "p-oc-top")
    layout = sub / ".agents/skills"
    skill(layout, "l-root")
    skill(layout / "a/b/c/d/e/f/g", "l-deep")
    skill(layout / "node_modules/pkg", "l-nm")
    skill(layout / "outer", "l-outer")
    skill(layout / "outer/inner", "l-inner")
    write(layout / "lower/skill.md", "---\nname: l-lower\ndescription: x\n---\n")
    write(layout / "upper/SKILL.MD", "---\nname: l-upper\ndescription: x\n---\n")
    skill(layout / "odd/SKILL.md/x", "l-odd")
    skill(layout / "[g]* sp ace", "l-meta")
    links = sub / ".claude/skills"
    skill(base / "elsewhere/real", "s-dirlink")
    links.mkdir(parents=True)
    (links / "linked").symlink_to(base / "elsewhere/real")
    skill(base / "elsewhere/file", "s-filelink")
    (links / "filelink").mkdir()
    (links / "filelink/SKILL.md").symlink_to(base / "elsewhere/file/SKILL.md")
    (links / "broken").mkdir()
    (links / "broken/SKILL.md").symlink_to(base / "nowhere/SKILL.md")
    (links / "brokendir").symlink_to(base / "nowhere")
    loopy = repo / ".opencode/skills/loopy"
    skill(loopy, "s-loop")
    (loopy / "self").symlink_to(".")  # ONE loop only: two would make opencode walk without end
    skill(sub / "rel/pa", "c-rel")
    skill(sub / "rel/.dot/pd", "c-rel-dot")
    skill(home / "hp/pb", "c-home")
    skill(base / "abs/pc", "c-abs")
    skill(sub / "ignored/pi", "c-ignored")
    write(repo / "opencode.json", json.dumps({"skills": {"paths": ["ignored"]}}))
    write(sub / "opencode.jsonc", "// paths are relative to the working directory\n" + json.dumps({
        "skills": {"paths": ["rel", "~/hp", str(base / "abs"), "missing"]},
        "permission": {"skill": {"perm-*": "deny", "perm-ok": "allow"}}}))
    for key, text in PARSER_FILES.items():
        write(sub / ".claude/skills" / f"parse-{key}" / "SKILL.md", text.format(n=f"parse-{key}"))
    for folder in TAGGED:
        write(sub / ".claude/skills" / folder / "SKILL.md", tagged_text(folder))
    skill(home / ".claude/skills/dup-a", "dup", "copy in ~/.claude")
    skill(home / ".config/opencode/skills/dup-b", "dup", "copy in the config folder")
    skill(sub / ".opencode/skills/dup-c", "dup", "copy in .opencode")
    skill(repo / ".claude/skills/dup-d", "dup", "copy at the worktree")
    skill(sub / ".agents/skills/co", "customize-opencode", "replaces the built-in")
    cached = "---\nname: cache-twins\ndescription: Use when: identical copies need the retry\n---\nbody\n"
    write(home / ".agents/skills/cq1/SKILL.md", cached)
    write(repo / ".claude/skills/cq2/SKILL.md", cached)
    blocked = "---\nname: cache-bom\ndescription: Note: a BOM twin may block me\n---\nbody\n"
    write(home / ".claude/skills/bt1/SKILL.md", blocked)
    write(sub / ".opencode/skills/bt2/SKILL.md", "\ufeff" + blocked)
    for name in ("perm-a", "perm-ok", "plain-z", "Plain-y", "_under", "zeta10", "zeta9"):
        skill(sub / ".claude/skills" / name, name)
    return sub, home


def build_flags(base: Path) -> tuple[Path, Path]:
    """A small workspace for the environment switches."""
    home, ws = base / "home", base / "ws"
    git_init(ws)
    for root in (".claude/skills", ".agents/skills", ".opencode/skills"):
        skill(ws / root / "p", "p-" + root.split("/")[0].strip("."))
    for root in (".claude/skills", ".agents/skills", ".config/opencode/skills", ".opencode/skills"):
        skill(home / root / "u", "u-" + root.split("/")[-2].strip("."))
    write(ws / "opencode.json", json.dumps({"skills": {"paths": ["extra"]}}))
    skill(ws / "extra/e", "cfg-path")
    t = base / "testhome"
    skill(t / ".claude/skills/t", "t-claude")
    skill(t / ".opencode/skills/t", "t-opencode")
    skill(base / "xdg/opencode/skills/x", "x-xdg")
    skill(base / "cfgdir/skills/c", "c-cfgdir")
    skill(ws / "from-content/f", "f-content")
    return ws, home


def build_nogit(base: Path) -> tuple[Path, Path]:
    """No repository: the walk passes HOME on its way to /."""
    home = base / "home"
    cwd = home / "proj/a"
    cwd.mkdir(parents=True)
    skill(home / "proj/.claude/skills/n-proj", "n-proj")
    skill(home / ".claude/skills/n-home", "n-home")
    skill(base / ".agents/skills/n-above-home", "n-above-home")
    skill(cwd / ".opencode/skills/n-cwd", "n-cwd")
    return cwd, home


def build_badgit(base: Path) -> tuple[Path, Path]:
    """A ``.git`` file pointing nowhere: no repository, the walk goes on."""
    home = base / "home"
    home.mkdir(parents=True)
    repo = base / "repo"
    write(repo / ".git", "gitdir: /nonexistent/skillshelf-test\n")
    skill(repo / ".claude/skills/b-in", "b-in")
    skill(base / ".claude/skills/b-above", "b-above")
    return repo, home


# ----------------------------------------------------------------------------------- comparing


def _relative(path: str, base: Path, home: Path) -> str:
    if path == str(home) or path.startswith(str(home) + "/"):
        return "~/" + os.path.relpath(path, home)
    if path.startswith(str(base) + "/"):
        return os.path.relpath(path, base)
    return path


def host_build(cwd: Path, home: Path, env: Mapping[str, str]) -> Catalog:
    variables = realclients.clean_env(str(home), env)
    return Catalog.from_context(OPENCODE, HostContext(cwd=str(cwd), env=Environment.from_mapping(variables)))


def differences(gen: Generation, records: list[dict[str, Any]], base: Path, home: Path,
                builtin_known: bool) -> list[tuple[str, str, str]]:
    """(path, field, detail) for every disagreement between the host's generation and the
    client's records (built-in included)."""
    out: list[tuple[str, str, str]] = []

    def diff(path: str, what: str, detail: str) -> None:
        out.append((_relative(path, base, home), what, detail))

    listed = {r["path"]: r for r in records if r["listed"]}
    losers = {r["path"]: r for r in records if not r["listed"] and "error" not in r}
    errors = {r["path"] for r in records if "error" in r}
    rejected = {r.location: r for r in gen.rejected}
    by_name: dict[str, list[Source]] = {}
    for s in gen.sources:
        by_name.setdefault(s.name, []).append(s)
    for path, rec in listed.items():
        loc = BUILTIN_LOCATION if path == "<built-in>" else path
        s = gen.by_location(loc)
        if s is None:
            r = rejected.get(path)
            diff(path, "listed", f"client lists {rec['name']!r}; host " +
                 (f"rejects it: {r.warning.message if r.warning else ''}" if r else "never reads it"))
            continue
        if s.status is Status.SHADOWED:
            diff(path, "listed", f"client lists {rec['name']!r}; host says shadowed by {s.shadowed_by}")
        if s.name != rec["name"]:
            diff(path, "name", f"client {rec['name']!r}, host {s.name!r}")
        if (loc != BUILTIN_LOCATION or builtin_known) and s.description != rec["description"]:
            diff(path, "description", f"client {rec['description']!r:.80}, host {s.description!r:.80}")
    winners = {rec["name"]: path for path, rec in listed.items()}
    for s in gen.sources:
        path = "<built-in>" if s.location == BUILTIN_LOCATION else s.location
        if s.status in (Status.OK, Status.HIDDEN) and path not in listed:
            diff(path, "listed", f"host lists {s.name!r}; client does not")
        if s.status is Status.SHADOWED and path in listed:
            continue  # reported above
        if s.status is Status.RACE:
            group = [g.location for g in by_name[s.name] if g.status is Status.RACE]
            win = winners.get(s.name)
            if win is None and "none of them loads" not in (s.status_reason or ""):
                diff(path, "race", f"no copy of {s.name!r} listed by the client; host says one of {len(group)} wins")
            elif win is not None and win not in group:
                diff(path, "race", f"client's winner {win} is not a host candidate")
    for path, rec in losers.items():
        loc = BUILTIN_LOCATION if path == "<built-in>" else path
        s = gen.by_location(loc)
        if s is None or s.status not in (Status.RACE, Status.SHADOWED):
            diff(path, "shadowed", f"client overwrote it (by {rec['shadowed_by']}); host status "
                                   f"{s.status.value if s else 'not listed'}")
    for path in errors:
        r = rejected.get(path)
        if r is None or not any(d.code in LOGGED for d in r.diagnostics):
            diff(path, "error", "client logs failed to load skill; host " + ("rejects it silently" if r else "lists it"))
    return out


STATS: dict[str, tuple[int, int]] = {}


def check(name: str, cwd: Path, home: Path, base: Path, env: Mapping[str, str]) -> tuple[Catalog, list[dict[str, Any]]]:
    """Run the client and the host on one workspace; fail on any unexplained difference."""
    result = opencode_probe.debug_skill(str(cwd), str(home), env)
    cat = host_build(cwd, home, env)
    fatal = cat.session.workspace.fatal
    assert (result.rc != 0) == (fatal is not None), (result.rc, fatal, result.stderr[-1500:])
    records = opencode_probe.records(result, builtin=True)
    texts = cat.session.builtin_texts()
    diffs = [] if fatal else differences(cat.current, records, base, home, texts.description is not None)
    files = len(cat.current.sources) + len(cat.current.rejected)
    bad = {d[0] for d in diffs}
    STATS[name] = (files - len(bad), files)
    left = known.unexplained("opencode", name, diffs)
    assert left == [], "\n".join(f"{p}\t{f}\t{d}" for p, f, d in left)
    return cat, records


def catalog_check(name: str, cwd: Path, home: Path, env: Mapping[str, str]) -> None:
    """The captured section equals the host's, rendered with the client's race winners: byte
    for byte, apart from entries of files with a known difference."""
    text, extra = opencode_probe.capture_catalog(str(cwd), str(home), env)
    cat = host_build(cwd, home, extra)
    ws = cat.session.workspace
    client = opencode_probe.catalog_entries(text or "")
    chosen = {e["name"]: BUILTIN_LOCATION if e["location"] == "<built-in>" else e["location"] for e in client}
    kept = []
    for s in cat.current.sources:
        if s.status is Status.RACE and chosen.get(s.name, s.location) != s.location:
            continue
        if s.status is Status.RACE and s.name not in chosen and "none of them loads" in (s.status_reason or ""):
            continue
        kept.append(s)
    mine = catalog_of([s for s in kept if s.enabled], ws.rules, ws.fatal, cat.session.builtin_texts()).text
    if text is None:
        assert mine == "", mine[:300]
        return
    base = home.parent

    def entries(items: list[dict[str, str]]) -> list[Entry]:
        return [Entry(e["name"], e["description"], e["location"]) for e in items]

    assert render(entries(client)) == text  # the capture is read back exactly
    if mine == text:
        return
    covered = {e["location"] for e in client + opencode_probe.catalog_entries(mine)
               if not known.unexplained("opencode", name, [(_relative(e["location"], base, home), "catalog", "")])}
    strip = [e for e in client if e["location"] not in covered]
    ours = [e for e in opencode_probe.catalog_entries(mine) if e["location"] not in covered]
    if render(entries(strip)) != render(entries(ours)):
        import difflib

        delta = "\n".join(list(difflib.unified_diff(render(entries(strip)).splitlines(),
                                                    render(entries(ours)).splitlines(), "client", "host",
                                                    lineterm=""))[:40])
        pytest.fail("catalog differs:\n" + delta)


# ----------------------------------------------------------------------------------- tests


def test_rules_workspace(tmp_path: Path, client_env: dict[str, str]) -> None:
    cwd, home = build_rules(tmp_path)
    cat, _ = check("rules", cwd, home, tmp_path, client_env)
    gen = cat.current
    # the rules this workspace is built for, seen from the host side (the client agreed above)
    names = {s.name for s in gen.sources}
    assert not any(n.startswith("not-read-") for n in names)
    assert {"u-dot", "l-root", "l-deep", "l-nm", "l-inner", "l-odd", "l-meta", "s-dirlink", "s-filelink",
            "c-rel", "c-home", "c-abs", "constructor", "90210", "8"} <= names
    assert not {"u-hid", "c-rel-dot", "c-ignored", "l-lower", "l-upper", "__proto__"} & names
    assert len([s for s in gen.sources if s.name == "s-loop"]) == 41
    assert {s.status for s in gen.sources if s.name in ("dup", "cache-twins", "u-claude")} == {Status.RACE}
    assert gen.by_location(BUILTIN_LOCATION).status is Status.SHADOWED
    catalog_check("rules", cwd, home, client_env)


@pytest.mark.parametrize(("label", "extra"), [
    ("no-external", {"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}),
    ("no-claude-no-project", {"OPENCODE_DISABLE_CLAUDE_CODE": "true", "OPENCODE_DISABLE_PROJECT_CONFIG": "1"}),
    ("moved", {"XDG_CONFIG_HOME": "{base}/xdg", "OPENCODE_CONFIG_DIR": "{base}/cfgdir",
               "OPENCODE_TEST_HOME": "{base}/testhome", "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS": "yes",
               "OPENCODE_CONFIG_CONTENT": '{"skills": {"paths": ["{env:FROM}"]}}', "FROM": "from-content"}),
    ("bad-switch", {"OPENCODE_DISABLE_EXTERNAL_SKILLS": "TRUE"}),
])
def test_environment_switches(tmp_path: Path, client_env: dict[str, str], label: str, extra: dict[str, str]) -> None:
    cwd, home = build_flags(tmp_path)
    env = {**client_env, **{k: v.replace("{base}", str(tmp_path)) for k, v in extra.items()}}
    cat, _ = check(f"flags-{label}", cwd, home, tmp_path, env)
    if label == "bad-switch":
        assert cat.current.warnings[0].kind == "opencode-refuses-start"


@pytest.mark.parametrize("layout", ["nogit", "badgit"])
def test_walk_without_a_repository(tmp_path: Path, client_env: dict[str, str], layout: str) -> None:
    cwd, home = (build_nogit if layout == "nogit" else build_badgit)(tmp_path)
    cat, _ = check(layout, cwd, home, tmp_path, client_env)
    names = {s.name for s in cat.current.sources}
    assert names >= ({"n-proj", "n-home", "n-above-home", "n-cwd"} if layout == "nogit" else {"b-in", "b-above"})


@pytest.mark.parametrize(("layout", "phrase"), [
    ("dotfile", "FileSystem.readFile"),
    ("badconfig", "Configuration is invalid at"),
])
def test_opencode_refuses_to_start(tmp_path: Path, client_env: dict[str, str], layout: str, phrase: str) -> None:
    cwd, home = tmp_path / "ws", tmp_path / "home"
    git_init(cwd)
    home.mkdir()
    skill(cwd / ".claude/skills/a", "a")
    if layout == "dotfile":
        write(cwd / ".opencode", "a file, not a folder")
    else:
        write(cwd / "opencode.json", json.dumps({"skills": {"paths": "not-a-list"}}))
    result = opencode_probe.debug_skill(str(cwd), str(home), client_env)
    cat = host_build(cwd, home, client_env)
    assert result.rc == 1
    assert phrase in result.stderr and phrase in (cat.session.workspace.fatal or "")
    assert cat.current.sources == ()


@pytest.mark.parametrize("variant", rules_table.VARIANTS)
def test_rules_table(tmp_path: Path, client_env: dict[str, str], variant: str) -> None:
    """Every row of the rules table in real-clients.md, laid out for opencode: the listing and
    the catalog the model gets."""
    cwd, home, env = rules_table.build(tmp_path, "opencode", variant)
    env = {**client_env, **env}
    check(f"table-{variant}", cwd, home, tmp_path, env)
    catalog_check(f"table-{variant}", cwd, home, env)


# ----------------------------------------------------------------------------------- corpus

BREAKERS = {
    "bom": lambda t: "\ufeff" + t,
    "crlf": lambda t: t.replace("\r\n", "\n").replace("\n", "\r\n"),
    "unclosed": lambda t: t.replace("\n---", "\n- - -", 1),
    "leading-blank": lambda t: "\n" + t,
    "tab-first": lambda t: t.replace("\nname:", "\n\tname:", 1),
    "dup-name": lambda t: t.replace("\nname:", "\nname: dup-key\nname:", 1),
    "no-name": lambda t: re.sub(r"(?m)^name:.*\n", "", t, count=1),
    "no-description": lambda t: re.sub(r"(?m)^description:.*\n", "", t, count=1),
    "int-description": lambda t: re.sub(r"(?m)^description:.*$", "description: 42", t, count=1),
    "colon": lambda t: re.sub(r"(?m)^description:\s*(.*)$", lambda m: "description: Note: " + m.group(1).strip("'\""),
                              t, count=1),
    "no-frontmatter": lambda t: t.split("\n---", 1)[-1],
    "empty": lambda t: "",
}


def build_corpus(base: Path, corpus: Path) -> tuple[Path, Path]:
    """Every corpus ``SKILL.md`` spread over opencode's project and user roots (and folders it
    does not read), with same-name copies (identical and edited), directory and file symlinks
    into a store (no loops), broken variants and a broken link."""
    home, repo = base / "home", base / "R"
    cwd = repo / "app"
    git_init(repo)
    cwd.mkdir()
    roots = [cwd / ".claude/skills", cwd / ".agents/skills", repo / ".opencode/skill", repo / ".opencode/skills",
             repo / ".claude/skills", home / ".claude/skills", home / ".agents/skills",
             home / ".config/opencode/skills", home / ".opencode/skill", cwd / "paths"]
    unread = [cwd / ".codex/skills", home / ".gemini/skills", cwd / "nested/.claude/skills"]
    write(cwd / "opencode.json", json.dumps({"skills": {"paths": ["paths"]}}))
    store = base / "store"
    rnd = random.Random(1183)
    sources = sorted(corpus.rglob("SKILL.md"))
    placed: list[tuple[Path, Path]] = []
    for i, src in enumerate(sources):
        folder = str(src.parent.relative_to(corpus)).replace("/", "__")
        data = src.read_bytes()
        if i % 97 == 0:
            write(store / folder / "SKILL.md", data)
            dst = rnd.choice(roots) / folder
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.symlink_to(store / folder)
        elif i % 89 == 0:
            write(store / folder / "SKILL.md", data)
            dst = rnd.choice(roots) / folder
            dst.mkdir(parents=True)
            (dst / "SKILL.md").symlink_to(store / folder / "SKILL.md")
        else:
            dst = rnd.choice(roots + unread if i % 13 == 0 else roots) / folder
            write(dst / "SKILL.md", data)
        placed.append((src, dst))
    for j, (src, dst) in enumerate(placed[100:160]):
        other = rnd.choice([r for r in roots if r != dst.parent])
        text = src.read_bytes()
        if j % 3 == 2:
            text = re.sub(rb"(?m)^description:", b"description: EDITED", text, count=1)
        write(other / (dst.name + ("-copy" if j % 2 else "")) / "SKILL.md", text)
    for k, (key, fn) in enumerate(BREAKERS.items()):
        src, dst = placed[200 + k]
        text = src.read_bytes().decode("utf-8", errors="replace")
        write(rnd.choice(roots) / f"broken-{key}-{dst.name}" / "SKILL.md", fn(text))
    (roots[0] / "broken-link").mkdir(parents=True, exist_ok=True)
    (roots[0] / "broken-link" / "SKILL.md").symlink_to(base / "missing" / "SKILL.md")
    (home / ".agents/skills").mkdir(parents=True, exist_ok=True)
    (home / ".agents/skills/via-link").symlink_to(roots[5])  # the same files under a second spelling
    return cwd, home


def test_corpus_workspace(tmp_path: Path, client_env: dict[str, str]) -> None:
    corpus = realclients.require_shared() / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is absent")
    cwd, home = build_corpus(tmp_path, corpus)
    cat, _ = check("corpus", cwd, home, tmp_path, client_env)
    assert len(cat.current.sources) > 1000
    races = {s.name for s in cat.current.sources if s.status is Status.RACE}
    assert len(races) > 40
    catalog_check("corpus", cwd, home, client_env)


def test_zz_report_agreement() -> None:
    """Print the agreement figures of this run (``-s`` shows them)."""
    if not STATS:
        pytest.skip("no workspace was compared")
    agree = sum(a for a, _ in STATS.values())
    total = sum(t for _, t in STATS.values())
    for name, (a, t) in STATS.items():
        print(f"opencode agreement {name}: {a}/{t} skill files")
    print(f"opencode agreement total: {agree}/{total} skill files in {len(STATS)} workspaces")
