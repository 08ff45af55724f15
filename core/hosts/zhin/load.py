"""What Zhin's ``load_skill`` hands the model for one ``SKILL.md`` (SPEC Z4; zhin-scenarios §2).

Zhin does not return the body verbatim: it builds an *extracted* instruction text. The rules
below restate the behaviour of Zhin's ``extractSkillInstructions`` (zhinjs/zhin,
``packages/im/agent/src/skill/skill-instructions.ts``) as observed; every literal comes from
zhin-scenarios §2:

1. Header line ``Skill '<name>' loaded. 请立即根据以下指导执行工具调用：`` (full-width colon) and a
   blank line.
2. Frontmatter is recognised by a *lenient* pattern: the text starts with ``---``, optional
   whitespace, a line break, then the shortest run up to the first ``\\n---`` (a *substring*
   match — ``\\n----`` or ``\\n---x`` also close it). No BOM is skipped (Zhin reads the file as
   UTF-8 text without removing it).
3. ``## 可用工具`` block: when the frontmatter holds ``tools:`` followed by a line break and one
   or more ``- item`` lines, the whole match (``tools:`` included, trimmed) is copied under the
   heading. A flow list (``tools: [a, b]``) gives no block. The pattern is not anchored to the
   start of a line, so ``allowed-tools:`` with a block list also matches (bug-compatible).
4. Body = the text after the frontmatter with leading whitespace removed (the whole text when
   there is no frontmatter).
5. When a quick-action section (``## 快速操作`` / ``## Quick Actions``, searched in the body)
   exists and ``limit`` ≤ 2,000, it is used alone, followed by the act-now ending.
6. Else ``## 执行规则`` (case-sensitive, searched in the *whole file*), else ``## Workflow`` /
   ``## Instructions`` / ``## 使用说明`` (case-insensitive, whole file). The section runs from its
   heading to the next ``\\n## <non-space>`` or the end, is trimmed, and is never truncated.
7. Else ``## 指导`` + the intro (body before the first ``\\n## <non-space>``, trimmed). A detail
   block follows when a quick-start (``## 快速开始`` / ``## Quick Start`` / ``## Getting Started``)
   or auth (``## 认证`` / ``## Authentication`` / ``## Auth``) section exists, or when the intro
   is shorter than 200 and the body is longer than the intro: the quick-start and auth sections
   joined by a blank line, else the body from offset ``len(intro)`` on, trimmed. A detail longer
   than ``limit`` is cut to ``limit`` and gets the marker ``\\n...(truncated)``.
8. Always the ending ``## 立即行动`` + the act-now line.

Section headings are found as substrings (``### Workflow`` contains ``## Workflow``), exactly as
Zhin does. Whitespace means JavaScript's ``\\s`` / ``trim`` set (:data:`JS_WHITESPACE`), and
``.`` excludes JavaScript's line terminators, so results match Zhin on unusual characters.

**Documented divergence (SPEC Z):** Zhin measures ``limit``, the 200 threshold and the
``len(intro)`` offset in UTF-16 code units; skillshelf counts characters (Unicode scalar
values). The two differ only for text outside the Basic Multilingual Plane (emoji …).

The dependency warning (SPEC Z5) is prefixed by :func:`zhin_read_instructions`; see
:mod:`skillshelf.core.zhin_deps`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.zhin.deps import declared_deps, dependency_warning_text, missing_deps
from skillshelf.core.hosts.zhin.markdown import JS_WHITESPACE, js_trim, load_zhin_yaml
from skillshelf.core.tool import LiveCatalog, ToolError, ToolResult
from skillshelf.core.yamlload import YamlError

__all__ = [
    "ACT_NOW",
    "ACT_NOW_HEADING",
    "DEFAULT_LIMIT",
    "GUIDE_HEADING",
    "JS_WHITESPACE",
    "LOAD_HEADER",
    "MODEL_SIZE_LIMITS",
    "QUICK_ACTION_MAX_LIMIT",
    "TOOLS_HEADING",
    "TRUNCATION_MARKER",
    "ZhinLoadTool",
    "js_trim",
    "zhin_load_text",
    "zhin_read_instructions",
]

#: Load header; ``{name}`` is the skill name. Ends with U+FF1A (zhin-scenarios §2).
LOAD_HEADER = "Skill '{name}' loaded. 请立即根据以下指导执行工具调用："
TOOLS_HEADING = "## 可用工具"
GUIDE_HEADING = "## 指导"
ACT_NOW_HEADING = "## 立即行动"
#: Act-now body line (full-width ``，`` and ``。``).
ACT_NOW = "根据上面的指导，立即调用工具完成用户请求。禁止重复调用 load_skill，禁止用文本描述代替实际工具调用。"
TRUNCATION_MARKER = "\n...(truncated)"
#: Default detail limit in characters (Zhin: ``maxBodyLength`` 4000, in UTF-16 units).
DEFAULT_LIMIT = 4000
#: Quick-action sections are used only when the limit is at most this (characters).
QUICK_ACTION_MAX_LIMIT = 2000
#: Zhin's per-model-size defaults for the limit (``skillInstructionMaxChars > 0`` overrides).
MODEL_SIZE_LIMITS = {"small": 1500, "medium": 4000, "large": 8000}
#: Intro shorter than this (characters) pulls in the rest of the body as detail.
_SHORT_INTRO = 200

_WS = "[" + re.escape(JS_WHITESPACE) + "]"
_NWS = "[^" + re.escape(JS_WHITESPACE) + "]"
_DOT = "[^\n\r\u2028\u2029]"  # JavaScript ``.`` without the s flag
#: End of a section: the next ``\n## <non-space>`` or the end of the text.
_SECTION_END = rf"(?=\n## {_NWS}|\Z)"

_FRONTMATTER = re.compile(rf"\A---{_WS}*\n([\s\S]*?)\n---")
_TOOLS_BLOCK = re.compile(rf"tools:{_WS}*\n((?:{_WS}+-{_WS}+{_DOT}+\n?)+)")
_QUICK_ACTIONS = re.compile(rf"## (?:快速操作|Quick{_WS}*Actions)[\s\S]*?{_SECTION_END}", re.IGNORECASE)
_RULES = re.compile(rf"## 执行规则[\s\S]*?{_SECTION_END}")
_WORKFLOW = re.compile(rf"## (?:Workflow|Instructions|使用说明)[\s\S]*?{_SECTION_END}", re.IGNORECASE)
_QUICK_START = re.compile(
    rf"## (?:快速开始|Quick{_WS}*Start|Getting{_WS}*Started)[\s\S]*?{_SECTION_END}", re.IGNORECASE
)
_AUTH = re.compile(rf"## (?:认证|Authentication|Auth)[\s\S]*?{_SECTION_END}", re.IGNORECASE)
_FIRST_H2 = re.compile(rf"\n## {_NWS}")
_LEADING_WS = re.compile(rf"\A{_WS}+")


def _act_now() -> str:
    return f"{ACT_NOW_HEADING}\n{ACT_NOW}"


def _append_guide(lines: list[str], body: str, limit: int) -> None:
    """Rule 7: ``## 指导`` with the intro and, when warranted, the (truncated) detail."""
    if not js_trim(body):
        return
    first = _FIRST_H2.search(body)
    intro = js_trim(body[: first.start()]) if first else js_trim(body)
    quick = _QUICK_START.search(body)
    auth = _AUTH.search(body)
    lines += [GUIDE_HEADING, intro, ""]
    if not quick and not auth and not (len(intro) < _SHORT_INTRO and len(body) > len(intro)):
        return
    parts = [js_trim(m.group(0)) for m in (quick, auth) if m is not None]
    detail = "\n\n".join(p for p in parts if p) or js_trim(body[len(intro):])
    if len(detail) > limit:
        detail = detail[:limit] + TRUNCATION_MARKER
    lines += [detail, ""]


