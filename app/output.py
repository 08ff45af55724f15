"""What the CLI writes: JSON that is always valid UTF-8 and terminal-safe, and standard streams
that never fail on a character they cannot encode (SPEC C2, X1). Light (no catalog imports), so
every command can import it at module level."""

from __future__ import annotations

import contextlib
import errno
import json
import os
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


class OutputFailed(Exception):
    """Writing the command's output to stdout failed (a full disk, an I/O error, a closed
    stdout). A reader that has gone (``| head``) is not this: that stays ``BrokenPipeError``.
    ``error``: the ``OSError``."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class Guarded:
    """A standard stream that raises :class:`OutputFailed` when a write or flush fails
    (``BrokenPipeError`` passes as it is), or, with ``quiet``, drops what cannot be written (a
    diagnostic stream: a failure there has nowhere to be told)."""

    def __init__(self, inner: TextIO, *, quiet: bool = False) -> None:
        self.inner = inner
        self._quiet = quiet

    def write(self, text: str) -> int:
        try:
            return self.inner.write(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # (ValueError: written after it was closed)
            if self._quiet:
                return len(text)
            raise OutputFailed(exc if isinstance(exc, OSError) else OSError(errno.EBADF, str(exc))) from exc

    def flush(self) -> None:
        try:
            self.inner.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            if not self._quiet:
                raise OutputFailed(exc if isinstance(exc, OSError) else OSError(errno.EBADF, str(exc))) from exc

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, buffer …
        return getattr(self.inner, name)


class _Closed:
    """Standard output when the process started with it closed: every write fails as writing
    to a closed descriptor does (``EBADF``)."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def standard_streams() -> None:
    """Give each closed standard descriptor (0, 1, 2) ``/dev/null``, so no file this process
    opens later takes its number and receives what is written there; then a closed stdin reads
    nothing, a closed stderr drops what is written, and a closed stdout fails every write
    (``EBADF``: the command's output is lost, and that is an error, as for any tool). Run first
    by the console script; never raises."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
                os.set_inheritable(fd, True)  # (a program run from here gets it too: git, zuno)
    with contextlib.suppress(OSError):
        if sys.stdin is None:
            sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115  (for the process's life)
        if sys.stderr is None:
            sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = _Closed()


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
