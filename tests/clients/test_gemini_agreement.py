"""Host ``gemini`` against the real Gemini CLI 0.61.0 (SPEC N2–N5): the same skills under the
same name, path, description and enabled flag, the same overridden copies, the same read
errors, the same ``skills list`` order, and the same prompt section — byte for byte where the
client is deterministic, per root block as a multiset where its same-root race can reorder
entries (a race counts as agreement when the client's winner is one of the race candidates).

Skipped without the client (``SKILLSHELF_CLIENTS_DIR``); the corpus test also needs
``../shared``. One client process at a time.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import gemini_probe as probe
import known
import pytest
import realclients
import rules_table
from tagged import TAGGED, tagged_text

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import get_host
from skillshelf.core.hosts.base import HostContext
from skillshelf.core.hosts.gemini import GeminiSession, catalog_skills
from skillshelf.core.hosts.gemini.collate import collation_key
from skillshelf.core.model import Generation, Provenance, Source, Status
from skillshelf.core.paths import Environment

Diff = tuple[str, str, str]


# --------------------------------------------------------------------------- building
def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(data)
    return path


def skill(root: Path, folder: str | None, name: str | None, description: str | None, body: str = "Body.\n",
          extra: str = "") -> Path:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    lines.append("---")
    target = root / folder / "SKILL.md" if folder else root / "SKILL.md"
    return write(target, "\n".join(lines) + "\n" + body)


def raw(root: Path, folder: str, text: str | bytes) -> Path:
    return write(root / folder / "SKILL.md", text)


# --------------------------------------------------------------------------- skillshelf's side
def open_mine(ws: Path, home: Path, env: Mapping[str, str] | None = None, *,
              trusted: bool = True) -> tuple[Generation, GeminiSession]:
    """Host gemini over ``ws`` with the variables the client run gets (and the clients folder,
    so the built-ins are read from the same bundle)."""
    values = {"HOME": str(home), "PATH": os.environ.get("PATH", ""),
              realclients.CLIENTS_ENV: os.environ.get(realclients.CLIENTS_ENV, "")}
    if trusted:
        values["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    values.update(env or {})
    cat = Catalog.from_context(get_host("gemini"), HostContext(cwd=str(ws), env=Environment.from_mapping(values)))
    session = cat.session
    assert isinstance(session, GeminiSession)
    return cat.current, session


def rel(path: str | None, ws: Path, home: Path) -> str:
    if path is None:
        return "?"
    for base, prefix in ((os.path.realpath(ws), ""), (str(ws), ""), (str(home), "~/")):
        if path == base or path.startswith(base + "/"):
            return prefix + os.path.relpath(path, base)
    return path


def _candidates(gen: Generation) -> dict[str, list[Source]]:
    """name → the copies that may be the one listed (a race has several)."""
    out: dict[str, list[Source]] = {}
    for s in gen.sources:
        if s.status in (Status.OK, Status.RACE, Status.DISABLED):
            out.setdefault(s.name, []).append(s)
    return out


def listing_differences(gen: Generation, session: GeminiSession, result: probe.Listing, ws: Path,
                        home: Path) -> list[Diff]:
    """Every way skillshelf's view differs from one ``skills list --all`` run."""
    assert result.rc == 0, result.stderr[-2000:]
    diffs: list[Diff] = []
    cands = _candidates(gen)
    listed = [r for r in result.records if r["listed"]]
    by_name = {r["name"]: r for r in listed}
    winners: dict[str, str] = {}
    for name in dict.fromkeys([*cands, *by_name]):
        c, mine = by_name.get(name), cands.get(name, [])
        if c is None:
            diffs.append((rel(mine[0].location, ws, home), "listed", f"skillshelf lists {name!r}, Gemini CLI does not"))
            continue
        if not mine:
            diffs.append((rel(c["path"], ws, home), "listed", f"Gemini CLI lists {name!r}, skillshelf does not"))
            continue
        hit = next((s for s in mine if s.location == c["path"]), None)
        if hit is None:
            diffs.append((rel(c["path"], ws, home), "path",
                          f"{name!r}: Gemini CLI lists {c['path']}, skillshelf {[s.location for s in mine]}"))
            continue
        winners[name] = hit.location
        where = rel(hit.location, ws, home)
        if (hit.description or "") != c["description"]:
            diffs.append((where, "description", f"{hit.description!r} != {c['description']!r}"))
        if hit.enabled != c["enabled"]:
            diffs.append((where, "enabled", f"skillshelf {hit.enabled}, Gemini CLI {c['enabled']}"))
        if (hit.provenance is Provenance.BUILTIN) != c["builtin"]:
            diffs.append((where, "builtin", f"skillshelf {hit.provenance.value}, Gemini CLI builtin={c['builtin']}"))
    names_client = [r["name"] for r in listed]
    names_mine = [r["name"] for r in probe.parse_list(session.skills_list(gen), "") if r["name"] in by_name]
    if [n for n in names_client if n in cands] != names_mine:
        diffs.append(("*", "order", f"skills list order: Gemini CLI {names_client} skillshelf {names_mine}"))
    # overridden copies: every copy of a name except the client's winner
    copies: dict[str, set[str]] = {}
    for s in gen.sources:
        if s.provenance is not Provenance.BUILTIN:
            copies.setdefault(s.name, set()).add(s.location)
    theirs: dict[str, set[str]] = {}
    for r in result.records:
        if not r["listed"] and not r["builtin"]:
            theirs.setdefault(r["name"], set()).add(r["path"])
    for name in set(copies) | set(theirs):
        expected = copies.get(name, set()) - {winners.get(name, "")}
        got = theirs.get(name, set()) - {winners.get(name, "")}
        if expected != got:
            for p in sorted(expected ^ got):
                diffs.append((rel(p, ws, home), "shadowed",
                              f"{name!r}: overridden per Gemini CLI {sorted(got)}, per skillshelf {sorted(expected)}"))
    over_builtin = {r["name"] for r in result.records if not r["listed"] and r["builtin"]}
    mine_builtin = {s.name for s in gen.sources if s.provenance is Provenance.BUILTIN and s.status is Status.SHADOWED}
    if over_builtin != mine_builtin:
        detail = f"built-ins overridden: Gemini CLI {sorted(over_builtin)}, skillshelf {sorted(mine_builtin)}"
        diffs.append(("*", "shadowed", detail))
    unreadable = {r.location for r in gen.rejected if any(d.code == "gemini-unreadable" for d in r.diagnostics)}
    if unreadable != set(result.read_errors):
        for p in sorted(unreadable ^ set(result.read_errors)):
            diffs.append((rel(p, ws, home), "read-error", "Error parsing skill file: "
                          + ("only skillshelf" if p in unreadable else "only Gemini CLI")))
    return diffs


