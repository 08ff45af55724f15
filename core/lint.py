"""Lint of ``SKILL.md`` files against a *target* (SPEC F4–F5).

Host semantics (what Zuno accepts) are decided by :mod:`skillshelf.core.frontmatter`; this
module only *reports*. The same file is judged per target:

- ``spec``: the Agent Skills standard — six keys (``name``, ``description``, ``license``,
  ``compatibility``, ``metadata``, ``allowed-tools``), unknown keys are errors, ``name`` 1–64
  lowercase letters/digits/``-`` (Unicode letters accepted as by the reference validator
  skills-ref; a ``name-not-ascii`` warning), equal to the folder after NFKC on both,
  ``description`` 1–1024 characters, ``compatibility`` ≤ 500 characters.
- ``portable``: ``spec`` plus ASCII-only names (``name-not-ascii`` is an error).
- ``zuno``: only what the host rejects is an error (no string ``name``, a non-string
  ``description``, unreadable or broken frontmatter); everything else is a warning at most.
- ``zhin``: SPEC Z1/Z2 — folder name ``^[a-z0-9][a-z0-9-]*$``, a declared ``name`` equal to the
  folder, list fields of non-empty strings, ``scopes`` ⊆ private/group/channel, ``always``
  boolean, non-empty body; ``name``/``description`` optional.

Guidance checks for every target (warnings): ``body-too-long`` (> 500 lines or > 5,000
approximate tokens = characters / 4), ``nested-skill``, ``wrong-file-name`` and
``missing-reference``. Every diagnostic carries the field, 1-based file line and column where
one exists, and a ``hint`` for the common faults (quoting, a valid name, the folder name).
"""

from __future__ import annotations

import enum
import json
import os
import posixpath
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import yaml

from skillshelf.core import fsprobe, yamlload
from skillshelf.core.fileread import read_regular
from skillshelf.core.frontmatter import (
    JSON_ENGINE,
    SkillParse,
    Split,
    first_delimiter_line,
    os_error_reason,
    parse_skill_file,
    quote_hint,
    quoted,
    sanitize_line,
    split_document,
    type_label,
)
from skillshelf.core.model import CatalogWarning, Diagnostic, Severity
from skillshelf.core.textlint import comment_cut_checks, invisible_checks
from skillshelf.core.unseen import is_near_miss
from skillshelf.core.walklimits import (
    MAX_WALK_DEPTH,
    MAX_WALK_ENTRIES,
    ancestor_warning,
    depth_warning,
    entries_warning,
    is_ancestor,
)


class Target(str, enum.Enum):
    """Which rule set judges a file (SPEC F5)."""

    SPEC = "spec"
    PORTABLE = "portable"
    ZUNO = "zuno"
    ZHIN = "zhin"


#: Keys the Agent Skills standard defines (SPEC F4).
SPEC_KEYS = ("allowed-tools", "compatibility", "description", "license", "metadata", "name")
#: Keys Zhin adds (SPEC F4, Z2).
ZHIN_LIST_KEYS = ("keywords", "tools", "platforms", "permissions", "tags")
ZHIN_KEYS = ZHIN_LIST_KEYS + ("scopes", "always")
ZHIN_SCOPES = ("private", "group", "channel")

NAME_MAX = 64  # characters
DESCRIPTION_MAX = 1024  # characters
COMPATIBILITY_MAX = 500  # characters
BODY_MAX_LINES = 500
BODY_MAX_TOKENS = 5000  # approximate tokens = characters / 4
CHARS_PER_TOKEN = 4

#: Folders never descended into by :func:`lint_paths`.
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".hg", ".svn"})

_E, _W, _I, _N = Severity.ERROR, Severity.WARNING, Severity.INFO, None

#: code -> severity per target (spec, portable, zuno, zhin); None = not reported.
_SEVERITY: dict[str, tuple[Severity | None, ...]] = {
    "bom": (_I, _I, _E, _I),
    "frontmatter-close-substring": (_W, _W, _W, _W),
    "crlf": (_I, _I, _I, _I),
    "not-utf8": (_E, _E, _E, _E),
    "unreadable": (_E, _E, _E, _E),
    "not-a-file": (_E, _E, _E, _E),
    "frontmatter-missing": (_E, _E, _E, _I),
    "frontmatter-not-first": (_E, _E, _E, _W),
    "frontmatter-unclosed": (_E, _E, _W, _E),
    "unknown-engine": (_E, _E, _E, _E),
    "json-frontmatter": (_W, _W, _N, _W),
    "yaml-error": (_E, _E, _E, _E),
    "json-error": (_E, _E, _E, _E),
    "tab-indent": (_E, _E, _E, _E),
    "quote-description": (_E, _E, _W, _E),
    "quote-value": (_E, _E, _W, _E),
    "frontmatter-too-large": (_E, _E, _E, _E),
    "yaml-bomb": (_E, _E, _E, _E),
    "yaml-not-mapping": (_E, _E, _I, _E),
    "duplicate-key": (_E, _E, _E, _E),
    "missing-name": (_E, _E, _E, _N),
    "name-type": (_E, _E, _E, _E),
    "name-invalid": (_E, _E, _W, _N),
    "name-not-ascii": (_W, _E, _I, _N),
    "name-mismatch": (_E, _E, _W, _E),
    "dir-name-invalid": (_N, _N, _N, _E),
    "missing-description": (_E, _E, _W, _I),
    "invalid-description": (_E, _E, _E, _E),
    "description-empty": (_E, _E, _W, _E),
    "description-too-long": (_E, _E, _W, _W),
    "compatibility-type": (_E, _E, _W, _N),
    "compatibility-too-long": (_E, _E, _W, _N),
    "license-type": (_E, _E, _W, _W),
    "metadata-type": (_E, _E, _W, _W),
    "allowed-tools-type": (_E, _E, _W, _W),
    "unknown-key": (_E, _E, _N, _W),
    "list-field-type": (_N, _N, _N, _E),
    "scopes-invalid": (_N, _N, _N, _E),
    "always-type": (_N, _N, _N, _E),
    "body-empty": (_W, _W, _W, _E),
    "body-too-long": (_W, _W, _W, _W),
    "nested-skill": (_W, _W, _W, _W),
    "wrong-file-name": (_W, _W, _W, _W),
    "missing-reference": (_W, _W, _W, _W),
    "reference-outside": (_W, _W, _W, _W),
    "reference-spelling": (_I, _I, _I, _N),
    "invisible-character": (_W, _W, _W, _W),
    "comment-in-value": (_W, _W, _W, _W),
    "in-dot-folder": (_I, _I, _I, _I),
    "zhin-workflow-missing": (_N, _N, _N, _W),
    "zhin-fallback-table-missing": (_N, _N, _N, _W),
}
_TARGET_INDEX = {Target.SPEC: 0, Target.PORTABLE: 1, Target.ZUNO: 2, Target.ZHIN: 3}


def severity_of(code: str, target: Target) -> Severity | None:
    """The severity of ``code`` under ``target`` (``None``: not reported for that target)."""
    row = _SEVERITY.get(code)
    if row is None:
        return Severity.ERROR
    return row[_TARGET_INDEX[Target(target)]]


