"""Skill sidecar metadata: ``agents/openai.yaml`` and ``agents/zuno.yaml`` (SPEC E2–E3).

A skill directory may carry two optional YAML files beside its ``SKILL.md``:

- ``<skill dir>/agents/openai.yaml`` — the *shared* file (read first);
- ``<skill dir>/agents/zuno.yaml`` — the *native* file, overlaid field by field on the shared one.

Only four fields are read (conformance §0.3 "Sidecars", Zuno ``metadata.rs``); every other key is
ignored so one sidecar can serve several hosts:

=================================== ======== =====================================================
field                               files    type
=================================== ======== =====================================================
``interface.display_name``          both     non-empty string (trimmed)
``interface.short_description``     both     non-empty string (trimmed); replaces the frontmatter
                                             description in the index (SPEC E3)
``policy.allow_implicit_invocation`` both    YAML 1.2 boolean (``no``/``yes``/``off`` are strings
                                             and therefore an error, Z068/Z074)
``policy.exposure``                 native   ``index`` | ``search`` | ``explicit`` (Z075); ignored
                                             in the shared file (Z072)
=================================== ======== =====================================================

Resolved exposure = native ``policy.exposure``, else ``explicit`` when
``allow_implicit_invocation`` is ``false``, else ``index`` (SPEC E2; a ``skills.config`` rule,
handled by :mod:`skillshelf.core.config`, beats all of these).

Failure handling mirrors Zuno exactly, because it decides what the agent sees:

- a missing sidecar is silent;
- a blank or comment-only file is read and contributes nothing (it is still listed in
  ``metadata_sources``, as Zuno records every file it read successfully);
- any other read error → warning ``MetadataUnreadable``:
  ``failed to read skill metadata {path}: {reason}`` (``reason`` is Rust's ``io::ErrorKind``
  wording, e.g. ``permission denied``, ``is a directory``, ``invalid data`` for non-UTF-8);
- a file that does not parse or breaks a rule above → warning ``MetadataMalformed``:
  ``failed to load skill metadata {path}: {detail}``; that file contributes **no** field at all,
  but the skill still loads (Z068). Only the first problem in a file is reported, in Zuno's check
  order (interface, policy, display_name, short_description, allow_implicit_invocation,
  exposure). YAML syntax ``detail`` texts come from PyYAML, not from Zuno's ``yaml_rust2``, so
  they are not byte-identical to the agent's; the rule-violation texts are.

Every warning also comes as a :class:`~skillshelf.core.model.Diagnostic` carrying the sidecar path,
the dotted field name and the 1-based line/column of the offending value when known.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from skillshelf.core.fileread import FileTooLargeError, NotRegularFileError, read_regular
from skillshelf.core.model import CatalogWarning, Diagnostic, Exposure, Severity
from skillshelf.core.parsecache import ParseCache

if TYPE_CHECKING:  # PyYAML is imported when a sidecar is parsed: a warm start over unchanged skills parses none
    import yaml

#: Folder holding the sidecars, relative to the skill directory (Z077).
SIDECAR_DIR = "agents"
#: The shared (cross-host) sidecar file name; read first.
SHARED_SIDECAR = "openai.yaml"
#: The Zuno-native sidecar file name; overlays the shared one and alone may set ``policy.exposure``.
NATIVE_SIDECAR = "zuno.yaml"

_EXPOSURES = {"index": Exposure.INDEX, "search": Exposure.SEARCH, "explicit": Exposure.EXPLICIT}

#: errno → Rust ``std::io::ErrorKind`` display text (what Zuno prints for ``MetadataUnreadable``).
_IO_KIND = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "not a directory",
    errno.ELOOP: "filesystem loop or indirection limit (e.g. symlink loop)",
    errno.ENAMETOOLONG: "invalid filename",
    errno.EINVAL: "invalid input parameter",
    errno.ENOMEM: "out of memory",
    errno.EBUSY: "resource busy",
    errno.ESTALE: "stale network file handle",
    errno.EIO: "uncategorized error",
}


def sidecar_paths(skill_dir: str) -> tuple[str, str]:
    """``(shared, native)`` sidecar paths for ``skill_dir`` (Z077), in read order.

    ``skill_dir`` is used as spelled (normally the directory of the source's locator), so the
    returned paths are what ``metadata_sources`` and warnings name.
    """
    base = os.path.join(skill_dir, SIDECAR_DIR)
    return os.path.join(base, SHARED_SIDECAR), os.path.join(base, NATIVE_SIDECAR)


class SidecarMalformed(ValueError):
    """A sidecar text that Zuno refuses (the ``MetadataMalformed`` detail).

    ``detail`` is Zuno's detail text (for example ``"`allow_implicit_invocation` must be a
    boolean when present"``); ``field`` the dotted key (``"policy.allow_implicit_invocation"``)
    or ``None`` for whole-document problems; ``line``/``column`` are 1-based, or ``None``.
    """

    def __init__(self, detail: str, field: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Sidecar:
    """Effective sidecar metadata of one skill (SPEC E2–E3), after the field-wise overlay.

    ``None`` means "not set by any sidecar". ``exposure`` is the native ``policy.exposure`` only;
    use :attr:`resolved_exposure` for the E2 result. ``metadata_sources`` are the sidecar paths
    that existed and were read successfully, shared first (Z066). ``warnings`` are Zuno's
    catalog warnings for this skill's sidecars (shared file first); ``diagnostics`` the same
    findings with field/line/column, plus skillshelf-only notes (severity ``info``).
    ``allow_implicit_source`` names the file (``"agents/openai.yaml"`` or ``"agents/zuno.yaml"``)
    whose ``allow_implicit_invocation`` won, for :meth:`reason`.
    """

    display_name: str | None = None
    short_description: str | None = None
    allow_implicit_invocation: bool | None = None
    exposure: Exposure | None = None
    metadata_sources: tuple[str, ...] = ()
    warnings: tuple[CatalogWarning, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    allow_implicit_source: str | None = None

    @property
    def resolved_exposure(self) -> Exposure:
        """Native exposure, else ``EXPLICIT`` when ``allow_implicit_invocation`` is false, else
        ``INDEX`` (SPEC E2, Z072/Z073/Z076)."""
        if self.exposure is not None:
            return self.exposure
        if self.allow_implicit_invocation is False:
            return Exposure.EXPLICIT
        return Exposure.INDEX

    def reason(self) -> str:
        """Why :attr:`resolved_exposure` is what it is, in words for the browser's "why".

        ``"sidecar agents/zuno.yaml policy.exposure"``,
        ``"sidecar agents/openai.yaml allow_implicit_invocation: false"`` (or ``agents/zuno.yaml``),
        else ``"default"``.
        """
        if self.exposure is not None:
            return f"sidecar {SIDECAR_DIR}/{NATIVE_SIDECAR} policy.exposure"
        if self.allow_implicit_invocation is False:
            origin = self.allow_implicit_source or f"{SIDECAR_DIR}/{SHARED_SIDECAR}"
            return f"sidecar {origin} allow_implicit_invocation: false"
        return "default"

    def overlay(self, other: Sidecar) -> Sidecar:
        """``self`` with every field ``other`` sets replacing it (Zuno ``overlay``, Z076).

        Sources, warnings and diagnostics are concatenated (``self`` first).
        """
        implicit_set = other.allow_implicit_invocation is not None
        return Sidecar(
            display_name=other.display_name if other.display_name is not None else self.display_name,
            short_description=(other.short_description if other.short_description is not None
                               else self.short_description),
            allow_implicit_invocation=(other.allow_implicit_invocation if implicit_set
                                       else self.allow_implicit_invocation),
            exposure=other.exposure if other.exposure is not None else self.exposure,
            metadata_sources=self.metadata_sources + other.metadata_sources,
            warnings=self.warnings + other.warnings,
            diagnostics=self.diagnostics + other.diagnostics,
            allow_implicit_source=(other.allow_implicit_source if implicit_set
                                   else self.allow_implicit_source),
        )


def _is_blank(text: str) -> bool:
    """Zuno's "no metadata" test: every line is blank or starts (after indentation) with ``#``."""
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            continue
        if line.strip():
            return False
    return True


def _node_for(document: yaml.Node | None, keys: tuple[str, ...]) -> yaml.Node | None:
    """The composed node at ``keys`` (last duplicate wins), or ``None``."""
    import yaml

    node = document
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            return None
        found = None
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                found = value_node
        if found is None:
            return None
        node = found
    return node


def _position(text: str, keys: tuple[str, ...]) -> tuple[int | None, int | None]:
    """1-based (line, column) of the value at ``keys`` in ``text``; ``(None, None)`` if unknown."""
    from skillshelf.core import yamlload
    from skillshelf.core.yamlload import YamlError

    try:
        documents = yamlload.compose_all(text)
    except YamlError:
        return None, None
    node = _node_for(documents[0] if documents else None, keys)
    if node is None:
        return None, None
    return node.start_mark.line + 1, node.start_mark.column + 1


def parse_sidecar(text: str, *, native: bool) -> Sidecar:
    """Parse one sidecar text into its fields (no sources, warnings or diagnostics).

    ``native`` is True for ``agents/zuno.yaml`` (the only file allowed to set
    ``policy.exposure``). Raises :class:`SidecarMalformed` with Zuno's detail text for the first
    problem found (Z074, Z075; order as in the module docstring).
    """
    if _is_blank(text):
        return Sidecar()
    from skillshelf.core import yamlload
    from skillshelf.core.yamlload import YamlAliasLimit, YamlError

    try:
        documents = yamlload.load_all(text)
    except YamlAliasLimit as exc:
        raise SidecarMalformed(f"YAML alias expansion exceeds {exc.limit} nodes ({exc.reason})") from None
    except YamlError as exc:
        if exc.line is not None:
            raise SidecarMalformed(f"{exc.problem} at line {exc.line} column {exc.column}",
                                   None, exc.line, exc.column) from None
        raise SidecarMalformed(exc.problem) from None
    if not documents:
        raise SidecarMalformed("metadata document is empty")
    root = documents[0]
    if not isinstance(root, dict):
        raise SidecarMalformed("metadata root must be a mapping", None, 1, 1)

    def where(*keys: str) -> tuple[int | None, int | None]:
        return _position(text, keys)

    def mapping(key: str) -> dict[str, Any] | None:
        value = root.get(key)
        if value is None:
            return None
        if isinstance(value, dict):
            return value
        raise SidecarMalformed(f"`{key}` must be a mapping when present", key, *where(key))

    def string(section: str, table: dict[str, Any] | None, key: str) -> str | None:
        if table is None:
            return None
        value = table.get(key)
        if value is None:
            return None
        dotted = f"{section}.{key}"
        if isinstance(value, str):
            if value.strip():
                return value.strip()
            raise SidecarMalformed(f"`{key}` must not be empty", dotted, *where(section, key))
        raise SidecarMalformed(f"`{key}` must be a string when present", dotted,
                               *where(section, key))

    interface = mapping("interface")
    policy = mapping("policy")
    display_name = string("interface", interface, "display_name")
    short_description = string("interface", interface, "short_description")
    allow_implicit: bool | None = None
    if policy is not None and policy.get("allow_implicit_invocation") is not None:
        value = policy["allow_implicit_invocation"]
        if type(value) is not bool:
            raise SidecarMalformed("`allow_implicit_invocation` must be a boolean when present",
                                   "policy.allow_implicit_invocation",
                                   *where("policy", "allow_implicit_invocation"))
        allow_implicit = value
    exposure: Exposure | None = None
    if native:
        raw = string("policy", policy, "exposure")
        if raw is not None:
            exposure = _EXPOSURES.get(raw)
            if exposure is None:
                raise SidecarMalformed(
                    "`exposure` must be one of `index`, `search`, or `explicit`",
                    "policy.exposure", *where("policy", "exposure"))
    return Sidecar(display_name=display_name, short_description=short_description,
                   allow_implicit_invocation=allow_implicit, exposure=exposure)


def _io_reason(exc: OSError) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "invalid data"
    if isinstance(exc, (NotRegularFileError, FileTooLargeError)):
        return str(exc)
    return _IO_KIND.get(exc.errno, "other error") if exc.errno else "other error"


def _read_one(path: str, *, native: bool) -> Sidecar:
    """Read and parse one sidecar file into a :class:`Sidecar` carrying its own source/warnings."""
    rel = f"{SIDECAR_DIR}/{NATIVE_SIDECAR if native else SHARED_SIDECAR}"
    try:
        data = read_regular(path)  # a FIFO or device sidecar is refused, never waited on
    except FileNotFoundError:
        return Sidecar()
    except OSError as exc:
        reason = _io_reason(exc)
        message = f"failed to read skill metadata {path}: {reason}"
        return Sidecar(
            warnings=(CatalogWarning("MetadataUnreadable", path, message),),
            diagnostics=(Diagnostic(Severity.WARNING, "sidecar-unreadable", message, path=path),))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"failed to read skill metadata {path}: invalid data"
        line = data[: exc.start].count(b"\n") + 1
        return Sidecar(
            warnings=(CatalogWarning("MetadataUnreadable", path, message),),
            diagnostics=(Diagnostic(Severity.WARNING, "sidecar-unreadable", message, line=line,
                                    hint="save the file as UTF-8", path=path),))
    try:
        parsed = parse_sidecar(text, native=native)
    except SidecarMalformed as exc:
        message = f"failed to load skill metadata {path}: {exc.detail}"
        return Sidecar(
            warnings=(CatalogWarning("MetadataMalformed", path, message),),
            diagnostics=(Diagnostic(Severity.WARNING, "sidecar-malformed", message,
                                    field=exc.field, line=exc.line, column=exc.column,
                                    path=path),))
    notes: tuple[Diagnostic, ...] = ()
    if not native and not _is_blank(text):
        # Zuno silently ignores `policy.exposure` in the shared file (Z072); say so.
        from skillshelf.core import yamlload

        documents = yamlload.load_all(text)  # parse_sidecar already loaded it: cannot fail
        root = documents[0] if documents else None
        policy = root.get("policy") if isinstance(root, dict) else None
        if isinstance(policy, dict) and policy.get("exposure") is not None:
            at_line, at_column = _position(text, ("policy", "exposure"))
            notes = (Diagnostic(
                Severity.INFO, "sidecar-ignored-field",
                f"{path}: `policy.exposure` is ignored in {rel}; only "
                f"{SIDECAR_DIR}/{NATIVE_SIDECAR} can set it",
                field="policy.exposure", line=at_line, column=at_column,
                hint=f"move it to {SIDECAR_DIR}/{NATIVE_SIDECAR}", path=path),)
    return replace(parsed, metadata_sources=(path,), diagnostics=notes,
                   allow_implicit_source=rel if parsed.allow_implicit_invocation is not None
                   else None)


def read_sidecars(skill_dir: str, *, cache: ParseCache | None = None, agents: bool | None = None) -> Sidecar:
    """Read ``agents/openai.yaml`` then ``agents/zuno.yaml`` under ``skill_dir`` and overlay them.

    ``skill_dir`` is the skill directory as spelled by the source's locator (paths in the result
    are built from it). ``cache``: each sidecar file's result is kept by its own identity key
    (:mod:`skillshelf.core.parsecache`). Never raises for bad or unreadable files: they become
    warnings and diagnostics (see the module docstring) and contribute no fields. SPEC E2–E3,
    Z066–Z077. ``agents``: whether ``agents/`` exists beside the skill, when the caller has
    just looked (``None``: looked at here).
    """
    if agents is False or (agents is None and not os.path.lexists(os.path.join(skill_dir, SIDECAR_DIR))):
        return NO_SIDECAR  # fast path: most skills have no agents/ folder (one lstat, not two opens)
    shared_path, native_path = sidecar_paths(skill_dir)
    if cache is None:
        return _read_one(shared_path, native=False).overlay(_read_one(native_path, native=True))
    shared, _ = cache.lookup("zuno-sidecar", shared_path, partial(_read_one, shared_path, native=False))
    native, _ = cache.lookup("zuno-sidecar", native_path, partial(_read_one, native_path, native=True))
    return shared.overlay(native)


#: What :func:`read_sidecars` gives a skill without an ``agents/`` folder.
NO_SIDECAR = Sidecar()