def _block(gen: Generation) -> dict[str, int]:
    """name → the index of the root where the name was first seen (its catalog block)."""
    index = {r.path: i for i, r in enumerate(gen.roots)}
    out: dict[str, int] = {}
    for s in gen.sources:
        i = index.get(s.root, -1)
        out[s.name] = min(out.get(s.name, i), i)
    return out


def catalog_differences(gen: Generation, session: GeminiSession, section: str) -> list[Diff]:
    """Byte for byte; where it differs, the same header, the same root blocks in order, and in
    each block the same entries as a multiset (a race may pick any candidate)."""
    mine = session.catalog(gen).text
    if mine == section:
        return []
    head_mine, head_theirs = mine.split("<available_skills>")[0], section.split("<available_skills>")[0]
    if head_mine != head_theirs:
        return [("*", "catalog", f"header: {head_theirs!r} != {head_mine!r}")]
    blocks = _block(gen)
    cands = {n: {(s.name, s.description, s.location) for s in ss} for n, ss in _candidates(gen).items()}
    theirs = probe.parse_catalog(section)
    ours = probe.parse_catalog(mine)
    diffs: list[Diff] = []
    seq_t = [blocks.get(e["name"], -1) for e in theirs]
    seq_m = [blocks.get(e["name"], -1) for e in ours]
    if seq_t != sorted(seq_t) or Counter(seq_t) != Counter(seq_m):
        diffs.append(("*", "catalog", "root blocks differ"))
    names_t, names_m = Counter(e["name"] for e in theirs), Counter(e["name"] for e in ours)
    if names_t != names_m:
        only = (f"names only Gemini CLI shows: {sorted((names_t - names_m).elements())}, "
                f"only skillshelf: {sorted((names_m - names_t).elements())}")
        diffs.append(("*", "catalog", only))
    for e in theirs:
        if (e["name"], e["description"], e["path"]) not in {(n, re.sub(r"\n{3,}", "\n\n", d or ""), p)
                                                          for n, d, p in cands.get(e["name"], set())}:
            diffs.append((e["path"], "catalog", f"entry {e['name']!r} is not one skillshelf shows"))
    # the rest of the text is the entries joined: equal blocks and entries mean equal text up to order
    return diffs


