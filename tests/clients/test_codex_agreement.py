"""Host ``codex`` against the real Codex CLI 0.171.0 (SPEC N2, N5): fixture workspaces covering
every rule, and workspaces built from ``../shared/corpus``.

Per workspace the client is asked first (``skills/list`` through ``codex app-server``, then
``codex debug prompt-input`` for the catalog; the client installs its system skills into the
home when it starts), then the host builds the same workspace. Compared: every ``skills/list``
record (name, description, shortDescription, interface, dependencies, path, scope, enabled,
pluginId) and their order, every error record (path, message, how many times it is repeated)
in order, and the catalog block byte for byte. Every difference must be listed in
``known_differences.tsv``.

Skips when the client is not installed (``SKILLSHELF_CLIENTS_DIR``) and, for the corpus, when
``../shared`` is absent.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import codex_probe
import known
import pytest
import realclients
import rules_table
from tagged import TAGGED, tagged_text

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.base import HostCatalog, HostContext
from skillshelf.core.hosts.codex import error_records, skill_records
from skillshelf.core.model import Generation
from skillshelf.core.paths import Environment

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

#: Totals over the session, printed at the end (the README's agreement numbers).
TOTALS: dict[str, int] = {"workspaces": 0, "records": 0, "records_agree": 0, "errors": 0, "errors_agree": 0,
                          "catalogs": 0, "catalogs_agree": 0}


# ------------------------------------------------------------------------------------- helpers

def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def fm(name: str | None, description: str | None = "Does a thing.", extra: str = "", nl: str = "\n") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.extend(extra.rstrip("\n").split("\n"))
    lines += ["---", "# Body", ""]
    return nl.join(lines)


def skill(root: Path, folder: str, text: str | bytes | None = None, **kw: Any) -> Path:
    """``root/folder/SKILL.md`` (default: named after the folder's last part)."""
    if text is None:
        text = fm(kw.pop("name", folder.rsplit("/", 1)[-1]), kw.pop("description", "Does a thing."), **kw)
    return write(root / folder / "SKILL.md", text)


def git(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def rel(path: str, ws: Path, home: Path) -> str:
    """``path`` relative to the workspace, or ``~/…`` under the home."""
    for base, prefix in ((home, "~/"), (ws, "")):
        for b in (os.path.realpath(base), str(base)):
            if path == b or path.startswith(b + "/"):
                return prefix + os.path.relpath(path, b)
    return path


def host_catalog(cwd: str, home: Path, env: Mapping[str, str], *, context_window: int | None = None,
                 config: Sequence[str] = ()) -> Catalog:
    """The host over ``cwd``; Codex's sentences come from the installed client."""
    extra = {"SKILLSHELF_CODEX_BIN": realclients.binary("codex") or "", "PATH": "/usr/bin:/bin",
             "XDG_CACHE_HOME": str(Path(os.environ.get("TMPDIR", "/tmp")) / f"skillshelf-codex-test-{os.getuid()}")}
    ctx = HostContext(cwd=cwd, env=Environment.from_mapping({"HOME": str(home), **extra, **env}),
                      context_window=context_window, config_files=tuple(config))
    return Catalog.from_context(get_host("codex"), ctx)


def host_view(cwd: str, home: Path, env: Mapping[str, str], *, context_window: int | None = None,
              config: Sequence[str] = ()) -> tuple[Generation, HostCatalog]:
    """The host's generation and catalog over ``cwd``."""
    cat = host_catalog(cwd, home, env, context_window=context_window, config=config)
    return cat.current, cat.model_catalog()


def _dedupe_errors(errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in errors:
        for o in out:
            if o["path"] == e["path"] and o["message"] == e["message"]:
                o["count"] += 1
                break
        else:
            out.append({"path": e["path"], "message": e["message"], "count": 1})
    return out


def differences(name: str, ws: Path, home: Path, env: Mapping[str, str] | None = None,
                windows: Sequence[int | None] = (None,), config: str | None = None) -> list[tuple[str, str, str]]:
    """Differences (path, field, detail) between the client and the host on one workspace; the
    catalog is compared at every context window in ``windows`` (``None`` = the default).
    ``config`` is TOML given to the client as ``-c`` flags and to the host as ``--config``."""
    env = dict(env or {})
    data = codex_probe.skills_list(str(ws), str(home), env)[0]
    args: list[str] = []
    files: list[str] = []
    if config:
        cfg_file = write(ws.parent / f"{ws.name}-session.toml", config)
        files.append(str(cfg_file))
        for line in config.strip().splitlines():
            key, value = (p.strip() for p in line.split("=", 1))
            args += ["-c", f"{key}={value}"]
    diffs: list[tuple[str, str, str]] = []
    listing = host_catalog(str(ws), home, env, config=files)
    gen = listing.current
    real, mine = data["skills"], skill_records(gen)
    by_path = {r["path"]: r for r in mine}
    agree = 0
    for r in real:
        h = by_path.get(r["path"])
        where = rel(r["path"], ws, home)
        if h is None:
            diffs.append((where, "listed", f"client lists {r['name']!r}, host does not"))
            continue
        bad = [k for k in sorted(set(r) | set(h)) if r.get(k) != h.get(k)]
        for k in bad:
            diffs.append((where, k, f"client {r.get(k)!r} host {h.get(k)!r}"))
        agree += not bad
    seen = {r["path"] for r in real}
    for h in mine:
        if h["path"] not in seen:
            diffs.append((rel(h["path"], ws, home), "listed", f"host lists {h['name']!r}, client does not"))
    if [r["path"] for r in real] != [h["path"] for h in mine] and len(real) == len(mine):
        diffs.append(("*", "order", "skills/list order differs"))
    c_err, h_err = _dedupe_errors(data["errors"]), error_records(gen)
    e_agree = sum(1 for e in c_err if e in h_err)
    if c_err != h_err:
        h_by = {e["path"]: e for e in h_err}
        for e in c_err:
            h = h_by.get(e["path"])
            where = rel(e["path"], ws, home) if e["path"] != str(ws) else "."
            if h is None:
                diffs.append((where, "error", f"client error {e['message']!r}, host none"))
            elif h != e:
                diffs.append((where, "error", f"client {e!r} host {h!r}"))
        c_paths = {e["path"] for e in c_err}
        for h in h_err:
            if h["path"] not in c_paths:
                diffs.append((rel(h["path"], ws, home), "error", f"host error {h['message']!r}, client none"))
        if not diffs:
            diffs.append(("*", "error-order", "error order differs"))
    c_agree = 0
    resolved = os.path.realpath(ws)
    shown = listing if resolved == str(ws) else host_catalog(resolved, home, env, config=files)
    for window in windows:
        flags = list(args) + (["-c", f"model_context_window={window}"] if window is not None else [])
        failed = None
        try:
            text = codex_probe.prompt_input(str(ws), str(home), env, flags)
        except codex_probe.ProbeError as exc:
            text, failed = f"<error: {exc}>", str(exc)
        catalog = shown.model_catalog(context_window=window)
        refused = [w.message for w in shown.current.warnings if w.kind == "codex-config-error"]
        if failed is not None and refused and catalog.text == "":
            # Codex refuses to start; the host sends nothing and names the same file
            c_agree += 1
            if not any(m.split(": ")[1].split(":")[0] in failed for m in refused if ": " in m):
                diffs.append((f"catalog@{window}", "catalog-error", f"client {failed[-200:]!r} host {refused!r}"))
            continue
        if text == catalog.text:
            c_agree += 1
            continue
        c_lines, h_lines = text.split("\n"), catalog.text.split("\n")
        for i in range(max(len(c_lines), len(h_lines))):
            c = c_lines[i] if i < len(c_lines) else None
            h = h_lines[i] if i < len(h_lines) else None
            if c != h:
                diffs.append((f"catalog@{window}", "catalog", f"line {i + 1}: client {(c or '')[:200]!r} "
                              f"host {(h or '')[:200]!r}"))
                break
    left = known.unexplained("codex", name, diffs)
    TOTALS["workspaces"] += 1
    TOTALS["records"] += len(real)
    TOTALS["records_agree"] += agree
    TOTALS["errors"] += len(c_err)
    TOTALS["errors_agree"] += e_agree
    TOTALS["catalogs"] += len(windows)
    TOTALS["catalogs_agree"] += c_agree
    print(f"[codex agreement] {name}: skills/list records {agree}/{len(real)}, errors {e_agree}/{len(c_err)}, "
          f"catalogs {c_agree}/{len(windows)}, differences {len(diffs)} ({len(left)} unexplained)")
    return left


def check(name: str, ws: Path, home: Path, env: Mapping[str, str] | None = None, **kw: Any) -> None:
    left = differences(name, ws, home, env, **kw)
    assert not left, f"{name}: {len(left)} unexplained difference(s):\n" + "\n".join(map(str, left[:40]))


@pytest.fixture(autouse=True)
def _client() -> None:
    realclients.require("codex")


@pytest.fixture(scope="module", autouse=True)
def _totals() -> Any:
    yield
    if TOTALS["workspaces"]:
        print(f"\n[codex agreement] totals: {json.dumps(TOTALS)}")


# ------------------------------------------------------------------------------------- roots

def _root_tree(base: Path, repo: Path, cwd: Path) -> Path:
    """Skills in every folder Codex reads and in the ones it does not; returns the home."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    for d, tag in ((repo, "top"), (repo / "mid", "mid"), (cwd, "here")):
        skill(d / ".agents/skills", f"{tag}-agents", description=f"{tag} agents root")
        skill(d / ".codex/skills", f"{tag}-codex", description=f"{tag} codex root")
        for other in (".claude/skills", ".gemini/skills", ".opencode/skills", ".agents/skill", "skills"):
            skill(d / other, f"{tag}-{other.replace('/', '-').strip('.')}", description="not a codex root")
    skill(cwd / "deeper/.agents/skills", "below-agents", description="below the cwd")
    skill(cwd / "deeper/.codex/skills", "below-codex", description="below the cwd")
    skill(repo.parent / ".agents/skills", "outside-agents", description="above the project")
    skill(repo.parent / ".codex/skills", "outside-codex", description="above the project")
    skill(home / ".agents/skills", "home-agents", description="user agents root")
    skill(home / ".codex/skills", "home-codex", description="user codex root")
    for other in (".claude/skills", ".config/agents/skills", ".config/codex/skills", ".gemini/skills"):
        skill(home / other, "home-" + other.replace("/", "-").strip("."), description="not a codex root")
    return home


@pytest.mark.parametrize("kind", ["git", "nogit", "gitfile", "nohead", "emptygit", "hg-marker", "no-markers",
                                  "codex-home", "cwd-is-root"])
def test_roots(tmp_path: Path, kind: str) -> None:
    """Project walk (markers, .git kinds), root order, CODEX_HOME, folders never read."""
    repo = tmp_path / "up" / "repo"
    cwd = repo / "mid" / "here"
    env: dict[str, str] = {}
    if kind in ("git", "hg-marker", "no-markers", "codex-home", "cwd-is-root", "nohead"):
        git(repo)
    home = _root_tree(tmp_path, repo, cwd)
    if kind == "gitfile":
        write(repo / ".git", "gitdir: /nowhere/at/all\n")
    if kind == "nohead":
        (repo / "mid" / ".git").mkdir()
    if kind == "emptygit":
        (repo / ".git").mkdir()
    if kind == "hg-marker":
        (repo / "mid" / ".hg").mkdir()
        write(home / ".codex/config.toml", 'project_root_markers = [".hg"]\n')
    if kind == "no-markers":
        write(home / ".codex/config.toml", "project_root_markers = []\n")
    if kind == "codex-home":
        skill(tmp_path / "alt-home" / "skills", "alt-codex-home", description="from CODEX_HOME")
        env["CODEX_HOME"] = str(tmp_path / "alt-home")
    ws = repo if kind == "cwd-is-root" else cwd
    check(f"roots-{kind}", ws, home, env)


def test_roots_linked_and_home(tmp_path: Path) -> None:
    """Symlinked roots, a .codex file, cwd = HOME in a git repository, HOME/.codex = CODEX_HOME."""
    home = git(tmp_path / "home")
    skill(home / ".agents/skills", "home-agents", description="both a user and a project root")
    skill(home / ".codex/skills", "home-codex", description="CODEX_HOME, not a project layer")
    check("roots-home-is-cwd", home, home)
    repo = git(tmp_path / "repo")
    home2 = tmp_path / "home2"
    home2.mkdir()
    write(repo / ".codex", "a file, not a folder\n")
    skill(tmp_path / "store-a", "via-link", description="through a symlinked .agents/skills")
    (repo / ".agents").mkdir()
    os.symlink(tmp_path / "store-a", repo / ".agents/skills")
    sub = repo / "sub"
    (sub / ".codex").mkdir(parents=True)
    skill(tmp_path / "store-b", "via-codex-link", description="through a symlinked .codex/skills")
    os.symlink(tmp_path / "store-b", sub / ".codex/skills")
    skill(tmp_path / "store-c", "user-linked", description="through a symlinked ~/.codex/skills")
    (home2 / ".codex").mkdir()
    os.symlink(tmp_path / "store-c", home2 / ".codex/skills")
    check("roots-linked", sub, home2)


# ------------------------------------------------------------------------------------- layout

def test_layout(tmp_path: Path) -> None:
    """The walk: depth, dot folders, names, symlinks (folders, files, dot names, loops, twice),
    nesting, node_modules, a FIFO, broken links, unicode."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    r = repo / ".agents/skills"
    write(r / "SKILL.md", fm("at-root", "right in the root folder"))
    path = ""
    for i in range(1, 9):
        path = f"{path}/lvl{i}" if path else f"lvl{i}"
        skill(r, path, name=f"level-{i}", description=f"{i} folders down")
    skill(r, ".secret/inner", name="in-dot", description="below a dot folder")
    skill(r, ".secret", name="dot-self", description="a dot folder itself")
    skill(r, "fine/.deep/x", name="deep-dot", description="a dot folder further down")
    skill(r, "..twodots", name="two-dots", description="starts with two dots")
    skill(r, "node_modules/pkg", name="in-node-modules", description="node_modules is not special")
    skill(r, "outer", name="outer", description="a skill folder")
    skill(r, "outer/inner", name="inner", description="a skill inside another")
    skill(r, "outer/inner/innermost", name="innermost", description="two inside")
    write(r / "lower/skill.md", fm("lower", "lower-case file name"))
    write(r / "mixed/Skill.md", fm("mixed", "mixed-case file name"))
    (r / "folder-named/SKILL.md").mkdir(parents=True)
    skill(tmp_path / "outside", "target", name="linked-in", description="reached through a folder symlink")
    os.symlink(tmp_path / "outside/target", r / "link-to-target")
    skill(tmp_path / "outside", ".dotted-target", name="dotted-target", description="link name plain, target dotted")
    os.symlink(tmp_path / "outside/.dotted-target", r / "plain-link")
    skill(tmp_path / "outside", "plain-target", name="plain-target", description="dotted link name")
    os.symlink(tmp_path / "outside/plain-target", r / ".dot-link")
    src = skill(tmp_path / "outside", "file-src", name="file-link", description="SKILL.md is a symlink")
    (r / "file-link").mkdir()
    os.symlink(src, r / "file-link/SKILL.md")
    os.symlink(tmp_path / "nothing-here", r / "broken-link")
    (r / "cycle").mkdir()
    os.symlink("..", r / "cycle/back")
    os.symlink(r / "outer", r / "outer-again")
    (r / "fifo-skill").mkdir()
    os.mkfifo(r / "fifo-skill" / "SKILL.md")
    skill(r, "with space", name="with space", description="a folder with a space")
    skill(r, "ünïcödé", name="ünïcödé", description="a unicode folder")
    deep = tmp_path / "deep-tree"
    path = ""
    for i in range(1, 8):
        path = f"{path}/t{i}" if path else f"t{i}"
        skill(deep, path, name=f"via-link-{i + 1}", description=f"{i + 1} levels through a link")
    os.symlink(deep, r / "deep-link")
    u = home / ".agents/skills"
    path = ""
    for i in range(1, 8):
        path = f"{path}/u{i}" if path else f"u{i}"
        skill(u, path, name=f"user-level-{i}", description=f"user root, {i} down")
    check("layout", repo, home)


def test_limits(tmp_path: Path) -> None:
    """At most 2,000 folders entered and 20,000 entries listed per root."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    r = repo / ".agents/skills"
    for i in range(2010):
        skill(r, f"s{i:04d}", name=f"s{i:04d}", description="x")
    u = home / ".agents/skills"
    (u / "aa").mkdir(parents=True)
    for i in range(19990):
        (u / "aa" / f"f{i:05d}").touch()
    for i in range(12):
        skill(u, f"b{i:02d}", name=f"b{i:02d}", description="after many entries")
    check("limits", repo, home)


# ------------------------------------------------------------------------------------- parser

PARSER: dict[str, str | bytes] = {
    "plain": fm("plain", "An ordinary description."),
    "colon-value": fm("colon-value", "Use it when: the build breaks"),
    "colon-name": fm("colon: named", "a colon and a space in the name"),
    "hash-space": fm("hash-space", "keeps # from here"),
    "hash-tight": fm("hash-tight", "keeps a#b"),
    "single-quoted": fm("single-quoted", "'quoted: and fine'"),
    "double-quoted": fm("double-quoted", '"with \\"escapes\\" and \\u00fc"'),
    "folded-strip": "---\nname: folded-strip\ndescription: >-\n  first part\n  second part\n\n  new paragraph\n---\n",
    "folded-clip": "---\nname: folded-clip\ndescription: >\n  clip one\n  clip two\n---\n",
    "literal": "---\nname: literal\ndescription: |\n  row one\n    indented row\n  row three\n---\n",
    "plain-multiline": "---\nname: plain-multiline\ndescription: begins here\n  and goes on\n---\n",
    "spaces": '---\nname: spaces\ndescription: "tab\\there\\u00a0nbsp   wide\\u2003em"\n---\n',
    "bom": "\ufeff" + fm("bom", "starts with a byte order mark"),
    "crlf": fm("crlf", "windows line ends", nl="\r\n"),
    "cr-only": fm("cr-only", "old mac line ends", nl="\r"),
    "no-name": fm(None, "the folder gives the name"),
    "empty-name": fm("", "empty name"),
    "blank-name": fm("'    '", "blank name"),
    "null-name": fm("~", "null name"),
    "number-name": fm("2024", "a number as name"),
    "float-name": fm("3.10", "a float keeps its spelling"),
    "bool-name": fm("false", "a bool as name"),
    "seq-name": fm("[x, y]", "a list as name"),
    "map-name": "---\nname:\n  k: v\ndescription: a map as name\n---\n",
    "no-desc": fm("no-desc", None),
    "empty-desc": fm("empty-desc", '""'),
    "blank-desc": fm("blank-desc", "'  \t '"),
    "null-desc": fm("null-desc", "null"),
    "number-desc": fm("number-desc", "7"),
    "seq-desc": fm("seq-desc", "[a, b]"),
    "map-desc": "---\nname: map-desc\ndescription:\n  k: v\n---\n",
    "date-desc": fm("date-desc", "2025-12-31"),
    "name-64": fm("x" * 64, "exactly the limit"),
    "name-65": fm("x" * 65, "one over"),
    "name-64-wide": fm("ß" * 64, "64 two-byte characters"),
    "name-65-wide": fm("ß" * 65, "65 two-byte characters"),
    "desc-1500": fm("desc-1500", "d" * 1500),
    "desc-1024": fm("desc-1024", "e" * 1024),
    "desc-1025": fm("desc-1025", "f" * 1025),
    "desc-wide": fm("desc-wide", "ü" * 1030),
    "unclosed": "---\nname: unclosed\ndescription: no closing fence\n",
    "blank-first": "\n" + fm("blank-first", "blank line first"),
    "indented-fence": "  ---\nname: indented-fence\ndescription: spaces before the fence\n---\n",
    "fence-spaces": "---  \nname: fence-spaces\ndescription: spaces after fences\n --- \n",
    "dots-close": "---\nname: dots-close\ndescription: closed by dots\n...\n",
    "four-dashes": "----\nname: four-dashes\ndescription: four\n----\n",
    "no-frontmatter": "# Just markdown\n\nNothing else.\n",
    "empty-block": "---\n---\nbody\n",
    "blank-block": "---\n\n---\nbody\n",
    "comment-block": "---\n# a comment only\n---\n",
    "empty-file": "",
    "lone-fence": "---\n",
    "tab-block": "---\nname: tab-block\ndescription: >\n\tTab indented\n---\n",
    "dup-name": "---\nname: dup-name\nname: again\ndescription: twice\n---\n",
    "bad-flow": "---\nname: bad-flow\ndescription: [never closed\n---\n",
    "bad-indent": "---\nname: bad-indent\ndescription: fine\n  oops: indented\n---\n",
    "bad-other": "---\nname: bad-other\ndescription: fine\nother: [open\n---\n",
    "at-start": fm("at-start", "@someone first"),
    "tick-start": fm("tick-start", "`cmd` first"),
    "brace-start": fm("brace-start", "{half: open"),
    "star-start": fm("star-start", "*nothing"),
    "amp-start": fm("amp-start", "&anchor then text"),
    "percent-start": fm("percent-start", "%percent"),
    "bang-start": fm("bang-start", "!tagged text"),
    "pipe-colon": fm("pipe-colon", "x | y: z"),
    "markup": fm("markup", "Has <em>tags</em> & 'single' \"double\""),
    "odd-name": fm("Odd Name/With:*?", "odd characters"),
    "newline-name": '---\nname: "one\\ntwo"\ndescription: a newline in the name\n---\n',
    "short": fm("short", "the long one", "metadata:\n  short-description: The short one"),
    "short-empty": fm("short-empty", "long", "metadata:\n  short-description: ''"),
    "short-long": fm("short-long", "long", "metadata:\n  short-description: " + "s" * 1100),
    "meta-string": fm("meta-string", "d", "metadata: text"),
    "meta-number": fm("meta-number", "d", "metadata:\n  short-description: 9"),
    "extra-keys": fm("extra-keys", "d", "license: MIT\nversion: 2.0\nallowed-tools: [Bash]\nhint: [x]"),
    "claude-flag": fm("claude-flag", "d", "disable-model-invocation: true"),
    "anchor": "---\nname: &a anchor\ndescription: *a\n---\n",
    "tags": "---\nname: !!str tags\ndescription: !!str 99\n---\n",
    "hint-colon": fm("hint-colon", "d", "argument-hint: <when: e.g. now>"),
    "apostrophe-colon": fm("apostrophe-colon", "don't: stop"),
    "colon-comment": fm("colon-comment", "k: v # and a comment"),
    "bad-byte": b"---\nname: bad-byte\ndescription: a \xfe byte\n---\n",
    "cut-short": b"---\nname: cut-short\ndescription: ends inside \xe2\x82",
    "nul": "---\nname: nul\ndescription: a \x00 in it\n---\n",
    "controls": '---\nname: controls\ndescription: "bell\\a esc\\e[0m"\n---\n',
    "meta-null": fm("meta-null", "d", "metadata: ~"),
    "meta-empty": fm("meta-empty", "d", "metadata:"),
    "meta-int": fm("meta-int", "d", "metadata: 12"),
    "meta-bool": fm("meta-bool", "d", "metadata: false"),
    "meta-float": fm("meta-float", "d", "metadata: 2.5"),
    "meta-list": fm("meta-list", "d", "metadata: [q]"),
    "meta-short-list": fm("meta-short-list", "d", "metadata:\n  short-description: [p, q]"),
    "meta-dup": fm("meta-dup", "d", "metadata:\n  short-description: a\n  short-description: b"),
    "meta-twice": fm("meta-twice", "d", "metadata:\n  x: 1\nmetadata:\n  y: 2"),
    "unknown-twice": fm("unknown-twice", "d", "zz: 1\nzz: 2"),
    "desc-late-dup": "---\nname: desc-late-dup\na: 1\nb: 2\ndescription: one\ndescription: two\n---\n",
    "word-null": fm("null", "the word null"),
    "word-Null": fm("NULL", "upper null"),
    "quoted-null": fm("'null'", "quoted null"),
    "quoted-tilde": fm("'~'", "quoted tilde"),
    "int-tag": fm("!!int 12", "int tag"),
    "hex": fm("0x2A", "hex"),
    "octal": fm("0o7", "octal"),
    "inf": fm("-.inf", "inf"),
    "exp": fm("2e5", "exp"),
    "yes": fm("yes", "yes stays yes"),
    "binary-tag": fm("!!binary aGk=", "binary tag"),
    "custom-tag": fm("!mine value", "custom tag"),
    "root-string": "---\nonly words here\n---\n",
    "root-list": "---\n- one\n- two\n---\n",
    "root-null": "---\n~\n---\n",
    "docs-dots": "---\nname: docs-dots\n...\ndescription: more\n---\n",
    "docs-dashes": "---\nname: docs-dashes\n--- more\ndescription: d\n---\n",
    "dots-end": "---\nname: dots-end\ndescription: d\n...\n---\n",
    "directive": "---\n%YAML 1.2\nname: directive\ndescription: d\n---\n",
    "merge": "---\nbase: &m\n  description: merged\nname: merge\n<<: *m\n---\n",
    "complex-key": "---\nname: complex-key\ndescription: d\n? [k]\n: v\n---\n",
    "int-key": "---\nname: int-key\ndescription: d\n5: five\n---\n",
    "flow-map": "---\n{name: flow-map, description: in flow style}\n---\n",
    "json-map": '---\n{"name": "json-map", "description": "as json"}\n---\n',
    "indented-map": "---\n   name: indented-map\n   description: indented\n---\n",
    "tab-after-colon": "---\nname: tab-after-colon\ndescription:\tafter a tab\n---\n",
    "colon-tight-name": fm("p:q", "colon without space"),
    "trailing-colon-name": fm("pq:", "trailing colon"),
    "trailing-colon-desc": fm("trailing-colon-desc", "ends in a colon:"),
    "inner-quote-colon": fm("inner-quote-colon", "tell 'me': now"),
    "quote-then-colon": fm("quote-then-colon", '"quoted" and then: colon'),
    "colon-then-hash": fm("colon-then-hash", "p: q #r"),
    "hash-then-colon": fm("hash-then-colon", "p #q: r"),
    "flow-colon": fm("flow-colon", "[p]: q"),
    "brace-fine": fm("brace-fine", "{p: 1}"),
    "list-fine": fm("list-fine", "[p, q]"),
    "at-colon": fm("at-colon", "@p: q"),
    "block-then-bad": "---\nname: block-then-bad\ndescription: |\n  p: q\nother: p: q\n---\n",
    "nested-bad": "---\nname: nested-bad\ndescription: d\nmetadata:\n  short-description: p: q\n---\n",
    "keyless": "---\nname: keyless\ndescription: d\n: v\n---\n",
    "tab-value": "---\nname: tab-value\ndescription: p\tq: r\n---\n",
    "crlf-colon": fm("crlf-colon", "p: q", nl="\r\n"),
    "crlf-literal": "---\r\nname: crlf-literal\r\ndescription: |\r\n  one\r\n  two\r\n---\r\n",
    "mixed-ends": "---\r\nname: mixed-ends\ndescription: d\n---\r\n",
    "wide-close": "---\nname: wide-close\ndescription: d\n   ---   \n",
    "tab-fences": "\t---\nname: tab-fences\ndescription: d\n---\t\n",
    "nbsp-fence": "\u00a0---\nname: nbsp-fence\ndescription: d\n---\n",
    "separators": fm("separators", '"p\\u2028q\\u0085r\\u001fs\\u000bt"'),
    "name-spaces": fm("'   spread   out   '", "spaces in the name"),
    "name-collapse-64": fm("'" + "y" * 60 + "      z'", "collapses under the limit"),
    "desc-escaped-blank": fm("desc-escaped-blank", '"\\t \\n"'),
    "type-then-syntax": "---\nname: [1]\ndescription: ok\nbroken: [\n---\n",
    "syntax-then-type": "---\nbroken: [\nname: [1]\n---\n",
    "unknown-anchor": "---\nname: *nope\ndescription: d\n---\n",
    "control-char": "---\nname: control-char\ndescription: has \x07 bell\n---\n",
}


def test_parser(tmp_path: Path) -> None:
    """Every parser rule: read, fences, YAML (values, errors, their order, the repair pass),
    folding, name fallback and limits, description, short description."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    r = repo / ".agents/skills"
    for folder, text in {**PARSER, **{f: tagged_text(f) for f in TAGGED}}.items():
        skill(r, folder, text)
    check("parser", repo, home)


# ------------------------------------------------------------------------------------- sidecar

SIDECARS = {
    "iface": "interface:\n  display_name: Nice Name\n  short_description: From the sidecar\n  icon_small: ./assets/a.png\n"
             "  icon_large: assets/sub/b.svg\n  brand_color: ' #00AAff '\n  default_prompt: Please do it\n",
    "iface-bad-values": "interface:\n  display_name: '" + "n" * 65 + "'\n  icon_small: ../x.png\n  icon_large: /abs.png\n"
                        "  brand_color: red\n  default_prompt: '   '\n",
    "iface-other-dir": "interface:\n  icon_small: images/a.png\n  short_description: kept\n",
    "hidden": "policy:\n  allow_implicit_invocation: false\n",
    "hidden-caps": "policy:\n  allow_implicit_invocation: FALSE\n",
    "shown": "policy:\n  allow_implicit_invocation: true\n",
    "quoted-false": "policy:\n  allow_implicit_invocation: 'false'\n",
    "word-no": "policy:\n  allow_implicit_invocation: no\n",
    "null-policy": "policy:\n  allow_implicit_invocation: ~\n",
    "dup-policy": "policy:\n  allow_implicit_invocation: false\npolicy:\n  allow_implicit_invocation: false\n",
    "two-docs": "policy:\n  allow_implicit_invocation: false\n---\nx: 1\n",
    "broken": "interface: [open\n",
    "empty": "",
    "unknown-keys": "other: 1\ninterface:\n  display_name: Shown\n  extra: 2\n",
    "chatgpt-only": "policy:\n  products: [chatgpt]\n",
    "atlas-upper": "policy:\n  products: [ATLAS]\n",
    "codex-listed": "policy:\n  products: [chatgpt, CODEX]\n",
    "products-scalar": "policy:\n  products: codex\n",
    "products-unknown": "policy:\n  products: [vscode]\n",
    "products-empty": "policy:\n  products: []\n",
    "deps": "dependencies:\n  tools:\n    - type: mcp\n      value: server-one\n      description: The first\n      transport: stdio\n"
            "      command: run-it\n      url: https://example.invalid\n    - type: env_var\n    - value: no-type\n",
    "crlf": "policy:\r\n  allow_implicit_invocation: false\r\n",
    "bom": "\ufeffpolicy:\n  allow_implicit_invocation: false\n",
}


def test_sidecar(tmp_path: Path) -> None:
    """agents/openai.yaml: interface, dependencies, the implicit-invocation policy, products,
    silent failures, symlinks, the exact path."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    r = repo / ".agents/skills"
    for folder, text in SIDECARS.items():
        skill(r, f"side-{folder}", description=f"sidecar case {folder}")
        write(r / f"side-{folder}/agents/openai.yaml", text)
    skill(r, "side-upper-dir", description="Agents/ is not agents/")
    write(r / "side-upper-dir/Agents/openai.yaml", SIDECARS["hidden"])
    skill(r, "side-json", description="a JSON sidecar means nothing")
    write(r / "side-json/agents/openai.json", '{"policy": {"allow_implicit_invocation": false}}')
    skill(r, "side-file-link", description="the sidecar is a symlink")
    write(tmp_path / "elsewhere/openai.yaml", SIDECARS["hidden"])
    (r / "side-file-link/agents").mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere/openai.yaml", r / "side-file-link/agents/openai.yaml")
    skill(r, "side-dir-link", description="agents/ is a symlink")
    os.symlink(tmp_path / "elsewhere", r / "side-dir-link/agents")
    skill(r, "side-both", description="long one", extra="metadata:\n  short-description: frontmatter short")
    write(r / "side-both/agents/openai.yaml", "interface:\n  short_description: sidecar short\n")
    skill(home / ".agents/skills", "user-hidden", description="a hidden user skill")
    write(home / ".agents/skills/user-hidden/agents/openai.yaml", SIDECARS["hidden"])
    check("sidecar", repo, home)


# ------------------------------------------------------------------------------------- identity

def test_same_file_names_and_order(tmp_path: Path) -> None:
    """The same file through several roots (first root keeps it, errors repeat), every same-name
    copy listed, list order (scope, name bytes, path parts) and catalog order (path bytes)."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    cwd = repo / "sub"
    r = repo / ".agents/skills"
    skill(r, "shared", description="one file, three roots")
    write(r / "broken/SKILL.md", "no frontmatter at all\n")
    (home / ".agents").mkdir(parents=True)
    os.symlink(r, home / ".agents/skills")
    (repo / ".codex").mkdir()
    os.symlink(r, repo / ".codex/skills")
    for root, tag in ((cwd / ".agents/skills", "cwd"), (home / ".codex/skills", "user-codex")):
        skill(root, "same", name="same", description=f"same name in {tag}")
        skill(root, f"other-{tag}", name="same", description=f"same name again in {tag}")
    skill(cwd / ".agents/skills", "a-b/x", name="paths", description="a-b/x")
    skill(cwd / ".agents/skills", "a/b", name="paths", description="a/b")
    skill(cwd / ".agents/skills", "a.c", name="paths", description="a.c")
    skill(home / ".codex/skills", "imagegen", name="imagegen", description="a user skill named like a system one")
    for i, n in enumerate(("Zed", "alpha", "_under", "A9", "zz", "ö", "a b", "a-b", "a_b", "a:b", "B")):
        skill(cwd / ".agents/skills", f"order-{i:02d}", name=f"'{n}'", description="order check")
    check("same-file", cwd, home)


# ------------------------------------------------------------------------------------- config

def test_config_rules(tmp_path: Path) -> None:
    """[[skills.config]] from the user config (name and path selectors, later wins, both or
    neither ignored, blank names, system skills); a project config cannot set them."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    r = repo / ".agents/skills"
    skill(r, "keep")
    skill(r, "by-name")
    p = skill(r, "by-path")
    skill(r, "toggled")
    skill(r, "both-selectors")
    skill(r, "project-says-off")
    skill(home / ".agents/skills", "by-name", description="a user copy with the same name")
    (tmp_path / "links").mkdir()
    os.symlink(p.parent, tmp_path / "links/by-path-link")
    write(repo / ".codex/config.toml", '[[skills.config]]\nname = "project-says-off"\nenabled = false\n')
    write(home / ".codex/config.toml",
          '[[skills.config]]\nname = "by-name"\nenabled = false\n\n'
          f'[[skills.config]]\npath = "{tmp_path}/links/by-path-link/SKILL.md"\nenabled = false\n\n'
          '[[skills.config]]\nname = "toggled"\nenabled = false\n\n'
          '[[skills.config]]\nname = " toggled "\nenabled = true\n\n'
          f'[[skills.config]]\nname = "both-selectors"\npath = "{r}/both-selectors/SKILL.md"\nenabled = false\n\n'
          '[[skills.config]]\nenabled = false\n\n'
          '[[skills.config]]\nname = "   "\nenabled = false\n\n'
          '[[skills.config]]\nname = "imagegen"\nenabled = false\n')
    check("config-rules", repo, home)


@pytest.mark.parametrize("kind", ["instructions-off", "bundled-off", "trusted", "untrusted", "max-tokens"])
def test_config_switches(tmp_path: Path, kind: str) -> None:
    """include_instructions, bundled skills, trusted project layers, max_context_tokens."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    for i in range(40):
        skill(repo / ".agents/skills", f"s{i:02d}", description="lorem ipsum dolor sit amet " * 6)
    user = ""
    if kind == "instructions-off":
        user = "[skills]\ninclude_instructions = false\n"
    elif kind == "bundled-off":
        user = "[skills.bundled]\nenabled = false\n"
    elif kind in ("trusted", "untrusted"):
        write(repo / ".codex/config.toml", "model_context_window = 20000\n[skills]\nmax_context_tokens = 300\n")
        if kind == "trusted":
            user = f'[projects."{repo}"]\ntrust_level = "trusted"\n'
    elif kind == "max-tokens":
        user = "[skills]\nmax_context_tokens = 500\n"
    if user:
        write(home / ".codex/config.toml", user)
    check(f"config-{kind}", repo, home)


def test_config_broken(tmp_path: Path) -> None:
    """A user config Codex cannot read: nothing is listed, one error at the cwd."""
    repo = git(tmp_path / "repo")
    skill(repo / ".agents/skills", "never-seen")
    for name, text in (("syntax", "model = [\n"), ("markers-type", 'project_root_markers = "x"\n'),
                       ("enabled-type", '[[skills.config]]\nname = "a"\nenabled = "no"\n'),
                       ("zero-tokens", "[skills]\nmax_context_tokens = 0\n")):
        home = tmp_path / f"home-{name}"
        write(home / ".codex/config.toml", text)
        check(f"config-broken-{name}", repo, home)


def test_codex_home_missing(tmp_path: Path) -> None:
    """CODEX_HOME naming no folder: Codex refuses to start, with this message."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    env = {"CODEX_HOME": str(tmp_path / "absent")}
    with pytest.raises(codex_probe.ProbeError) as exc:
        codex_probe.prompt_input(str(repo), str(home), env)
    gen, catalog = host_view(str(repo), home, env)
    message = f'CODEX_HOME points to "{tmp_path / "absent"}", but that path does not exist'
    assert message in str(exc.value)
    assert not gen.sources and not gen.roots and catalog.text == ""
    assert any(message in w.message for w in gen.warnings)


# ------------------------------------------------------------------------------------- plugins

def test_plugin_namespaces(tmp_path: Path) -> None:
    """Manifests above the root and nested in it, blank and bad names, symlinked skills, the
    qualified-name limit."""
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    write(repo / ".claude-plugin/plugin.json", '{"name": "outerplug"}')
    skill(repo / ".agents/skills", "top")
    skill(repo / ".codex/skills", "in-codex-root")
    r = repo / ".agents/skills"
    write(r / "pack/.codex-plugin/plugin.json", '{"name": "pack-ns"}')
    write(r / "pack/.claude-plugin/plugin.json", '{"name": "second-choice"}')
    skill(r / "pack", "skills/one")
    write(r / "pack/inner/.cursor-plugin/plugin.json", '{"name": "deepest"}')
    skill(r / "pack/inner", "two")
    write(r / "blank/.codex-plugin/plugin.json", '{"name": "  "}')
    skill(r / "blank", "three")
    write(r / "badjson/.codex-plugin/plugin.json", "{not json")
    skill(r / "badjson", "four")
    write(r / "numname/.codex-plugin/plugin.json", '{"name": 5}')
    skill(r / "numname", "five")
    write(r / "longns/.codex-plugin/plugin.json", '{"name": "' + "n" * 70 + '"}')
    skill(r / "longns", "six", name="m" * 60)
    skill(r / "longns", "seven", name="m" * 58)
    ext = tmp_path / "ext-plugin"
    write(ext / ".codex-plugin/plugin.json", '{"name": "extplug"}')
    skill(ext, "linked")
    os.symlink(ext / "linked", r / "linked")
    skill(tmp_path / "plain-store", "unplugged")
    os.symlink(tmp_path / "plain-store/unplugged", r / "unplugged")
    skill(home / ".agents/skills", "user-side")
    check("plugins", repo, home)


# ------------------------------------------------------------------------------------- budget

def _budget_ws(tmp_path: Path, n: int, spread: bool = True, wide: bool = False) -> tuple[Path, Path]:
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    roots = [repo / ".agents/skills", repo / ".codex/skills", home / ".agents/skills"][: 3 if spread else 1]
    rnd = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "épsilon", "zeta", "ηta", "theta"] if wide else \
        ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    for i in range(n):
        desc = " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 90)))
        skill(roots[i % len(roots)], f"skill-{i:03d}", description=f"S{i} {desc}")
    return repo, home


def test_budget(tmp_path: Path) -> None:
    """The budget at several context windows (everything fits; descriptions shared out; names
    only; the tail cut; the 8,000-character fallback; the cap at the model's maximum)."""
    repo, home = _budget_ws(tmp_path, 150)
    check("budget", repo, home, windows=(None, 1000000, 100000, 30000, 8000, 2500, 60, 0))


def test_budget_wide_and_models(tmp_path: Path) -> None:
    """Multi-byte descriptions (tokens are bytes / 4), max_context_tokens and the model's own
    window and usage text, through -c flags (the host: --config)."""
    repo, home = _budget_ws(tmp_path, 90, wide=True)
    check("budget-wide", repo, home, windows=(None, 40000, 9000))
    check("budget-tokens", repo, home, config="skills.max_context_tokens = 777\n")
    check("budget-gpt55", repo, home, config='model = "gpt-5.5"\n', windows=(None, 50000))
    check("budget-unknown-model", repo, home, config='model = "no-such-model"\n')


def test_alias_forms(tmp_path: Path) -> None:
    """Aliased (rN) against absolute locators: one skill in each of many deep roots keeps the
    absolute form, two per root take the aliases."""
    for per in (1, 2):
        repo = git(tmp_path / f"r{per}" / "repo")
        home = tmp_path / f"r{per}" / "home"
        d = repo
        for level in range(8):
            d = d / f"level-{level}-with-a-long-folder-name"
            for j in range(per):
                skill(d / ".agents/skills", f"deep-{level}-{j}", description="deep")
        write(home / ".codex/config.toml", "[skills.bundled]\nenabled = false\n")
        check(f"alias-{per}", d, home)


# ------------------------------------------------------------------------------------- corpus

def _corpus() -> Path:
    corpus = realclients.require_shared() / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is absent")
    return corpus


def _skill_dirs(corpus: Path) -> list[Path]:
    return sorted(p.parent for p in corpus.rglob("SKILL.md") if p.is_file())


def _copy(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))


def _mutate(path: Path, kind: str) -> None:
    data = path.read_bytes()
    if kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "no-frontmatter":
        data = b"# Title only\n"
    elif kind == "unclosed":
        data = data.replace(b"\n---", b"\n", 1) if data.startswith(b"---") else data
        data = b"---\n" + data.split(b"\n---", 1)[0].lstrip(b"-\n")
    elif kind == "no-description":
        lines = [ln for ln in data.split(b"\n") if not ln.startswith(b"description:")]
        data = b"\n".join(lines)
    elif kind == "bad-byte":
        data = data.replace(b"\n", b"\n\xff", 1)
    elif kind == "long-name":
        data = b"---\nname: " + b"n" * 70 + b"\n" + data.split(b"\n", 1)[1]
    elif kind == "tab":
        data = data.replace(b"\n", b"\n\t", 2)
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    path.write_bytes(data)


def test_corpus_all(tmp_path: Path) -> None:
    """Every corpus repository copied as a tree into one of five Codex roots (hidden folders,
    deep plugin layouts, nested skills and all), at the default window and at 1,000,000."""
    corpus = _corpus()
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    cwd = repo / "sub"
    roots = [repo / ".agents/skills", repo / ".codex/skills", cwd / ".agents/skills", home / ".agents/skills",
             home / ".codex/skills"]
    for i, src in enumerate(sorted(p for p in corpus.iterdir() if p.is_dir())):
        _copy(src, roots[i % len(roots)] / src.name)
    check("corpus-all", cwd, home, windows=(None, 1000000))


def test_corpus_mixed(tmp_path: Path) -> None:
    """Corpus skill folders spread over Codex's roots with same-name copies, nesting, hidden
    folders, symlinks (folder links, a dangling link), broken files and hiding sidecars."""
    corpus = _corpus()
    rnd = random.Random(20261120)
    repo = git(tmp_path / "repo")
    home = tmp_path / "home"
    cwd = repo / "sub"
    roots = [repo / ".agents/skills", repo / ".codex/skills", cwd / ".agents/skills", home / ".agents/skills",
             home / ".codex/skills"]
    dirs = _skill_dirs(corpus)
    placed: list[Path] = []
    for i, src in enumerate(rnd.sample(dirs, 300)):
        dst = roots[i % len(roots)] / src.name
        k = 1
        while dst.exists():
            k += 1
            dst = roots[i % len(roots)] / f"{src.name}-{k}"
        _copy(src, dst)
        placed.append(dst)
    for src in rnd.sample(placed, 25):
        root = rnd.choice([r for r in roots if not str(src).startswith(str(r))])
        _copy(src, root / f"dup-{src.name}")
    for src in rnd.sample(dirs, 10):
        _copy(src, rnd.choice(placed) / "nested" / src.name)
    for src in rnd.sample(dirs, 5):
        _copy(src, roots[0] / ".hidden" / src.name)
    store = tmp_path / "store"
    for j, src in enumerate(rnd.sample(dirs, 12)):
        _copy(src, store / f"s{j}-{src.name}")
        os.symlink(store / f"s{j}-{src.name}", rnd.choice(roots) / f"link-s{j}")
    for j, tgt in enumerate(rnd.sample(placed, 12)):
        link = rnd.choice(roots) / f"link-p{j}"
        if not link.exists():
            os.symlink(tgt, link)
    os.symlink(tmp_path / "gone", roots[1] / "dangling")
    kinds = ["bom", "no-frontmatter", "unclosed", "no-description", "bad-byte", "long-name", "tab", "crlf"]
    for j, tgt in enumerate(rnd.sample(placed, 24)):
        _mutate(tgt / "SKILL.md", kinds[j % len(kinds)])
    for tgt in rnd.sample(placed, 8):
        write(tgt / "agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    check("corpus-mixed", cwd, home, windows=(None, 60000))


@pytest.mark.parametrize("variant", rules_table.VARIANTS)
def test_rules_table(tmp_path: Path, variant: str) -> None:
    """Every row of the rules table in real-clients.md, laid out for Codex (the catalog at the
    default window and at a 100,000-token one)."""
    cwd, home, env = rules_table.build(tmp_path, "codex", variant)
    check(f"table-{variant}", cwd, home, env, windows=(None, 100_000))
