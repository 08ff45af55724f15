"""Host ``zhin``: plugin roots, Zhin's ``SKILL.md`` semantics, the generation and the catalog
section (SPEC Z1–Z3, Z5; zhin-scenarios H001–H008, H011, H025, H040).

Behaviour restated from Zhin (zhinjs/zhin ``packages/im/skill``), in skillshelf's terms:

- Z1 roots. Plugin roots are the working directory and each ``--path`` / ``skills.paths``
  entry. Under a plugin ``P``: ``P/skills/<skill>/SKILL.md`` (provenance ``zhin-plugin``,
  local name ``<skill>``) and ``P/agents/<agent>/skills/<skill>/SKILL.md`` (``zhin-agent``, local
  name ``agent/<agent>/<skill>``). Exactly one level: ``skills/x/y/SKILL.md`` is not a skill,
  and a folder without ``SKILL.md`` (``references/``) or a loose file (``helper.md``) is ordinary
  material (H001). Skill and agent folder names must match ``^[a-z0-9][a-z0-9-]*$``; Zhin skips
  other folders silently, skillshelf lists them as *rejected* with the reason (SPEC F6).
  Entries are visited in name order, plugin skills before agent-private skills (H003).
- Z1/Z2 parsing (:func:`parse_zhin_markdown`, first failure wins, Zhin's message texts):
  an all-blank file → ``Skill <source> must contain Markdown instructions``; frontmatter is
  recognised only as ``---`` + line break … line break + ``---`` + line break or end of file
  (no engine tag, no trailing blanks, no BOM skipping); it must be a YAML mapping (``Skill
  <source> frontmatter must be an object``); a declared ``name`` must be a non-empty string equal
  to the folder (``Skill <source> name <declared> must match directory <dir>``); the
  instructions (text after the frontmatter, trimmed) must not be empty; then ``tools``,
  ``description`` (non-empty string), ``platforms``, ``scopes`` (also only
  ``private|group|channel``), ``permissions``, ``keywords``, ``tags`` (lists of non-empty
  strings, kept trimmed) and ``always`` (boolean). The runtime name is always the folder name.
  The description defaults to the first Markdown heading line (``#``s and the following blanks
  removed), else the folder name.
- YAML: the 1.2 core schema (``yes`` is a string), a duplicate key is an error (as in Zhin's
  ``js-yaml``) and alias expansion is bounded like the zuno parser. **Divergence:** js-yaml also
  turns unquoted dates (``2024-01-01``) into Date objects, so Zhin rejects ``description:
  2024-01-01``; skillshelf keeps it as a string.
- Text is decoded as UTF-8 with U+FFFD for bad bytes (Node's reader does the same); such a file
  carries a ``not-utf8`` warning.
- Z3 catalog (:func:`render_zhin_catalog`): ``# Skills (catalog)``, one line ``- <name>: <desc>``
  (leading space) per skill in name order, a blank line, the instruction line. Descriptions are
  whitespace-collapsed and trimmed; longer than 96 → the first 95 + ``…`` (U+2026). **Divergence:**
  Zhin counts UTF-16 code units, skillshelf counts characters.
- Nested plugins (H002, H008) are modelled by :func:`qualified_skill_name` and
  :func:`resolve_nearest_owner`; the catalog itself treats every plugin root as a sibling.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from skillshelf.core.digest import compute_digest
from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.zhin.deps import check_deps, private_tool_names, qualified_tool_name, skill_agent
from skillshelf.core.hosts.zhin.markdown import JS_WHITESPACE, js_trim, load_zhin_yaml, split_zhin_markdown
from skillshelf.core.model import (
    CatalogWarning,
    Diagnostic,
    Exposure,
    Generation,
    Provenance,
    Rejected,
    Root,
    Severity,
    Source,
    Status,
)
from skillshelf.core.parsecache import NO_CACHE, ParseCache
from skillshelf.core.paths import canonical
from skillshelf.core.unseen import is_near_miss, near_miss_warning
from skillshelf.core.yamlload import YamlAliasLimit, YamlDuplicateKey, YamlError, YamlSyntaxError

__all__ = [
    "CATALOG_DESCRIPTION_MAX",
    "CATALOG_HEADING",
    "CATALOG_INSTRUCTION",
    "ZhinSkill",
    "ZhinSkillError",
    "build_zhin_generation",
    "catalog_description",
    "discover_zhin",
    "is_zhin_name",
    "load_zhin_yaml",
    "parse_zhin_markdown",
    "qualified_skill_name",
    "render_zhin_catalog",
    "resolve_nearest_owner",
    "split_zhin_markdown",
    "zhin_roots",
]

CATALOG_HEADING = "# Skills (catalog)"
CATALOG_INSTRUCTION = (
    "Use discover(kind) to find matching skills, load_skill for instructions, then load_tool or call "
    "unlocked tools. Delegate specialist work with spawn_task."
)
#: Catalog descriptions longer than this many characters are cut (Zhin: UTF-16 units).
CATALOG_DESCRIPTION_MAX = 96
ZHIN_SCOPES = ("private", "group", "channel")
_LIST_FIELDS = ("platforms", "scopes", "permissions", "keywords", "tags")
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_WS = "[" + re.escape(JS_WHITESPACE) + "]"
_NWS = "[^" + re.escape(JS_WHITESPACE) + "]"
_HEADING = re.compile(rf"#+{_WS}+{_NWS}")
_HEADING_PREFIX = re.compile(rf"\A#+{_WS}*")
_WS_RUN = re.compile(rf"{_WS}+")


def is_zhin_name(name: str) -> bool:
    """True when ``name`` matches ``^[a-z0-9][a-z0-9-]*$`` (skill, agent and skill-tool folders)."""
    return _NAME.fullmatch(name) is not None


# --------------------------------------------------------------------------------------------
# Parsing (Z1, Z2)
# --------------------------------------------------------------------------------------------


class ZhinSkillError(ValueError):
    """Zhin refuses a skill. ``str(exc)`` is Zhin's message; ``code`` a skillshelf diagnostic
    code; ``field`` the frontmatter key or ``None``; ``line`` the 1-based file line or ``None``."""

    def __init__(self, message: str, code: str, field: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.line = line

    def diagnostic(self, path: str | None = None) -> Diagnostic:
        """This refusal as an error :class:`Diagnostic`."""
        return Diagnostic(Severity.ERROR, self.code, str(self), field=self.field, line=self.line, path=path)


@dataclass(frozen=True)
class ZhinSkill:
    """A skill as Zhin holds it after parsing (``SkillDefinition``).

    ``name`` is the folder name; ``local_name`` ``<skill>`` or ``agent/<agent>/<skill>``;
    ``instructions`` the text after the frontmatter, trimmed (the whole file, verbatim, when there
    is no frontmatter, H001); ``tool_names`` the declared ``tools`` then private tools, without
    repeats (``()`` when none); list fields are ``None`` when absent; ``agent`` the owning agent
    of an agent-private skill.
    """

    name: str
    local_name: str
    description: str
    instructions: str
    metadata: Mapping[str, Any]
    tool_names: tuple[str, ...] = ()
    platforms: tuple[str, ...] | None = None
    scopes: tuple[str, ...] | None = None
    permissions: tuple[str, ...] | None = None
    keywords: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    always: bool | None = None
    agent: str | None = None


def _key_line(block: str, key: str) -> int | None:
    pat = re.compile(rf"^['\"]?{re.escape(key)}['\"]?[ \t]*:", re.MULTILINE)
    m = pat.search(block)
    return 2 + block.count("\n", 0, m.start()) if m else None


def _text(value: Any, fld: str, line: int | None) -> str:
    if not isinstance(value, str) or not js_trim(value):
        raise ZhinSkillError(f"Skill frontmatter {fld} must be a non-empty string", "zhin-field-type", fld, line)
    return js_trim(value)


def _string_list(value: Any, fld: str, line: int | None) -> tuple[str, ...]:
    if not isinstance(value, list) or any(not isinstance(v, str) or not js_trim(v) for v in value):
        raise ZhinSkillError(f"Skill frontmatter {fld} must contain non-empty strings", "list-field-type", fld, line)
    return tuple(js_trim(v) for v in value)


def markdown_summary(instructions: str, fallback: str) -> str:
    """Z2 default description: the first line that, trimmed, is a heading (``#``… blank, text),
    with the ``#``s and following blanks removed; else ``fallback``."""
    for raw in re.split(r"\r?\n", instructions):
        line = js_trim(raw)
        if _HEADING.match(line):
            return _HEADING_PREFIX.sub("", line, count=1)
    return fallback


def parse_zhin_markdown(markdown: str, *, local_name: str, source: str,
                        private_tool_names: Sequence[str] = ()) -> ZhinSkill:
    """Parse one ``SKILL.md`` text as Zhin does (SPEC Z1–Z2, H001, H004, H005).

    ``local_name`` is ``<skill>`` or ``agent/<agent>/<skill>``; ``source`` the path used in
    messages; ``private_tool_names`` qualified names appended to ``tool_names``. Raises
    :class:`ZhinSkillError` with Zhin's message for the first failing rule.
    """
    if not js_trim(markdown):
        raise ZhinSkillError(f"Skill {source} must contain Markdown instructions", "body-empty")
    block, instructions, _ = split_zhin_markdown(markdown)
    directory = local_name.split("/")[-1]
    meta: Mapping[str, Any] = {}
    if block is not None:
        try:
            loaded = load_zhin_yaml(block)
        except YamlError as exc:
            line = 1 + exc.line if isinstance(exc, (YamlSyntaxError, YamlDuplicateKey)) and exc.line is not None else None
            problem = exc.problem
            if isinstance(exc, YamlAliasLimit) and exc.reason == "too many nodes":
                problem = f"alias expansion exceeds {exc.limit} nodes"
            raise ZhinSkillError(f"Skill {source} frontmatter is not valid YAML: {problem}", "yaml-error",
                                 line=line) from None
        blank = all(not js_trim(x) or js_trim(x).startswith("#") for x in block.split("\n"))
        if (loaded is None and not blank) or (loaded is not None and not isinstance(loaded, dict)):
            raise ZhinSkillError(f"Skill {source} frontmatter must be an object", "yaml-not-mapping", line=2)
        meta = loaded or {}
        if "name" in meta:
            declared = _text(meta["name"], "name", _key_line(block, "name"))
            if declared != directory:
                raise ZhinSkillError(f"Skill {source} name {declared} must match directory {directory}",
                                     "name-mismatch", "name", _key_line(block, "name"))
        if not instructions:
            raise ZhinSkillError(f"Skill {source} must contain Markdown instructions", "body-empty")

    def line_of(key: str) -> int | None:
        return _key_line(block, key) if block is not None else None

    declared_tools = _string_list(meta["tools"], "tools", line_of("tools")) if "tools" in meta else ()
    tool_names = tuple(dict.fromkeys(list(declared_tools) + list(private_tool_names)))
    description = (_text(meta["description"], "description", line_of("description"))
                   if "description" in meta else markdown_summary(instructions, directory))
    lists: dict[str, tuple[str, ...] | None] = {}
    for fld in _LIST_FIELDS:
        values = lists[fld] = _string_list(meta[fld], fld, line_of(fld)) if fld in meta else None
        if fld == "scopes" and values is not None and any(s not in ZHIN_SCOPES for s in values):
            raise ZhinSkillError("Skill frontmatter scopes must be private, group, or channel", "scopes-invalid",
                                 "scopes", line_of("scopes"))
    always = None
    if "always" in meta:
        if not isinstance(meta["always"], bool):
            raise ZhinSkillError("Skill frontmatter always must be a boolean", "always-type", "always",
                                 line_of("always"))
        always = meta["always"]
    parts = local_name.split("/")
    agent = parts[1] if parts[0] == "agent" and len(parts) == 3 else None
    return ZhinSkill(
        name=directory, local_name=local_name, description=description, instructions=instructions,
        metadata=meta, tool_names=tool_names, platforms=lists["platforms"], scopes=lists["scopes"],
        permissions=lists["permissions"], keywords=lists["keywords"], tags=lists["tags"], always=always,
        agent=agent,
    )


# --------------------------------------------------------------------------------------------
# Discovery (Z1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ZhinCandidate:
    """One ``SKILL.md`` discovery reached: ``location`` (as reached), ``local_name``,
    ``provenance``, ``root`` (the :class:`Root` path) and ``plugin`` (the plugin root)."""

    location: str
    local_name: str
    provenance: Provenance
    root: str
    plugin: str


@dataclass(frozen=True)
class ZhinDiscovery:
    """Result of :func:`discover_zhin`: roots, candidates in Zhin's order, rejected folders
    (``(SKILL.md path, folder name, provenance, root, diagnostic)``), warnings and info
    diagnostics (legacy layouts)."""

    roots: tuple[Root, ...]
    candidates: tuple[ZhinCandidate, ...]
    bad_folders: tuple[tuple[str, str, Provenance, str, Diagnostic], ...]
    warnings: tuple[CatalogWarning, ...]
    diagnostics: tuple[Diagnostic, ...]


def _plugin_dirs(cwd: str, paths: Sequence[str], home: str | None) -> tuple[list[str], list[CatalogWarning]]:
    cwd = os.path.abspath(cwd)
    out: list[str] = [os.path.normpath(cwd)]
    warnings: list[CatalogWarning] = []
    for p in paths:
        if home is not None and p.startswith("~/"):
            p = os.path.join(home, p[2:])
        full = os.path.normpath(os.path.join(cwd, p))
        if not os.path.isdir(full):
            warnings.append(CatalogWarning("PathNotFound", full, f"skill path not found: {full}"))
            continue
        if full not in out:
            out.append(full)
    return out, warnings


def _list_dirs(path: str, warnings: list[CatalogWarning] | None = None) -> list[tuple[str, str]]:
    """``[(name, full path)]`` of sub-directories (symlinks followed), sorted by name.

    A missing ``path`` (or one that is not a directory) lists nothing, silently: the layout is
    optional. Any other failure to read ``path`` or an entry of it (permission denied, I/O
    error) is appended to ``warnings`` (when given) as ``unreadable`` — ``cannot read <path>:
    <reason>``, the text the Zuno walk uses — so a skill folder Zhin cannot see is never
    dropped silently (brief: bad input becomes a diagnostic)."""
    try:
        entries = list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if warnings is not None:
            warnings.append(_unreadable(path, exc))
        return []
    out = []
    for e in entries:
        try:
            if e.is_dir():
                out.append((e.name, e.path))
        except OSError as exc:
            if warnings is not None and not isinstance(exc, FileNotFoundError):
                warnings.append(_unreadable(e.path, exc))
            continue
    return sorted(out)


def _unreadable(path: str, exc: OSError) -> CatalogWarning:
    return CatalogWarning("unreadable", path, f"cannot read {path}: {exc.strerror or exc.__class__.__name__}")


def zhin_roots(cwd: str, paths: Sequence[str] = (), *, home: str | None = None) -> tuple[list[Root], list[CatalogWarning]]:
    """The Z1 roots: per plugin (``cwd`` first, then each path), ``P/skills`` (``zhin-plugin``)
    and ``P/agents/<agent>/skills`` for every agent folder with a valid name (``zhin-agent``,
    labelled ``agent:<agent>``).
    Relative paths are joined to ``cwd``; ``~/`` expands only when ``home`` is given. A path that
    is not a directory gives warning ``PathNotFound`` (``skill path not found: <path>``)."""
    plugins, warnings = _plugin_dirs(cwd, paths, home)
    roots: list[Root] = []
    for plugin in plugins:
        roots.append(Root(Provenance.ZHIN_PLUGIN, plugin, "skills", False, os.path.isdir(os.path.join(plugin, "skills")), depth=1))
        for agent, agent_dir in _list_dirs(os.path.join(plugin, "agents"), warnings):
            if is_zhin_name(agent):
                roots.append(Root(Provenance.ZHIN_AGENT, agent_dir, "skills", False,
                                  os.path.isdir(os.path.join(agent_dir, "skills")), depth=1, label=f"agent:{agent}"))
    return roots, warnings


def _has_skill_file(directory: str) -> bool:
    """A regular ``SKILL.md`` in ``directory``, by its listing (the same answer on a
    case-insensitive file system)."""
    return "SKILL.md" in _names(directory) and os.path.isfile(os.path.join(directory, "SKILL.md"))


def _names(directory: str) -> set[str]:
    try:
        return set(os.listdir(directory))
    except OSError:
        return set()


def discover_zhin(cwd: str, paths: Sequence[str] = (), *, home: str | None = None) -> ZhinDiscovery:
    """Walk the Z1 layout (see module docstring). Never raises."""
    roots, warnings = zhin_roots(cwd, paths, home=home)
    cands: list[ZhinCandidate] = []
    bad: list[tuple[str, str, Provenance, str, Diagnostic]] = []
    diags: list[Diagnostic] = []
    plugins = [r.path for r in roots if r.provenance is Provenance.ZHIN_PLUGIN]
    for plugin in plugins:
        agent_roots = [r for r in roots if r.provenance is Provenance.ZHIN_AGENT
                       and os.path.dirname(os.path.dirname(r.path)) == plugin]
        for root in [r for r in roots if r.path == plugin and r.provenance is Provenance.ZHIN_PLUGIN] + agent_roots:
            agent = os.path.basename(root.path) if root.provenance is Provenance.ZHIN_AGENT else None
            for name, d in _list_dirs(root.scan_dir, warnings):
                skill_md = os.path.join(d, "SKILL.md")
                if not is_zhin_name(name):
                    if _has_skill_file(d):
                        diag = Diagnostic(
                            Severity.ERROR, "dir-name-invalid",
                            f"folder name `{name}` must match ^[a-z0-9][a-z0-9-]*$; Zhin skips this skill",
                            path=skill_md, hint="rename the folder to lowercase letters, digits and -",
                        )
                        bad.append((skill_md, name, root.provenance, root.path, diag))
                    continue
                if not _has_skill_file(d):
                    if os.path.isdir(skill_md):
                        warnings.append(CatalogWarning("not-a-file", skill_md,
                                                       f"{skill_md} is not a regular file; Zhin ignores it"))
                    elif "SKILL.md" not in (listed := _names(d)):
                        warnings.extend(near_miss_warning(os.path.join(d, n), "Zhin") for n in sorted(listed)
                                        if is_near_miss(n))
                    continue
                local = f"agent/{agent}/{name}" if agent else name
                cands.append(ZhinCandidate(skill_md, local, root.provenance, root.path, plugin))
        # agent folders with an invalid name that hold skills
        for agent, agent_dir in _list_dirs(os.path.join(plugin, "agents")):
            if not is_zhin_name(agent):
                for name, d in _list_dirs(os.path.join(agent_dir, "skills")):
                    if _has_skill_file(d):
                        skill_md = os.path.join(d, "SKILL.md")
                        diag = Diagnostic(
                            Severity.ERROR, "dir-name-invalid",
                            f"agent folder name `{agent}` must match ^[a-z0-9][a-z0-9-]*$; Zhin skips its skills",
                            path=skill_md,
                        )
                        bad.append((skill_md, name, Provenance.ZHIN_AGENT, agent_dir, diag))
        legacy = os.path.join(plugin, "agent", "skills")
        try:
            loose = sorted(e.name for e in os.scandir(legacy) if e.name.endswith(".md") and e.is_file())
        except OSError:
            loose = []
        if loose:
            diags.append(Diagnostic(
                Severity.INFO, "zhin-legacy-layout",
                f"{legacy} holds {len(loose)} single-file skill(s) ({', '.join(loose[:5])}"
                f"{', …' if len(loose) > 5 else ''}) in the older agent/skills/<name>.md layout; "
                "current Zhin loads only skills/<name>/SKILL.md",
                path=legacy,
            ))
    return ZhinDiscovery(tuple(roots), tuple(cands), tuple(bad), tuple(warnings), tuple(diags))


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def _read(path: str) -> tuple[bytes | None, str | None]:
    try:
        return read_regular(path), None  # never blocks on a FIFO or device
    except OSError as exc:
        return None, exc.strerror or str(exc)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


#: What one candidate's parse gave: the skill (``None`` when refused), the refusal as
#: ``ZhinSkillError`` arguments, host diagnostics, frontmatter, SHA-256 and byte count.
_CandidateParse = tuple[
    ZhinSkill | None, tuple[str, str, str | None, int | None] | None, tuple[Diagnostic, ...],
    Mapping[str, Any], str, int,
]


def _parse_candidate(cand: ZhinCandidate, tools: Sequence[str]) -> _CandidateParse:
    """Read and parse one candidate ``SKILL.md`` with the folder's private ``tools``."""
    data, err = _read(cand.location)
    diags: list[Diagnostic] = []
    fm: Mapping[str, Any] = {}
    if data is None:
        return None, (f"failed to read skill {cand.location}: {err}", "unreadable", None, None), (), fm, "", 0
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        diags.append(Diagnostic(
            Severity.WARNING, "not-utf8",
            f"byte {exc.start} is not UTF-8; Zhin reads it as U+FFFD", line=None,
        ))
    try:
        skill = parse_zhin_markdown(text, local_name=cand.local_name, source=cand.location,
                                    private_tool_names=list(tools))
    except ZhinSkillError as exc:
        block = split_zhin_markdown(text)[0]
        if block is not None:
            try:
                loaded = load_zhin_yaml(block)
                fm = loaded if isinstance(loaded, dict) else {}
            except YamlError:  # already reported as the failure
                fm = {}
        return None, (str(exc), exc.code, exc.field, exc.line), tuple(diags), fm, sha, len(data)
    # kept in the parse cache: never a body (always-injected text is read from the file when shown)
    return replace(skill, instructions=""), None, tuple(diags), skill.metadata, sha, len(data)


def build_zhin_generation(
    cwd: str,
    *,
    paths: Sequence[str] = (),
    previous: Generation | None = None,
    version: str = "",
    home: str | None = None,
    search_path: str | None = None,
    extra_warnings: Sequence[CatalogWarning] = (),
    cache: ParseCache = NO_CACHE,
) -> Generation:
    """Build one :class:`Generation` for host ``zhin`` (SPEC Z1–Z2, Z5, H1, H3, F6).

    ``paths`` are extra plugin roots (``skills.paths`` + ``--path``); ``previous`` enables
    keep-last-valid (a file that breaks keeps its last valid source, status
    ``kept-last-valid``); ``version`` is recorded nowhere yet (built-ins are a zuno feature);
    ``home`` expands ``~/`` in paths; ``search_path`` is the PATH for the ``compatibility.deps``
    check (``None`` = the process PATH). Sources come in Zhin's order (per plugin: plugin skills
    then agent-private skills, each by name); the same file reached twice (symlinks, repeated
    roots) is one source with aliases. ``extra_warnings`` (a watcher's) are published last.
    Never raises for bad input.
    """
    cwd = os.path.abspath(cwd)
    disc = discover_zhin(cwd, paths, home=home)
    prev_by_loc: dict[str, Source] = {}
    if previous is not None:
        prev_by_loc = {s.location: s for s in previous.sources}

    sources: list[Source] = []
    rejected: list[Rejected] = []
    warnings: list[CatalogWarning] = list(disc.warnings)
    seen: dict[str, int] = {}  # canonical -> index in sources ("s", i) or rejected
    seen_kind: dict[str, str] = {}

    for skill_md, name, prov, root, diag in disc.bad_folders:
        data, _err = _read(skill_md)
        warnings.append(CatalogWarning("dir-name-invalid", skill_md, diag.message))
        rejected.append(Rejected(
            location=skill_md, provenance=prov, canonical=canonical(skill_md), name=name, root=root,
            warning=CatalogWarning("dir-name-invalid", skill_md, diag.message), diagnostics=(diag,),
            content_sha256=hashlib.sha256(data).hexdigest() if data is not None else "",
            size=len(data) if data is not None else 0, mtime=_mtime(skill_md),
        ))

    for cand in disc.candidates:
        canon = canonical(cand.location)
        if canon in seen:
            i = seen[canon]
            if seen_kind[canon] == "s":
                sources[i] = replace(sources[i], aliases=sources[i].aliases + (cand.location,))
            else:
                rejected[i] = replace(rejected[i], aliases=rejected[i].aliases + (cand.location,))
            continue
        name = cand.local_name.split("/")[-1]
        agent = cand.local_name.split("/")[1] if cand.local_name.startswith("agent/") else None
        tools = [qualified_tool_name(name, t, agent) for t in private_tool_names(os.path.dirname(cand.location))]
        # the parse depends on the file and on the folder's private tools: both are in the key
        (skill, refusal, found, fm, sha, size), st = cache.lookup(
            "verdict", canon, partial(_parse_candidate, cand, tools), label="\0".join([cand.location, *tools]))
        diags = list(found)
        failure = ZhinSkillError(*refusal) if refusal is not None else None
        data_len = size
        mtime = st.st_mtime if st is not None else 0.0
        if failure is not None:
            warning = CatalogWarning("zhin-rejected", cand.location, str(failure))
            prev = prev_by_loc.get(cand.location)
            if prev is not None and prev.status is not Status.DISABLED:
                kept = replace(prev, status=Status.KEPT_LAST_VALID, diagnostics=tuple(diags) + (
                    failure.diagnostic(cand.location),
                    Diagnostic(Severity.WARNING, "kept-last-valid",
                               f"the file is broken now ({failure}); the last valid version stays in the "
                               "catalog until it is fixed", path=cand.location),
                ))
                seen[canon], seen_kind[canon] = len(sources), "s"
                sources.append(kept)
                warnings.append(warning)
                warnings.append(CatalogWarning("kept-last-valid", cand.location,
                                               f"kept the last valid version of skill {cand.location}: {failure}"))
                continue
            warnings.append(warning)
            seen[canon], seen_kind[canon] = len(rejected), "r"
            rejected.append(Rejected(
                location=cand.location, provenance=cand.provenance, canonical=canon, name=name, root=cand.root,
                warning=warning, diagnostics=tuple(diags) + (failure.diagnostic(),), content_sha256=sha,
                size=data_len, mtime=mtime, frontmatter=dict(fm),
            ))
            continue
        assert skill is not None
        dep = check_deps(skill.metadata, path=search_path)
        if dep is not None:
            diags.append(dep)
        for t in tools:
            diags.append(Diagnostic(Severity.INFO, "private-tool-locked",
                                    f"private tool {t} stays locked until the skill is loaded", field=None))
        if skill.always is True:
            diags.append(Diagnostic(Severity.INFO, "always-injected",
                                    "always: true — Zhin injects this skill into every prompt; it counts "
                                    "against the selected-body budget", field="always"))
        reason = "default (Zhin lists every loaded skill)"
        if skill.agent:
            reason = f"agent-private: visible only when agent {skill.agent} is selected"
        seen[canon], seen_kind[canon] = len(sources), "s"
        sources.append(Source(
            name=name, location=cand.location, provenance=cand.provenance, canonical=canon, root=cand.root,
            description=skill.description, exposure=Exposure.INDEX, exposure_reason=reason,
            content_sha256=sha, size=data_len, mtime=mtime,
            frontmatter=dict(skill.metadata), diagnostics=tuple(diags),
        ))

    warnings.extend(extra_warnings)
    digest = compute_digest(sources, warnings)
    number = 1 if previous is None else previous.number + 1
    return Generation(
        number=number, digest=digest, host="zhin", cwd=cwd, roots=disc.roots, sources=tuple(sources),
        rejected=tuple(rejected), warnings=tuple(warnings), diagnostics=disc.diagnostics,
    )


# --------------------------------------------------------------------------------------------
# Catalog section (Z3)
# --------------------------------------------------------------------------------------------


def catalog_description(description: str | None) -> str:
    """Z3: whitespace runs → one space, trimmed; longer than 96 characters → first 95 + ``…``.

    Divergence: Zhin counts UTF-16 code units; skillshelf counts characters (Unicode scalar
    values), so a description with emoji may be cut later than Zhin cuts it.
    """
    one = js_trim(_WS_RUN.sub(" ", description or ""))
    if len(one) <= CATALOG_DESCRIPTION_MAX:
        return one
    return one[: CATALOG_DESCRIPTION_MAX - 1] + "…"


def render_zhin_catalog(sources: Iterable[Source], *, agent: str | None = None) -> str:
    """The ``# Skills (catalog)`` section Zhin puts in its system prompt (SPEC Z3, H025).

    Disabled ``sources`` are skipped, and agent-private skills appear only for the
    selected ``agent`` (H011). Lines ``" - <name>: <desc>"`` sorted by name (code points), joined
    with ``\\n``, then a blank line and :data:`CATALOG_INSTRUCTION`. No skills → ``""`` (Zhin
    omits the section). No trailing newline.
    """
    rows = []
    for s in sources:
        if not s.enabled:
            continue
        if s.provenance is Provenance.ZHIN_AGENT and skill_agent(s) != agent:
            continue
        rows.append((s.name, s.location, catalog_description(s.description)))
    if not rows:
        return ""
    rows.sort()
    lines = [CATALOG_HEADING] + [f" - {n}: {d}" for n, _, d in rows] + ["", CATALOG_INSTRUCTION]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Nested plugins (H002, H008)
# --------------------------------------------------------------------------------------------


def qualified_skill_name(owner_path: Sequence[str], local_name: str) -> str:
    """Owner path below the root plus ``local_name`` split on ``/``, joined with ``__``
    (zhin-scenarios §0.2): ``((), "research")`` → ``research``; ``(("child",), "research")`` →
    ``child__research``; ``((), "agent/reviewer/audit")`` → ``agent__reviewer__audit``."""
    return "__".join(list(owner_path) + local_name.split("/"))


def resolve_nearest_owner(name: str, requester: Sequence[str], owned: Mapping[tuple[str, ...], Mapping[str, Any]]) -> Any:
    """The value of ``name`` seen from plugin ``requester`` (owner path, root = ``()``): the
    requester's own entry, else its parent's, … up to the root (H002, H008). ``owned`` maps
    owner path → {local name: value}. Returns ``None`` when no ancestor owns ``name``."""
    path = tuple(requester)
    while True:
        got = owned.get(path, {})
        if name in got:
            return got[name]
        if not path:
            return None
        path = path[:-1]
