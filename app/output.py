"""What the CLI writes: JSON that is always valid UTF-8 and terminal-safe, and standard streams
that never fail on a character they cannot encode (SPEC C2, X1). Light (no catalog imports), so
every command can import it at module level."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from typing import Any, TextIO

#: Characters :func:`json_text` writes as ``\\uXXXX`` escapes although JSON allows them raw: DEL
#: and the C1 controls (U+009B is a one-byte CSI, U+009D an OSC, so a raw one printed to a
#: terminal can drive it), the line/paragraph separators, bidirectional overrides and isolates,
#: U+FEFF, and lone surrogates (which UTF-8 cannot encode at all). Outside JSON strings
#: ``json.dumps`` emits only ASCII, so replacing them anywhere keeps the document identical.
_JSON_ESCAPED = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def json_escaped(text: str) -> str:
    """JSON ``text`` (as ``json.dumps(..., ensure_ascii=False)`` writes it) with the characters
    :func:`json_text` escapes written as ``\\u`` escapes; the document is unchanged."""
    return _JSON_ESCAPED.sub(_json_escape, text) if _JSON_ESCAPED.search(text) else text


def json_text(doc: Any, *, indent: int | None = 2) -> str:
    """``doc`` as JSON text (non-ASCII kept readable) that is always valid UTF-8 and never holds
    a character that controls a terminal: those are written as ``\\u009b``-style escapes, which
    every JSON parser reads back as the same string (SPEC X1). ``indent=None``: one line."""
    return json_escaped(json.dumps(doc, ensure_ascii=False, indent=indent))


def print_json(doc: Any, *, indent: int | None = 2, stream: TextIO | None = None) -> None:
    """Write :func:`json_text` of ``doc`` and a newline to ``stream`` (default ``sys.stdout``)."""
    (sys.stdout if stream is None else stream).write(json_text(doc, indent=indent) + "\n")


def safe_output() -> None:
    """Make stdout and stderr unable to fail on, or emit invalid bytes for, a character their
    encoding cannot hold: a lone surrogate (a file name that is not UTF-8, a ``\\ud800`` escape in
    JSON frontmatter) is written as the visible escape ``\\udcff`` instead of raising
    ``UnicodeEncodeError`` or, under ``surrogateescape``, writing the raw byte. Called once by
    the CLI's entry point; streams that cannot be reconfigured are left alone."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a closed or detached stream
                reconfigure(errors="backslashreplace")
