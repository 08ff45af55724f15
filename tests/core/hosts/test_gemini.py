"""Host ``gemini`` (Gemini CLI 0.61.0, SPEC N) on trees written here, without the real client.

One test per rule of the research notes (roots and precedence, trust, settings, extensions, the
root glob, the parser and its fallback, identity, orders, the catalog, ``activate_skill``, the
diagnostics ``lint --target gemini`` reports). The environment is given explicitly: no system
settings file, no bundle on ``PATH`` (built-ins are sized markers).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from skillshelf.core.catalog import Catalog
from skillshelf.core.compare import CellState, compare
from skillshelf.core.hostlint import host_lint_file
from skillshelf.core.hosts import get_host, host_names
from skillshelf.core.hosts.base import EntryState, HostContext
from skillshelf.core.hosts.gemini import GEMINI, GeminiSession, catalog_skills
from skillshelf.core.hosts.gemini.builtin import BUILTINS, marker_description
from skillshelf.core.hosts.gemini.collate import collation_key
from skillshelf.core.hosts.gemini.jsyaml import JsYamlError
from skillshelf.core.hosts.gemini.jsyaml import load as js_load
from skillshelf.core.hosts.gemini.parse import parse_skill, sanitize_name
from skillshelf.core.hosts.gemini.prompt import supports_modern
from skillshelf.core.hosts.gemini.setup import dotenv_parse, strip_json_comments
from skillshelf.core.hosts.gemini.tool import declaration, folder_structure
from skillshelf.core.model import Generation, Provenance, Severity, Source, Status
from skillshelf.core.paths import Environment
from skillshelf.core.tool import ToolError

LEGACY = ("# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill and "
          "receive its detailed instructions, you can call the `activate_skill` tool with the skill's name.\n\n")
MODERN = LEGACY.replace("you can call", "call")


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(data)
    return path


def skill(root: Path, folder: str | None, name: str, description: str, body: str = "Body.\n") -> Path:
    target = root / folder / "SKILL.md" if folder else root / "SKILL.md"
    return write(target, f"---\nname: {name}\ndescription: {description}\n---\n{body}")


class Tree:
    """A workspace ``ws`` and home ``home`` under ``tmp`` with the four Gemini roots."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.ws = tmp / "ws"
        self.home = tmp / "home"
        self.ws.mkdir()
        self.home.mkdir()
        self.ug = self.home / ".gemini" / "skills"
        self.ua = self.home / ".agents" / "skills"
        self.wg = self.ws / ".gemini" / "skills"
        self.wa = self.ws / ".agents" / "skills"

    def env(self, trusted: bool = True, **extra: str) -> dict[str, str]:
        values = {"HOME": str(self.home), "PATH": "",
                  "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(self.tmp / "etc" / "settings.json")}
        if trusted:
            values["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        values.update(extra)
        return values

    def context(self, trusted: bool = True, cwd: Path | None = None, **extra: str) -> HostContext:
        return HostContext(cwd=str(cwd or self.ws), env=Environment.from_mapping(self.env(trusted, **extra)))

    def open(self, trusted: bool = True, cwd: Path | None = None, **extra: str) -> tuple[Generation, GeminiSession]:
        cat = Catalog.from_context(GEMINI, self.context(trusted, cwd, **extra))
        assert isinstance(cat.session, GeminiSession)
        return cat.current, cat.session

    def catalog(self, trusted: bool = True, **extra: str) -> Catalog:
        return Catalog.from_context(GEMINI, self.context(trusted, **extra))


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def files(gen: Generation, base: Path) -> list[tuple[str, str, str]]:
    """(name, location relative to ``base``'s parent, status) in generation order, built-ins left out."""
    return [(s.name, os.path.relpath(s.location, base.parent), s.status.value)
            for s in gen.sources if s.provenance is not Provenance.BUILTIN]


def by_location(gen: Generation, path: Path) -> Source:
    found = gen.by_location(str(path))
    assert found is not None, f"{path} not in {[s.location for s in gen.sources]}"
    return found


# --------------------------------------------------------------------------- registry
def test_registered_as_gemini() -> None:
    host = get_host("gemini")
    assert host is GEMINI
    assert host.describe() == "Gemini CLI 0.61.0"
    assert host.lint_target == "gemini"
    names = host_names()
    assert names.index("zhin") < names.index("gemini")


# --------------------------------------------------------------------------- R1 roots
def test_roots_in_processing_order_later_roots_win_first_position_kept(tree: Tree) -> None:
    for i, root in enumerate((tree.ug, tree.ua, tree.wg, tree.wa)):
        skill(root, "ladder", "ladder", f"copy {i}")
    skill(tree.ug, "alpha", "alpha", "user only")
    skill(tree.wa, "omega", "omega", "workspace only")
    gen, _session = tree.open()
    assert [r.label for r in gen.roots] == ["user .gemini/skills", "user .agents/skills",
                                            "workspace .gemini/skills", "workspace .agents/skills"]
    assert files(gen, tree.tmp / "x") == [
        ("ladder", "ws/.agents/skills/ladder/SKILL.md", "ok"),
        ("ladder", "home/.gemini/skills/ladder/SKILL.md", "shadowed"),
        ("ladder", "home/.agents/skills/ladder/SKILL.md", "shadowed"),
        ("ladder", "ws/.gemini/skills/ladder/SKILL.md", "shadowed"),
        ("alpha", "home/.gemini/skills/alpha/SKILL.md", "ok"),
        ("omega", "ws/.agents/skills/omega/SKILL.md", "ok"),
    ]
    winner = str(tree.wa / "ladder" / "SKILL.md")
    first = by_location(gen, tree.ug / "ladder" / "SKILL.md")
    assert first.shadowed_by == (winner,)
    assert first.status_reason == (f'Skill conflict detected: "ladder" from "{tree.ua / "ladder" / "SKILL.md"}" is '
                                   f'overriding the same skill from "{tree.ug / "ladder" / "SKILL.md"}". '
                                   f'In the end "{winner}" wins.')
    last = by_location(gen, tree.wg / "ladder" / "SKILL.md")
    assert last.status_reason == (f'Skill conflict detected: "ladder" from "{winner}" is overriding the same skill '
                                  f'from "{tree.wg / "ladder" / "SKILL.md"}".')
    # the winner keeps the catalog position of the first copy (user .gemini block)
    assert [s.name for s in catalog_skills(gen.sources)][-3:] == ["ladder", "alpha", "omega"]


def test_gemini_cli_home_moves_user_roots(tree: Tree) -> None:
    gh = tree.tmp / "gh"
    skill(tree.ug, "home-skill", "home-skill", "not read")
    skill(gh / ".gemini" / "skills", "moved", "moved", "read")
    skill(gh / "skills", "flat", "flat", "GEMINI_CLI_HOME/skills is not a root")
    gen, _ = tree.open(GEMINI_CLI_HOME=str(gh))
    assert [s.name for s in gen.sources if s.provenance is not Provenance.BUILTIN] == ["moved"]
    assert gen.roots[0].path == str(gh / ".gemini" / "skills")


def test_other_folders_are_not_roots(tree: Tree) -> None:
    for folder in (".claude/skills", ".codex/skills", "skills", ".gemini/skill", ".agent/skills", "sub/.gemini/skills"):
        skill(tree.ws / folder, "x", folder.replace("/", "-"), "not a Gemini root")
    skill(tree.tmp / ".gemini" / "skills", "parent", "parent", "a parent folder is not read")
    gen, _ = tree.open()
    assert [s for s in gen.sources if s.provenance is not Provenance.BUILTIN] == []


def test_workspace_is_home_each_file_once_agents_wins(tree: Tree) -> None:
    skill(tree.ug, "same", "same", "the .gemini copy")
    skill(tree.ua, "same", "same", "the .agents copy")
    gen, _ = tree.open(cwd=tree.home)
    assert files(gen, tree.tmp / "x") == [("same", "home/.agents/skills/same/SKILL.md", "ok"),
                                          ("same", "home/.gemini/skills/same/SKILL.md", "shadowed")]


def test_symlinked_workspace_reports_the_real_path(tree: Tree) -> None:
    skill(tree.wg, "a", "a", "d")
    link = tree.tmp / "link"
    os.symlink(tree.ws, link)
    gen, _ = tree.open(cwd=link)
    assert [s.location for s in gen.sources if s.name == "a"] == [str(tree.wg / "a" / "SKILL.md")]


# --------------------------------------------------------------------------- R2 .env
def test_trusted_env_file_moves_user_roots(tree: Tree) -> None:
    gh = tree.tmp / "elsewhere"
    skill(gh / ".agents" / "skills", "from-env", "from-env", "GEMINI_CLI_HOME from .env")
    write(tree.ws / ".env", f"# comment\nGEMINI_CLI_HOME={gh}\n")
    gen, _ = tree.open()
    assert [s.name for s in gen.sources if s.provenance is Provenance.USER] == ["from-env"]
    untrusted, _ = tree.open(trusted=False)
    assert [s.name for s in untrusted.sources if s.provenance is Provenance.USER] == []


def test_dotenv_parse() -> None:
    assert dotenv_parse('A=1\nexport B = "two\\nlines"\nC=\'x\' # c\nD: e\n') == \
        {"A": "1", "B": "two\nlines", "C": "x", "D": "e"}


# --------------------------------------------------------------------------- R3 trust
def _untrusted_reason(gen: Generation) -> str:
    roots = [r for r in gen.roots if r.provenance is Provenance.PROJECT]
    assert len(roots) == 2
    assert roots[0].unread == roots[1].unread
    return roots[0].unread


def test_untrusted_workspace_roots_not_read_with_reason_and_hint(tree: Tree) -> None:
    skill(tree.wa, "ws", "ws", "workspace")
    skill(tree.ug, "user", "user", "user")
    gen, _ = tree.open(trusted=False)
    assert [s.name for s in gen.sources if s.provenance is not Provenance.BUILTIN] == ["user"]
    trust_file = tree.home / ".gemini" / "trustedFolders.json"
    reason = _untrusted_reason(gen)
    assert reason == (f"Gemini CLI does not read the workspace skill folders: the workspace is not trusted "
                      f"(no rule in {trust_file} covers {tree.ws})")
    warning = next(w for w in gen.warnings if w.kind == "gemini-untrusted")
    assert warning.message == (
        f"{reason}; to trust it: choose \"Trust folder\" when Gemini CLI asks in {tree.ws}, add "
        f"\"{tree.ws}\": \"TRUST_FOLDER\" to {trust_file}, or set GEMINI_CLI_TRUST_WORKSPACE=true")
    # compare names trust as the reason a workspace file is not read
    (tree.ws / ".git").mkdir()
    result = compare(tree.context(trusted=False), [get_host("zuno"), GEMINI])
    row = next(r for r in result.rows if r.location.endswith("ws/SKILL.md"))
    assert row.cells["gemini"].state is CellState.NOT_READ
    assert row.cells["gemini"].reason == reason


@pytest.mark.parametrize(("rules", "extra", "trusted", "why"), [
    ({}, {"GEMINI_RESTRICTED_MODE": "true"}, False, "GEMINI_RESTRICTED_MODE=true"),
    ({}, {"GEMINI_CLI_TRUST_WORKSPACE": "false"}, False, "GEMINI_CLI_TRUST_WORKSPACE=false"),
    ({"WS": "DO_NOT_TRUST"}, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, True, "GEMINI_CLI_TRUST_WORKSPACE=true"),
    ({"WS": "TRUST_FOLDER"}, {}, True, "WS is TRUST_FOLDER in TF"),
    ({"WS/child": "TRUST_PARENT"}, {}, True, "WS/child is TRUST_PARENT in TF"),
    ({"TMP": "TRUST_FOLDER"}, {}, True, "TMP is TRUST_FOLDER in TF"),
    ({"TMP": "TRUST_FOLDER", "WS": "DO_NOT_TRUST"}, {}, False, "WS is DO_NOT_TRUST in TF"),
])
def test_trust_rules(tree: Tree, rules: dict[str, str], extra: dict[str, str], trusted: bool, why: str) -> None:
    tf = tree.home / ".gemini" / "trustedFolders.json"
    subst = {"WS": str(tree.ws), "TMP": str(tree.tmp), "TF": str(tf)}

    def fill(text: str) -> str:
        for k in ("WS", "TMP", "TF"):
            text = text.replace(k, subst[k])
        return text

    if rules:
        write(tf, json.dumps({fill(k): v for k, v in rules.items()}))
    skill(tree.wg, "ws", "ws", "workspace")
    _gen, session = tree.open(trusted=False, **extra)
    assert session.setup.trusted is trusted
    assert session.setup.trust_reason == fill(why)


def test_folder_trust_switched_off_trusts(tree: Tree) -> None:
    write(tree.home / ".gemini" / "settings.json", '{"security": {"folderTrust": {"enabled": false}}}')
    _gen, session = tree.open(trusted=False)
    assert session.setup.trusted
    assert session.setup.trust_reason == f"security.folderTrust.enabled is false in {tree.home}/.gemini/settings.json"


def test_untrusted_workspace_settings_are_ignored(tree: Tree) -> None:
    skill(tree.ug, "u", "u", "user")
    write(tree.ws / ".gemini" / "settings.json", '{"skills": {"disabled": ["u"]}}')
    gen, _ = tree.open(trusted=False)
    assert by_location(gen, tree.ug / "u" / "SKILL.md").enabled
    gen, _ = tree.open()
    assert not by_location(gen, tree.ug / "u" / "SKILL.md").enabled


def test_invalid_trusted_folders_file_stops_the_client(tree: Tree) -> None:
    skill(tree.ug, "u", "u", "user")
    tf = write(tree.home / ".gemini" / "trustedFolders.json", json.dumps({str(tree.ws): "MAYBE"}))
    gen, session = tree.open(trusted=False)
    assert session.setup.fatal == (f'Error in {tf}: Invalid trust level "MAYBE" for path "{tree.ws}".\n'
                                   "Please fix the configuration file(s) and try again.")
    assert all(r.unread.startswith("Gemini CLI stops before it looks for skills") for r in gen.roots)
    assert list(gen.sources) == []
    assert any(w.kind == "gemini-config-error" for w in gen.warnings)


# --------------------------------------------------------------------------- R4 settings
def test_skills_enabled_false_discovers_nothing(tree: Tree) -> None:
    skill(tree.wg, "a", "a", "d")
    ws_settings = write(tree.ws / ".gemini" / "settings.json", '{"skills": {"enabled": false}}')
    gen, session = tree.open()
    assert gen.sources == ()
    assert all(r.unread == f"skills.enabled is false in {ws_settings}: Gemini CLI discovers no skills"
               for r in gen.roots)
    assert session.catalog(gen).text == ""
    assert session.skills_list(gen) == "No skills discovered.\n"


def test_system_settings_need_root_owned_safe_folders(tree: Tree) -> None:
    system = write(tree.tmp / "etc" / "settings.json", '{"skills": {"enabled": false}}')
    skill(tree.ug, "u", "u", "user")
    gen, _ = tree.open()
    assert [s.name for s in gen.sources if s.provenance is Provenance.USER] == ["u"]
    warning = next(w for w in gen.warnings if w.kind == "gemini-settings-skipped")
    assert warning.source == str(system)
    assert warning.message.startswith(f"Security Warning: Skipping system settings file '{system}': ")


def test_skills_disabled_union_case_insensitive_sanitised_builtin(tree: Tree) -> None:
    skill(tree.ug, "gamma", "gamma-user", "d")
    write(tree.ug / "colon" / "SKILL.md", "---\nname: 'a:b'\ndescription: d\n---\n")
    skill(tree.ug, "kept", "kept", "d")
    user = write(tree.home / ".gemini" / "settings.json",
                 '{"skills": {"disabled": ["GAMMA-USER", "skill-creator", "nothing-matches"]}}')
    ws = write(tree.ws / ".gemini" / "settings.json", '{"skills": {"disabled": ["a-b", "$DISABLE_ME"]}}')
    skill(tree.wg, "env", "from-env", "d")
    gen, session = tree.open(DISABLE_ME="from-env")
    states = {s.name: (s.enabled, s.status.value, s.disabled_reason) for s in gen.sources}
    assert states["gamma-user"] == (False, "disabled", f"skills.disabled in {user}")
    assert states["a-b"] == (False, "disabled", f"skills.disabled in {ws}")
    assert states["from-env"] == (False, "disabled", f"skills.disabled in {ws}")
    assert states["skill-creator"] == (False, "disabled", f"skills.disabled in {user}")
    assert states["kept"] == (True, "ok", None)
    shown = [s.name for s in catalog_skills(gen.sources)]
    assert shown == ["antigravity-support", "kept"]
    listing = session.skills_list(gen)
    assert "gamma-user [Disabled]\n" in listing
    assert "skill-creator [Disabled] [Built-in]\n" in listing


def test_non_string_disabled_entry_is_a_warning(tree: Tree) -> None:
    user = write(tree.home / ".gemini" / "settings.json", '{"skills": {"disabled": [3, "x"]}}')
    gen, _ = tree.open()
    expected = (f"skills.disabled entry 1 in {user} is not a string (3): Gemini CLI lower-cases every entry and "
                "may fail on it; skillshelf ignores it")
    assert [w.message for w in gen.warnings if w.kind == "gemini-settings-value"] == [expected]


def test_admin_skills_setting_has_no_effect(tree: Tree) -> None:
    write(tree.home / ".gemini" / "settings.json", '{"admin": {"skills": {"enabled": false}}}')
    skill(tree.ug, "u", "u", "d")
    gen, _ = tree.open()
    assert [s.name for s in catalog_skills(gen.sources)][-1] == "u"


def test_invalid_settings_file_stops_the_client(tree: Tree) -> None:
    bad = write(tree.home / ".gemini" / "settings.json", '{"skills": ')
    skill(tree.ug, "u", "u", "d")
    gen, session = tree.open()
    assert session.setup.fatal is not None and session.setup.fatal.startswith(f"Error in {bad}: not valid JSON")
    assert gen.sources == ()


def test_strip_json_comments() -> None:
    assert strip_json_comments('{"a": "// not a comment", /* x */ "b": 1} // end') == '{"a": "// not a comment",  "b": 1} '


# --------------------------------------------------------------------------- R5 built-ins
def test_builtins_without_a_bundle_are_sized_markers(tree: Tree) -> None:
    gen, session = tree.open()
    built = [s for s in gen.sources if s.provenance is Provenance.BUILTIN]
    assert [(s.name, s.location, s.size, len(s.description or "")) for s in built] == [
        ("skill-creator", "builtin://gemini/skill-creator", 20_225, 230),
        ("antigravity-support", "builtin://gemini/antigravity-support", 3_364, 273)]
    assert built[0].description == marker_description(BUILTINS[0])
    assert built[0].description.startswith("[built-in skill-creator: 230-character description")
    cat = session.catalog(gen)
    assert any("stand-ins of their real length" in n for n in cat.notes)
    assert [len(e.shown or "") for e in cat.entries] == [230, 273]
    # overriding a built-in: its own conflict text
    mine = skill(tree.wg, "mine", "skill-creator", "a workspace copy")
    gen, _ = tree.open()
    over = by_location_marker(gen, "builtin://gemini/skill-creator")
    assert over.status is Status.SHADOWED
    assert over.status_reason == f'Skill "skill-creator" from "{mine}" is overriding the built-in skill.'


def by_location_marker(gen: Generation, location: str) -> Source:
    found = gen.by_location(location)
    assert found is not None
    return found


# --------------------------------------------------------------------------- R6 extensions
def test_extensions_order_hydration_enablement_and_bad_config(tree: Tree) -> None:
    ext = tree.home / ".gemini" / "extensions"
    for folder, name in (("b", "ext-b"), ("a", "ext-a"), ("off", "ext-off")):
        write(ext / folder / "gemini-extension.json", json.dumps({"name": name, "version": "1"}))
        skill(ext / folder / "skills", "t", f"{name}-t", "at ${extensionPath}${/}skills in ${workspacePath} ${nope}")
        skill(ext / folder / "skills", "s", "shared", f"{name} copy")
    write(ext / "extension-enablement.json", json.dumps({"ext-off": {"overrides": ["!/*"]}}))
    write(ext / "bad" / "gemini-extension.json", json.dumps({"name": "bad"}))
    real = tree.tmp / "linked"
    write(real / "gemini-extension.json", json.dumps({"name": "ext-link", "version": "2"}))
    skill(real / "skills", "l", "linked", "from a linked extension")
    write(ext / "c-link" / ".gemini-extension-install.json", json.dumps({"type": "link", "source": str(real)}))
    gen, _ = tree.open()
    assert [r.label for r in gen.roots][:3] == ["extension ext-a", "extension ext-b", "extension ext-link"]
    ext_sources = [(s.name, s.status.value) for s in gen.sources if "extensions" in s.location or "linked" in s.location]
    assert ext_sources == [("ext-a-t", "ok"), ("shared", "ok"), ("shared", "shadowed"), ("ext-b-t", "ok"),
                           ("linked", "ok")]
    hydrated = next(s for s in gen.sources if s.name == "ext-a-t")
    assert hydrated.description == f"at {ext / 'a'}/skills in {tree.ws} ${{nope}}"
    warning = next(w for w in gen.warnings if w.kind == "gemini-extension-skipped")
    assert warning.message == (f"Warning: Skipping extension in {ext / 'bad'}: Failed to load extension config "
                               f"from {ext / 'bad' / 'gemini-extension.json'}: missing \"version\"")


# --------------------------------------------------------------------------- L1 the glob
def test_glob_matches_root_file_and_one_level_with_links(tree: Tree) -> None:
    outside = tree.tmp / "outside"
    skill(tree.wg, None, "root-file", "directly in the root")
    skill(tree.wg, "child", "child", "one level down")
    skill(tree.wg, ".hidden", "hidden", "dot folder")
    skill(tree.wg, "node_modules", "nm", "node_modules")
    skill(tree.wg / "deep", "deeper", "deep", "two levels")
    write(tree.wg / "lower" / "skill.md", "---\nname: lower\ndescription: d\n---\n")
    skill(outside, "target", "via-dirlink", "folder link")
    os.symlink(outside / "target", tree.wg / "dirlink")
    write(outside / "f.md", "---\nname: via-filelink\ndescription: file link\n---\n")
    (tree.wg / "filelink").mkdir()
    os.symlink(outside / "f.md", tree.wg / "filelink" / "SKILL.md")
    os.symlink(outside / "f.md", tree.wg / "file-not-folder")
    (tree.wg / "isdir" / "SKILL.md").mkdir(parents=True)
    gen, _ = tree.open()
    assert sorted(s.name for s in gen.sources if s.provenance is Provenance.PROJECT) == [
        "child", "root-file", "via-dirlink", "via-filelink"]
    assert by_location(gen, tree.wg / "dirlink" / "SKILL.md").canonical == str(outside / "target" / "SKILL.md")


def test_unreadable_skill_files_are_logged_errors(tree: Tree) -> None:
    outside = tree.tmp / "outside"
    (outside / "dir").mkdir(parents=True)
    (tree.wg / "broken").mkdir(parents=True)
    os.symlink(outside / "missing.md", tree.wg / "broken" / "SKILL.md")
    (tree.wg / "todir").mkdir()
    os.symlink(outside / "dir", tree.wg / "todir" / "SKILL.md")
    gen, _ = tree.open()
    reasons = {os.path.basename(os.path.dirname(r.location)): r.warning.message for r in gen.rejected if r.warning}
    broken = tree.wg / "broken" / "SKILL.md"
    assert reasons["broken"] == (f"Gemini CLI cannot read it and skips it, logging \"Error parsing skill file {broken}: "
                                 f"Error: ENOENT: no such file or directory, open '{broken}'\"")
    assert reasons["todir"].endswith("Error: EISDIR: illegal operation on a directory, read\"")


def test_a_fifo_named_skill_md_says_gemini_hangs_not_that_it_skips_it(tree: Tree) -> None:
    """Gemini CLI's read of a FIFO never returns: it does not log and skip the file (as for an
    unreadable one), its start waits there — the rejection says that, and skillshelf never opens it."""
    (tree.ug / "pipe").mkdir(parents=True)
    os.mkfifo(tree.ug / "pipe" / "SKILL.md")
    skill(tree.ug, "fine", "fine", "A good skill")
    gen, _ = tree.open()
    assert [r.warning.message for r in gen.rejected if r.warning] == [
        "it is a FIFO: Gemini CLI's read of it never ends, so its start hangs here (skillshelf does not read it)"]
    assert [s.name for s in gen.sources if s.provenance is Provenance.USER] == ["fine"]


def test_root_that_is_a_file_or_a_link(tree: Tree) -> None:
    write(tree.ug, "not a folder")
    real = tree.tmp / "real-root"
    skill(real, "x", "through-root-link", "a symlinked root")
    tree.wa.parent.mkdir(parents=True)
    os.symlink(real, tree.wa)
    gen, _ = tree.open()
    assert [s.location for s in gen.sources if s.provenance is not Provenance.BUILTIN] == [
        str(tree.wa / "x" / "SKILL.md")]
    assert any(w.kind == "gemini-root-not-folder" for w in gen.warnings)


# --------------------------------------------------------------------------- L2 order and race
def test_same_name_in_one_root_is_a_race(tree: Tree) -> None:
    skill(tree.wg, "dir-b", "racer", "from b")
    skill(tree.wg, "dir-a", "racer", "from a")
    gen, session = tree.open()
    racers = [s for s in gen.sources if s.name == "racer"]
    a, b = str(tree.wg / "dir-a" / "SKILL.md"), str(tree.wg / "dir-b" / "SKILL.md")
    assert [(s.location, s.status, s.shadowed_by) for s in racers] == [(a, Status.RACE, (b,)), (b, Status.RACE, (a,))]
    assert racers[0].status_reason == (
        '2 copies of "racer" in workspace .gemini/skills: Gemini CLI checks the folders of one root in parallel and '
        f"keeps the copy whose check finishes last, so either may win (usually {a}, in the alphabetically first folder)")
    cat = session.catalog(gen)
    assert f"<location>{a}</location>" in cat.text and b not in cat.text
    assert any(n.startswith("racer: either copy may win") for n in cat.notes)
    result = compare(tree.context(), [GEMINI])
    cells = [r.cells["gemini"] for r in result.rows if "racer" in (r.cells["gemini"].name or "")]
    assert [c.state for c in cells] == [CellState.RACE, CellState.RACE]


def test_root_file_always_loses_to_a_child(tree: Tree) -> None:
    skill(tree.wg, None, "twice", "root file")
    skill(tree.wg, "child", "twice", "child")
    gen, _ = tree.open()
    assert files(gen, tree.tmp / "x") == [("twice", "ws/.gemini/skills/child/SKILL.md", "ok"),
                                          ("twice", "ws/.gemini/skills/SKILL.md", "shadowed")]


def test_a_race_in_an_earlier_root_is_settled_by_a_later_root(tree: Tree) -> None:
    skill(tree.ug, "one", "n", "a")
    skill(tree.ug, "two", "n", "b")
    skill(tree.wa, "three", "n", "c")
    gen, _ = tree.open()
    assert [s.status for s in gen.sources if s.name == "n"] == [Status.OK, Status.SHADOWED, Status.SHADOWED]


def test_catalog_order_descending_folders_per_root(tree: Tree) -> None:
    for d in ("b1", "a2", "c3"):
        skill(tree.ug, d, f"name-{d}", "d")
    for d in ("dnB", "dn_x", "dné", "dna"):
        skill(tree.wg, d, d, "d")
    gen, _ = tree.open()
    assert [s.name for s in catalog_skills(gen.sources) if s.provenance is not Provenance.BUILTIN] == [
        "name-c3", "name-b1", "name-a2", "dné", "dna", "dn_x", "dnB"]


# --------------------------------------------------------------------------- L3 same file, two roots
def test_same_file_through_two_roots_is_two_locations(tree: Tree) -> None:
    skill(tree.wg, "s", "s", "d")
    tree.wa.parent.mkdir(parents=True)
    os.symlink(tree.wg, tree.wa)
    gen, _ = tree.open()
    assert files(gen, tree.tmp / "x") == [("s", "ws/.agents/skills/s/SKILL.md", "ok"),
                                          ("s", "ws/.gemini/skills/s/SKILL.md", "shadowed")]


# --------------------------------------------------------------------------- P1 frontmatter block
@pytest.mark.parametrize(("text", "code", "line"), [
    ("\ufeff---\nname: a\ndescription: d\n---\n", "gemini-bom", 1),
    ("--- \nname: a\ndescription: d\n---\n", "gemini-open-trailing-space", 1),
    ("\n---\nname: a\ndescription: d\n---\n", "gemini-leading-blank", 1),
    ("---\nname: a\ndescription: d\n", "gemini-unclosed", 1),
    ("---\n---\nbody\n", "gemini-empty-frontmatter", 2),
    ("no frontmatter\n", "gemini-no-frontmatter", 1),
])
def test_silent_drops_are_errors_with_a_line(text: str, code: str, line: int) -> None:
    parsed = parse_skill(text.encode())
    assert parsed.name is None
    assert [(d.severity, d.code, d.line) for d in parsed.diagnostics] == [(Severity.ERROR, code, line)]


def test_block_ends_at_first_dashes_line_body_trimmed() -> None:
    parsed = parse_skill(b"---\nname: a\ndescription: |\n  before\n----\nafter: x\n---\n\n  body  \n\n")
    assert (parsed.name, parsed.description, parsed.body) == ("a", "before\n", "")
    assert [(d.code, d.line) for d in parsed.diagnostics] == [("gemini-close-not-exact", 5), ("gemini-body-dropped", 5)]
    dashes = parse_skill(b"---\nname: a\ndescription: d\n---\n\n  body  \n\n")
    assert dashes.body == "body"
    no_newline = parse_skill(b"---\nname: a\ndescription: d\n---body")
    assert no_newline.body == ""
    assert [d.code for d in no_newline.diagnostics] == ["gemini-close-not-exact", "gemini-body-dropped"]
    crlf = parse_skill(b"---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n")
    assert (crlf.name, crlf.description, crlf.body, crlf.diagnostics) == ("a", "d", "body", ())


def test_invalid_utf8_is_replaced_and_reported() -> None:
    parsed = parse_skill(b"---\nname: a\ndescription: caf\xe9\n---\n")
    assert parsed.description == "caf\ufffd"
    assert [(d.code, d.line) for d in parsed.diagnostics] == [("gemini-invalid-utf8", 3)]


# --------------------------------------------------------------------------- P2 js-yaml
def test_js_yaml_semantics() -> None:
    assert js_load("a: yes\nb: on\n") == {"a": "yes", "b": "on"}
    assert js_load("d: |\n  keep\n") == {"d": "keep\n"}
    assert js_load('q: "a  \n  b"') == {"q": "a   b"}
    assert js_load("name:\tv\n") == {"name": "v"}
    assert js_load('s: "\\ud83d\\ude42"\n')["s"].encode("utf-16-le", "surrogatepass").decode("utf-16-le") == "🙂"
    for bad in ("a: 1\na: 2\n", "&x name: v\n", "\tk: v\n", "a: b: c\n", "x: \x07\n"):
        with pytest.raises((JsYamlError, yaml.YAMLError)):
            js_load(bad)
    assert js_load("# \x07 in a comment\nk: v\n") == {"k": "v"}


@pytest.mark.parametrize(("fm", "name", "description", "field"), [
    ("name: 4711\ndescription: d", "4711", "d", "name"),
    ("name: a\ndescription: 1e3", "a", "1e3", "description"),
    ("name: true\ndescription: d", "true", "d", "name"),
    ("name: a\ndescription: ~", "a", "~", "description"),
    ("name: a\ndescription:", "a", "", "description"),
])
def test_non_string_values_go_to_the_line_parser(fm: str, name: str, description: str, field: str) -> None:
    parsed = parse_skill(f"---\n{fm}\n---\n".encode())
    assert (parsed.name, parsed.description, parsed.parser) == (name, description, "fallback")
    diag = next(d for d in parsed.diagnostics if d.code == "gemini-fallback-parser")
    assert diag.field == field and diag.line == (2 if field == "name" else 3)


# --------------------------------------------------------------------------- P3 line parser
def test_line_parser_raw_values() -> None:
    text = ("---\nmetadata:\n  name: nested\ndescription: \"quoted: value\" # kept\n  continued\n"
            "  name: swallowed\nbad: [\n---\n")
    parsed = parse_skill(text.encode())
    assert (parsed.name, parsed.description) == ("nested", '"quoted: value" # kept continued name: swallowed')
    fallback = next(d for d in parsed.diagnostics if d.code == "gemini-fallback-parser")
    assert fallback.message.startswith("js-yaml rejects the frontmatter (")
    assert fallback.line is not None
    quoted = parse_skill(b"---\nname: \"q\"\ndescription: d\nx: [\n---\n")
    assert quoted.name == "-q-"
    assert [(d.code, d.field, d.line) for d in quoted.diagnostics if d.code != "gemini-fallback-parser"] == [
        ("gemini-fallback-quotes", "name", 2), ("gemini-name-sanitised", "name", 2)]
    blank = parse_skill(b"---\nname: a\ndescription: first\n\n  second\nx: [\n---\n")
    assert blank.description == "first"


def test_line_parser_needs_both_keys() -> None:
    parsed = parse_skill(b"---\nname: [a, b]\n---\n")
    assert parsed.name is None
    assert parsed.diagnostics[-1].code == "gemini-missing-description"
    assert parsed.diagnostics[-1].field == "description"


# --------------------------------------------------------------------------- P4 names and identity
def test_name_sanitising_is_the_identity_key(tree: Tree) -> None:
    assert sanitize_name('a:b\\c/d<e>f*g?h"i|j') == "a-b-c-d-e-f-g-h-i-j"
    parsed = parse_skill(b"---\nname: 'x:y'\ndescription: d\n---\n")
    diag = next(d for d in parsed.diagnostics if d.code == "gemini-name-sanitised")
    assert (parsed.name, parsed.raw_name, diag.field, diag.line) == ("x-y", "x:y", "name", 2)
    write(tree.ug / "colon" / "SKILL.md", "---\nname: 'x:y'\ndescription: colon\n---\n")
    skill(tree.wg, "dash", "x-y", "dash")
    skill(tree.wg, "Case", "Case", "upper")
    skill(tree.wg, "case", "case", "lower")
    gen, _ = tree.open()
    colon = by_location(gen, tree.ug / "colon" / "SKILL.md")
    assert (colon.name, colon.display_name, colon.status) == ("x-y", "x:y", Status.SHADOWED)
    assert {s.name for s in catalog_skills(gen.sources)} >= {"x-y", "Case", "case"}


def test_lint_target_gemini_reports_the_host_verdict(tmp_path: Path) -> None:
    bom = write(tmp_path / "bom" / "SKILL.md", "\ufeff---\nname: a\ndescription: d\n---\n")
    report = host_lint_file(GEMINI, str(bom))
    assert not report.valid
    assert [(d.code, d.line) for d in report.diagnostics] == [("gemini-bom", 1)]
    fallback = write(tmp_path / "fb" / "SKILL.md", "---\nname: a: b\ndescription: d\n---\n")
    report = host_lint_file(GEMINI, str(fallback))
    assert report.valid
    assert [(d.code, d.field, d.line) for d in report.diagnostics] == [
        ("gemini-fallback-parser", None, 2), ("gemini-name-sanitised", "name", 2), ("gemini-loads", None, None)]
    assert report.diagnostics[-1].message == "Gemini CLI 0.61.0 lists it as `a- b` (frontmatter name `a: b`)"


# --------------------------------------------------------------------------- O1 skills list
def test_skills_list_text_and_order(tree: Tree) -> None:
    names = ["ALPHA", "alpha", "Alpha", "ab", "a2", "a10", "a1", "a.b", "a-b", "a_b", "b", "a", "1digit", "10digits",
             "~tilde", "(paren", "-dash", "_under", "éclair", "eclair", "ss", "ß", "st"]
    for i, n in enumerate(names):
        skill(tree.wg, f"d{i:02}", n, f"desc {i}")
    gen, session = tree.open(trusted=True)
    text = session.skills_list(gen)
    listed = [line.split(" [")[0] for line in text.splitlines()[2:] if line and not line.startswith("  ")]
    assert listed[:len(names)] == ["_under", "-dash", "(paren", "~tilde", "10digits", "1digit", "a", "a_b", "a-b",
                                   "a.b", "a1", "a10", "a2", "ab", "alpha", "Alpha", "ALPHA", "b", "eclair",
                                   "éclair", "ss", "ß", "st"]
    assert listed[-2:] == ["antigravity-support", "skill-creator"]
    loc = tree.wg / "d11" / "SKILL.md"
    assert text.startswith("Discovered Agent Skills:\n\n")
    assert f"a [Enabled]\n  Description: desc 11\n  Location:    {loc}\n\n" in text
    assert "skill-creator [Enabled] [Built-in]\n" in text


def test_collation_rules() -> None:
    assert sorted(["ǆ", "dz", "dž", "e"], key=collation_key) == ["dz", "dž", "ǆ", "e"]
    assert collation_key("a\u2019b") > collation_key("a'b") and collation_key("a\u2019b") < collation_key("a'c")
    assert sorted(["日本", "中文", "zeta", "αβ"], key=collation_key) == ["zeta", "αβ", "中文", "日本"]


# --------------------------------------------------------------------------- catalog
def test_catalog_exact_text_no_escaping_no_budget_collapsed(tree: Tree) -> None:
    write(tree.wg / "xml" / "SKILL.md",
          "---\nname: xml\ndescription: '<b>&amp;</b> \"q\" </skill>'\n---\n")
    write(tree.wg / "multi" / "SKILL.md", "---\nname: multi\ndescription: |\n  one\n\n\n\n  five\n---\n")
    long = "x" * 3000
    skill(tree.wg, "long", "long", long)
    gen, session = tree.open(GEMINI_MODEL="gemini-2.5-flash")
    cat = session.catalog(gen)
    entries = "\n".join(
        f"  <skill>\n    <name>{n}</name>\n    <description>{d}</description>\n    <location>{tree.wg / f / 'SKILL.md'}"
        "</location>\n  </skill>"
        for n, d, f in (("xml", '<b>&amp;</b> "q" </skill>', "xml"), ("multi", "one\n\nfive\n", "multi"),
                        ("long", long, "long")))
    builtins = "\n".join(
        f"  <skill>\n    <name>{b.name}</name>\n    <description>{marker_description(b)}</description>\n"
        f"    <location>builtin://gemini/{b.name}</location>\n  </skill>" for b in BUILTINS)
    assert cat.text == f"{LEGACY}<available_skills>\n{builtins}\n{entries}\n</available_skills>"
    assert (cat.budget, cat.used) == (None, len(cat.text))
    assert cat.budget_rule.startswith("no budget")
    assert [e.state for e in cat.entries] == [EntryState.LISTED] * 5
    assert session.index_budget() is None


@pytest.mark.parametrize(("model", "modern"), [
    ("auto", True), ("pro", True), ("flash", True), ("gemini-3-pro-preview", True), ("gemini-3.5-flash", True),
    ("my-local-model", True), ("gemini-2.5-flash", False), ("gemini-2.5-pro", False), ("auto-gemini-2.5", False),
])
def test_model_decides_the_sentence(model: str, modern: bool) -> None:
    assert supports_modern(model) is modern


def test_model_from_env_then_settings_then_default(tree: Tree) -> None:
    skill(tree.ug, "u", "u", "d")
    gen, session = tree.open()
    assert session.catalog(gen).text.startswith(MODERN)
    write(tree.home / ".gemini" / "settings.json", '{"model": {"name": "gemini-2.5-pro"}}')
    gen, session = tree.open()
    assert session.catalog(gen).text.startswith(LEGACY)
    assert session.setup.model_by == f"model.name in {tree.home}/.gemini/settings.json"
    gen, session = tree.open(GEMINI_MODEL="gemini-3-flash-preview")
    assert session.catalog(gen).text.startswith(MODERN)


def test_prompt_agentskills_off_leaves_the_section_out(tree: Tree) -> None:
    skill(tree.ug, "u", "u", "d")
    gen, session = tree.open(GEMINI_PROMPT_AGENTSKILLS=" False ")
    cat = session.catalog(gen)
    assert cat.text == ""
    assert {e.state for e in cat.entries} == {EntryState.HIDDEN}


# --------------------------------------------------------------------------- activate_skill
def test_activate_skill_output_and_errors(tree: Tree) -> None:
    d = tree.wg / "res"
    write(d / "SKILL.md", "---\nname: Res\ndescription: d\n---\n\n  # Title\n\nStep one.\n\n")
    write(d / ".hidden", "")
    write(d / "references" / "a.md", "")
    write(d / "references" / "deep" / "b.md", "")
    write(d / "scripts" / "run.sh", "")
    write(d / "node_modules" / "x.js", "")
    os.symlink(d / "scripts" / "run.sh", d / "link.sh")
    skill(tree.wg, "off", "off", "d")
    write(tree.ws / ".gemini" / "settings.json", '{"skills": {"disabled": ["off"]}}')
    cat = tree.catalog()
    tool = GEMINI.skill_tool(cat)
    assert tool is not None
    out = tool.call({"name": "Res"}).output
    assert out == (
        '<activated_skill name="Res">\n  <instructions>\n    # Title\n\nStep one.\n  </instructions>\n\n'
        "  <available_resources>\n    Showing up to 200 items (files + folders). Folders or files indicated with ... "
        "contain more items not shown, were ignored, or the display limit (200 items) was reached.\n\n"
        f"{d}/\n├───.hidden\n├───SKILL.md\n├───node_modules/...\n├───references/\n│   ├───a.md\n│   └───deep/\n"
        "│       └───b.md\n└───scripts/\n    └───run.sh\n  </available_resources>\n</activated_skill>")
    for request, message in (({"name": "res"}, "params/name must be equal to one of the allowed values"),
                             ({"name": "off"}, "params/name must be equal to one of the allowed values"),
                             ({}, "params must have required property 'name'"),
                             ({"name": "Res", "x": 1}, "params must NOT have additional properties"),
                             ({"name": 5}, "params/name must be string")):
        with pytest.raises(ToolError) as err:
            tool.call(request)
        assert err.value.message == message
    decl = declaration([s.name for s in catalog_skills(cat.current.sources)])
    assert decl["parametersJsonSchema"]["properties"]["name"]["enum"] == ["skill-creator", "antigravity-support", "Res"]
    assert decl["description"].startswith(
        "Activates a specialized agent skill by name (Available: 'skill-creator', 'antigravity-support', 'Res'). ")


def test_activate_skill_without_skills_and_folder_cap(tmp_path: Path) -> None:
    empty = declaration([])
    assert empty["parametersJsonSchema"]["properties"]["name"] == {
        "type": "string", "description": "No skills are currently available."}
    assert "(Available:" not in empty["description"]
    for i in range(205):
        write(tmp_path / "many" / f"f{i:03}.txt", "")
    tree_text = folder_structure(str(tmp_path / "many"))
    lines = tree_text.splitlines()
    assert lines[0].endswith("the display limit (200 items) was reached.")
    assert lines[-1] == "└───..." and lines[-2] == "└───f199.txt"  # as getFolderStructure draws it


# --------------------------------------------------------------------------- watching
def test_watch_targets_include_settings_and_trust_files(tree: Tree) -> None:
    _gen, session = tree.open()
    targets = session.watch_targets()
    assert str(tree.home / ".gemini" / "settings.json") in targets.config_files
    assert str(tree.home / ".gemini" / "trustedFolders.json") in targets.config_files
    assert str(tree.wa) in targets.roots
    assert "settings.json" in targets.names


# --------------------------------------------------------------------------- the commands
@pytest.fixture
def cli_env(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Tree:
    for key in list(os.environ):
        if key.startswith(("GEMINI_", "SKILLSHELF_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    for key, value in tree.env().items():
        monkeypatch.setenv(key, value)
    return tree


def test_index_prints_the_section_and_notes(cli_env: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    from skillshelf.app.cli import main

    skill(cli_env.ug, "u", "u", "user skill")
    assert main(["index", "--host", "gemini", "--cwd", str(cli_env.ws)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(MODERN + "<available_skills>\n")
    assert f"    <location>{cli_env.ug / 'u' / 'SKILL.md'}</location>\n  </skill>\n</available_skills>\n" in out
    assert "skillshelf: gemini: model auto (the default, resolves to gemini-3-pro-preview)" in err
    assert main(["index", "--host", "gemini", "--cwd", str(cli_env.ws), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["client"], doc["budget"], doc["rendered"]) == ("Gemini CLI 0.61.0", None, 3)
    assert any("stand-ins" in n for n in doc["notes"])


def test_tool_command_answers_and_refuses(cli_env: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    from skillshelf.app.cli import main

    skill(cli_env.ug, "u", "u", "user skill", body="Do it.\n")
    assert main(["tool", "--host", "gemini", "--cwd", str(cli_env.ws), '{"name": "u"}']) == 0
    assert capsys.readouterr().out.startswith('<activated_skill name="u">\n  <instructions>\n    Do it.\n')
    assert main(["tool", "--host", "gemini", "--cwd", str(cli_env.ws), '{"name": "U"}']) == 1
    assert capsys.readouterr().out == "params/name must be equal to one of the allowed values"


def test_extra_paths_are_not_gemini_roots(tree: Tree) -> None:
    extra = tree.tmp / "extra"
    skill(extra, "x", "x", "d")
    ctx = HostContext(cwd=str(tree.ws), env=Environment.from_mapping(tree.env()), paths=(str(extra),))
    gen = Catalog.from_context(GEMINI, ctx).current
    assert [s.name for s in gen.sources if s.provenance is not Provenance.BUILTIN] == []
    assert [(w.kind, w.message) for w in gen.warnings if w.kind == "gemini-path-ignored"] == [
        ("gemini-path-ignored", f"{extra}: Gemini CLI has no extra skill folders (--path is ignored)")]
    untrusted = Catalog.from_context(GEMINI, tree.context(trusted=False))
    assert any("exit 55" in n for n in untrusted.model_catalog().notes)


def test_libyaml_fast_path_agrees_with_the_patched_loader() -> None:
    """The libyaml shortcut gives what the js-yaml-patched pure loader gives, or steps aside."""
    import random

    from skillshelf.core.hosts.gemini.jsyaml import JsValue, load_slow

    def norm(v: object) -> object:
        if isinstance(v, JsValue):
            return ("js", v.kind, v.text)
        if isinstance(v, dict):
            return tuple((norm(k), norm(x)) for k, x in v.items())
        if isinstance(v, list):
            return ("list", *[norm(x) for x in v])
        return v

    def outcome(fn: object, text: str) -> object:
        try:
            return norm(fn(text))  # type: ignore[operator]
        except Exception as exc:
            return ("error", type(exc).__name__ == "JsYamlError")

    bits = ["name: ", "description: ", "x: ", "- ", "  ", "\n", "\r\n", "'", '"', "#", ": ", "|", ">-", "[", "]",
            "{", "}", ",", "true", "1e3", "0x1F", "~", "2024-01-02", "yes", "a b", "é", "日本", "\\", "?", "---", "..."]
    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice(bits) for _ in range(rng.randint(1, 16)))
        assert outcome(js_load, text) == outcome(load_slow, text), repr(text)
