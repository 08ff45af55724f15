"""Codex CLI 0.171.0's parser for one ``SKILL.md`` and its ``agents/openai.yaml`` sidecar.

``SKILL.md`` (:func:`parse_skill`): the bytes must be UTF-8; the first line (trimmed) must be
``---`` and a later line that trims to ``---`` closes a non-empty block; the block is read by
serde_yaml into ``name``, ``description`` and ``metadata.short-description`` (any scalar is
text); when that fails a repair pass single-quotes ``key: value`` lines whose value holds
``: `` or starts like a broken flow value, and the original error stands if that does not help.
Strings are collapsed to one line. A missing name falls back to the directory name, a name is
at most 64 characters, a description must not be blank.

``agents/openai.yaml`` (:func:`load_sidecar`): any failure silently ignores the whole file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from skillshelf.core.fileread import FileTooLargeError, read_regular
from skillshelf.core.hosts.codex.serde import (
    RUST_WHITESPACE,
    Field,
    Reader,
    YamlError,
    collapse,
    from_str,
    rust_lines,
    trim,
    trim_end,
    trim_start,
    value_ok,
)
from skillshelf.core.model import Diagnostic, Severity

__all__ = [
    "MAX_DESCRIPTION_LEN",
    "MAX_NAME_LEN",
    "MAX_QUALIFIED_NAME_LEN",
    "SIDECAR",
    "Parsed",
    "Sidecar",
    "extract_frontmatter",
    "load_sidecar",
    "parse_sidecar",
    "parse_skill",
    "repair_scalars",
    "too_large_note",
    "utf8_error",
]

MAX_NAME_LEN = 64
MAX_QUALIFIED_NAME_LEN = MAX_NAME_LEN * 2 + 1
MAX_DESCRIPTION_LEN = 1024
#: Largest SKILL.md Codex reads (bytes); skillshelf's own safety limit
#: (:data:`~skillshelf.core.fileread.MAX_READ_BYTES`) is lower and applies first.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: The sidecar's place in the skill directory.
SIDECAR = "agents/openai.yaml"
MISSING_FRONTMATTER = "missing YAML frontmatter delimited by ---"


def utf8_error(data: bytes) -> str | None:
    """Rust's ``Utf8Error`` text for ``data``, ``None`` when it is valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":
            return f"incomplete utf-8 byte sequence from index {exc.start}"
        return f"invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"
    return None


def extract_frontmatter(text: str) -> str | None:
    """The lines between the opening and closing fences joined with ``\\n``; ``None`` when the
    first line is not a fence, nothing closes it, or the block is empty."""
    lines = rust_lines(text)
    if not lines or trim(lines[0]) != "---":
        return None
    block: list[str] = []
    for line in lines[1:]:
        if trim(line) == "---":
            return "\n".join(block) if block else None
        block.append(line)
    return None


def repair_scalars(block: str) -> str | None:
    """Codex's repair pass over a frontmatter block that failed to parse: every ``key: value``
    line (not in a block scalar, value not quoted) whose value holds ``:`` + whitespace, or
    starts with ``[``, ``{``, ``@`` or a backtick without parsing alone, gets the value
    single-quoted (a ``#comment`` kept outside). ``None`` when no line changed."""
    changed = False
    block_indent: int | None = None
    out: list[str] = []
    for line in rust_lines(block):
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if trim(line) == "" or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        if ":" not in line:
            out.append(line)
            continue
        key, value = line.split(":", 1)
        if trim(key) == "" or not (value == "" or value[0] in RUST_WHITESPACE):
            out.append(line)
            continue
        rest = trim_start(value)
        leading = value[: len(value) - len(rest)]
        scalar, comment = rest, ""
        for i, ch in enumerate(rest):
            if ch == "#" and (i == 0 or rest[i - 1] in RUST_WHITESPACE):
                cut = len(trim_end(rest[:i]))
                scalar, comment = rest[:cut], rest[cut:]
                break
        scalar = trim_end(scalar)
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
        colon = any(ch == ":" and i + 1 < len(scalar) and scalar[i + 1] in RUST_WHITESPACE
                    for i, ch in enumerate(scalar))
        broken_flow = first in "[{@`" and not value_ok(scalar)
        if not colon and not broken_flow:
            out.append(line)
            continue
        out.append(f"{key}:{leading}'{scalar.replace(chr(39), chr(39) * 2)}'{comment}")
        changed = True
    return "\n".join(out) if changed else None


