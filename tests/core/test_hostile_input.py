"""Hostile input never takes a catalog down (SPEC F1–F3, D4, R3, H2; DESIGN "bad input"):

- an explicitly tagged YAML value its type cannot hold (``!!bool z``, ``!!int ""``) is the
  document's error, positioned, in frontmatter of every host, sidecars, remote files and while
  watching; every other skill still loads;
- a duplicate key gets one verdict whichever parse path runs (Zuno: rejected);
- a file over the read limit is refused by its size, never read whole (a sparse 10 GB file).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hostile import BAD_TAGS, HOSTILE_FILES, PROJECT_ROOTS, write_hostile_workspace
from test_catalog import Tree, skill, user, write
from test_remote import Server, index
from test_remote_catalog import open_catalog as open_remote_catalog
from test_watch import wait_for, watcher

from skillshelf.core import yamlload
from skillshelf.core.catalog import Catalog
from skillshelf.core.fileread import MAX_READ_BYTES, FileTooLargeError, read_regular
from skillshelf.core.frontmatter import parse_skill_bytes
from skillshelf.core.hosts import HOSTS
from skillshelf.core.model import Status
from skillshelf.core.paths import Environment
from skillshelf.core.sidecar import parse_sidecar, read_sidecars
from skillshelf.core.yamlload import Duplicates, YamlDuplicateKey, YamlSyntaxError

# ---------------------------------------------------------------- the YAML loader


@pytest.mark.parametrize(("tagged", "problem"), [
    ("!!bool z", "'z' is not a valid !!bool value"),
    ("!!null z", "'z' is not a valid !!null value"),
    ('!!int ""', "'' is not a valid !!int value"),
    ('!!float ""', "'' is not a valid !!float value"),
    ('!!bool ""', "'' is not a valid !!bool value"),
    ("!!int 1_0", "'1_0' is not a valid !!int value"),
    ("!!float .", "'.' is not a valid !!float value"),
])
def test_a_tagged_value_its_type_cannot_hold_is_a_positioned_syntax_error(tagged, problem):
    with pytest.raises(YamlSyntaxError) as err:
        yamlload.load(f"name: a\nmetadata:\n  x: {tagged}\n")
    assert (err.value.problem, err.value.line, err.value.column) == (problem, 3, 6)


def test_tagged_values_of_their_type_still_construct():
    assert yamlload.load("a: !!int 0x1F\nb: !!bool TRUE\nc: !!null ~\nd: !!float -.inf\ne: !!str 12\nf: !!null") == {
        "a": 31, "b": True, "c": None, "d": float("-inf"), "e": "12", "f": None}


def test_characters_libyaml_refuses_are_positioned_errors():
    with pytest.raises(YamlSyntaxError) as err:
        yamlload.load("a: b\nc: é\u009b\n")
    assert (err.value.problem, err.value.line, err.value.column) == (
        "unacceptable character #x009b: control characters are not allowed", 2, 5)
    with pytest.raises(YamlSyntaxError) as err:
        yamlload.compose("a: b\nc: \ud800\n")
    assert (err.value.problem, err.value.line, err.value.column) == ("lone surrogate #xd800 is not a character", 2, 4)


def test_duplicate_keys_get_one_verdict_whatever_else_the_document_holds():
    for text in ("a: 1\na: 2\n", "a: 1\na: 2\nb: [x, {y: z}]\n"):
        with pytest.raises(YamlDuplicateKey) as err:
            yamlload.load(text)
        assert (err.value.key, err.value.line, err.value.column) == ("a", 2, 1)
        assert yamlload.load(text, duplicates=Duplicates.LAST_WINS)["a"] == 2


# ---------------------------------------------------------------- Zuno's frontmatter


def test_zuno_rejects_a_tagged_metadata_value_with_its_position():
    p = parse_skill_bytes(HOSTILE_FILES["tag0"], "/s/tag0/SKILL.md")
    assert p.warning.kind == "Frontmatter"
    assert p.warning.message == ("failed to load skill /s/tag0/SKILL.md: invalid YAML frontmatter: "
                                 "'z' is not a valid !!bool value at line 5 column 6")
    assert [(d.code, d.line, d.column) for d in p.diagnostics] == [("yaml-error", 5, 6)]


@pytest.mark.parametrize("folder", ["dupfast", "dupslow"])
def test_zuno_rejects_a_duplicate_key_on_the_fast_path_and_the_full_loader_alike(folder):
    p = parse_skill_bytes(HOSTILE_FILES[folder], f"/s/{folder}/SKILL.md")
    key, line = ("name", 3) if folder == "dupfast" else ("description", 4)
    assert p.name is None and p.warning.kind == "Frontmatter"
    assert [(d.code, d.field, d.line, d.column) for d in p.diagnostics] == [("duplicate-key", key, line, 1)]
    # Z-F: yaml-rust2's own words (the key is named by the diagnostic's field)
    assert p.warning.message.endswith(f"invalid YAML frontmatter: duplicated key in mapping at line {line} column 1")


# ---------------------------------------------------------------- every host, every file


def _env(tmp: Path) -> Environment:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return Environment.from_mapping({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                                     "XDG_CACHE_HOME": str(home / ".cache"), "GEMINI_CLI_TRUST_WORKSPACE": "true",
                                     "PATH": os.environ.get("PATH", "")})


def _reached(gen) -> dict[str, object]:
    """locator → the source or the rejection for every file of the generation."""
    out: dict[str, object] = {s.location: s for s in gen.sources}
    out.update({r.location: r for r in gen.rejected})
    return out


@pytest.mark.parametrize("host", list(HOSTS))
def test_every_hostile_file_is_a_source_or_a_rejection_with_a_diagnostic(tmp_path, host):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    write_hostile_workspace(str(proj))
    gen = Catalog.open(str(proj), env=_env(tmp_path), host=host, pull_remote=False).current
    reached = _reached(gen)
    for r in gen.rejected:
        assert r.diagnostics, r.location
    roots = [str(proj / rel) for rel in PROJECT_ROOTS]
    read = [loc for loc in reached if any(loc.startswith(root + "/") for root in roots)]
    assert read, "the host reads at least one of the project roots"
    # the good skill of every root the host reads still loads
    for root in {next(r for r in roots if loc.startswith(r + "/")) for loc in read}:
        ok = reached.get(f"{root}/ok/SKILL.md")
        assert ok is not None and getattr(ok, "name", None) == "ok", (host, root)


@pytest.mark.parametrize("host", ["zuno", "zhin", "opencode"])
def test_hosts_whose_parser_refuses_bad_tags_reject_each_tagged_file(tmp_path, host):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    write_hostile_workspace(str(proj))
    gen = Catalog.open(str(proj), env=_env(tmp_path), host=host, pull_remote=False).current
    root = str(proj / ("skills" if host == "zhin" else ".agents/skills"))
    rejected = {r.location for r in gen.rejected}
    for i in range(len(BAD_TAGS)):
        assert f"{root}/tag{i}/SKILL.md" in rejected, (host, i)


def test_a_tagged_sidecar_is_malformed_metadata_and_the_skill_still_loads(tmp_path):
    d = tmp_path / "s"
    (d / "agents").mkdir(parents=True)
    (d / "agents" / "zuno.yaml").write_text("policy:\n  allow_implicit_invocation: !!int ''\n", encoding="utf-8")
    side = read_sidecars(str(d))
    path = str(d / "agents" / "zuno.yaml")
    assert [w.to_json() for w in side.warnings] == [{
        "kind": "MetadataMalformed", "source": path,
        "message": f"failed to load skill metadata {path}: '' is not a valid !!int value at line 2 column 30"}]
    with pytest.raises(ValueError):
        parse_sidecar("interface:\n  display_name: !!bool z\n", native=False)
    tree = Tree(tmp_path / "t")
    loc = write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    write(f"{os.path.dirname(loc)}/agents/openai.yaml", "interface:\n  display_name: !!bool z\n")
    gen = tree.open().current
    assert [s.name for s in user(gen)] == ["spreadsheet"]
    assert [w.kind for w in gen.warnings] == ["MetadataMalformed"]


def test_a_pulled_file_with_a_bad_tag_is_rejected_and_the_rest_loads(tmp_path):
    routes = {
        "/index.json": index({"name": "tagged", "files": ["SKILL.md"]}, {"name": "fine", "files": ["SKILL.md"]}),
        "/tagged/SKILL.md": b"---\nname: tagged\ndescription: d\nmetadata:\n  x: !!bool z\n---\nB\n",
        "/fine/SKILL.md": b"---\nname: fine\ndescription: d\n---\nB\n",
        # a lone surrogate in a name makes serde_json refuse this whole index, as in Zuno
        "/odd/index.json": b'{"skills": [{"name": "s\\ud800", "files": ["SKILL.md"]}]}',
    }
    with Server(routes) as srv:
        cat = open_remote_catalog(tmp_path, [srv.url, f"{srv.url}/odd"])
    gen = cat.current
    cache = tmp_path / "home/.cache/zuno/skills"
    assert {"survivor", "fine"} <= {s.name for s in gen.sources}
    tagged = next(r for r in gen.rejected if r.location == str(cache / "tagged/SKILL.md"))
    assert [(d.code, d.line, d.column) for d in tagged.diagnostics] == [("yaml-error", 5, 6)]
    odd = f"{srv.url}/odd/index.json"
    assert [w.message for w in gen.warnings if w.kind == "IndexMalformed"] == [
        f"failed to decode index {odd}: unexpected end of hex escape at line 1 column 30"
    ]
    json.dumps([w.to_json() for w in gen.warnings])  # the report stays JSON
    assert sorted(os.listdir(cache)) == ["fine", "tagged"]


def test_a_file_that_turns_bad_while_watched_is_published_as_kept_last_valid(tmp_path):
    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    with watcher(cat):
        write(loc, "---\nname: spreadsheet\ndescription: d\nmetadata:\n  x: !!bool z\n---\n")
        write(f"{tree.agents}/later/SKILL.md", skill("later"))
        gen = wait_for(cat, lambda g: any(w.kind == "kept-last-valid" for w in g.warnings)
                       and "later" in {s.name for s in g.sources})
        sheet = gen.by_location(loc)
        assert sheet.status is Status.KEPT_LAST_VALID and sheet.description == "Edit sheets"
        kept = next(w for w in gen.warnings if w.kind == "kept-last-valid")
        assert "'z' is not a valid !!bool value at line 5 column 6" in kept.message


# ---------------------------------------------------------------- reads are size-capped


def _sparse(path: Path, size: int, head: bytes = b"---\nname: huge\ndescription: d\n---\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)
    return path


def test_a_file_over_the_limit_is_refused_by_its_size_without_reading(tmp_path):
    big = _sparse(tmp_path / "big", 10 * 1024 ** 3)
    with pytest.raises(FileTooLargeError) as err:
        read_regular(str(big))
    assert (err.value.size, err.value.limit, err.value.errno) == (10 * 1024 ** 3, MAX_READ_BYTES, None)
    assert str(err.value) == "file is 10,737,418,240 bytes, above skillshelf's safety limit of 16,777,216 bytes"
    assert read_regular(str(big), max_bytes=4) == b"---\nn"  # a prefix: never more than asked
    with pytest.raises(FileTooLargeError):
        read_regular(str(tmp_path / "big"), limit=10)
    small = _sparse(tmp_path / "small", 10)
    assert len(read_regular(str(small), limit=10)) == 10


@pytest.mark.parametrize("host", list(HOSTS))
def test_every_host_refuses_a_huge_sparse_skill_file_and_still_loads_the_rest(tmp_path, host):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for rel in PROJECT_ROOTS:
        _sparse(proj / rel / "huge" / "SKILL.md", 10 * 1024 ** 3)
        write(str(proj / rel / "ok" / "SKILL.md"), HOSTILE_FILES["ok"].decode())
    gen = Catalog.open(str(proj), env=_env(tmp_path), host=host, pull_remote=False).current
    reached = _reached(gen)
    huge = [r for loc, r in reached.items() if loc.endswith("/huge/SKILL.md")]
    assert huge, host
    for r in huge:
        assert r in gen.rejected, (host, r)
        text = " ".join(d.message for d in r.diagnostics)
        # skillshelf's limit (16 MiB, 4 MiB for the clients it reads whole) or the host's own
        # (Claude Code: "skipping SKILL.md: 10737418240 bytes exceeds 1000000 byte limit")
        assert "10,737,418,240 bytes" in text or "10737418240 bytes" in text, (host, text)
    assert any(getattr(s, "name", None) == "ok" for s in gen.sources), host


def test_a_huge_sidecar_is_unreadable_metadata_giving_its_size(tmp_path):
    d = tmp_path / "s"
    _sparse(d / "agents" / "openai.yaml", 10 * 1024 ** 3, b"interface: {}\n")
    side = read_sidecars(str(d))
    path = str(d / "agents" / "openai.yaml")
    assert [w.to_json() for w in side.warnings] == [{
        "kind": "MetadataUnreadable", "source": path,
        "message": f"failed to read skill metadata {path}: file is 10,737,418,240 bytes, "
                   "above skillshelf's safety limit of 16,777,216 bytes"}]


# ---------------------------------------------------------------- nesting deeper than a reader follows

_DEEP = 3_000  # far past Python's recursion limit; a few kilobytes, under every size limit


def _deep_workspace(tmp: Path) -> Path:
    """Every project root holds a good skill and two SKILL.md files nested 3,000 deep (YAML and
    ``---json``); every client's settings file and Zuno's config are nested as deep."""
    proj = tmp / "proj"
    (proj / ".git").mkdir(parents=True)
    deep = "[" * _DEEP + "]" * _DEEP
    for rel in PROJECT_ROOTS:
        root = proj / rel
        write(root / "ok" / "SKILL.md", "---\nname: ok\ndescription: fine\n---\nBody.\n")
        write(root / "deepy" / "SKILL.md", f"---\nname: deepy\ndescription: d\nmetadata: {deep}\n---\nBody.\n")
        write(root / "deepj" / "SKILL.md",
              f'---json\n{{"name": "deepj", "description": "d", "metadata": {deep}}}\n---\nBody.\n')
    home = tmp / "home"
    settings = '{"skills": ' + deep + "}"
    for rel in (".claude/settings.json", ".gemini/settings.json", ".config/opencode/opencode.json",
                ".config/zuno/zuno.json"):
        write(home / rel, settings)
    write(home / ".codex" / "config.toml", f"a = {deep}\n")
    return proj


@pytest.mark.parametrize("host", list(HOSTS))
def test_nesting_deeper_than_a_reader_follows_is_a_diagnostic_never_a_crash(tmp_path, host):
    """Deep skill files: rejected with a diagnostic (or read, as the client would), the good
    skills still load. Deep settings too: no crash (a client that stops on a broken settings
    file lists nothing, and says why — the next test)."""
    proj = _deep_workspace(tmp_path)
    for rel in (".claude/settings.json", ".gemini/settings.json", ".config/opencode/opencode.json",
                ".config/zuno/zuno.json", ".codex/config.toml"):
        os.rename(tmp_path / "home" / rel, tmp_path / f"{rel.replace('/', '_')}.deep")
    gen = Catalog.open(str(proj), env=_env(tmp_path), host=host, pull_remote=False).current
    reached = _reached(gen)
    oks = [loc for loc in reached if loc.endswith("/ok/SKILL.md")]
    assert oks and all(getattr(reached[loc], "name", None) == "ok" for loc in oks)
    for r in gen.rejected:
        assert r.diagnostics, r.location
    for rel in (".claude/settings.json", ".gemini/settings.json", ".config/opencode/opencode.json",
                ".config/zuno/zuno.json", ".codex/config.toml"):
        os.rename(tmp_path / f"{rel.replace('/', '_')}.deep", tmp_path / "home" / rel)
    Catalog.open(str(proj), env=_env(tmp_path), host=host, pull_remote=False)  # no RecursionError


def test_deep_settings_and_frontmatter_say_whose_limit_it_is(tmp_path):
    proj = _deep_workspace(tmp_path)
    home = tmp_path / "home"
    claude = Catalog.open(str(proj), env=_env(tmp_path), host="claude", pull_remote=False).current
    assert [w.message for w in claude.warnings if w.kind == "claude-settings"] == [
        f"{home}/.claude/settings.json is nested deeper than skillshelf's JSON reader follows (skillshelf's "
        "limit); none of its settings are used"]
    opencode = Catalog.open(str(proj), env=_env(tmp_path), host="opencode", pull_remote=False).current
    assert [w.message for w in opencode.warnings if w.kind == "opencode-refuses-start"] == [
        f"opencode would refuse to start (exit 1): Config file at {home}/.config/opencode/opencode.json is nested "
        "more than 128 levels at line 1, column 139: deeper than skillshelf reads (skillshelf's limit; opencode "
        "itself may read it)"]
    codex = Catalog.open(str(proj), env=_env(tmp_path), host="codex", pull_remote=False).current
    assert [w.message for w in codex.warnings if w.kind == "codex-config-error"] == [
        f"failed to reload config: {home}/.codex/config.toml: nested deeper than skillshelf's TOML reader follows "
        "(skillshelf's limit)"]
    gemini = Catalog.open(str(proj), env=_env(tmp_path), host="gemini", pull_remote=False).current
    assert [w.message for w in gemini.warnings if w.kind == "gemini-config-error"] == [
        f"Error in {home}/.gemini/settings.json: nested deeper than skillshelf's JSON reader follows "
        "(skillshelf's limit)\nPlease fix the configuration file(s) and try again."]
    (home / ".config/opencode/opencode.json").unlink()
    opencode = Catalog.open(str(proj), env=_env(tmp_path), host="opencode", pull_remote=False).current
    deepj = next(r for r in opencode.rejected if r.location == str(proj / ".opencode/skill/deepj/SKILL.md"))
    assert "nested deeper than skillshelf's JSON reader follows (skillshelf's limit: opencode itself would " \
           "parse it)" in deepj.warning.message
    zuno = Catalog.open(str(proj), env=_env(tmp_path), host="zuno", pull_remote=False)
    assert zuno.config.refusal is not None
    assert zuno.config.refusal.message == (f"Zuno would refuse to start: {home}/.config/zuno/zuno.json:1:139: "
                                           "recursion limit exceeded")
