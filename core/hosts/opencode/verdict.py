"""opencode's verdict on one ``SKILL.md``: kept or dropped, under which name and description,
hidden or not, with a diagnostic (field and line) for every silent drop and every fallback.

What opencode does with the parse (:mod:`.matter`) — all of it silent unless said otherwise:

- a read error → dropped, ``ERROR failed to load skill`` (the one drop it logs, with a failed retry);
- no front matter (no ``---`` at the very start, ``----``, an empty or comment-only block) →
  ``data = {}`` → no ``name`` → dropped;
- invalid front matter that the sanitize retry does not change → dropped (gray-matter's cache);
- invalid front matter the retry cannot fix either → dropped, ``ERROR failed to load skill``;
- ``name`` missing or not a string (a number, ``true``, a date, a list …) → dropped;
- ``description`` present but not a string (``description:`` alone is null) → dropped;
- ``description`` absent → kept, but left out of ``<available_skills>`` (hidden from the model);
- ``name`` ``__proto__`` → kept by the parser, then it sets the prototype of opencode's skills
  object: never listed anywhere (shown here as dropped).

Fallbacks that keep the file are warnings: the sanitize retry, no closing ``---`` (the whole
rest of the file is front matter), JavaScript front matter (run by opencode), invalid UTF-8.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from skillshelf.core.hosts.base import Verdict
from skillshelf.core.hosts.opencode.jsyaml import NonStr
from skillshelf.core.hosts.opencode.matter import Outcome, parse
from skillshelf.core.model import Diagnostic, Severity

__all__ = ["NO_DESCRIPTION", "PROTO", "decode", "display_value", "verdict"]

#: The name that never reaches opencode's skills list.
PROTO = "__proto__"

#: Why a skill without a ``description`` key is hidden from the model.
NO_DESCRIPTION = ("no description: opencode lists it (debug skill, the skill tool can load it) but leaves it "
                  "out of <available_skills>")

_ERR = Severity.ERROR
_WARN = Severity.WARNING
_INFO = Severity.INFO


def decode(data: bytes) -> tuple[str, int | None]:
    """The text opencode reads (``readFile(path, "utf-8")``: invalid sequences become U+FFFD)
    and the 1-based line of the first invalid byte (``None`` when the bytes are valid)."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="replace"), data[:exc.start].count(b"\n") + 1


