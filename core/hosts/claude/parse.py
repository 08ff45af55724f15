"""One ``SKILL.md`` (or legacy command file) as Claude Code 2.1.332 reads it.

:func:`parse_skill` returns a :class:`ClaudeSkill`: the key (the folder name — Claude's
identity), the shown name, the description after the client's fallbacks and folding, the flags
that hide it, and :class:`~skillshelf.core.model.Diagnostic` findings for every silent fallback
(line numbers are 1-based in the whole file).

Rules (the client's own, see the host's module docstring for the evidence):

- the frontmatter block is ``^---\\s*\\n([\\s\\S]*?)---\\s*\\n?`` after one leading U+FEFF, tried
  only when ``---`` occurs again from offset 3: lazy, so it ends at the first ``---`` anywhere;
- YAML is ``Bun.YAML.parse``; when it fails, lines ``key: value`` whose unquoted value holds a
  YAML-special character are quoted and leading tabs become two spaces each, then it is parsed
  again; still failing (or not a mapping) → no metadata at all;
- description: a trimmed string, or a number / boolean as JavaScript prints it; otherwise
  the first non-blank body line (a ``#`` heading's text; over 100 UTF-16 units → 97 + ``...``),
  else ``Skill`` (``Custom command`` for a command);
- the shown name: ``String(name)`` unless empty, over 256 units or unfit to show;
- a key (folder name) unfit to offer, or a key / shown name in the reserved
  ``anthropic-skills`` namespace, and files over 1,000,000 bytes are not loaded.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skillshelf.core.hosts.claude import bunyaml
from skillshelf.core.hosts.claude.text import (
    JS_WHITESPACE,
    is_invisible,
    js_string,
    js_trim,
    sanitize,
    u16len,
    u16slice,
)
from skillshelf.core.model import Diagnostic, Severity

__all__ = [
    "FILE_LIMIT",
    "NAME_MAX",
    "ClaudeSkill",
    "Frontmatter",
    "first_line_description",
    "flag",
    "key_refusal",
    "listing_name_ok",
    "parse_skill",
    "reserved_folder",
    "reserved_name",
    "split_frontmatter",
]

#: Largest ``SKILL.md`` the client reads, in bytes (exactly this many is read).
FILE_LIMIT = 1_000_000
#: Longest key or shown name, in UTF-16 units.
NAME_MAX = 256

_WS = re.escape(JS_WHITESPACE)
_BLOCK = re.compile(r"^---[" + _WS + r"]*\n([\s\S]*?)---[" + _WS + r"]*\n?")
_HEADING = re.compile(r"^#+[" + _WS + r"]+([^" + _WS + r"][^\n\r\u2028\u2029]*)\Z")
_FALLBACK_LINE = re.compile(r"^([a-zA-Z_-]+):[" + _WS + r"]+([^" + _WS + r"].*)$")
_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_LEADING_TABS = re.compile(r"^\t+", re.MULTILINE)


@dataclass(frozen=True)
class Frontmatter:
    """The frontmatter split: ``metadata`` (``{}`` when none or unusable), ``body`` (what
    follows the block; the original text when there is no block), ``first_line`` the file line
    (1-based) of the YAML block's first line, ``error`` why the YAML was dropped (``None`` when
    it parsed), ``error_line`` its file line, ``rewritten`` file lines the quoting fallback
    changed (non-empty only when that second parse succeeded), ``block`` whether there was one."""

    metadata: Mapping[str, Any]
    body: str
    block: bool
    yaml_text: str = ""
    first_line: int = 2
    error: str | None = None
    error_line: int | None = None
    rewritten: tuple[int, ...] = ()
    body_line: int = 1


def _quote_fallback(text: str) -> tuple[str, list[int]]:
    """The client's rewrite after a failed parse: quote plain ``key: value`` lines whose value
    holds ``{}[]*&#!|>%@``` or ``": "``; returns the text and the changed line indexes."""
    out: list[str] = []
    changed: list[int] = []
    for i, line in enumerate(text.split("\n")):
        m = _FALLBACK_LINE.match(line)
        if m:
            key, value = m.group(1), m.group(2)
            if (value.startswith('"') and value.endswith('"')) or (value.startswith("'") and value.endswith("'")):
                out.append(line)
                continue
            if value.startswith("[") and value.endswith("]"):
                try:
                    if isinstance(bunyaml.parse(value), list):
                        out.append(line)
                        continue
                except bunyaml.YamlError:
                    pass
            if _SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'{key}: "{escaped}"')
                changed.append(i)
                continue
        out.append(line)
    return "\n".join(out), changed