def assert_agree(diffs: list[Diff], workspace: str) -> None:
    left = known.unexplained("gemini", workspace, diffs)
    assert not left, "\n".join(f"{p}\t{f}\t{d}" for p, f, d in left)


# --------------------------------------------------------------------------- workspaces
def rules_workspace(tmp: Path) -> tuple[Path, Path]:
    """One workspace for the rules of roots, layout, parser, precedence, race, disabled, catalog."""
    ws, home = tmp / "ws", tmp / "home"
    ug, ua = home / ".gemini" / "skills", home / ".agents" / "skills"
    wg, wa = ws / ".gemini" / "skills", ws / ".agents" / "skills"
    outside = tmp / "outside"
    # precedence through all four roots; the name keeps the user .gemini position
    for i, root in enumerate((ug, ua, wg, wa)):
        skill(root, "ladder", "ladder", f"ladder copy {i}")
    skill(ug, "only-user", "only-user", "in the user .gemini root")
    skill(ua, "only-agents", "only-agents", "in the user .agents root")
    skill(wa, "only-ws-agents", "only-ws-agents", "in the workspace .agents root")
    skill(ug, "pair-a", "pair", "the user copy")
    skill(wa, "pair-b", "pair", "the workspace copy")
    # the root's own SKILL.md loses to a child in the same root
    skill(ug, None, "own-vs-child", "the root file")
    skill(ug, "own-child", "own-vs-child", "the child folder")
    skill(ua, None, "root-file", "a SKILL.md directly in the root")
    # same name twice in one root: a race; "x:y" and x-y are one key
    skill(wg, "race-one", "racer", "first racer")
    skill(wg, "race-two", "racer", "second racer")
    skill(ua, "colon", "'c:d'", "declared with a colon")
    skill(ua, "dash", "c-d", "declared with a dash")
    # overriding a built-in
    skill(wg, "my-creator", "skill-creator", "a workspace skill-creator")
    # disabled by settings (case-insensitive, sanitised name, union over layers)
    skill(ug, "off-user", "Off-User", "disabled in the user settings")
    skill(wg, "off-sanitised", "'o:ff'", "disabled as o-ff")
    skill(wg, "off-ws", "off-ws", "disabled in the workspace settings")
    write(home / ".gemini" / "settings.json", json.dumps({"skills": {"disabled": ["off-user", "ANTIGRAVITY-SUPPORT"]}}))
    write(ws / ".gemini" / "settings.json", '// comments are allowed\n{"skills": {"disabled": ["O-FF", "off-ws"]}}\n')
    # layout
    skill(wg, ".hidden", "hidden-dir", "in a dot folder")
    skill(wg, "node_modules", "in-node-modules", "in node_modules")
    skill(wg / "deep", "deeper", "too-deep", "two levels down")
    write(wg / "lower" / "skill.md", "---\nname: lower\ndescription: lower-case file name\n---\n")
    skill(outside, "real-dir", "via-dirlink", "reached through a folder link")
    os.symlink(outside / "real-dir", wg / "dirlink")
    write(outside / "file.md", "---\nname: via-filelink\ndescription: a SKILL.md that is a link\n---\nlinked body\n")
    (wg / "filelink").mkdir(parents=True)
    os.symlink(outside / "file.md", wg / "filelink" / "SKILL.md")
    (wg / "broken").mkdir()
    os.symlink(outside / "missing.md", wg / "broken" / "SKILL.md")
    (wg / "linktodir").mkdir()
    os.symlink(outside / "real-dir", wg / "linktodir" / "SKILL.md")
    (wg / "isdir" / "SKILL.md").mkdir(parents=True)
    os.symlink(outside / "file.md", wg / "filelinkdir")
    os.symlink(outside / "nowhere", wg / "brokendir")
    write(ws / ".claude" / "skills" / "other" / "SKILL.md", "---\nname: other\ndescription: not a Gemini root\n---\n")
    # parser: silent drops
    raw(wg, "p-bom", "\ufeff---\nname: p-bom\ndescription: has a BOM\n---\n")
    raw(wg, "p-space", "--- \nname: p-space\ndescription: trailing space\n---\n")
    raw(wg, "p-blank", "\n---\nname: p-blank\ndescription: blank first line\n---\n")
    raw(wg, "p-unclosed", "---\nname: p-unclosed\ndescription: never closed\n")
    raw(wg, "p-noname", "---\ndescription: no name at all\n---\n")
    raw(wg, "p-nodesc", "---\nname: p-nodesc\n---\n")
    raw(wg, "p-none", "just text\n")
    # parser: what is kept
    raw(wg, "p-fallback", "---\nname: p-fallback\ndescription: a: b: c\n---\nfallback body\n")
    raw(wg, "p-quotes", "---\nname: \"p-quotes\"\ndescription: \"quoted: yes\"\nbad: [\n---\n")
    raw(wg, "p-number", "---\nname: 4711\ndescription: a numeric name\n---\n")
    raw(wg, "p-sanitise", "---\nname: 'p:s\\t/u<v>w*x?y\"z|'\ndescription: every character that is replaced\n---\n")
    raw(wg, "p-folded", "---\nname: p-folded\ndescription: >-\n  folded over\n  two lines\n---\n")
    raw(wg, "p-literal", "---\nname: p-literal\ndescription: |\n  line one\n\n\n\n  line five\n---\n")
    raw(wg, "p-crlf", "---\r\nname: p-crlf\r\ndescription: windows line ends\r\n---\r\nbody\r\n")
    raw(wg, "p-dashes", "---\nname: p-dashes\ndescription: closes early\n----\nmore: x\n---\n")
    raw(wg, "p-dupkey", "---\nname: p-dupkey\ndescription: one\ndescription: two\n---\n")
    raw(wg, "p-nested", "---\nmetadata:\n  name: p-nested\ndescription: the name is indented\n---\n")
    raw(wg, "p-empty-name", "---\nname: ''\ndescription: an empty name\n---\n")
    raw(wg, "p-xml", "---\nname: p-xml\ndescription: 'uses <b>tags</b> & \"quotes\"'\n---\n")
    raw(wg, "p-latin1", b"---\nname: p-latin1\ndescription: caf\xe9 na\xefve\n---\n")
    raw(wg, "p-tab", "---\nname:\tp-tab\ndescription: a\tb\n---\n")
    raw(wg, "p-yes", "---\nname: p-yes\ndescription: yes\n---\n")
    raw(wg, "p-cont", "---\nname: p-cont\ndescription: first\n  name: swallowed\nx: [\n---\n")
    for folder in TAGGED:
        raw(wg, folder, tagged_text(folder))
    skill(wg, "CaseName", "CaseName", "upper case")
    skill(wg, "casename", "casename", "lower case")
    skill(wg, "with-res", "with-res", "has resources", body="\n  # Use it\n\nStep one.\n\n")
    write(wg / "with-res" / "references" / "a.md", "a\n")
    write(wg / "with-res" / "scripts" / "run.sh", "echo\n")
    write(wg / "with-res" / "node_modules" / "x.js", "x\n")
    return ws, home


