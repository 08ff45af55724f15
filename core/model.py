"""Frozen data types shared by every part of skillshelf (SPEC §0).

Everything here is immutable: a :class:`Generation` and the :class:`Source` records in it are
read by the TUI, the CLI and the skill tool without locks (SPEC H1). Only plain data lives here;
the rules that produce it live in one module per rule family (DESIGN "Layout").

Units: description lengths are counted in characters (Unicode scalar values); ``size`` fields
are bytes; token counts say so in their names.
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

_T = TypeVar("_T")


def fast_init(cls: type[_T]) -> type[_T]:
    """Give the frozen dataclass ``cls`` an ``__init__`` that stores each field in the instance's
    ``__dict__``: the same parameters, defaults and resulting object (same attributes in the same
    order) as the generated one, which calls ``object.__setattr__`` once per field — a third of
    the cost for the records made once per skill file. Raises ``TypeError`` for a class it cannot
    treat so (not a frozen dataclass, ``__slots__``, ``__post_init__``, an ``InitVar``, a field
    not in ``__init__`` or keyword-only, a field shadowed by a data descriptor)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"fast_init: {cls.__name__} is not a plain frozen dataclass")
    own = fields(cls)  # type: ignore[arg-type]
    if len(own) != len(cls.__dataclass_fields__):  # type: ignore[attr-defined]
        raise TypeError(f"fast_init: {cls.__name__} has an InitVar or a ClassVar field")
    ns: dict[str, Any] = {"__dataclass_MISSING__": MISSING}
    args: list[str] = []
    lines: list[str] = []
    for f in own:
        name = f.name
        if not f.init or f.kw_only or hasattr(cls.__dict__.get(name), "__set__"):
            raise TypeError(f"fast_init: field {cls.__name__}.{name} is not a plain __init__ parameter")
        if f.default is not MISSING:
            ns[f"__dataclass_dflt_{name}__"] = f.default
            args.append(f"{name}=__dataclass_dflt_{name}__")
        elif f.default_factory is not MISSING:
            ns[f"__dataclass_factory_{name}__"] = f.default_factory
            args.append(f"{name}=__dataclass_MISSING__")
            lines.append(f"    if {name} is __dataclass_MISSING__:\n        {name} = __dataclass_factory_{name}__()\n")
        else:
            args.append(name)
    lines.append("    __dataclass_dict__ = __dataclass_self__.__dict__\n")
    lines.extend(f"    __dataclass_dict__[{f.name!r}] = {f.name}\n" for f in own)
    exec(f"def __init__(__dataclass_self__, {', '.join(args)}):\n{''.join(lines)}", ns)  # (as dataclasses makes its own)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