def _frontmatter(r: Reader) -> dict[str, object]:
    def metadata(path: str) -> object:
        return r.struct("SkillFrontmatterMetadata", {"short-description": r.opt_string}, path)
    return r.struct("SkillFrontmatter", {"name": r.opt_string, "description": r.opt_string,
                                         "metadata": metadata}, "")


@dataclass(frozen=True)
class Parsed:
    """The verdict of Codex's parser on one ``SKILL.md``.

    Accepted (``error`` is ``None``): ``name`` (before any plugin namespace), ``description``
    and ``short_description`` collapsed; ``fields`` the typed frontmatter as read. Rejected:
    ``error`` is Codex's exact message; ``line``/``column`` 1-based in the whole file when
    Codex's message names a place. ``diagnostics``: silent fallbacks (name from the directory,
    collapsed text, the repair pass) and the error, each with its file line.
    """

    name: str | None = None
    description: str | None = None
    short_description: str | None = None
    error: str | None = None
    line: int | None = None
    column: int | None = None
    fields: dict[str, object] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()


def _place(block: str, exc: YamlError) -> tuple[int | None, int | None]:
    """File line/column (1-based) of a YAML error inside the block, which starts on line 2."""
    if exc.mark is not None:
        return exc.mark[0] + 2, exc.mark[1] + 1
    if exc.offset is not None:
        head = block.encode("utf-8")[: exc.offset].decode("utf-8", errors="replace")
        lines = head.split("\n")
        return len(lines) + 1, len(lines[-1]) + 1
    return None, None


def _key_line(block: str, key: str) -> int | None:
    """The file line of the top-level ``key:`` in the block (for fallback diagnostics)."""
    for i, line in enumerate(rust_lines(block)):
        if line.startswith(key + ":"):
            return i + 2
    return None


def parse_skill(data: bytes, directory: str) -> Parsed:
    """Codex's parser on the bytes of one ``SKILL.md`` in ``directory`` (the canonical skill
    folder: its name is the fallback skill name). Never raises."""
    bad = utf8_error(data)
    if bad is not None:
        return _reject("failed to read file: " + bad, None, None, "utf-8")
    text = data.decode("utf-8")
    block = extract_frontmatter(text)
    if block is None:
        return _reject(MISSING_FRONTMATTER, 1, None, "frontmatter")
    notes: list[Diagnostic] = []
    try:
        fields = from_str(block, _frontmatter)
    except YamlError as orig:
        repaired = repair_scalars(block)
        line, column = _place(block, orig)
        if repaired is None:
            return _reject("invalid YAML: " + orig.message, line, column, "yaml")
        try:
            fields = from_str(repaired, _frontmatter)
        except YamlError:
            return _reject("invalid YAML: " + orig.message, line, column, "yaml")
        notes.append(Diagnostic(
            Severity.WARNING, "codex-repaired",
            f"the frontmatter is not valid YAML ({orig.message}, Codex's parser counting lines from the one "
            "after the opening ---); Codex quotes values that hold ': ' or start like a flow value and reads it "
            "again", line=line, column=column))
    raw_name = fields.get("name")
    raw_desc = fields.get("description")
    meta = fields.get("metadata")
    raw_short = meta.get("short-description") if isinstance(meta, dict) else None
    name = collapse(raw_name) if isinstance(raw_name, str) else ""
    if not name:
        fallback = collapse(os.path.basename(directory)) or "skill"
        what = "no name" if raw_name is None else "a blank name"
        notes.append(Diagnostic(Severity.WARNING, "codex-name-from-directory",
                                f"the frontmatter has {what}; Codex names the skill after its directory: {fallback}",
                                field="name", line=_key_line(block, "name")))
        name = fallback
    elif name != raw_name:
        notes.append(_collapsed("name", block))
    desc = collapse(raw_desc) if isinstance(raw_desc, str) else ""
    if desc and desc != raw_desc:
        notes.append(_collapsed("description", block))
    short = collapse(raw_short) if isinstance(raw_short, str) else None
    if len(name) > MAX_NAME_LEN:
        return _reject(f"invalid name: exceeds maximum length of {MAX_NAME_LEN} characters",
                       _key_line(block, "name"), None, "name", notes, "name")
    if not desc:
        return _reject("missing field `description`", _key_line(block, "description"), None,
                       "description", notes, "description")
    return Parsed(name, desc, short or None, fields=dict(fields), diagnostics=tuple(notes))