def split_frontmatter(text: str) -> Frontmatter:
    """The frontmatter block of ``text`` and its YAML, the client's way (module docstring)."""
    original = text
    if text[:1] == "\ufeff":
        text = text[1:]
    m = _BLOCK.match(text) if text.find("---", 3) >= 0 else None
    if m is None:
        return Frontmatter({}, original, False)
    yaml_text = m.group(1) or ""
    first_line = text.count("\n", 0, m.start(1)) + 1
    body = text[m.end():]
    body_line = text.count("\n", 0, m.end()) + 1
    try:
        value = bunyaml.parse(yaml_text)
        rewritten: tuple[int, ...] = ()
    except bunyaml.YamlError as first:
        quoted, changed = _quote_fallback(yaml_text)
        fixed = _LEADING_TABS.sub(lambda t: "  " * len(t.group(0)), quoted)
        tabbed = [i for i, line in enumerate(yaml_text.split("\n")) if line.startswith("\t")]
        try:
            value = bunyaml.parse(fixed)
        except bunyaml.YamlError as second:
            line = second.line if second.line is not None else first.line
            return Frontmatter({}, body, True, yaml_text, first_line, second.message,
                               None if line is None else first_line + line, body_line=body_line)
        rewritten = tuple(first_line + i for i in sorted(set(changed) | set(tabbed)))
    if not isinstance(value, dict):
        kind = "empty" if value is None else type(value).__name__
        return Frontmatter({}, body, True, yaml_text, first_line,
                           None if value is None else f"not a mapping ({kind})", None, rewritten, body_line)
    return Frontmatter({str(k): v for k, v in value.items()}, body, True, yaml_text, first_line,
                       rewritten=rewritten, body_line=body_line)


def first_line_description(body: str, fallback: str = "Skill") -> tuple[str, int | None]:
    """The description the client takes from ``body``: the first line (split on ``\\n``) that is
    not blank after ``trim()``, a ``#`` heading's text, cut to 97 UTF-16 units + ``...`` when over
    100; ``(fallback, None)`` without one. Returns (text, 0-based line index in ``body``)."""
    for i, line in enumerate(body.split("\n")):
        trimmed = js_trim(line)
        if trimmed:
            m = _HEADING.match(trimmed)
            text = m.group(1) if m else trimmed
            return (u16slice(text, 97) + "..." if u16len(text) > 100 else text), i
    return fallback, None