def test_rules_workspace(tmp_path: Path) -> None:
    realclients.require("gemini")
    ws, home = rules_workspace(tmp_path)
    gen, session = open_mine(ws, home)
    assert_agree(listing_differences(gen, session, probe.run_list(str(ws), str(home)), ws, home), "rules")
    env = {"GEMINI_MODEL": "gemini-2.5-flash"}
    gen, session = open_mine(ws, home, env)
    calls = [{"name": "activate_skill", "args": {"name": n}} for n in ("with-res", "p-crlf", "nope", "casename")]
    cap = probe.capture(str(ws), str(home), env, calls=calls)
    assert cap.rc == 0, cap.stderr[-2000:]
    assert_agree(catalog_differences(gen, session, cap.section), "rules")
    tool = get_host("gemini").skill_tool(Catalog.from_context(get_host("gemini"), session.context))
    assert tool is not None
    decl = next(t for t in cap.tools if t["name"] == "activate_skill")
    assert sorted(decl["parametersJsonSchema"]["properties"]["name"]["enum"]) == \
        sorted(s.name for s in catalog_skills(gen.sources))
    assert len(cap.responses) == len(calls)
    for call, answer in zip(calls, cap.responses, strict=False):
        from skillshelf.core.tool import ToolError
        try:
            mine = {"output": tool.call(call["args"]).output}
        except ToolError as err:
            mine = {"error": err.message}
        assert mine == answer["response"], call