def _collapsed(key: str, block: str) -> Diagnostic:
    return Diagnostic(Severity.INFO, "codex-collapsed",
                      f"Codex joins the {key} into one line (runs of whitespace and line breaks become one space)",
                      field=key, line=_key_line(block, key))


def _reject(message: str, line: int | None, column: int | None, what: str,
            notes: list[Diagnostic] | None = None, key: str | None = None) -> Parsed:
    diag = Diagnostic(Severity.ERROR, "codex-error", message, field=key, line=line, column=column)
    return Parsed(error=message, line=line, column=column, diagnostics=(*(notes or ()), diag))


# ---------------------------------------------------------------------------- agents/openai.yaml
_PRODUCTS = {"chatgpt": "chatgpt", "CHATGPT": "chatgpt", "codex": "codex", "CODEX": "codex",
             "atlas": "atlas", "ATLAS": "atlas"}
_IFACE_KEYS = ("display_name", "short_description", "icon_small", "icon_large", "brand_color", "default_prompt")


@dataclass(frozen=True)
class Sidecar:
    """What Codex takes from ``agents/openai.yaml`` (``path`` ``None`` = no usable file).

    ``interface``: the ``skills/list`` ``interface`` object (camelCase keys, nulls kept) or
    ``None``; ``dependencies``: ``{"tools": [...]}`` or ``None``; ``implicit``: the
    ``policy.allow_implicit_invocation`` bool (``None`` = unset); ``products``: the products
    listed (lower case); ``ignored``: why the whole file was ignored, when it was.
    """

    path: str | None = None
    interface: dict[str, str | None] | None = None
    dependencies: dict[str, list[dict[str, str]]] | None = None
    implicit: bool | None = None
    products: tuple[str, ...] = ()
    ignored: str | None = None

    @property
    def for_codex(self) -> bool:
        """False when ``policy.products`` names products and ``codex`` is not one of them."""
        return not self.products or "codex" in self.products


def _sidecar(r: Reader) -> dict[str, object]:
    def product(path: str) -> object:
        ev = r.take()
        if ev.kind == "alias":
            ev = r.events[ev.target]
        if ev.kind == "scalar" and ev.value in _PRODUCTS:
            return _PRODUCTS[ev.value]
        raise YamlError(f"{path}: unknown product", ev.mark)

    def tool(path: str) -> object:
        def oauth(p: str) -> object:
            return r.struct("DependencyOAuth", {"callbackPort": r.opt_string, "callback_port": r.opt_string}, p)
        keys: dict[str, Field] = dict.fromkeys(("type", "value", "description", "transport", "command", "url"), r.opt_string)
        keys["oauth"] = oauth
        return r.struct("DependencyTool", keys, path)

    def iface(path: str) -> object:
        return r.struct("SkillInterfaceFile", dict.fromkeys(_IFACE_KEYS, r.opt_string), path)

    def deps(path: str) -> object:
        return r.struct("Dependencies", {"tools": lambda q: r.seq(tool, q)}, path)

    def policy(path: str) -> object:
        return r.struct("Policy", {"allow_implicit_invocation": r.opt_bool,
                                   "products": lambda q: r.seq(product, q)}, path)

    return r.struct("SkillMetadataFile", {"interface": r.optional(iface), "dependencies": r.optional(deps),
                                          "policy": r.optional(policy)}, "")