def flag(value: Any) -> bool | None:
    """A boolean-like frontmatter value: ``True``/``False``, or a string / number whose trimmed
    lower-case form is ``1/true/yes/on`` (True) or ``0/false/no/off`` (False); else ``None``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, int, float)):
        n = js_trim(js_string(value)).lower()
        if n in ("1", "true", "yes", "on"):
            return True
        if n in ("0", "false", "no", "off"):
            return False
    return None


# ------------------------------------------------------------------------------------- names

def _showable(name: str) -> str | None:
    """Why ``name`` cannot be shown (``None`` = it can): length, control / invisible characters,
    ``<``/``>``, edge or non-ASCII spaces, U+FFFC."""
    if not 0 < u16len(name) <= NAME_MAX:
        return "it is empty or over 256 characters"
    if any(c in "<>" for c in name) or any(is_invisible(c) for c in name):
        return "it holds hidden, direction-changing or control characters, < or >"
    if name.startswith(" ") or name.endswith(" "):
        return "it starts or ends with a space"
    if any(unicodedata.category(c) == "Zs" and c != " " for c in name) or "\ufffc" in name:
        return "it holds a blank-like character other than a plain space"
    return None


def _name_refusal(name: str) -> str | None:
    why = _showable(name)
    if why is not None:
        return why
    if "  " in name:
        return "it holds two spaces in a row"
    prev_ok = False
    run = 0
    for c in name:
        cat = unicodedata.category(c)
        if cat.startswith("M"):
            if not prev_ok:
                return "it holds a combining mark with nothing to combine with"
            run += 1
            if run >= 9:
                return "it holds too many combining marks in a row"
        else:
            run = 0
        prev_ok = cat[0] in "LNM"
    return None


_COLON_SPACE = re.compile(r"(?:^|:) | (?::|$)|^:|:$")


def key_refusal(key: str) -> str | None:
    """Why the client does not offer a skill whose folder is named ``key`` (``None`` = it does):
    the shown-name rules, two spaces, stray combining marks, a space next to a colon, a leading
    or trailing colon."""
    why = _name_refusal(key)
    if why is not None:
        return why
    if _COLON_SPACE.search(key):
        return "it starts or ends with a colon, or has a space next to a colon"
    return None


def shown_refusal(name: str) -> str | None:
    """Why a frontmatter ``name`` is not shown (``&lt;``/``&gt;`` count as ``<``/``>``)."""
    return _name_refusal(re.sub(r"&[lg]t;", "<", name))


def listing_name_ok(name: str) -> bool:
    """Whether a shown name may appear in the listing as ``key (name)``: letters, marks,
    digits and ``_:.-`` only, 1–256 UTF-16 units."""
    if not name or u16len(name) > NAME_MAX:
        return False
    return all(c in "_:.-" or unicodedata.category(c)[0] in "LMN" for c in name)


def reserved_name(name: str) -> bool:
    """``anthropic-skills`` and ``anthropic-skills:*`` (any case): the claude.ai synced namespace."""
    low = name.lower()
    return low == "anthropic-skills" or low.startswith("anthropic-skills:")


def reserved_folder(name: str) -> bool:
    """A folder named ``synced`` (any case, trailing dots and spaces and invisible marks
    ignored), which the client never reads as a skill."""
    n = re.sub(r"[. ]+$", "", name)
    n = re.sub(r"[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]", "", n)
    return unicodedata.normalize("NFD", n).upper().lower() == "synced"


# ------------------------------------------------------------------------------------- one file

@dataclass(frozen=True)
class ClaudeSkill:
    """What the client makes of one file.

    ``key``: identity and command name (folder name; a command's ``ns:leaf`` path);
    ``display``: the shown frontmatter name (``None`` = the key is shown); ``description``:
    sanitised, without ``when_to_use``; ``when``: sanitised ``when_to_use`` or ``None``;
    ``dmi``: ``disable-model-invocation``; ``paths``: the conditional patterns (``None`` =
    unconditional); ``refused``: why it is not loaded at all (``None`` = loaded).
    """

    key: str
    display: str | None
    description: str
    when: str | None
    dmi: bool
    user_invocable: bool
    paths: tuple[str, ...] | None
    metadata: Mapping[str, Any]
    body: str
    refused: str | None = None
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    @property
    def shown(self) -> str:
        """The name the dialog shows: the frontmatter name, else the key."""
        return self.display or self.key

    @property
    def listing_description(self) -> str:
        """``description`` plus `` - when_to_use`` when that is non-empty."""
        return f"{self.description} - {self.when}" if self.when else self.description


def _brace_expand(pattern: str) -> list[str]:
    out: list[str] = []
    stack = [pattern]
    while stack:
        h = stack.pop()
        m = re.match(r"^([^{]*)\{([^}]+)\}(.*)$", h, re.DOTALL)
        if not m:
            out.append(h)
            continue
        for part in reversed([x.strip() for x in m.group(2).split(",")]):
            stack.append(m.group(1) + part + m.group(3))
    return out


def _split_patterns(value: Any) -> list[str]:
    if isinstance(value, list):
        return [p for item in value for p in _split_patterns(item)]
    if not isinstance(value, str):
        return []
    parts: list[str] = []
    cur, depth = "", 0
    for c in value:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            if cur.strip():
                parts.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        parts.append(cur.strip())
    return [x for p in parts for x in (_brace_expand(p) if "{" in p else [p])]


def conditional_paths(value: Any) -> tuple[str, ...] | None:
    """The ``paths:`` patterns that make a skill conditional, ``None`` when unconditional
    (absent, empty, or only ``**`` after dropping a trailing ``/**``)."""
    if value is None or value is False or value == "" or value == 0:
        return None
    pats = [p.removesuffix("/**") for p in _split_patterns(value)]
    pats = [p for p in pats if p]
    if not pats or all(p == "**" for p in pats):
        return None
    return tuple(pats)


def _key_line(fm: Frontmatter, key: str) -> int | None:
    pat = re.compile(r"^" + re.escape(key) + r"[ \t]*:")
    for i, line in enumerate(fm.yaml_text.split("\n")):
        if pat.match(line):
            return fm.first_line + i
    return None


def _info(code: str, message: str, field_: str | None = None, line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.INFO, code, message, field=field_, line=line)


def _warn(code: str, message: str, field_: str | None = None, line: int | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, field=field_, line=line)


def _text_of(data: bytes) -> tuple[str, int | None]:
    """UTF-8 with each invalid sequence → U+FFFD; the 1-based line of the first invalid byte."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", "replace"), data.count(b"\n", 0, exc.start) + 1


def parse_skill(data: bytes, key: str, *, command: bool = False) -> ClaudeSkill:
    """The client's reading of one file whose key is ``key`` (a skill's folder name, or a
    legacy command's ``ns:leaf``). ``command``: a ``.claude/commands`` file (its key is not
    checked, its shown name is its key, its description falls back to ``Custom command``).
    Never raises."""
    diags: list[Diagnostic] = []
    text, bad_line = _text_of(data)
    if bad_line is not None:
        diags.append(_warn("claude-not-utf8", "invalid UTF-8 bytes are read as U+FFFD", line=bad_line))
    fm = split_frontmatter(text)
    meta = fm.metadata
    if not fm.block:
        stripped = text.lstrip("\ufeff")
        if stripped.lstrip(JS_WHITESPACE).startswith("---") or stripped.startswith("---"):
            diags.append(_warn("claude-no-frontmatter",
                               "no frontmatter block Claude Code recognises (the opening --- must be the first "
                               "line, followed by a line break, and closed by another ---): no metadata is read",
                               line=1))
        else:
            diags.append(_info("claude-no-frontmatter", "no frontmatter: Claude Code reads no metadata", line=1))
    elif fm.error is not None:
        if fm.error.startswith("not a mapping") or fm.error == "empty":
            diags.append(_warn("claude-metadata-dropped", f"frontmatter is {fm.error}: Claude Code uses no metadata",
                               line=fm.first_line))
        else:
            diags.append(_warn("claude-metadata-dropped",
                               f"YAML frontmatter failed to parse and was ignored: {fm.error}; "
                               "name, description and every other field fall back",
                               line=fm.error_line or fm.first_line))
    for n in fm.rewritten:
        diags.append(_info("claude-yaml-fallback",
                           "invalid YAML read through Claude Code's fallback (the value is quoted, leading "
                           "tabs become spaces); quote the value so every parser agrees", line=n))
    for wrong, right in (("Name", "name"), ("Description", "description"), ("when-to-use", "when_to_use"),
                         ("NAME", "name"), ("DESCRIPTION", "description")):
        if wrong in meta and right not in meta:
            diags.append(_warn("claude-key-case", f"`{wrong}` is not read: Claude Code's keys are `{right}`",
                               field_=wrong, line=_key_line(fm, wrong)))

    # description (GIe), else the first body line (Ize)
    raw_desc = meta.get("description")
    desc: str | None = None
    desc_line = _key_line(fm, "description")
    if isinstance(raw_desc, str):
        desc = js_trim(raw_desc) or None
        if desc is None:
            diags.append(_info("claude-description-fallback", "description is empty: Claude Code uses the first body "
                               "line instead", "description", desc_line))
    elif isinstance(raw_desc, (bool, int, float)):
        desc = js_string(raw_desc)
        diags.append(_info("claude-description-coerced", f"description is not a string: Claude Code shows {desc!r}",
                           "description", desc_line))
    elif raw_desc is not None:
        diags.append(_warn("claude-description-invalid", f"description is a {'list' if isinstance(raw_desc, list) else 'mapping'}: "
                           "Claude Code omits it and uses the first body line", "description", desc_line))
    if desc is None:
        fallback = "Custom command" if command else "Skill"
        desc, idx = first_line_description(fm.body, fallback)
        if raw_desc is None or isinstance(raw_desc, str):
            where = f"line {fm.body_line + idx}" if idx is not None else "none: no body text"
            if raw_desc is None:
                cause = "the metadata was dropped" if fm.error is not None else "no description"
                diags.append(_info("claude-description-fallback",
                                   f"{cause}: Claude Code uses the first body line ({where})",
                                   "description", fm.body_line + idx if idx is not None else None))
    description = sanitize(desc)
    if description != desc and "<" not in desc and ">" not in desc:
        diags.append(_info("claude-description-folded", "control characters, line breaks or invisible characters in "
                           "the description become single spaces", "description", desc_line))
    elif description != desc:
        diags.append(_info("claude-description-escaped", "< and > in the description are sent as &lt; and &gt;"
                           + ("" if description.replace("&lt;", "<").replace("&gt;", ">") == desc else
                              "; control characters and line breaks become single spaces"),
                           "description", desc_line))

    # shown name
    display: str | None = None
    raw_name = meta.get("name")
    name_line = _key_line(fm, "name")
    if raw_name is not None and not command:
        shown = js_string(raw_name)
        if u16len(shown) > NAME_MAX:
            diags.append(_warn("claude-name-ignored", f"frontmatter name is over {NAME_MAX} characters: Claude Code "
                               f"ignores it and shows `{key}`", "name", name_line))
        elif shown == "":
            diags.append(_info("claude-name-ignored", f"frontmatter name is empty: Claude Code shows `{key}`",
                               "name", name_line))
        else:
            unfit = shown_refusal(shown)
            if unfit is not None:
                diags.append(_warn("claude-name-ignored", f"frontmatter name is not shown because {unfit}: Claude Code "
                                   f"shows `{key}`", "name", name_line))
            else:
                display = shown
    if display is not None and display != key:
        diags.append(_info("claude-name-is-folder", f"Claude Code knows this skill as `{key}` (its folder); the "
                           f"frontmatter name `{display}` is only shown beside it", "name", name_line))
        if not listing_name_ok(display) or key.endswith(":" + display):
            diags.append(_info("claude-name-not-listed", f"the model listing shows `- {key}` without the frontmatter "
                               "name (it holds characters other than letters, digits and _:.-)", "name", name_line))
    elif raw_name is None and not command:
        cause = "the metadata was dropped" if fm.error is not None else "no name"
        diags.append(_info("claude-name-from-folder", f"{cause}: Claude Code names it `{key}` after its folder"))

    when: str | None = None
    if meta.get("when_to_use") is not None:
        when = sanitize(js_string(meta["when_to_use"]))
    dmi = bool(flag(meta.get("disable-model-invocation")))
    for fld in ("disable-model-invocation", "user-invocable"):
        if fld in meta and meta[fld] is not None and flag(meta[fld]) is None:
            diags.append(_info("claude-flag-value", f"{fld}: {js_string(meta[fld])!r} is not a yes/no value: Claude "
                               f"Code reads it as false", fld, _key_line(fm, fld)))
    user_invocable = True if "user-invocable" not in meta else bool(flag(meta["user-invocable"]))
    paths = conditional_paths(meta.get("paths"))
    if paths is not None:
        diags.append(_info("claude-conditional", "paths: makes this a conditional skill: Claude Code loads it only "
                           "after a file matching " + ", ".join(paths) + " is read or edited", "paths",
                           _key_line(fm, "paths")))

    refused: str | None = None
    if not command:
        unfit = key_refusal(key)
        if unfit is not None:
            refused = f"[names] {key} is not offered: {unfit}"
        elif reserved_name(key) or (display is not None and reserved_name(display)):
            which = "its folder name" if reserved_name(key) else "its frontmatter name"
            refused = (f"not loading {key!r}: {which} uses \"anthropic-skills\", a name reserved for the skills "
                       "synced from a claude.ai account")
    if refused is not None:
        diags.insert(0, Diagnostic(Severity.ERROR, "claude-refused", refused,
                                   field="name" if refused.startswith("not loading") and not reserved_name(key) else None,
                                   line=name_line if refused.startswith("not loading") and not reserved_name(key) else None))
    body = fm.body if fm.block else text
    return ClaudeSkill(key=key, display=display, description=description, when=when, dmi=dmi,
                       user_invocable=user_invocable, paths=paths, metadata=meta, body=body,
                       refused=refused, diagnostics=tuple(diags))
