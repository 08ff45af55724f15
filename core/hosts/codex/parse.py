"""Codex's reading of one ``SKILL.md`` and its ``agents/openai.yaml`` sidecar (exact messages).

- The file must start with a ``---`` line (surrounding White_Space allowed) and have a closing
  ``---`` line with a non-empty block between; else ``missing YAML frontmatter delimited by ---``
  (a BOM, a blank first line, an unclosed or empty block, CR-only line ends).
- The block is read as ``{name?, description?, metadata: {short-description?}}``
  (:mod:`.serde`); on failure one repair pass single-quotes ``key: value`` lines whose value holds
  ``: `` or starts like a broken flow value; if that fails too the original error is reported as
  ``invalid YAML: <message>``.
- Strings are collapsed to one line; a missing or blank name is the folder name (``skill`` when
  that is empty); names over 64 characters are refused; a missing or blank description is
  ``missing field `description```.
- ``agents/openai.yaml``: interface, dependencies and policy; any failure ignores the whole file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.codex import text as rs
from skillshelf.core.hosts.codex.serde import Decoder, YamlError, from_str, value_ok

__all__ = [
    "MAX_DESCRIPTION_LEN",
    "MAX_NAME_LEN",
    "ParseError",
    "Parsed",
    "Sidecar",
    "error_line",
    "extract_frontmatter",
    "load_sidecar",
    "parse_skill",
    "repair",
]

MAX_NAME_LEN = 64  # characters
MAX_DESCRIPTION_LEN = 1024  # characters
MISSING_FRONTMATTER = "missing YAML frontmatter delimited by ---"


class ParseError(ValueError):
    """Codex refuses the file; ``str(exc)`` is its exact message."""


@dataclass(frozen=True)
class Parsed:
    """An accepted file: ``name`` and ``description`` collapsed (``name_from_folder`` when the
    name came from the folder), ``short_description`` from ``metadata.short-description``, and
    ``repaired`` when only the repair pass made the YAML load."""

    name: str
    description: str
    short_description: str | None
    name_from_folder: bool
    repaired: bool


def extract_frontmatter(contents: str) -> str | None:
    """The block between the ``---`` lines, or ``None`` (see the module docstring)."""
    lines = rs.lines(contents)
    if not lines or rs.trim(lines[0]) != "---":
        return None
    block: list[str] = []
    for line in lines[1:]:
        if rs.trim(line) == "---":
            return "\n".join(block) if block else None
        block.append(line)
    return None


def repair(block: str) -> str | None:
    """The repaired block, or ``None`` when no line changed (Codex's scalar-field repair)."""
    changed = False
    block_indent: int | None = None
    out: list[str] = []
    for line in rs.lines(block):
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if rs.trim(line) == "" or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        if ":" not in line:
            out.append(line)
            continue
        key, value = line.split(":", 1)
        if rs.trim(key) == "" or not (value == "" or value[0] in rs.RUST_WS):
            out.append(line)
            continue
        trimmed = rs.trim_start(value)
        leading = value[: len(value) - len(trimmed)]
        scalar, comment = trimmed, ""
        for idx, ch in enumerate(trimmed):
            if ch == "#" and (idx == 0 or trimmed[idx - 1] in rs.RUST_WS):
                cut = len(rs.trim_end(trimmed[:idx]))
                scalar, comment = trimmed[:cut], trimmed[cut:]
                break
        scalar = rs.trim_end(scalar)
        if scalar == "":
            out.append(line)
            continue
        first = scalar[0]
        if first in "|>":
            block_indent = indent
            out.append(line)
            continue
        if first in "'\"":
            out.append(line)
            continue
        colon = any(ch == ":" and i + 1 < len(scalar) and scalar[i + 1] in rs.RUST_WS for i, ch in enumerate(scalar))
        broken_flow = first in "[{@`" and not value_ok(scalar)
        if not colon and not broken_flow:
            out.append(line)
            continue
        out.append(f"{key}:{leading}'{scalar.replace(chr(39), chr(39) * 2)}'{comment}")
        changed = True
    return "\n".join(out) if changed else None


def _frontmatter(de: Decoder) -> dict[str, object]:
    def meta(p: str) -> object:
        return de.struct("SkillFrontmatterMetadata", {"short-description": de.opt_string}, p)
    return de.struct("SkillFrontmatter", {"name": de.opt_string, "description": de.opt_string, "metadata": meta}, "")


def parse_skill(contents: str, folder: str) -> Parsed:
    """Codex's verdict on one file's text (``folder``: the skill folder's name). Raises ParseError."""
    block = extract_frontmatter(contents)
    if block is None:
        raise ParseError(MISSING_FRONTMATTER)
    repaired = False
    try:
        fields = from_str(block, _frontmatter)
    except YamlError as original:
        fixed = repair(block)
        if fixed is None:
            raise ParseError(f"invalid YAML: {original}") from None
        try:
            fields = from_str(fixed, _frontmatter)
        except YamlError:
            raise ParseError(f"invalid YAML: {original}") from None
        repaired = True
    raw_name = fields.get("name")
    name = rs.collapse(raw_name) if isinstance(raw_name, str) else ""
    from_folder = not name
    if from_folder:
        name = rs.collapse(folder) or "skill"
    raw_desc = fields.get("description")
    desc = rs.collapse(raw_desc) if isinstance(raw_desc, str) else ""
    meta = fields.get("metadata")
    raw_short = meta.get("short-description") if isinstance(meta, dict) else None
    short = rs.collapse(raw_short) if isinstance(raw_short, str) else None
    if len(name) > MAX_NAME_LEN:
        raise ParseError(f"invalid name: exceeds maximum length of {MAX_NAME_LEN} characters")
    if not desc:
        raise ParseError("missing field `description`")
    return Parsed(name, desc, short or None, from_folder, repaired)


_AT = re.compile(r" at line (\d+) column (\d+)")


def error_line(message: str) -> tuple[int | None, int | None]:
    """The file line and column of a YAML error message (its marks count from the first line
    inside the fences, so file line = mark + 1), or ``(None, None)``."""
    m = _AT.search(message)
    if m is None:
        return None, None
    return int(m.group(1)) + 1, int(m.group(2))


# ---------------------------------------------------------------------------- agents/openai.yaml

PRODUCTS = {"chatgpt": "chatgpt", "CHATGPT": "chatgpt", "codex": "codex", "CODEX": "codex",
            "atlas": "atlas", "ATLAS": "atlas"}


@dataclass(frozen=True)
class Sidecar:
    """What ``agents/openai.yaml`` gives: the ``interface`` and ``dependencies`` records of
    ``skills/list`` (``None`` when absent), ``implicit`` False for
    ``policy.allow_implicit_invocation: false``, ``products`` (empty = every product)."""

    interface: dict[str, str | None] | None = None
    dependencies: dict[str, list[dict[str, str]]] | None = None
    implicit: bool = True
    products: tuple[str, ...] = ()


def _sidecar(de: Decoder) -> dict[str, object]:
    def product(p: str) -> object:
        e = de.next()
        if e.kind == "alias" and isinstance(e.value, int):
            e = de.events[e.value]
        if e.kind == "scalar" and isinstance(e.value, str) and e.value in PRODUCTS:
            return PRODUCTS[e.value]
        raise YamlError("bad product")

    def oauth(q: str) -> object:
        return de.struct("DependencyOAuth", {"callbackPort": de.opt_string, "callback_port": de.opt_string}, q)

    def tool(p: str) -> object:
        return de.struct("DependencyTool", {"type": de.opt_string, "value": de.opt_string,
                                            "description": de.opt_string, "transport": de.opt_string,
                                            "command": de.opt_string, "url": de.opt_string, "oauth": oauth}, p)

    def iface(p: str) -> object:
        keys = ("display_name", "short_description", "icon_small", "icon_large", "brand_color", "default_prompt")
        return de.struct("SkillInterfaceFile", dict.fromkeys(keys, de.opt_string), p)

    def deps(p: str) -> object:
        return de.struct("Dependencies", {"tools": lambda q: de.seq(tool, q, "a sequence")}, p)

    def policy(p: str) -> object:
        return de.struct("Policy", {"allow_implicit_invocation": de.opt_bool,
                                    "products": lambda q: de.seq(product, q, "a sequence")}, p)

    def optional(reader: object) -> object:
        def f(p: str) -> object:
            e = de.peek()
            if e.kind == "scalar" and e.style == "" and e.tag is None and (e.value in ("~", "null", "Null", "NULL", "")):
                de.pos += 1
                return None
            assert callable(reader)
            return reader(p)
        return f

    fields = cast(dict[str, Callable[[str], object]], {
        "interface": optional(iface), "dependencies": optional(deps), "policy": optional(policy)})
    return de.struct("SkillMetadataFile", fields, "")


def _limited(v: object, max_len: int) -> str | None:
    if not isinstance(v, str):
        return None
    v = rs.collapse(v)
    return v if v and len(v) <= max_len else None


def _asset(skill_dir: str, p: object) -> str | None:
    if not isinstance(p, str) or p == "" or p.startswith("/"):
        return None
    comps: list[str] = []
    for c in p.split("/"):
        if c in ("", "."):
            continue
        if c == "..":
            return None
        comps.append(c)
    if not comps or comps[0] != "assets":
        return None
    return os.path.join(skill_dir, *comps)


def _color(v: object) -> str | None:
    if not isinstance(v, str):
        return None
    v = rs.trim(v)
    if len(v.encode()) == 7 and v[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in v[1:]):
        return v
    return None


def load_sidecar(skill_dir: str) -> Sidecar:
    """``<skill_dir>/agents/openai.yaml`` as Codex reads it (a file that fails is ignored whole)."""
    path = os.path.join(skill_dir, "agents", "openai.yaml")
    if not os.path.isfile(path):
        return Sidecar()
    try:
        parsed = from_str(read_regular(path).decode("utf-8"), _sidecar)
    except (OSError, UnicodeDecodeError, YamlError, ValueError):
        return Sidecar()
    interface: dict[str, str | None] | None = None
    i = parsed.get("interface")
    if isinstance(i, dict):
        interface = {
            "displayName": _limited(i.get("display_name"), MAX_NAME_LEN),
            "shortDescription": _limited(i.get("short_description"), MAX_DESCRIPTION_LEN),
            "iconSmall": _asset(skill_dir, i.get("icon_small")),
            "iconLarge": _asset(skill_dir, i.get("icon_large")),
            "iconSmallUrl": None,
            "iconLargeUrl": None,
            "brandColor": _color(i.get("brand_color")),
            "defaultPrompt": _limited(i.get("default_prompt"), MAX_DESCRIPTION_LEN),
        }
        if not any(interface[k] for k in ("displayName", "shortDescription", "iconSmall", "iconLarge",
                                          "brandColor", "defaultPrompt")):
            interface = None
    dependencies: dict[str, list[dict[str, str]]] | None = None
    d = parsed.get("dependencies")
    if isinstance(d, dict):
        tools: list[dict[str, str]] = []
        for t in d.get("tools") or []:
            if not isinstance(t, dict):
                continue
            kind, value = _limited(t.get("type"), MAX_NAME_LEN), _limited(t.get("value"), MAX_DESCRIPTION_LEN)
            if kind is None or value is None:
                continue
            rec = {"type": kind, "value": value}
            for k, lim in (("description", MAX_DESCRIPTION_LEN), ("transport", MAX_NAME_LEN),
                           ("command", MAX_DESCRIPTION_LEN), ("url", MAX_DESCRIPTION_LEN)):
                v = _limited(t.get(k), lim)
                if v is not None:
                    rec[k] = v
            tools.append(rec)
        if tools:
            dependencies = {"tools": tools}
    pol = parsed.get("policy")
    implicit, products = True, cast(tuple[str, ...], ())
    if isinstance(pol, dict):
        implicit = pol.get("allow_implicit_invocation") is not False
        prods = pol.get("products") or []
        products = tuple(p for p in prods if isinstance(p, str)) if isinstance(prods, list) else ()
    return Sidecar(interface, dependencies, implicit, products)