def display_value(value: Any) -> Any:
    """A parsed value as plain JSON data for display (js-yaml numbers, booleans and dates as
    Python numbers, booleans and text)."""
    if isinstance(value, NonStr):
        if value.kind == "boolean":
            return value.text.lower() == "true"
        if value.kind == "number":
            try:
                number = float(value.text.replace("_", ""))
            except ValueError:
                return value.text
            if math.isfinite(number) and number.is_integer() and "." not in value.text and "e" not in value.text.lower():
                return int(number)
            return number if math.isfinite(number) else value.text
        return value.text
    if isinstance(value, dict):
        return {str(k): display_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [display_value(v) for v in value]
    return value


def _type_words(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, NonStr):
        return f"a {value.kind} ({value.text})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _key_line(text: str, key: str, first: int, last: int | None) -> int | None:
    """The file line of the top-level ``key:`` between lines ``first`` and ``last``."""
    pattern = re.compile(r"^([\"']?)" + re.escape(key) + r"\1[ \t]*:")
    for n, line in enumerate(text.split("\n"), 1):
        if n < first:
            continue
        if last is not None and n > last:
            break
        if pattern.match(line):
            return n
    return None


def _block_end(text: str) -> int | None:
    """The file line of the closing ``---`` (``None`` when the front matter is unclosed)."""
    at = text.find("\n---", 3)
    return None if at < 0 else text.count("\n", 0, at) + 2


def _drop(reason: str, diags: list[Diagnostic], frontmatter: Mapping[str, Any] | None = None) -> Verdict:
    return Verdict(False, reason=reason, diagnostics=tuple(diags), frontmatter=dict(frontmatter or {}))


def _first_failure(outcome: Outcome) -> str:
    e = outcome.first_error
    if e is None:
        return "invalid front matter"
    where = f" at line {e.line}" if e.line is not None else ""
    return f"{e.message}{where}"


def verdict(location: str, data: bytes | None, *, error: str | None = None) -> Verdict:
    """opencode's verdict on the file at ``location`` with bytes ``data`` (``None``: unreadable,
    ``error`` says why). Never raises."""
    if data is None:
        reason = f"failed to load skill: opencode cannot read the file ({error or 'unreadable'}); it logs an ERROR"
        return _drop(reason, [Diagnostic(_ERR, "opencode-read-error", reason, path=location)])
    text, bad_line = decode(data)
    diags: list[Diagnostic] = []
    if bad_line is not None:
        diags.append(Diagnostic(_WARN, "opencode-invalid-utf8", "invalid UTF-8: opencode reads each bad sequence "
                                "as U+FFFD and goes on", line=bad_line))
    outcome = parse(text)
    body_start = 1
    if outcome.kind == "silent":
        e = outcome.first_error
        why = _first_failure(outcome)
        tail = ("a BOM stops the sanitize retry" if outcome.bom
                else "the sanitize retry changes nothing")
        reason = (f"invalid front matter ({why}); {tail}, so gray-matter's cache hands back empty data and "
                  "opencode drops the file silently")
        diags.append(Diagnostic(_ERR, "opencode-invalid-frontmatter", reason,
                                line=e.line if e else None, column=e.column if e else None))
        return _drop(reason, diags)
    if outcome.kind == "error":
        r = outcome.retry_error
        msg = r.message if r else "invalid front matter"
        reason = (f"failed to load skill: {location}: Failed to parse YAML frontmatter: {msg} "
                  f"(first attempt: {_first_failure(outcome)}; the sanitize retry failed too; opencode logs an ERROR, "
                  "for the first of byte-identical copies only: the others hit gray-matter's cache and are dropped "
                  "without a log)")
        diags.append(Diagnostic(_ERR, "opencode-frontmatter-error", reason,
                                line=r.line if r else None, column=r.column if r else None))
        return _drop(reason, diags)
    if outcome.kind == "unsupported":
        reason = (f"JavaScript front matter (---js) that skillshelf does not run ({outcome.unsupported}); "
                  "opencode evaluates it as code")
        diags.append(Diagnostic(_ERR, "opencode-javascript-frontmatter", reason, line=1))
        return _drop(reason, diags)
    matter = outcome.matter
    assert matter is not None
    end = _block_end(text.lstrip("\ufeff")) if matter.closed else None
    if outcome.kind == "rescued":
        keys = ", ".join(f"`{k}`" for _, k in outcome.rewritten)
        lines = ", ".join(str(n) for n, _ in outcome.rewritten)
        first = outcome.rewritten[0] if outcome.rewritten else (None, None)
        diags.append(Diagnostic(
            _WARN, "opencode-sanitize-retry",
            f"invalid YAML ({_first_failure(outcome)}); opencode's retry rewrote {keys} (line {lines}) into a "
            "block scalar and loaded it; a byte-identical copy elsewhere would be dropped silently "
            "(gray-matter's cache lets only the first one parsed load)",
            field=first[1], line=first[0]))
    if matter.language == "":
        where = "starts with ----" if text.lstrip("\ufeff").startswith("----") else "does not start with ---"
        reason = f"no front matter (the file {where}), so no name: opencode drops it silently"
        diags.append(Diagnostic(_ERR, "opencode-no-frontmatter", reason, line=1))
        return _drop(reason, diags)
    if matter.language == "javascript":
        diags.append(Diagnostic(_WARN, "opencode-javascript-frontmatter",
                                "the front matter is JavaScript (---js): opencode runs it as code", line=1))
    elif matter.language not in ("yaml",):
        diags.append(Diagnostic(_INFO, "opencode-frontmatter-language",
                                f"front matter language `{matter.language}`", line=1))
    if not matter.closed:
        diags.append(Diagnostic(_WARN, "opencode-unclosed-frontmatter",
                                "no closing ---: opencode reads the whole rest of the file as front matter and the "
                                "body is empty", line=1))
    data_value = matter.data
    if not isinstance(data_value, dict):
        reason = f"the front matter is {_type_words(data_value)}, not a mapping: opencode drops it silently"
        diags.append(Diagnostic(_ERR, "opencode-not-a-mapping", reason, line=body_start + 1))
        return _drop(reason, diags)
    shown = display_value(data_value)
    if not data_value:
        reason = "the front matter is empty (no keys), so no name: opencode drops it silently"
        diags.append(Diagnostic(_ERR, "opencode-missing-name", reason, field="name", line=2))
        return _drop(reason, diags, shown)
    name = data_value.get("name")
    if "name" not in data_value:
        reason = "no `name` key: opencode drops it silently"
        diags.append(Diagnostic(_ERR, "opencode-missing-name", reason, field="name", line=2))
        return _drop(reason, diags, shown)
    if not isinstance(name, str):
        reason = f"`name` is {_type_words(name)}, not a string: opencode drops it silently"
        diags.append(Diagnostic(_ERR, "opencode-name-not-string", reason, field="name",
                                line=_key_line(text, "name", 2, end)))
        return _drop(reason, diags, shown)
    description = data_value.get("description")
    if "description" in data_value and not isinstance(description, str):
        reason = f"`description` is {_type_words(description)}, not a string: opencode drops the whole skill silently"
        diags.append(Diagnostic(_ERR, "opencode-description-not-string", reason, field="description",
                                line=_key_line(text, "description", 2, end)))
        return _drop(reason, diags, shown)
    if name == PROTO:
        reason = ("name `__proto__` sets the prototype of opencode's skills object instead of adding a skill: "
                  "never listed")
        diags.append(Diagnostic(_ERR, "opencode-proto-name", reason, field="name", line=_key_line(text, "name", 2, end)))
        return _drop(reason, diags, shown)
    hidden = None
    if "description" not in data_value:
        hidden = NO_DESCRIPTION
    return Verdict(True, name=name, description=description if isinstance(description, str) else None,
                   hidden=hidden, diagnostics=tuple(diags), frontmatter=shown)


def body(data: bytes) -> str | None:
    """The skill content opencode keeps for ``data`` (front matter stripped), ``None`` when it
    does not load the file."""
    outcome = parse(decode(data)[0])
    return outcome.matter.content if outcome.matter is not None else None
