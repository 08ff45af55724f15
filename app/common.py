"""Helpers shared by the CLI commands and the TUI: build the Environment and open the Catalog
from the COMMON options (SPEC C, C1). This is the edge where the process environment is read."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any


def environment(env: Mapping[str, str] | None = None) -> Any:
    """The :class:`skillshelf.core.paths.Environment` for ``env`` (default: ``os.environ``), SPEC C1."""
    from skillshelf.core.paths import Environment

    return Environment.from_mapping(dict(os.environ) if env is None else env)


def announce_problems(catalog: Any, stream: Any = None) -> int:
    """Print the generation's configuration and remote problems to stderr, one line each
    (``skillshelf: warning: <message>``), so commands whose stdout is exactly the agent's text
    (``index``, ``tool``, ``resolve``, ``watch``) still say when a layer was skipped or a pull
    failed (SPEC C2: diagnostics on stderr). Returns the number of lines printed."""
    stream = sys.stderr if stream is None else stream
    gen = catalog.current
    lines = [d.message for d in gen.diagnostics
             if d.code.startswith("config-") and d.severity.value != "info"]
    lines += [w.message for w in gen.warnings if w.kind.startswith(("Index", "Download", "Entry", "Unsafe"))]
    for line in lines:
        print(f"skillshelf: warning: {terminal_text(line, stream)}", file=stream)
    return len(lines)


def context_from(ns: Any, *, env: Mapping[str, str] | None = None, pull_remote: bool = True) -> Any:
    """The :class:`~skillshelf.core.hosts.base.HostContext` of the COMMON options (SPEC C1).

    Raises ``SystemExit(2)`` with a message on stderr when ``--cwd`` is not a directory or a
    ``--config`` file does not exist (SPEC C2)."""
    from skillshelf.core.hosts.base import HostContext

    cwd = os.path.abspath(ns.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        print(f"skillshelf: --cwd {cwd}: not a directory", file=sys.stderr)
        raise SystemExit(2)
    for f in ns.config or []:
        if not os.path.isfile(f):
            print(f"skillshelf: --config {f}: no such file", file=sys.stderr)
            raise SystemExit(2)
    return HostContext(cwd=cwd, env=environment(env), paths=tuple(ns.path or ()),
                       config_files=tuple(os.path.abspath(f) for f in (ns.config or ())),
                       context_window=ns.context_window, pull_remote=pull_remote)


def open_catalog(ns: Any, *, env: Mapping[str, str] | None = None, pull_remote: bool = True,
                 announce: bool = False) -> Any:
    """Open a :class:`skillshelf.core.catalog.Catalog` from parsed COMMON options.

    Raises ``SystemExit(2)`` with a message on stderr when ``--cwd`` is not a directory (SPEC C2:
    usage or unreadable input). ``announce`` prints configuration and remote problems to stderr
    (:func:`announce_problems`); ``debug`` leaves it off because its report lists them.
    """
    from skillshelf.core.catalog import Catalog

    cwd = os.path.abspath(getattr(ns, "cwd", None) or os.getcwd())
    if not os.path.isdir(cwd):
        print(f"skillshelf: --cwd {cwd}: not a directory", file=sys.stderr)
        raise SystemExit(2)
    for f in getattr(ns, "config", None) or []:
        if not os.path.isfile(f):
            print(f"skillshelf: --config {f}: no such file", file=sys.stderr)
            raise SystemExit(2)
    catalog = Catalog.open(
        cwd,
        env=environment(env),
        host=ns.host,
        paths=tuple(getattr(ns, "path", None) or ()),
        config_files=tuple(os.path.abspath(f) for f in (getattr(ns, "config", None) or ())),
        context_window=getattr(ns, "context_window", None),
        pull_remote=pull_remote,
    )
    if announce:
        announce_problems(catalog)
    return catalog


def terminal_text(text: str, stream: Any = None) -> str:
    """``text`` ready to write to ``stream`` (default ``sys.stdout``), SPEC X1.

    On a terminal, every control character and escape sequence from untrusted skill text
    (names, descriptions, bodies, paths, diagnostics) is made visible with
    :func:`skillshelf.core.textsafe.visible` (line feeds and tabs kept); piped or redirected
    output is the exact text, so scripts still get byte-exact results.
    """
    target = sys.stdout if stream is None else stream
    try:
        tty = target.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        tty = False
    if not tty:
        return text
    from skillshelf.core.textsafe import visible

    return visible(text, multiline=True)