@pytest.mark.parametrize("variant", rules_table.VARIANTS)
def test_rules_table(tmp_path: Path, variant: str) -> None:
    """Every row of the rules table in real-clients.md, laid out for Gemini CLI: the listing
    and the catalog the model gets."""
    realclients.require("gemini")
    ws, home, env = rules_table.build(tmp_path, "gemini", variant)
    gen, session = open_mine(ws, home, env)
    assert_agree(listing_differences(gen, session, probe.run_list(str(ws), str(home), env), ws, home),
                 f"table-{variant}")
    env = {**env, "GEMINI_MODEL": "gemini-2.5-flash"}
    gen, session = open_mine(ws, home, env)
    cap = probe.capture(str(ws), str(home), env)
    assert cap.rc == 0, cap.stderr[-2000:]
    assert_agree(catalog_differences(gen, session, cap.section), f"table-{variant}")


def test_home_extensions_and_model(tmp_path: Path) -> None:
    """GEMINI_CLI_HOME moves the user roots and the extensions; extensions load in folder order,
    fill in ${…} values, and one disabled here is left out; one file through two roots is two
    locations; the model comes from model.name."""
    realclients.require("gemini")
    ws, home, gh = tmp_path / "ws", tmp_path / "home", tmp_path / "gh"
    skill(home / ".gemini" / "skills", "ignored-home", "ignored-home", "HOME is not read when GEMINI_CLI_HOME is set")
    skill(gh / ".gemini" / "skills", "moved", "moved", "under GEMINI_CLI_HOME")
    skill(gh / ".agents" / "skills", "moved-agents", "moved-agents", "under GEMINI_CLI_HOME .agents")
    skill(gh / "skills", "not-here", "not-here", "GEMINI_CLI_HOME/skills is not a root")
    ext = gh / ".gemini" / "extensions"
    for folder, name in (("b-ext", "ext-b"), ("a-ext", "ext-a"), ("c-off", "ext-off")):
        write(ext / folder / "gemini-extension.json", json.dumps({"name": name, "version": "1.0.0"}))
        skill(ext / folder / "skills", "tool", f"{name}-tool", f"from {name} at ${{extensionPath}}${{/}}skills "
              "in ${workspacePath} ${unknownKey}")
        skill(ext / folder / "skills", "shared", "ext-shared", f"{name}'s copy")
    write(ext / "broken-ext" / "gemini-extension.json", json.dumps({"name": "broken"}))
    skill(ext / "broken-ext" / "skills", "x", "from-broken", "never loaded")
    write(ext / "extension-enablement.json", json.dumps({"ext-off": {"overrides": ["!/*"]}}))
    skill(gh / ".gemini" / "skills", "shared", "ext-shared", "the user copy wins over extensions")
    skill(ws / ".gemini" / "skills", "w", "ws-skill", "workspace skill, reached twice")
    (ws / ".agents").mkdir()
    os.symlink(ws / ".gemini" / "skills", ws / ".agents" / "skills")  # one file through two roots: two locations
    write(gh / ".gemini" / "settings.json", json.dumps({"model": {"name": "gemini-3-pro-preview"}}))
    env = {"GEMINI_CLI_HOME": str(gh)}
    gen, session = open_mine(ws, home, env)
    assert_agree(listing_differences(gen, session, probe.run_list(str(ws), str(home), env), ws, home), "home")
    cap = probe.capture(str(ws), str(home), env)
    assert cap.rc == 0, cap.stderr[-2000:]
    gen, session = open_mine(ws, home, env)
    assert "call the `activate_skill` tool" in session.catalog(gen).text
    assert_agree(catalog_differences(gen, session, cap.section), "home")