def zhin_load_text(source: Any, *, limit: int = DEFAULT_LIMIT, text: str | None = None) -> str:
    """The extracted instructions Zhin returns for ``load_skill`` (SPEC Z4), without the
    dependency warning (see :func:`zhin_read_instructions`).

    ``source`` is a :class:`~skillshelf.core.model.Source` (its ``name`` and ``location`` are
    used; the file is re-read) or a ``(name, text)`` pair; ``text`` overrides the file content.
    ``limit`` is the detail limit in characters (positive int; Zhin's ``maxBodyLength``).
    Returns the lines joined with ``\\n`` (no trailing newline). Raises ``ValueError`` for a
    non-positive limit (Zhin: ``Skill instruction maxChars must be a positive integer``) and
    ``OSError`` when the file cannot be read. Undecodable bytes become U+FFFD, as Node's UTF-8
    reader does.

    Example (H017 fixture ``---\\nname: ninja\\ndescription: test skill\\n---\\n\\n## 执行规则\\nDo
    the thing.\\n``)::

        Skill 'ninja' loaded. 请立即根据以下指导执行工具调用：

        ## 执行规则
        Do the thing.

        ## 立即行动
        根据上面的指导，立即调用工具完成用户请求。禁止重复调用 load_skill，禁止用文本描述代替实际工具调用。
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise ValueError("Skill instruction maxChars must be a positive integer")
    if isinstance(source, tuple):
        name, content = source
    else:
        name = source.name
        content = _read_text(source.location) if text is None else ""
    if text is not None:
        content = text
    return extract_instructions(name, content, limit)


def extract_instructions(name: str, content: str, limit: int = DEFAULT_LIMIT) -> str:
    """Rules 1–8 of this module on decoded ``content`` (a ``SKILL.md`` text, BOM kept).

    ``limit`` in characters; the caller validates it. Pure function, never raises.
    """
    lines = [LOAD_HEADER.format(name=name), ""]
    fm = _FRONTMATTER.search(content)
    if fm:
        tools = _TOOLS_BLOCK.search(fm.group(1))
        if tools:
            lines += [TOOLS_HEADING, js_trim(tools.group(0)), ""]
        body = _LEADING_WS.sub("", content[fm.end():])
    else:
        body = content
    quick = _QUICK_ACTIONS.search(body)
    if quick and limit <= QUICK_ACTION_MAX_LIMIT:
        lines += [js_trim(quick.group(0)), "", _act_now()]
        return "\n".join(lines)
    rules = _RULES.search(content)
    workflow = _WORKFLOW.search(content)
    if rules:
        lines += [js_trim(rules.group(0)), ""]
    elif workflow:
        lines += [js_trim(workflow.group(0)), ""]
    else:
        _append_guide(lines, body, limit)
    lines.append(_act_now())
    return "\n".join(lines)


def _read_text(path: str) -> str:
    return read_regular(path).decode("utf-8", errors="replace")


def zhin_read_instructions(
    source: Any,
    *,
    limit: int = DEFAULT_LIMIT,
    which: Callable[[str], str | None] | None = None,
    text: str | None = None,
) -> str:
    """The full ``load_skill`` text of Zhin's instruction reader (H017): the dependency warning
    (SPEC Z5, when some ``compatibility.deps`` entry is missing from PATH) + ``\\n\\n`` + the
    :func:`zhin_load_text` extraction.

    ``which`` looks a command up (default :func:`shutil.which`; tests pass a fake). The
    frontmatter for the dependency check is found with the same lenient pattern as rule 2 and
    parsed with the YAML 1.2 core schema; unparsable frontmatter means no warning (Zhin's check
    would throw; skillshelf reports that elsewhere). Raises as :func:`zhin_load_text`.
    """
    if isinstance(source, tuple):
        name, content = source
    else:
        name = source.name
        content = text if text is not None else _read_text(source.location)
    extracted = zhin_load_text((name, content), limit=limit)
    fm = _FRONTMATTER.search(content)
    warning = ""
    if fm:
        deps = declared_deps(_safe_yaml(fm.group(1)))
        missing = missing_deps(deps, which=which)
        warning = dependency_warning_text(missing)
    return f"{warning}\n\n{extracted}" if warning else extracted


def _safe_yaml(raw: str) -> Any:
    try:
        return load_zhin_yaml(raw)
    except YamlError:  # broken YAML: no dependency warning
        return None


def section_names() -> Sequence[str]:
    """The section headings extraction looks for, in preference order (for UI hints)."""
    return (
        "## 快速操作", "## Quick Actions", "## 执行规则", "## Workflow", "## Instructions", "## 使用说明",
        "## 快速开始", "## Quick Start", "## Getting Started", "## 认证", "## Authentication", "## Auth",
    )


class ZhinLoadTool:
    """Zhin's ``load_skill`` as a skill tool (SPEC Z4) over a live catalog (``.current``).

    A request is ``{"action": "load", "name": N}`` (``action`` may be left out). A name no
    enabled source declares — or one declared by two or more plugin roots, where Zhin fails
    closed — is refused with Zhin's sentence ``Skill '<name>' not found in the active
    generation.``; other actions are refused with ``invalid-arguments``. Raises
    :class:`~skillshelf.core.tool.ToolError`.
    """

    def __init__(self, catalog: LiveCatalog) -> None:
        self._catalog = catalog

    def call(self, request: Mapping[str, object]) -> ToolResult:
        """Answer one ``load_skill`` request."""
        name = request.get("name") if isinstance(request, Mapping) else None
        if not isinstance(request, Mapping) or request.get("action", "load") != "load" or not isinstance(name, str):
            raise ToolError("invalid-arguments",
                            "host zhin's skill tool is load_skill: pass {\"action\": \"load\", \"name\": \"<skill>\"}")
        found = [s for s in self._catalog.current.sources if s.enabled and s.name == name]
        if len(found) != 1:
            raise ToolError("unknown-skill" if not found else "ambiguous-skill",
                            f"Skill '{name}' not found in the active generation.")
        text = zhin_read_instructions(found[0])
        return ToolResult(text, {"name": name, "location": found[0].location, "host": "zhin"})