def _text(value: object, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    value = collapse(value)
    return value if value and len(value) <= limit else None


def _asset(skill_dir: str, value: object) -> str | None:
    if not isinstance(value, str) or value == "" or value.startswith("/"):
        return None
    parts: list[str] = []
    for part in value.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            return None
        parts.append(part)
    if not parts or parts[0] != "assets":
        return None
    return os.path.join(skill_dir, *parts)


def _color(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = trim(value)
    ok = len(value) == 7 and value[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in value[1:])
    return value if ok else None


def parse_sidecar(text: str, skill_dir: str, path: str = "") -> Sidecar:
    """Codex's reading of an ``agents/openai.yaml`` text for the skill in ``skill_dir`` (a
    leading BOM is accepted, as libyaml accepts it). Any error ignores the whole file (``ignored`` says why)."""
    try:
        parsed = from_str(text, _sidecar)
    except YamlError as exc:
        return Sidecar(path or None, ignored=exc.message)
    iface: dict[str, str | None] | None = None
    raw = parsed.get("interface")
    if isinstance(raw, dict):
        iface = {
            "displayName": _text(raw.get("display_name"), MAX_NAME_LEN),
            "shortDescription": _text(raw.get("short_description"), MAX_DESCRIPTION_LEN),
            "iconSmall": _asset(skill_dir, raw.get("icon_small")),
            "iconLarge": _asset(skill_dir, raw.get("icon_large")),
            "iconSmallUrl": None,
            "iconLargeUrl": None,
            "brandColor": _color(raw.get("brand_color")),
            "defaultPrompt": _text(raw.get("default_prompt"), MAX_DESCRIPTION_LEN),
        }
        if not any(iface.values()):
            iface = None
    deps: dict[str, list[dict[str, str]]] | None = None
    raw = parsed.get("dependencies")
    if isinstance(raw, dict):
        tools: list[dict[str, str]] = []
        for t in raw.get("tools") or []:
            if not isinstance(t, dict):
                continue
            kind, value = _text(t.get("type"), MAX_NAME_LEN), _text(t.get("value"), MAX_DESCRIPTION_LEN)
            if kind is None or value is None:
                continue
            rec = {"type": kind, "value": value}
            for key, limit in (("description", MAX_DESCRIPTION_LEN), ("transport", MAX_NAME_LEN),
                               ("command", MAX_DESCRIPTION_LEN), ("url", MAX_DESCRIPTION_LEN)):
                v = _text(t.get(key), limit)
                if v is not None:
                    rec[key] = v
            tools.append(rec)
        deps = {"tools": tools} if tools else None
    policy = parsed.get("policy")
    implicit: bool | None = None
    products: tuple[str, ...] = ()
    if isinstance(policy, dict):
        value = policy.get("allow_implicit_invocation")
        implicit = value if isinstance(value, bool) else None
        listed = policy.get("products")
        if isinstance(listed, list):
            products = tuple(str(p) for p in listed)
    return Sidecar(path or None, iface, deps, implicit, products)


def too_large_note(exc: FileTooLargeError) -> str:
    """Why a file over skillshelf's read limit is not read, saying it is not Codex's rule."""
    return f"{exc} (Codex itself reads files up to {MAX_FILE_BYTES:,} bytes)"


def load_sidecar(skill_dir: str) -> Sidecar:
    """``skill_dir/agents/openai.yaml`` as Codex reads it (symlinks followed); an absent file
    is ``Sidecar()``, an unreadable or broken one is ignored with the reason. Never raises."""
    path = os.path.join(skill_dir, SIDECAR)
    try:
        if not os.path.isfile(path):
            return Sidecar()
        data = read_regular(path)
    except FileTooLargeError as exc:
        return Sidecar(path, ignored=f"cannot read it: {too_large_note(exc)}")
    except OSError as exc:
        return Sidecar(path, ignored=f"cannot read it: {exc.strerror or exc}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Sidecar(path, ignored="not UTF-8: " + (utf8_error(data) or ""))
    return parse_sidecar(text, skill_dir, path)