@dataclass(frozen=True)
class LintReport:
    """Lint result for one file (SPEC C ``lint --json`` ``files[]`` item).

    ``path`` is the file as reached (spelling of the argument); ``name`` the declared string
    name when there is one; ``valid`` is True when no diagnostic is an error.
    """

    path: str
    name: str | None
    valid: bool
    diagnostics: tuple[Diagnostic, ...]
    #: references of the body still to check against the skill folder (a client host's report
    #: kept before :func:`~skillshelf.core.hostlint.finish_host_lint`); ``()`` once checked
    refs: tuple[Reference, ...] = field(default=(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """``{"path", "name", "valid", "diagnostics": [Diagnostic]}``."""
        return {
            "path": self.path,
            "name": self.name,
            "valid": self.valid,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }

    @property
    def errors(self) -> int:
        """Number of error diagnostics."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        """Number of warning diagnostics."""
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


class _Out:
    """Collects findings and grades them for one target."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.items: list[Diagnostic] = []

    def add(self, code: str, message: str, *, field: str | None = None, line: int | None = None,
            column: int | None = None, hint: str | None = None) -> None:
        sev = severity_of(code, self.target)
        if sev is None:
            return
        self.items.append(Diagnostic(sev, code, message, field, line, column, hint))


class _DraftOut(_Out):
    """An :class:`_Out` for a :class:`LintDraft`: the reference checks are deferred (their
    place in the findings and the references found are kept)."""

    def __init__(self, target: Target) -> None:
        super().__init__(target)
        self.ref_at: int | None = None
        self.refs: tuple[Reference, ...] = ()

    def defer(self, refs: tuple[Reference, ...]) -> None:
        self.ref_at = len(self.items)
        self.refs = refs


@dataclass(frozen=True)
class _KeyPos:
    line: int
    column: int
    value_line: int | None
    value_column: int | None
    #: the value's node (YAML blocks only), for the text of a value as written
    node: Any = None


def _written(node: Any) -> str | None:
    """The text of a plain (unquoted) scalar exactly as written, else ``None``."""
    if isinstance(node, yaml.ScalarNode) and node.style in (None, "") and node.value:
        return str(node.value)
    return None


def _nested_written(p: _KeyPos | None) -> dict[str, str]:
    """Key → value as written, for the plain scalars of a mapping value (``metadata``)."""
    if p is None or not isinstance(p.node, yaml.MappingNode):
        return {}
    out: dict[str, str] = {}
    for k, v in p.node.value:
        text = _written(v)
        if isinstance(k, yaml.ScalarNode) and text is not None:
            out.setdefault(str(k.value), text)
    return out


def _as_written_hint(key: str, p: _KeyPos | None) -> str | None:
    """``key: "1.10"`` for a plain scalar YAML typed as a number, boolean or null: the text as
    written, quoted — never a re-serialised value (``1.1``)."""
    text = _written(p.node) if p is not None else None
    return quoted(key, text) if text is not None else None



def _nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def suggest_name(name: str, folder: str = "") -> str:
    """A valid, portable name close to ``name`` (lowercase ASCII letters, digits, single ``-``,
    at most 64 characters); falls back to the folder name, then ``my-skill``."""
    for candidate in (name, folder):
        s = _nfkc(candidate).lower()
        s = re.sub(r"[^a-z0-9]+", "-", s).strip("-")
        s = s[:NAME_MAX].rstrip("-")
        if s:
            return s
    return "my-skill"


def name_problems(name: str) -> list[str]:
    """Reasons ``name`` breaks the Agent Skills name rule (skills-ref semantics: strip, NFKC,
    Unicode ``isalnum`` letters allowed); empty list when valid."""
    n = _nfkc(name.strip())
    if not n:
        return ["must not be empty"]
    out = []
    if len(n) > NAME_MAX:
        out.append(f"is {len(n)} characters (limit {NAME_MAX})")
    if n != n.lower():
        out.append("must be lowercase")
    if n.startswith("-") or n.endswith("-"):
        out.append("must not start or end with a hyphen")
    if "--" in n:
        out.append("must not contain consecutive hyphens")
    bad = sorted({c for c in n if not (c.isalnum() or c == "-")})
    if bad:
        out.append("contains invalid characters: " + " ".join(repr(c) for c in bad))
    return out


_ZHIN_DIR = re.compile(r"^[a-z0-9][a-z0-9-]*$")


#: Plain scalars the YAML 1.2 core schema would not read as strings (ints, floats, bools, null).
_NON_STRING_SCALAR = re.compile(
    r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|true|True|TRUE|false|False|FALSE|null|Null|NULL|~)$"
)


def _name_hint(name: str) -> str:
    """``name: <name>``, quoted when YAML would otherwise read the value as a number, bool or null."""
    return f"name: {json.dumps(name) if _NON_STRING_SCALAR.match(name) else name}"


def _quoted_line(key: str, value: str) -> str:
    return f"{key}: {json.dumps(value, ensure_ascii=False)}"


def _key_positions(split: Split, parse: SkillParse) -> tuple[dict[str, _KeyPos], list[tuple[str, int, int]], Any, Any]:
    """Top-level key positions, duplicate keys ``(key, line, col)``, the root node kind
    (``"mapping"``, ``"sequence"``, ``"scalar"``, ``None``) and, for a YAML mapping, its composed
    node tree (else ``None``)."""
    pos: dict[str, _KeyPos] = {}
    dups: list[tuple[str, int, int]] = []
    first = split.raw_first_line
    if split.engine == JSON_ENGINE:
        kind = None
        try:
            val = json.loads(split.raw.strip())
            kind = "mapping" if isinstance(val, dict) else ("sequence" if isinstance(val, list) else "scalar")
        except ValueError:
            pass
        n = first
        for line in split.raw.split("\n"):
            for m in re.finditer(r'"((?:[^"\\]|\\.)*)"\s*:', line):
                key = m.group(1)
                if key not in pos:
                    pos[key] = _KeyPos(n, m.start() + 1, n, m.end() + 1)
            n += 1
        return pos, dups, kind, None
    if not parse.sanitized:
        try:
            root = yamlload.compose(split.raw)
        except yamlload.YamlError:  # broken YAML is reported from the host's diagnostics
            root = None
        if root is not None:
            if isinstance(root, yaml.MappingNode):
                seen: set[str] = set()
                for k, v in root.value:
                    if not isinstance(k, yaml.ScalarNode):
                        continue
                    key = k.value
                    kp = _KeyPos(first + k.start_mark.line, k.start_mark.column + 1,
                                 first + v.start_mark.line, v.start_mark.column + 1, v)
                    if key in seen:
                        dups.append((key, kp.line, kp.column))
                    else:
                        seen.add(key)
                    pos[key] = pos.get(key, kp)
                return pos, dups, "mapping", root
            return pos, dups, "sequence" if isinstance(root, yaml.SequenceNode) else "scalar", None
    # line-scan fallback (sanitized or unparsable blocks): top-level `key:` lines
    n = first
    for line in split.raw.split("\n"):
        hit = re.match(r"([^\s#:'\"-][^:]*?|'[^']*'|\"[^\"]*\")\s*:(\s|$)", line)
        if hit:
            key = hit.group(1).strip("'\"")
            if key not in pos:
                rest = line[hit.end():]
                vcol = hit.end() + 1 + (len(rest) - len(rest.lstrip()))
                pos[key] = _KeyPos(n, 1, n, vcol)
        n += 1
    return pos, dups, "mapping" if pos else None, None


def _is_blank_block(raw: str) -> bool:
    return all((not s.strip()) or s.strip().startswith("#") for s in raw.split("\n"))


# --------------------------------------------------------------------------------------------
# frontmatter-level checks
# --------------------------------------------------------------------------------------------


def _host_findings(parse: SkillParse, split: Split | None, out: _Out) -> bool:
    """Translate host diagnostics; returns True when the frontmatter mapping is usable."""
    usable = True
    for d in parse.diagnostics:
        code = d.code
        if code in ("bom", "crlf", "not-utf8", "unknown-engine", "frontmatter-too-large", "yaml-bomb", "json-error"):
            out.add(code, d.message, field=d.field, line=d.line, column=d.column, hint=d.hint)
            if code not in ("bom", "crlf"):
                usable = False
        elif code == "duplicate-key":
            pass  # the lint's own duplicate-key check names every repeated key
        elif code == "unreadable":
            out.add(code, d.message)
            usable = False
        elif code == "yaml-error":
            usable = False
            _yaml_error(d, split, out)
        elif code == "duplicate-key":  # YAML keys are unique: the host refuses the file
            usable = False
            out.add(code, d.message, field=d.field, line=d.line, column=d.column)
        elif code == "sanitized-retry" and split is not None:
            _quote_findings(split, out)
    return usable


def _yaml_error(d: Diagnostic, split: Split | None, out: _Out) -> None:
    """A YAML error: a tab used for indentation becomes ``tab-indent``; a top-level value YAML
    cannot read as text (an unquoted ``: ``, a first character YAML reserves: ``* & ! % @ ` ``)
    gets "quote the value" and the quoted line as hint."""
    problem = d.message.removeprefix("invalid YAML frontmatter: ")
    if split is not None:
        n = split.raw_first_line
        owner: str | None = None
        for line in split.raw.split("\n"):
            if d.line is not None and n > d.line:
                break
            lead = line[: len(line) - len(line.lstrip(" \t"))]
            if "\t" in lead and line.strip():
                col = lead.index("\t") + 1
                fixed = lead.replace("\t", "  ") + line[len(lead):].rstrip("\r")
                out.add("tab-indent",
                        f"a tab is used for indentation (YAML allows only spaces; indent with spaces): {problem}",
                        field=owner, line=n, column=col, hint=fixed)
                return
            m = re.match(r"([A-Za-z_][\w.-]*)\s*:", line)
            if m:
                owner = m.group(1)
            n += 1
        fix = quote_hint(split, d.line)
        if fix is not None:
            key, reason, line_fixed = fix
            problem = problem.split(f"; {reason}", 1)[0]
            out.add("yaml-error", f"invalid YAML: {reason}; quote the value ({problem})",
                    field=key, line=d.line, column=d.column, hint=line_fixed)
            return
    out.add("yaml-error", f"invalid YAML: {problem}", line=d.line, column=d.column)


def _quote_findings(split: Split, out: _Out) -> None:
    """``quote-description`` / ``quote-value`` for each line the sanitize retry rewrote (F3)."""
    n = split.raw_first_line
    for line in split.raw.split("\n"):
        hit = sanitize_line(line)
        if hit is not None:
            key, value = hit
            col = line.find(value)
            inner = value.find(": ")
            column = (col + inner + 1) if inner >= 0 and col >= 0 else None
            code = "quote-description" if key == "description" else "quote-value"
            out.add(code,
                    f"unquoted `: ` inside the value of `{key}` is invalid YAML; quote the value (Zuno retries "
                    "with it quoted, strict parsers such as skills-ref drop the skill)",
                    field=key, line=n, column=column, hint=_quoted_line(key, value))
        n += 1


def _check_fields(fm: Mapping[str, Any], pos: dict[str, _KeyPos], folder: str, target: Target,
                  out: _Out, *, has_block_line: int | None) -> None:
    hint: str | None  # each check below sets its own

    def at(key: str) -> tuple[int | None, int | None]:
        p = pos.get(key)
        return (p.line, p.column) if p else (has_block_line, None)

    def vat(key: str) -> tuple[int | None, int | None]:
        p = pos.get(key)
        return (p.value_line, p.value_column) if p else (has_block_line, None)

    zhin = target is Target.ZHIN
    # name
    if zhin and not _ZHIN_DIR.match(folder):
        out.add("dir-name-invalid",
                f"folder name `{folder}` must match ^[a-z0-9][a-z0-9-]*$ (Zhin does not load it)",
                hint=f"rename the folder to `{suggest_name(folder)}`")
    if "name" not in fm:
        out.add("missing-name", "missing required field `name`", field="name", line=has_block_line,
                hint=f"add `{_name_hint(suggest_name(folder))}`")
    else:
        name = fm["name"]
        line, col = vat("name")
        if not isinstance(name, str):
            out.add("name-type", f"`name` must be a string, got {type_label(name)}", field="name",
                    line=line, column=col, hint=_as_written_hint("name", pos.get("name"))
                    or _name_hint(suggest_name("", folder)))
        elif zhin:
            if not name.strip():
                out.add("name-type", "Skill frontmatter name must be a non-empty string", field="name",
                        line=line, column=col)
            elif name != folder:
                out.add("name-mismatch", f"name {name} must match directory {folder}", field="name",
                        line=line, column=col, hint=f"set `name: {folder}` or rename the folder to `{name}`")
        else:
            problems = name_problems(name)
            if problems:
                out.add("name-invalid", f"name `{name}` " + "; ".join(problems), field="name",
                        line=line, column=col, hint=_name_hint(suggest_name(name, folder)))
            elif not _nfkc(name.strip()).isascii():
                out.add("name-not-ascii",
                        f"name `{name}` uses non-ASCII letters: valid for the standard (skills-ref), "
                        "but many clients accept only a-z, 0-9 and -",
                        field="name", line=line, column=col, hint=_name_hint(suggest_name(name, folder))
                        if suggest_name(name, "") != "my-skill" else None)
            if _nfkc(name.strip()) != _nfkc(folder):
                if problems and name_problems(folder):
                    hint = f"rename the folder and set the name to `{suggest_name(name, folder)}`"
                elif problems:
                    hint = f"set `name: {folder}`"
                elif name_problems(folder):
                    hint = f"rename the folder to `{name.strip()}`"
                else:
                    hint = f"set `name: {folder}` or rename the folder to `{name.strip()}`"
                out.add("name-mismatch",
                        f"name `{name}` does not match its folder `{folder}` (compared after NFKC)",
                        field="name", line=line, column=col, hint=hint)
    # description
    if "description" not in fm:
        out.add("missing-description",
                "missing `description`" + (" (Zuno loads the skill but never lists it to the model)"
                                           if target is Target.ZUNO else ""),
                field="description", line=has_block_line,
                hint="add `description: <what it does and when to use it>`")
    else:
        desc = fm["description"]
        line, col = vat("description")
        if not isinstance(desc, str):
            out.add("invalid-description", f"`description` must be a string, got {type_label(desc)}",
                    field="description", line=line, column=col, hint=_as_written_hint("description", pos.get("description")))
        elif not desc.strip():
            out.add("description-empty", "`description` is empty", field="description", line=line, column=col)
        elif len(desc) > DESCRIPTION_MAX:
            out.add("description-too-long",
                    f"`description` is {len(desc)} characters (limit {DESCRIPTION_MAX})",
                    field="description", line=line, column=col,
                    hint=f"shorten it by {len(desc) - DESCRIPTION_MAX} characters")
    # compatibility
    if "compatibility" in fm and not zhin:
        comp = fm["compatibility"]
        line, col = vat("compatibility")
        if not isinstance(comp, str):
            out.add("compatibility-type", f"`compatibility` must be a string, got {type_label(comp)}",
                    field="compatibility", line=line, column=col,
                    hint=_as_written_hint("compatibility", pos.get("compatibility")))
        elif len(comp) > COMPATIBILITY_MAX:
            out.add("compatibility-too-long",
                    f"`compatibility` is {len(comp)} characters (limit {COMPATIBILITY_MAX})",
                    field="compatibility", line=line, column=col)
    if "license" in fm and not isinstance(fm["license"], str):
        line, col = vat("license")
        out.add("license-type", f"`license` must be a string, got {type_label(fm['license'])}",
                field="license", line=line, column=col, hint=_as_written_hint("license", pos.get("license")))
    if "metadata" in fm:
        meta = fm["metadata"]
        line, col = vat("metadata")
        if not isinstance(meta, dict):
            out.add("metadata-type", f"`metadata` must be a map of string to string, got {type_label(meta)}",
                    field="metadata", line=line, column=col)
        else:
            written = _nested_written(pos.get("metadata"))
            for k, v in meta.items():
                if not isinstance(k, str) or not isinstance(v, str):
                    hint = None
                    if isinstance(k, str) and not isinstance(v, (list, dict)) and k in written:
                        hint = quoted(k, written[k])
                    out.add("metadata-type",
                            f"`metadata.{k}` must be a string, got {type_label(v)}" if isinstance(k, str)
                            else f"`metadata` key {k!r} must be a string",
                            field="metadata", line=line, column=col, hint=hint)
                    break
    if "allowed-tools" in fm and not isinstance(fm["allowed-tools"], str):
        tools = fm["allowed-tools"]
        line, col = vat("allowed-tools")
        hint = None
        if isinstance(tools, list) and all(isinstance(t, str) for t in tools):
            hint = "allowed-tools: " + " ".join(tools)
        out.add("allowed-tools-type",
                f"`allowed-tools` must be a space-separated string, got {type_label(tools)}",
                field="allowed-tools", line=line, column=col, hint=hint)
    # zhin fields
    if zhin:
        for key in ZHIN_LIST_KEYS:
            if key in fm:
                v = fm[key]
                if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
                    line, col = vat(key)
                    out.add("list-field-type", f"Skill frontmatter {key} must contain non-empty strings",
                            field=key, line=line, column=col)
        if "scopes" in fm:
            v = fm["scopes"]
            if not isinstance(v, list) or not all(isinstance(x, str) and x in ZHIN_SCOPES for x in v):
                line, col = vat("scopes")
                out.add("scopes-invalid", "Skill frontmatter scopes must be private, group, or channel",
                        field="scopes", line=line, column=col)
        if "always" in fm and not isinstance(fm["always"], bool):
            line, col = vat("always")
            out.add("always-type", "Skill frontmatter always must be a boolean", field="always",
                    line=line, column=col)
    # unknown keys
    allowed = set(SPEC_KEYS) | (set(ZHIN_KEYS) if zhin else set())
    for key in fm:
        if key not in allowed:
            line, col = at(str(key))
            hint = None
            if target in (Target.SPEC, Target.PORTABLE):
                hint = "move it under `metadata:` (string values only) or remove it"
            out.add("unknown-key",
                    f"unknown key `{key}`; the Agent Skills standard allows only "
                    + ", ".join(sorted(allowed)),
                    field=str(key), line=line, column=col, hint=hint)


# --------------------------------------------------------------------------------------------
# body checks
# --------------------------------------------------------------------------------------------

_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_TICK = re.compile(r"`([A-Za-z0-9_][A-Za-z0-9_.\-/]*)`")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _body_checks(body: str, body_line: int | None, skill_dir: str | None, out: _Out) -> None:
    if not body.strip():
        out.add("body-empty", "the body is empty: there are no instructions to load",
                line=body_line)
        return
    lines = body.count("\n") + (0 if body.endswith("\n") else 1)
    tokens = len(body) // CHARS_PER_TOKEN
    if lines > BODY_MAX_LINES or tokens > BODY_MAX_TOKENS:
        out.add("body-too-long",
                f"body is {lines:,} lines and about {tokens:,} tokens ({len(body):,} characters / {CHARS_PER_TOKEN}); "
                f"keep it under {BODY_MAX_LINES:,} lines and {BODY_MAX_TOKENS:,} tokens",
                line=(body_line + BODY_MAX_LINES) if (lines > BODY_MAX_LINES and body_line) else body_line,
                hint="move detail into references/ files and link them")
    if skill_dir and body_line:
        _reference_checks(body, body_line, skill_dir, out)
    elif body_line and isinstance(out, _DraftOut):  # checked against the folder when finished
        out.defer(reference_candidates(body, body_line))
    if out.target is Target.ZHIN:
        _zhin_authoring_checks(body, body_line, out)


#: Headings that name a workflow / a failure-and-fallback section (Zhin authoring rules, seed 002).
_ZHIN_WORKFLOW_HEADING = re.compile(r"工作流|流程|步骤|执行规则|使用说明|workflow|steps|procedure|instructions", re.I)
_ZHIN_FALLBACK_HEADING = re.compile(r"失败|降级|兜底|fallback|failure|troubleshoot", re.I)
_ZHIN_NUMBERED = re.compile(r"^\s{0,3}(?:\d+[.)、]\s|#{3,6}\s*(?:第\s*\d+\s*步|step\s*\d+|\d+[.)、]))", re.I | re.M)
_ZHIN_STEP_HEADING = re.compile(r"^#{3,6}\s*(?:第\s*\d+\s*步|step\s*\d+)", re.I | re.M)
_ZHIN_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$", re.M)


def _zhin_authoring_checks(body: str, body_line: int | None, out: _Out) -> None:
    """Zhin authoring rules (seed 002 "技能实现要求"; target ``zhin`` only, warnings):
    ``zhin-workflow-missing`` — no ``## `` section that is named as a workflow (工作流/流程/步骤/
    执行规则/使用说明/Workflow/Steps/Instructions) and holds numbered steps (``1.`` items or numbered
    sub-headings), nor any section with step headings (``### 第 1 步`` / ``### Step 1``); ``zhin-fallback-table-missing`` — no ``## `` section named for
    failures (失败/降级/兜底/Fallback/Failure) holding a Markdown table. Both apply only to bodies
    organised in ``## `` sections (Zhin's extraction works per section; a body without any is
    loaded whole as the ``## 指导`` intro, and a one-paragraph skill is not held to the template).
    Position: the first ``## `` heading, column 1.
    """
    heads = list(re.finditer(r"^## +(\S.*)$", body, re.M))
    if not heads:
        return
    sections = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        sections.append((m.group(1), body[m.end():end]))
    at = body_line + body.count("\n", 0, heads[0].start()) if body_line else None
    if not any((_ZHIN_WORKFLOW_HEADING.search(h) and _ZHIN_NUMBERED.search(t)) or _ZHIN_STEP_HEADING.search(t)
               for h, t in sections):
        out.add("zhin-workflow-missing",
                "no numbered workflow section: Zhin skills describe each step (input, action, output) "
                "under a heading such as `## 工作流` or `## Workflow`",
                line=at, column=1, hint="add `## 工作流` with `### 第 1 步：…` or a `1.` list")
    if not any(_ZHIN_FALLBACK_HEADING.search(h) and _ZHIN_TABLE_SEP.search(t) for h, t in sections):
        out.add("zhin-fallback-table-missing",
                "no failure/fallback table: Zhin skills say what to do when a tool fails, as a table "
                "under `## 失败与兜底` (or `## Failure and fallback`)",
                line=at, column=1, hint="add `## 失败与兜底` with a table: | 触发条件 | 一线处理 | 仍失败 |")


#: One reference found in a body: (text as written, 1-based line, 1-based column, a Markdown link).
Reference = tuple[str, int, int, bool]


def reference_candidates(body: str, body_line: int) -> tuple[Reference, ...]:
    """Every relative Markdown link and backticked path of ``body`` outside code fences, in
    text order (per line: links, then backticks), each text once (its first place: a repeat
    can only be judged as the first one was); ``body_line`` is the file line of its first line.
    Pure: whether each one exists is :func:`_reference_checks`' business."""
    found: list[Reference] = []
    seen: set[tuple[str, bool]] = set()
    if "`" not in body and "](" not in body:
        return ()
    fence: str | None = None
    n = body_line
    for line in body.split("\n"):
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            if fence is None:
                fence = mark
            elif fence == mark:
                fence = None
            n += 1
            continue
        if fence is None and ("`" in line or "](" in line):
            for link, matches in ((True, _LINK.finditer(line)), (False, _TICK.finditer(line))):
                for m in matches:
                    # a text written again can only repeat the first one's verdict: kept once
                    if (m.group(1), link) not in seen:
                        seen.add((m.group(1), link))
                        found.append((m.group(1), n, m.start(1) + 1, link))
        n += 1
    return tuple(found)


def _reference_checks(body: str, body_line: int, skill_dir: str, out: _Out,
                      refs: tuple[Reference, ...] | None = None) -> None:
    """References in the body that cannot travel with the skill: ``missing-reference`` (a
    relative Markdown link, or a backticked path whose first folder exists in the skill, naming a
    file missing from the skill folder — conservative; a file differing only in case is named),
    ``reference-outside`` (a link leaving the skill folder, even when the file exists) and
    ``reference-spelling`` (a ``./`` or ``..`` spelling Zuno's ``read_resource`` refuses).
    ``refs``: :func:`reference_candidates` of ``body`` when already known."""
    top = _TopDirs(skill_dir)
    listing = _Listing()
    reported: set[str] = set()
    found = _Out(out.target)
    for target, line, col, link in (reference_candidates(body, body_line) if refs is None else refs):
        _check_ref(target, line, col, skill_dir, top, reported, found, listing, link=link)
    if found.items and top.listable():  # a folder that cannot be listed is not judged
        for d in found.items:  # through ``out`` (it may be a filtered view)
            out.add(d.code, d.message, field=d.field, line=d.line, column=d.column, hint=d.hint)


class _TopDirs:
    """The folders directly in a skill folder, listed only when a reference needs them (a name
    that is no folder at all is answered with one ``stat``)."""

    def __init__(self, skill_dir: str) -> None:
        self._dir = skill_dir
        self._names: set[str] | None = None
        self._failed = False

    def _list(self) -> set[str] | None:
        if self._names is None and not self._failed:
            found = fsprobe.listing(self._dir)
            if found is None:
                self._failed = True
            else:
                self._names = {name for name, is_dir in found.items() if is_dir}
        return self._names

    def listable(self) -> bool:
        """Whether the folder can be listed."""
        return self._list() is not None

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or not fsprobe.isdir(os.path.join(self._dir, name)):
            return False
        names = self._list()  # the exact name must be listed (case-insensitive file systems)
        return names is not None and name in names


class _Listing:
    """Directory listings of one lint run (names as stored: a reference is compared with the
    listing, so a case-insensitive file system gives the same answer as a case-sensitive one)."""

    def __init__(self) -> None:
        self._names: dict[str, dict[str, bool] | None] = {}
        self._folds: bool | None = None

    def _read(self, directory: str) -> dict[str, bool] | None:
        if directory not in self._names:
            self._names[directory] = fsprobe.listing(directory)
        return self._names[directory]

    def folds_case(self, directory: str) -> bool:
        """Whether ``directory``'s file system ignores case (its name with the case of its
        letters swapped names the same folder); looked at once per lint run."""
        if self._folds is None:
            head, base = os.path.split(directory.rstrip("/"))
            swapped = base.swapcase()
            self._folds = swapped != base and bool(fsprobe.same_file(directory, os.path.join(head, swapped)))
        return self._folds

    def find(self, directory: str, parts: Sequence[str]) -> tuple[bool, str | None]:
        """``(exists, spelled)``: whether ``parts`` below ``directory`` exist exactly as spelled,
        and else the one existing path that differs from them only in case (``None`` if none).
        A case-sensitive file system answers the first with one ``stat``; a case-insensitive one
        by the listings (so both give the same answer)."""
        if not self.folds_case(directory) and fsprobe.exists(os.path.join(directory, *parts)):
            return True, None
        exact = True
        actual: list[str] = []
        current = directory
        for part in parts:
            names = self._read(current)
            if names is None:
                return False, None
            if part in names:
                name = part
            else:
                folded = [k for k in names if k.casefold() == part.casefold()]
                if len(folded) != 1:
                    return False, None
                name, exact = folded[0], False
            actual.append(name)
            current = os.path.join(current, name)
        return exact, (None if exact else "/".join(actual))


def _check_ref(target: str, line: int, col: int, skill_dir: str, top_dirs: _TopDirs, reported: set[str],
               out: _Out, listing: _Listing, *, link: bool) -> None:
    t = target.split("#", 1)[0].split("?", 1)[0]
    if not t or t.startswith(("/", "~", "#")) or _SCHEME.match(t):
        return
    if any(c in t for c in "{}<>$*|\\") or "@" in t:
        return
    if link:
        t = unquote(t)
    raw = [p for p in t.split("/") if p]
    if not raw:
        return
    normal = posixpath.normpath(t)
    if normal == ".." or normal.startswith("../"):
        if t not in reported:
            reported.add(t)
            out.add("reference-outside",
                    f"`{t}` points outside the skill folder: it does not travel with the skill (installers "
                    "copy only the folder, and Zuno's read_resource refuses it)" + (" — the file exists here today"
                                                                             if fsprobe.exists(os.path.join(skill_dir, t)) else ""),
                    line=line, column=col, hint="copy the file into the skill folder (for example under references/) "
                    "and link it from there")
        return
    parts = [p for p in normal.split("/") if p not in ("", ".")]
    if not parts:
        return
    rel = "/".join(parts)
    if raw != parts and "./" + t not in reported:
        reported.add("./" + t)
        out.add("reference-spelling",
                f"`{t}`: Zuno's read_resource refuses `.` and `..` components; the model must ask for `{rel}`",
                line=line, column=col, hint=rel)
    last = parts[-1]
    if link:
        if len(parts) == 1 and "." not in last.strip("."):
            return
    else:
        if len(parts) < 2 or parts[0] not in top_dirs or "." not in last.strip("."):
            return
    if rel in reported:
        return
    exists, spelled = listing.find(skill_dir, parts)
    if exists:
        return
    reported.add(rel)
    if spelled is not None:
        out.add("missing-reference",
                f"`{rel}` does not exist in the skill folder; `{spelled}` differs only in case (it resolves "
                "only on case-insensitive file systems)", line=line, column=col, hint=spelled)
        return
    out.add("missing-reference", f"`{rel}` is referenced but does not exist in the skill folder",
            line=line, column=col)


# --------------------------------------------------------------------------------------------
# entry points
# --------------------------------------------------------------------------------------------


def lint_parsed(parse: SkillParse, *, target: Target, folder_name: str, text: str | None = None,
                skill_dir: str | None = None) -> tuple[Diagnostic, ...]:
    """Every finding for one parsed file under ``target`` (SPEC F4–F5).

    The result already contains the host-level findings of ``parse.diagnostics`` graded for the
    target (``not-utf8``, ``yaml-error`` …) — do not concatenate the two. ``folder_name`` is the
    skill directory's base name (for ``name-mismatch``). ``text`` is the decoded file, needed only
    when ``parse.split`` is missing. ``skill_dir`` enables ``missing-reference``. File-system
    context checks (``nested-skill``, ``wrong-file-name``) belong to :func:`lint_file`.
    """
    return tuple(_lint_parsed(parse, _Out(Target(target)), folder_name, text, skill_dir).items)


def _lint_parsed(parse: SkillParse, out: _Out, folder_name: str, text: str | None,
                 skill_dir: str | None) -> _Out:
    target = out.target
    split = parse.split
    if split is None and text is not None:
        split = split_document(text)
    if split is not None and split.has_frontmatter and split.unclosed:
        out.add("frontmatter-unclosed", "frontmatter is not closed: no line `---` after line 1", line=1,
                column=1, hint="add a line `---` after the last frontmatter key")
    usable = _host_findings(parse, split, out)
    if split is None:
        return out
    _close_finding(parse, split, out)
    if not split.has_frontmatter:
        found = first_delimiter_line(split.text)
        lines = split.text.split("\n")
        if found is not None and found < len(lines) and re.match(r"\s*[A-Za-z_][\w-]*\s*:", lines[found]):
            out.add("frontmatter-not-first",
                    f"frontmatter must start on line 1; a `---` block starts on line {found}",
                    line=found, column=1, hint=f"remove the {found - 1} line(s) above line {found}")
        else:
            out.add("frontmatter-missing", "no frontmatter: line 1 is not `---`", line=1, column=1,
                    hint="start the file with `---`, `name: …`, `description: …`, `---`")
        if target is Target.ZHIN:
            _check_fields({}, {}, folder_name, target, _Filtered(out, {"missing-description"}),
                          has_block_line=None)
        _body_checks(split.body, split.body_line, skill_dir, out)
        invisible_checks(split.text, out.add)
        return out
    if split.engine == JSON_ENGINE:
        out.add("json-frontmatter", "`---json` frontmatter is not part of the Agent Skills standard (YAML)",
                line=1, column=4)
    pos: dict[str, _KeyPos] = {}
    if usable:
        pos, dups, kind, root = _key_positions(split, parse)
        blank = _is_blank_block(split.raw)
        for key, line, col in dups:
            if target is Target.ZUNO:
                message = f"key `{key}` appears more than once: Zuno refuses the file (duplicated key in mapping)"
            else:
                message = f"key `{key}` appears more than once (YAML keys must be unique)"
            out.add("duplicate-key", message, field=key, line=line, column=col)
        if not blank and kind in ("sequence", "scalar"):
            out.add("yaml-not-mapping", f"frontmatter must be a mapping of keys, got a {kind}", line=2, column=1)
        else:
            _check_fields(_lint_mapping(parse, split), pos, folder_name, target, out, has_block_line=1)
        if split.engine != JSON_ENGINE and not parse.sanitized and kind == "mapping":
            # (the tree the key positions were read from; composed again when it was a line scan)
            comment_cut_checks(split.raw, split.raw_first_line, out.add, root)
    if not split.unclosed:
        _body_checks(split.body, split.body_line, skill_dir, out)
    invisible_checks(split.text, out.add, key_at=_key_owner(split, pos))
    return out


def _key_owner(split: Split, pos: Mapping[str, _KeyPos]) -> Callable[[int], str | None]:
    """``line → the top-level frontmatter key whose entry holds that file line`` (``None`` in
    the body or before the first key)."""
    starts = sorted((p.line, k) for k, p in pos.items())
    end = split.close_line if split.close_line is not None else (split.text.count("\n") + 2)

    def owner(line: int) -> str | None:
        if not split.has_frontmatter or line >= end:
            return None
        found = None
        for start, key in starts:
            if start > line:
                break
            found = key
        return found

    return owner


def _close_finding(parse: SkillParse, split: Split, out: _Out) -> None:
    """``frontmatter-close-substring``: Zuno closes the block at the first ``\\n---``, so a line
    such as ``----`` or ``---# Title`` ends it where the standard's line rule does not."""
    host = parse.host_split
    if host is None or not host.has_frontmatter or not split.has_frontmatter or host.close_line is None:
        return
    if split.close_line == host.close_line and split.body == host.body:
        return
    line = host.close_line
    text = split.text.split("\n")[line - 1] if 0 < line <= split.text.count("\n") + 1 else ""
    shown = text.rstrip("\r")
    out.add("frontmatter-close-substring",
            f"line {line} `{shown}` closes the frontmatter for Zuno (it stops at the first `\\n---`); "
            f"the rest of that line starts the body it loads", line=line, column=1,
            hint="put the closing `---` on a line of its own and start the body on the next line")


def _lint_mapping(parse: SkillParse, split: Split) -> Mapping[str, Any]:
    """The mapping the lint checks: the host's when it accepted the file, else the line-rule
    block read with the last duplicate key winning (so a BOM, a duplicate key or an early close
    are explained without every field also reading as missing)."""
    fm = parse.frontmatter if isinstance(parse.frontmatter, Mapping) else {}
    if fm or not split.has_frontmatter or parse.sanitized:
        return fm
    try:
        loaded = (json.loads(split.raw.strip()) if split.engine == JSON_ENGINE
                  else yamlload.load(split.raw, duplicates=yamlload.Duplicates.LAST_WINS))
    except (ValueError, yamlload.YamlError, RecursionError):
        loaded = None
    return loaded if isinstance(loaded, dict) else fm


class _Filtered(_Out):
    """An :class:`_Out` view that drops some codes."""

    def __init__(self, inner: _Out, drop: set[str]) -> None:
        super().__init__(inner.target)
        self.items = inner.items
        self._drop = drop

    def add(self, code: str, message: str, *, field: str | None = None, line: int | None = None,
            column: int | None = None, hint: str | None = None) -> None:
        if code not in self._drop:
            super().add(code, message, field=field, line=line, column=column, hint=hint)


def _outer_skill(skill_dir: str, memo: dict[str, str | None] | None = None) -> str | None:
    """The nearest ancestor directory of ``skill_dir`` holding a ``SKILL.md`` file (stops at a
    directory holding ``.git``), or ``None``. ``memo``: answers per ancestor, shared by the
    files of one report (siblings have the same ancestors)."""
    d = os.path.abspath(skill_dir)
    if fsprobe.exists(os.path.join(d, ".git")):
        return None
    seen: list[str] = []
    found: str | None = None
    while True:
        parent = os.path.dirname(d)
        if parent == d:
            break
        if memo is not None and parent in memo:
            found = memo[parent]
            break
        seen.append(parent)
        if fsprobe.isfile(os.path.join(parent, "SKILL.md")):
            found = parent
            break
        if fsprobe.exists(os.path.join(parent, ".git")):
            break
        d = parent
    if memo is not None:
        for p in seen:  # every ancestor walked past has the same answer
            memo[p] = found
    return found


def _special_file_kind(path: str) -> str | None:
    """``"a FIFO"`` / ``"a socket"`` / ``"a character device"`` / ``"a block device"`` when
    ``path`` (symlinks followed) is one; ``None`` for regular files, directories and errors."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, label in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return label
    return None


@dataclass(frozen=True)
class LintDraft:
    """What the lint of one file needs from its bytes (SPEC F4–F5), without the body: the
    findings for ``target`` judged from the text alone, where the reference checks go among
    them (``ref_at``) and the references the body makes. :func:`finish_lint` adds what depends
    on other files (missing references, an enclosing skill) when the report is made, so a
    draft can be kept as long as the file is unchanged (:mod:`skillshelf.core.parsecache`).
    ``folder``: the skill folder's name the draft was judged with (``name-mismatch``)."""

    target: str
    folder: str
    name: str | None
    items: tuple[Diagnostic, ...]
    ref_at: int | None = None
    refs: tuple[Reference, ...] = ()


def lint_draft(parse: SkillParse, folder: str, *, target: Target = Target.SPEC) -> LintDraft:
    """The :class:`LintDraft` of one parsed file (``parse`` with its split, as
    :func:`~skillshelf.core.frontmatter.parse_skill_bytes` returns it) in folder ``folder``."""
    target = Target(target)
    out = _lint_parsed(parse, _DraftOut(target), folder, None, None)
    assert isinstance(out, _DraftOut)
    name = parse.name
    if name is None and isinstance(parse.frontmatter, Mapping):
        n = parse.frontmatter.get("name")
        name = n if isinstance(n, str) else None
    return LintDraft(target.value, folder, name, tuple(out.items), out.ref_at, out.refs)


def finish_lint(path: str, draft: LintDraft, memo: dict[str, str | None] | None = None) -> LintReport:
    """The :class:`LintReport` of the file at ``path`` from its ``draft``, with the checks that
    look at other files done now: ``wrong-file-name``, ``missing-reference`` (the skill folder
    as it is now) and ``nested-skill`` (``memo``: ancestors already looked at, for many files
    in one go). Never raises."""
    target = Target(draft.target)
    skill_dir = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    out = _Out(target)
    if base != "SKILL.md":
        out.add("wrong-file-name",
                f"the file is named `{base}`; hosts look only for `SKILL.md` (case-sensitive), so this skill is invisible",
                hint=f"rename it to {os.path.join(os.path.dirname(path), 'SKILL.md')}")
    diags = list(out.items)
    if draft.ref_at is None:
        diags.extend(draft.items)
    else:
        refs = _Out(target)
        if draft.refs:
            _reference_checks("", 0, skill_dir, refs, draft.refs)
        diags.extend(draft.items[: draft.ref_at])
        diags.extend(refs.items)
        diags.extend(draft.items[draft.ref_at:])
    outer = _outer_skill(skill_dir, memo)
    if outer is not None:
        outer_md = os.path.join(outer, "SKILL.md")
        fsprobe.file_key(outer_md)  # (before it is read) its name is part of this finding
        outer_name = parse_skill_file(outer_md).name or os.path.basename(outer)
        sev = severity_of("nested-skill", target)
        if sev is not None:
            diags.append(Diagnostic(sev, "nested-skill",
                                    f"this skill is inside the skill `{outer_name}` ({outer_md}); its files are "
                                    "part of the outer skill too", hint="move it next to the outer skill, not inside it"))
    valid = not any(d.severity is Severity.ERROR for d in diags)
    return LintReport(path, draft.name, valid, tuple(diags))


def lint_file(path: str, *, target: Target = Target.SPEC, memo: dict[str, str | None] | None = None) -> LintReport:
    """Parse and lint one file (``SKILL.md`` or a near-miss such as ``skill.md``). Never raises.

    Adds the file-system checks: ``not-a-file`` (a directory named ``SKILL.md``),
    ``wrong-file-name``, ``nested-skill`` (naming the outer skill) and ``missing-reference``
    (``memo``: as for :func:`finish_lint`).
    """
    target = Target(target)
    base = os.path.basename(path)
    out = _Out(target)
    if os.path.isdir(path):
        out.add("not-a-file", f"`{base}` is a directory, not a file; no host can read it")
        return LintReport(path, None, False, tuple(out.items))
    special = _special_file_kind(path)
    if special is not None:  # never opened: reading a FIFO blocks, /dev/zero never ends
        out.add("not-a-file", f"`{base}` is {special}, not a regular file; no host can read it")
        return LintReport(path, None, False, tuple(out.items))
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return finish_lint(path, lint_draft(parse_skill_file(path), folder, target=target), memo)


def text_draft(text: str) -> tuple[tuple[Diagnostic, ...], tuple[Reference, ...]]:
    """The lint's checks on a decoded file that need nothing but its text — values cut by a YAML
    comment, invisible characters (graded as for ``spec``) — and the references its body makes,
    to check against the folder later (:func:`travel_checks`). For a client host's own verdict
    (SPEC N6), which has no field rules of the standard: every host hands the same text to its
    model."""
    out = _Out(Target.SPEC)
    split = split_document(text)
    if split.has_frontmatter and split.engine != JSON_ENGINE and not split.unclosed:
        comment_cut_checks(split.raw, split.raw_first_line, out.add)
    invisible_checks(split.text, out.add)
    refs = reference_candidates(split.body, split.body_line) if split.body_line and split.body.strip() else ()
    return tuple(out.items), refs


def travel_checks(path: str, refs: tuple[Reference, ...], *, zuno_resources: bool = False) -> tuple[Diagnostic, ...]:
    """``missing-reference`` / ``reference-outside`` (and, with ``zuno_resources``, the
    ``reference-spelling`` note: Zuno's ``read_resource`` refuses ``./``) for the references
    ``refs`` of the file at ``path``, against its folder as it is now. Never raises."""
    if not refs:
        return ()
    out = _Out(Target.SPEC)
    sink = out if zuno_resources else _Filtered(out, {"reference-spelling"})
    _reference_checks("", 0, os.path.dirname(os.path.abspath(path)), sink, refs)
    return tuple(out.items)


def text_checks(path: str, *, zuno_resources: bool = False) -> tuple[Diagnostic, ...]:
    """:func:`text_draft` and :func:`travel_checks` of the file at ``path``. Never raises (an
    unreadable file has no findings here)."""
    try:
        text = read_regular(path, 4 * 1024 * 1024).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    items, refs = text_draft(text)
    return items + travel_checks(path, refs, zuno_resources=zuno_resources)


def find_skill_files(root: str) -> list[str]:
    """Every ``SKILL.md`` under ``root`` (files, and directories wrongly named so), plus near-miss
    names (``skill.md`` …) in folders without a ``SKILL.md``. Follows directory symlinks once
    (loops are cut by real path) but never one pointing at an ancestor of ``root``; skips
    ``.git``, ``node_modules`` and similar; within skillshelf's walk limits
    (:mod:`skillshelf.core.walklimits`). Sorted. Iterative, so any depth works; folders that
    cannot be listed are skipped here (see :func:`lint_paths`, which reports them)."""
    return _walk_skill_files(root)[0]


def _walk_skill_files(root: str) -> tuple[list[str], list[tuple[str, str]], list[CatalogWarning]]:
    """``(files, unlistable, limits)``: the :func:`find_skill_files` result, ``(folder, reason)``
    for every folder that could not be listed (``File name too long (os error 36)`` …), and the
    walk-limit warnings (a symlinked ancestor not followed, a cap reached)."""
    found: list[str] = []
    failed: list[tuple[str, str]] = []
    limits: list[CatalogWarning] = []
    seen: set[tuple[int, int]] = set()
    top = os.path.realpath(root)
    stack: list[tuple[str, int, str | None]] = [(root, 0, None)]
    listed = 0
    deep = False
    while stack:
        dirpath, level, via = stack.pop()
        try:
            st = os.stat(dirpath)
        except OSError as exc:
            failed.append((dirpath, os_error_reason(exc)))
            continue
        if (st.st_dev, st.st_ino) in seen:  # a symlink loop or a second spelling: once only
            continue
        seen.add((st.st_dev, st.st_ino))
        if level > MAX_WALK_DEPTH:
            if not deep:
                deep = True
                limits.append(depth_warning(root, dirpath, via))
            continue
        dirnames: list[str] = []
        filenames: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(dirpath) as it:
                for entry in it:
                    listed += 1
                    if listed > MAX_WALK_ENTRIES:
                        limits.append(entries_warning(root, dirpath, via))
                        return sorted(found), failed, limits
                    try:
                        is_dir = entry.is_dir()  # follows symlinks, like os.walk(followlinks=True)
                        if is_dir and entry.is_symlink():
                            target = os.path.realpath(entry.path)
                            if is_ancestor(target, top):
                                limits.append(ancestor_warning(entry.path, target, root))
                                continue
                            links.add(entry.name)
                    except OSError:
                        is_dir = False
                    (dirnames if is_dir else filenames).append(entry.name)
        except OSError as exc:
            failed.append((dirpath, os_error_reason(exc)))
            continue
        if "SKILL.md" in dirnames:
            found.append(os.path.join(dirpath, "SKILL.md"))
        if "SKILL.md" in filenames:
            found.append(os.path.join(dirpath, "SKILL.md"))
        elif "SKILL.md" not in dirnames:
            for f in filenames:
                if is_near_miss(f):
                    found.append(os.path.join(dirpath, f))
        subdirs = sorted(d for d in dirnames if d not in SKIP_DIRS and d != "SKILL.md")
        for d in reversed(subdirs):
            path = os.path.join(dirpath, d)
            stack.append((path, level + 1, path if d in links else via))
    return sorted(found), failed, limits


def _dot_folder_note(report: LintReport, base: str | None, target: Target) -> LintReport:
    """``report`` with the note ``in-dot-folder`` when its file lies in a dot folder below the
    tree ``base`` it was found in: hosts that do not enter dot folders never read it from there."""
    if base is None:
        return report
    rel = os.path.relpath(os.path.dirname(report.path), base)
    dot = next((part for part in rel.split(os.sep) if part.startswith(".") and part not in (".", "..")), None)
    sev = severity_of("in-dot-folder", target)
    if dot is None or sev is None:
        return report
    note = Diagnostic(sev, "in-dot-folder",
                      f"this file is inside the dot folder `{dot}` below {base}: hosts that do not enter dot "
                      "folders (Zuno below skills.paths and .zuno/skill, Codex, Gemini CLI, opencode below its "
                      "skill folders and skills.paths) never read it from there",
                      hint=f"move it out of `{dot}`, or point the host at that folder itself")
    return LintReport(report.path, report.name, report.valid, report.diagnostics + (note,), report.refs)


def lint_paths(paths: Sequence[str], *, target: Target = Target.SPEC,
               linter: Callable[[str], LintReport] | None = None) -> list[LintReport]:
    """Lint skill directories, ``SKILL.md`` files or whole trees; one report per file, sorted by
    path, each file once. ``linter`` replaces :func:`lint_file` for ``target`` (a host's own
    verdict, SPEC N6). Raises ``FileNotFoundError`` naming the first path that does not exist."""
    for p in paths:
        if not os.path.lexists(p):
            raise FileNotFoundError(p)
    files: dict[str, str] = {}
    bases: dict[str, str] = {}
    unlistable: dict[str, str] = {}
    limited: list[CatalogWarning] = []
    for p in paths:
        if os.path.isdir(p) and os.path.basename(os.path.normpath(p)) != "SKILL.md":
            candidates: Iterable[str]
            candidates, failed, limits = _walk_skill_files(p)
            for folder, reason in failed:
                unlistable.setdefault(folder, reason)
            limited.extend(limits)
            for f in candidates:
                bases.setdefault(f, p)
        else:
            candidates = [p]
        for f in candidates:
            files.setdefault(os.path.abspath(f), f)
    one = linter if linter is not None else (lambda f: lint_file(f, target=target))
    reports = [_dot_folder_note(one(f), bases.get(f), target) for f in sorted(files.values())]
    # A folder that cannot be listed may hide skills: report it instead of dropping it (SPEC D4).
    reports += [
        LintReport(folder, None, False, (Diagnostic(
            Severity.ERROR, "unreadable", f"cannot list this folder: {reason}; skills below it were not checked"),))
        for folder, reason in sorted(unlistable.items())
    ]
    # The walk's safety limits: what was not walked is said, never dropped silently.
    reports += [LintReport(w.source, None, True, (Diagnostic(Severity.WARNING, w.kind, w.message),))
                for w in limited]
    return reports