def _trust_workspace(tmp: Path) -> tuple[Path, Path]:
    ws, home = tmp / "proj" / "ws", tmp / "home"
    skill(ws / ".gemini" / "skills", "ws-g", "ws-g", "workspace .gemini")
    skill(ws / ".agents" / "skills", "ws-a", "ws-a", "workspace .agents")
    skill(home / ".gemini" / "skills", "user-g", "user-g", "user .gemini")
    write(ws / ".gemini" / "settings.json", json.dumps({"skills": {"disabled": ["user-g"]}}))
    return ws, home


@pytest.mark.parametrize("variant", ["untrusted", "trusted-folder", "do-not-trust-wins", "env-false", "trust-off"])
def test_trust(tmp_path: Path, variant: str) -> None:
    """Untrusted: no workspace roots and no workspace settings; the other ways to decide trust."""
    realclients.require("gemini")
    ws, home = _trust_workspace(tmp_path)
    tf = home / ".gemini" / "trustedFolders.json"
    mine: dict[str, str] = {}
    if variant == "trusted-folder":
        write(tf, json.dumps({str(ws.parent): "TRUST_FOLDER"}))
    elif variant == "do-not-trust-wins":
        write(tf, json.dumps({str(tmp_path): "TRUST_FOLDER", str(ws): "DO_NOT_TRUST"}))
    elif variant == "env-false":
        mine = {"GEMINI_CLI_TRUST_WORKSPACE": "false"}
    elif variant == "trust-off":
        write(home / ".gemini" / "settings.json", json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    theirs: dict[str, str | None] = {"GEMINI_CLI_TRUST_WORKSPACE": mine.get("GEMINI_CLI_TRUST_WORKSPACE")}
    gen, session = open_mine(ws, home, mine, trusted=False)
    result = probe.run_list(str(ws), str(home), theirs)
    assert_agree(listing_differences(gen, session, result, ws, home), f"trust-{variant}")
    trusted = variant in ("trusted-folder", "trust-off")
    unread = [r for r in gen.roots if r.unread]
    assert bool(unread) is not trusted
    if not trusted:
        assert all("not trusted" in r.unread for r in unread)
        assert any(w.kind == "gemini-untrusted" for w in gen.warnings)


def test_workspace_is_home(tmp_path: Path) -> None:
    """cwd = HOME: each root is read twice; every file is listed once, .agents wins."""
    realclients.require("gemini")
    home = tmp_path / "home"
    skill(home / ".gemini" / "skills", "same", "same", "the .gemini copy")
    skill(home / ".agents" / "skills", "same", "same", "the .agents copy")
    skill(home / ".gemini" / "skills", "g", "only-g", "only in .gemini")
    gen, session = open_mine(home, home)
    assert_agree(listing_differences(gen, session, probe.run_list(str(home), str(home)), home, home), "ws-is-home")


def test_skills_switched_off(tmp_path: Path) -> None:
    realclients.require("gemini")
    ws, home = tmp_path / "ws", tmp_path / "home"
    skill(ws / ".gemini" / "skills", "a", "a", "not discovered")
    write(ws / ".gemini" / "settings.json", json.dumps({"skills": {"enabled": False}}))
    gen, session = open_mine(ws, home)
    result = probe.run_list(str(ws), str(home))
    assert result.stdout == "No skills discovered.\n"
    assert_agree(listing_differences(gen, session, result, ws, home), "skills-off")
    assert session.skills_list(gen) == "No skills discovered.\n"


# --------------------------------------------------------------------------- the corpus
def corpus_workspace(tmp: Path, corpus: Path, seed: int = 20260311) -> tuple[Path, Path, int]:
    """Every corpus SKILL.md spread over the four roots (round-robin over repositories), plus
    same-name copies across roots and inside one root, folder and file links, broken links, broken
    files, and copies in places Gemini CLI does not read. Returns (ws, home, files)."""
    rng = random.Random(seed)
    ws, home, outside = tmp / "ws", tmp / "home", tmp / "outside"
    roots = [ws / ".gemini" / "skills", ws / ".agents" / "skills", home / ".gemini" / "skills",
             home / ".agents" / "skills"]
    files = sorted(p for p in corpus.rglob("SKILL.md") if p.is_file())
    by_repo: dict[str, list[Path]] = {}
    for p in files:
        by_repo.setdefault(p.relative_to(corpus).parts[0], []).append(p)
    pools = [rng.sample(v, len(v)) for _, v in sorted(by_repo.items())]
    picked: list[Path] = []
    while any(pools):
        for pool in pools:
            if pool:
                picked.append(pool.pop())
    used: dict[Path, set[str]] = {r: set() for r in roots}
    placed: list[Path] = []

    def place(src: Path, root: Path, folder: str | None = None) -> Path:
        name = folder or src.parent.name
        while name in used[root]:
            name += "-" + src.relative_to(corpus).parts[0][:5].lower()
        used[root].add(name)
        dst = root / name / "SKILL.md"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        placed.append(dst)
        return dst

    for i, src in enumerate(picked):
        place(src, roots[i % 4])
    for src in rng.sample(picked, 60):
        place(src, rng.choice(roots))
    for src in rng.sample(picked, 12):
        place(src, rng.choice(roots), "aa-again-" + src.parent.name)
    for k, src in enumerate(rng.sample(picked, 20)):
        target = outside / f"o{k}" / "SKILL.md"
        target.parent.mkdir(parents=True)
        shutil.copyfile(src, target)
        os.symlink(target.parent, roots[k % 4] / f"link{k}-{src.parent.name}")
    for k, src in enumerate(rng.sample(picked, 8)):
        d = roots[(k + 2) % 4] / f"filelink{k}"
        d.mkdir()
        os.symlink(src, d / "SKILL.md")
    for k in range(4):
        os.symlink(outside / f"missing{k}", roots[k] / f"broken-dirlink{k}")
        d = roots[(k + 1) % 4] / f"broken-filelink{k}"
        d.mkdir()
        os.symlink(outside / f"missing{k}.md", d / "SKILL.md")
    for k, dst in enumerate(rng.sample(placed, 70)):
        data = dst.read_bytes()
        kind = k % 7
        if kind == 0:
            data = b"\xef\xbb\xbf" + data
        elif kind == 1:
            data = data.replace(b"---", b"--- ", 1)
        elif kind == 2:
            data = data.replace(b"\n---", b"\n# --", 1)
        elif kind == 3:
            data = re.sub(rb"(?m)^name:.*\n", b"", data, count=1)
        elif kind == 4:
            data = b""
        elif kind == 5:
            data = data.replace(b"description:", b"description: 7\nbroken: [\ndescription2:", 1)
        else:
            data = data[: len(data) // 3]
        dst.write_bytes(data)
    for src in rng.sample(picked, 4):
        for where in (ws / ".claude" / "skills", roots[0] / "nested" / "deeper", roots[1] / ("." + src.parent.name)):
            dst = where / src.parent.name / "SKILL.md" if where.name != "." + src.parent.name else where / "SKILL.md"
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
    write(home / ".gemini" / "settings.json", json.dumps({"skills": {"disabled": [picked[0].parent.name, "skill-creator"]}}))
    return ws, home, len(list(tmp.rglob("SKILL.md")))


def _agreement(gen: Generation, diffs: list[Diff], ws: Path, home: Path) -> tuple[int, int]:
    files = {rel(s.location, ws, home) for s in gen.sources if s.provenance is not Provenance.BUILTIN}
    files |= {rel(r.location, ws, home) for r in gen.rejected}
    bad = {p for p, _f, _d in diffs if p != "*"} & files
    return len(files) - len(bad), len(files)


def test_corpus_workspace(tmp_path: Path) -> None:
    realclients.require("gemini")
    corpus = realclients.require_shared() / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is absent")
    ws, home, _n = corpus_workspace(tmp_path, corpus)
    gen, session = open_mine(ws, home)
    result = probe.run_list(str(ws), str(home))
    diffs = listing_differences(gen, session, result, ws, home)
    agree, total = _agreement(gen, diffs, ws, home)
    print(f"gemini corpus listing: {agree}/{total} skill files agree, "
          f"{sum(1 for r in result.records if r['listed'])} listed")
    assert_agree(diffs, "corpus")
    env = {"GEMINI_MODEL": "gemini-2.5-flash"}
    gen, session = open_mine(ws, home, env)
    cap = probe.capture(str(ws), str(home), env)
    assert cap.rc == 0, cap.stderr[-2000:]
    cdiffs = catalog_differences(gen, session, cap.section)
    print(f"gemini corpus catalog: {len(probe.parse_catalog(cap.section))} entries, "
          f"{'byte-identical' if cap.section == session.catalog(gen).text else 'equal up to the same-root race'}"
          if not cdiffs else f"gemini corpus catalog: {len(cdiffs)} differences")
    assert_agree(cdiffs, "corpus")


# --------------------------------------------------------------------------- collation
def test_collation_matches_node(tmp_path: Path) -> None:
    """The ``skills list`` sort key against node's own ``localeCompare`` (the node Gemini CLI runs on)."""
    realclients.require("gemini")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    rng = random.Random(11)
    pool = list("abcxyzABCXYZ0129 _-.:/()[]~!@#$%^&*+=,;'\"`|<>?{}\\éèÉàäÄöÜßçñØåæœıİǅǆαΩσςжЯ中文日本한ひカ🙂✨—–’“\u00a0\u0301")
    pairs = []
    for _ in range(4000):
        a = "".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))
        b = list(a)
        if b and rng.random() < 0.5:
            b[rng.randrange(len(b))] = rng.choice(pool)
            pairs.append((a, "".join(b)))
        else:
            pairs.append((a, "".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))))
    js = ("const p=JSON.parse(require('fs').readFileSync(0,'utf8'));"
          "process.stdout.write(JSON.stringify(p.map(([a,b])=>Math.sign(a.localeCompare(b)))))")
    proc = subprocess.run([node, "-e", js], input=json.dumps(pairs), capture_output=True, text=True, check=True,
                          env={"PATH": os.environ.get("PATH", ""), "LANG": os.environ.get("LANG", "C.UTF-8")})
    signs: list[int] = json.loads(proc.stdout)
    bad = [(a, b, s) for (a, b), s in zip(pairs, signs, strict=False)
           if (collation_key(a) > collation_key(b)) - (collation_key(a) < collation_key(b)) != s]
    assert not bad, bad[:10]