class Severity(str, enum.Enum):
    """Diagnostic severity (SPEC F5)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Exposure(str, enum.Enum):
    """Where a source may appear (SPEC E1).

    ``INDEX``: prompt index, list/search, loadable. ``SEARCH``: list/search and loadable, not in
    the index. ``EXPLICIT``: loadable only by exact name or locator.
    """

    INDEX = "index"
    SEARCH = "search"
    EXPLICIT = "explicit"

    @property
    def digest_byte(self) -> int:
        """The byte Zuno hashes for this exposure (conformance §6: 0 index, 1 search, 2 explicit)."""
        return {"index": 0, "search": 1, "explicit": 2}[self.value]


class Provenance(str, enum.Enum):
    """The root kind a source was discovered under (SPEC D1 rows 0–6, Z1 for zhin)."""

    BUILTIN = "builtin"
    PROJECT_ZUNO = "project-zuno"
    PROJECT_AGENTS = "project-agents"
    GLOBAL_ZUNO = "global-zuno"
    GLOBAL_AGENTS = "global-agents"
    CONFIGURED_PATH = "configured-path"
    REMOTE = "remote"
    ZHIN_PLUGIN = "zhin-plugin"
    ZHIN_AGENT = "zhin-agent"
    #: the client hosts' tiers (SPEC N): a project folder, the user's home, a system or
    #: managed folder. ``Root.label`` names the exact folder kind (``.claude/skills``).
    PROJECT = "project"
    USER = "user"
    SYSTEM = "system"
    MANAGED = "managed"


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a file (SPEC F5, G1 ``Diagnostic``).

    ``line`` and ``column`` are 1-based and relative to the whole file (not the frontmatter
    block); ``None`` when the finding has no position. ``field`` names the frontmatter key
    (``"name"``, ``"description"`` …) or ``None``. ``hint`` is an optional fix suggestion
    (for example the corrected, quoted line). ``path`` is the file the finding is about, when
    it is not implied by the record holding the diagnostic.
    """

    severity: Severity
    code: str
    message: str
    field: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    path: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The G1 ``Diagnostic`` object (keys severity, code, message, field, line, column; plus
        ``hint`` and ``path`` when set)."""
        out: dict[str, Any] = {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "field": self.field,
            "line": self.line,
            "column": self.column,
        }
        if self.hint is not None:
            out["hint"] = self.hint
        if self.path is not None:
            out["path"] = self.path
        return out


@dataclass(frozen=True)
class CatalogWarning:
    """A catalog-level warning, as the host publishes it (conformance §0.3 "Warning display strings").

    ``kind`` is Zuno's variant name (``PathNotFound``, ``Unreadable``, ``Frontmatter``,
    ``MissingName``, ``InvalidDescription``, ``MetadataUnreadable``, ``MetadataMalformed``,
    ``ScanFailed``, ``IndexStatus`` …) or a skillshelf kind in kebab-case for things Zuno does not
    report (``symlink-loop``, ``broken-symlink``, ``kept-last-valid``, ``config-invalid``).
    ``source`` is the path or URL the warning is about; ``message`` is the exact display text.
    """

    kind: str
    source: str
    message: str

    def to_json(self) -> dict[str, str]:
        """``{"kind", "source", "message"}`` as in SPEC G1."""
        return {"kind": self.kind, "source": self.source, "message": self.message}


@fast_init
@dataclass(frozen=True)
class SkillEntry:
    """The model-facing view of one source (DESIGN "Stable Python surface").

    ``location`` is the locator (absolute path of ``SKILL.md`` as first discovered, or a
    ``builtin://`` URL). ``body`` is set only for embedded skills (built-ins, tests); file-backed
    entries read their body from ``location`` at load time (SPEC L6).
    """

    name: str
    location: str
    description: str | None = None
    exposure: Exposure = Exposure.INDEX
    display_name: str | None = None
    short_description: str | None = None
    body: str | None = None

    @property
    def catalog_description(self) -> str | None:
        """Sidecar short description when present, else the frontmatter description (SPEC E3)."""
        if self.short_description is not None:
            return self.short_description
        return self.description

    @property
    def described(self) -> bool:
        """True when a catalog description exists (SPEC E3). An empty string counts as present."""
        return self.catalog_description is not None

    @property
    def indexed(self) -> bool:
        """Exposure ``index`` and described (conformance §0.3 ``is_indexed``)."""
        return self.exposure is Exposure.INDEX and self.described

    @property
    def searchable(self) -> bool:
        """Exposure not ``explicit`` and described (conformance §0.3 ``is_searchable``)."""
        return self.exposure is not Exposure.EXPLICIT and self.described


@dataclass(frozen=True)
class Root:
    """A directory discovery scans (SPEC D1).

    ``path`` is the absolute, normalised directory as requested (not resolved); ``prefix`` is
    the sub-folder scanned under it (``"skill"``, ``"skills"`` or ``""``); ``dot`` says whether
    dot-directories below the prefix are scanned. ``exists`` is read once when the root list is
    built. ``depth``: the exact number of folder levels between the scan directory and a
    ``SKILL.md`` (Zhin: 1); else ``min_depth`` … ``max_depth`` (``None`` = any depth; 0 = the
    scan directory's own ``SKILL.md``). The client hosts (SPEC N) add: ``skip`` folder names
    never entered (``node_modules``; with ``skip_folded`` compared ignoring case, trailing dots
    and spaces, and invisible format characters, see :meth:`skips`), ``file_links`` whether a symlinked ``SKILL.md`` counts,
    ``resolve`` whether the host reports the symlink-resolved path, ``label`` the folder kind in
    the host's words (``project .claude/skills``), ``resolved`` the symlink-resolved scan
    directory when the host walks from there (Codex; ``""`` = not resolved or missing).
    """

    provenance: Provenance
    path: str
    prefix: str = ""
    dot: bool = False
    exists: bool = False
    depth: int | None = None
    min_depth: int = 0
    max_depth: int | None = None
    skip: tuple[str, ...] = ()
    skip_folded: bool = False
    file_links: bool = True
    resolve: bool = False
    label: str = ""
    resolved: str = ""
    unread: str = ""

    def depth_allowed(self, levels: int) -> bool:
        """Whether a ``SKILL.md`` ``levels`` folders below the scan directory is read."""
        if self.depth is not None:
            return levels == self.depth
        return levels >= self.min_depth and (self.max_depth is None or levels <= self.max_depth)

    def skips(self, name: str) -> bool:
        """Whether the walk never enters a folder called ``name`` (``skip``, ``skip_folded``)."""
        if not self.skip:
            return False
        if not self.skip_folded:
            return name in self.skip
        folded = _fold_name(name)
        return any(folded == _fold_name(s) for s in self.skip)

    @property
    def scan_dir(self) -> str:
        """The directory whose tree is walked: ``path/prefix`` (or ``path`` when no prefix)."""
        if not self.prefix:
            return self.path
        return self.path.rstrip("/") + "/" + self.prefix

    def to_json(self) -> dict[str, Any]:
        """``{"provenance", "path", "exists"}`` plus ``pattern`` (SPEC G1 ``roots``)."""
        if self.depth is not None:
            middle = "/".join(["*"] * self.depth)
        elif self.max_depth is None and self.min_depth == 0:
            middle = "**"
        elif self.max_depth is None:
            middle = "/".join(["*"] * self.min_depth) + "/**"
        elif self.max_depth == self.min_depth:
            middle = "/".join(["*"] * self.min_depth)
        else:
            middle = f"{{{self.min_depth}..{self.max_depth} levels}}"
        pattern = (self.prefix + "/" if self.prefix else "") + (middle + "/" if middle else "") + "SKILL.md"
        out: dict[str, Any] = {
            "provenance": self.provenance.value,
            "path": self.path,
            "pattern": pattern,
            "dot": self.dot,
            "exists": self.exists,
        }
        if self.label:
            out["label"] = self.label
        if self.resolved and self.resolved != self.scan_dir:
            out["resolved"] = self.resolved
        if self.unread:
            out["unread"] = self.unread
        return out


def _fold_name(name: str) -> str:
    """``name`` without trailing dots and spaces and bidi / zero-width marks, case-folded (NFD)."""
    name = re.sub(r"[. ]+$", "", name)
    name = re.sub(r"[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]", "", name)
    return unicodedata.normalize("NFD", name).upper().lower()


class Status(str, enum.Enum):
    """Catalog status of a listed source (SPEC G1 ``status``)."""

    OK = "ok"
    KEPT_LAST_VALID = "kept-last-valid"
    DISABLED = "disabled"
    #: another copy wins under the host's precedence (``Source.shadowed_by``), SPEC N3
    SHADOWED = "shadowed"
    #: listed, but never shown to the model (``Source.status_reason`` says why), SPEC N1
    HIDDEN = "hidden"
    #: one of several same-name copies of which the host keeps whichever it finishes last:
    #: either may win (opencode), SPEC N3
    RACE = "race"


@fast_init
@dataclass(frozen=True)
class Source:
    """One discovered, host-accepted ``SKILL.md`` with everything the browser shows (SPEC 0, G1).

    Identity is ``canonical`` (symlink-resolved path; SPEC D5); ``location`` is the locator (first
    spelling). ``aliases`` are later spellings of the same file. ``exposure_reason`` and
    ``disabled_reason`` say *why* in words (``skills.config entry 3 in /p/.zuno/zuno.json``,
    ``sidecar agents/zuno.yaml``, ``default``). ``content_sha256`` is the hex SHA-256 of the whole
    file's bytes; ``size`` is its size in bytes; ``mtime`` seconds since the epoch.
    ``frontmatter`` is the parsed mapping (for display only). ``diagnostics`` holds host and lint
    findings together (lint never changes what the host does). ``shadowed_by``: the locators
    of the copies that win over this one (status ``shadowed``) or compete with it (``race``);
    ``status_reason`` says why in the host's terms. ``catalog_location``: the spelling the
    host's model catalog shows when it differs from ``location`` (Codex lists the resolved path
    but its catalog shows the path as walked, through folder symlinks). ``stand_ins``: which of
    ``description`` / ``body`` are stand-ins of the same size for a host's own prose that
    skillshelf does not have (a host's built-ins when the host is not installed);
    ``stand_in_tokens``: for those whose real ``cl100k_base`` count is known, (field, tokens) —
    a description's as the index renders it (see :mod:`skillshelf.core.hosts.zuno.pack`).
    """

    name: str
    location: str
    provenance: Provenance
    canonical: str
    root: str = ""
    aliases: tuple[str, ...] = ()
    description: str | None = None
    display_name: str | None = None
    short_description: str | None = None
    exposure: Exposure = Exposure.INDEX
    exposure_reason: str = "default"
    enabled: bool = True
    disabled_reason: str | None = None
    status: Status = Status.OK
    metadata_sources: tuple[str, ...] = ()
    content_sha256: str = ""
    size: int = 0
    mtime: float = 0.0
    frontmatter: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    diagnostics: tuple[Diagnostic, ...] = ()
    body: str | None = field(default=None, compare=False, hash=False, repr=False)
    builtin_profiles: tuple[str, ...] | None = None
    builtin_tools: tuple[str, ...] = ()
    shadowed_by: tuple[str, ...] = ()
    status_reason: str | None = None
    catalog_location: str | None = None
    stand_ins: tuple[str, ...] = ()
    stand_in_tokens: tuple[tuple[str, int], ...] = ()

    def real_tokens(self, field_name: str) -> int | None:
        """The real text's ``cl100k_base`` count for stand-in ``field_name`` (``None``: not known
        or not a stand-in)."""
        return next((n for f, n in self.stand_in_tokens if f == field_name), None)

    @functools.cached_property
    def entry(self) -> SkillEntry:
        """The model-facing :class:`SkillEntry` for render / tool (body only for embedded skills);
        made once per source (a 10,000-skill catalog renders it several times)."""
        return SkillEntry(
            name=self.name,
            location=self.location,
            description=self.description,
            exposure=self.exposure,
            display_name=self.display_name,
            short_description=self.short_description,
            body=self.body,
        )

    @property
    def catalog_description(self) -> str | None:
        """See :attr:`SkillEntry.catalog_description`."""
        return self.short_description if self.short_description is not None else self.description

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps: the fields whose values are not their defaults — an unpickled
        source finds the others on its class, where dataclass defaults live (a 10,000-skill
        kept build loads its sources in ~40 % less time) — never the :attr:`entry` made from
        them."""
        defaults = _SOURCE_DEFAULTS
        return {k: v for k, v in self.__dict__.items()
                if k in _SOURCE_FIELDS and not (k in defaults and type(d := defaults[k]) is type(v) and d == v)}

    @property
    def described(self) -> bool:
        """See :attr:`SkillEntry.described`."""
        return self.catalog_description is not None

    @property
    def directory(self) -> str:
        """The skill directory (parent of ``SKILL.md``) as spelled in ``location``; empty for built-ins."""
        if self.location.startswith("builtin://"):
            return ""
        return self.location.rsplit("/", 1)[0]

    @property
    def lint_errors(self) -> int:
        """Number of error-severity diagnostics (host or lint)."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)


_SOURCE_FIELDS = frozenset(f.name for f in fields(Source))
#: Each :class:`Source` field with a plain default (its class attribute) → that default.
_SOURCE_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Source) if f.default is not MISSING}


@dataclass(frozen=True)
class Rejected:
    """A ``SKILL.md`` discovery reached that the host refused (SPEC F6): still listed, with reasons.

    ``name`` is the folder name (the file has no usable name); ``warning`` is the host's own
    catalog warning for it (``MissingName``, ``Frontmatter`` …).
    """

    location: str
    provenance: Provenance
    canonical: str
    name: str
    root: str = ""
    aliases: tuple[str, ...] = ()
    warning: CatalogWarning | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    content_sha256: str = ""
    size: int = 0
    mtime: float = 0.0
    frontmatter: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def reason(self) -> str:
        """Why the host refused the file, in its own terms: its warning, else its first error."""
        if self.warning is not None:
            return self.warning.message
        errors = [d for d in self.diagnostics if d.severity is Severity.ERROR] or list(self.diagnostics)
        return errors[0].message if errors else "rejected"


@dataclass(frozen=True)
class Generation:
    """One immutable, atomically published catalog snapshot (SPEC H1).

    ``sources`` are in catalog order (built-ins first, then discovery order) and include disabled
    ones (``enabled`` False, status ``disabled``); ``rejected`` are host-refused files;
    ``warnings`` in Zuno's order (discovery, remote, per-file). ``digest`` is hex SHA-256 per H1.
    """

    number: int
    digest: str
    host: str
    cwd: str
    roots: tuple[Root, ...]
    sources: tuple[Source, ...]
    rejected: tuple[Rejected, ...]
    warnings: tuple[CatalogWarning, ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def enabled_sources(self) -> tuple[Source, ...]:
        """Sources that are not disabled by ``skills.config`` (SPEC K4)."""
        return tuple(s for s in self.sources if s.enabled)

    def entries(self) -> tuple[SkillEntry, ...]:
        """Model-facing entries of the enabled sources, in catalog order (input to render / tool)."""
        return tuple(s.entry for s in self.sources if s.enabled)

    def named(self, name: str) -> tuple[Source, ...]:
        """Every enabled source declaring ``name``, in catalog order."""
        return tuple(s for s in self.sources if s.enabled and s.name == name)

    def get(self, name: str) -> Source | None:
        """The enabled source with ``name`` when exactly one declares it, else ``None``."""
        found = self.named(name)
        return found[0] if len(found) == 1 else None

    def by_location(self, location: str) -> Source | None:
        """The source whose locator is exactly ``location`` (enabled or not), else ``None``."""
        for s in self.sources:
            if s.location == location:
                return s
        return None

    def ambiguous_names(self) -> tuple[str, ...]:
        """Names declared by two or more enabled sources, in first-appearance order (SPEC D6).
        A copy another one shadows (status ``shadowed``) does not count: the host settled it."""
        counts: dict[str, int] = {}
        for s in self.sources:
            if s.enabled and s.status is not Status.SHADOWED:
                counts[s.name] = counts.get(s.name, 0) + 1
        return tuple(n for n, c in counts.items() if c > 1)

    def same_content(self, other: Generation) -> bool:
        """Whether ``other`` shows exactly what this generation shows: everything but the
        ``number`` is equal (digest, host, roots, sources, rejected files, warnings, diagnostics).
        A watcher publishes a rebuild only when this is False."""
        return (self.digest == other.digest and self.host == other.host and self.cwd == other.cwd
                and self.roots == other.roots and self.sources == other.sources
                and self.rejected == other.rejected and self.warnings == other.warnings
                and self.diagnostics == other.diagnostics)
