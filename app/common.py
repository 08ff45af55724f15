"""Helpers shared by the CLI commands and the TUI: build the Environment and open the Catalog
from the COMMON options (SPEC C, C1). This is the edge where the process environment is read."""

from __future__ import annotations

import os
import stat
import sys
from argparse import Namespace
from collections.abc import Mapping
from typing import TextIO

from skillshelf.core.catalog import Catalog, workspace_cache
from skillshelf.core.hosts.base import HostContext
from skillshelf.core.parsecache import default_cache_dir
from skillshelf.core.paths import Environment, working_directory
from skillshelf.core.textsafe import visible


def environment(env: Mapping[str, str] | None = None) -> Environment:
    """The :class:`skillshelf.core.paths.Environment` for ``env`` (default: ``os.environ``), SPEC C1."""
    return Environment.from_mapping(dict(os.environ) if env is None else env)


def announce_problems(catalog: Catalog, stream: TextIO | None = None) -> int:
    """Print the generation's configuration and remote problems to stderr, one line each
    (``skillshelf: warning: <message>``), so commands whose stdout is exactly the agent's text
    (``index``, ``tool``, ``resolve``, ``watch``) still say when a layer was skipped or a pull
    failed (SPEC C2: diagnostics on stderr). Returns the number of lines printed."""
    stream = sys.stderr if stream is None else stream
    gen = catalog.current
    refusal = catalog.config.refusal
    lines = [refusal.message] if refusal is not None else []  # Z-K: first, and prominent
    lines += [d.message for d in gen.diagnostics  # the refusal's own diagnostic is said once
              if d.code.startswith("config-") and d.severity.value != "info"
              and (refusal is None or d.message != refusal.diagnostic_text)]
    lines += [w.message for w in gen.warnings if w.kind.startswith(("Index", "Download", "Entry", "Unsafe"))]
    for i, line in enumerate(lines):
        level = "" if i == 0 and refusal is not None else "warning: "
        print(f"skillshelf: {level}{terminal_text(line, stream)}", file=stream)
    return len(lines)


def _config_file_problem(path: str) -> str | None:
    """Why ``path`` cannot be a ``--config`` layer (``no such file``, ``a directory, not a file``,
    ``not a regular file (a FIFO)``, ``permission denied``), or ``None`` when it can be read."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device")
        return f"not a regular file ({kind})"
    if not os.access(path, os.R_OK):
        return "permission denied"
    return None


def context_from(ns: Namespace, *, env: Mapping[str, str] | None = None, pull_remote: bool = True) -> HostContext:
    """The :class:`~skillshelf.core.hosts.base.HostContext` of the COMMON options (SPEC C1).

    The persistent parse cache lives in skillshelf's user cache directory unless ``--no-cache``.
    Raises ``SystemExit(2)`` with a message on stderr when ``--cwd`` is not a directory (or,
    without it, the current directory was deleted) or a ``--config`` is not a readable regular
    file (SPEC C2)."""
    try:
        cwd = working_directory(ns.cwd)
    except OSError as exc:
        print(f"skillshelf: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    for f in ns.config or []:
        problem = _config_file_problem(f)
        if problem is not None:
            print(f"skillshelf: --config {f}: {problem}", file=sys.stderr)
            raise SystemExit(2)
    environ = environment(env)
    paths = tuple(ns.path or ())
    config_files = tuple(os.path.abspath(f) for f in (ns.config or ()))
    cache = None
    if not ns.no_cache:
        cache = workspace_cache(default_cache_dir(environ.xdg_cache_home, environ.home), cwd, environ, paths, config_files)
    context = HostContext(cwd=cwd, env=environ, paths=paths, config_files=config_files,
                          context_window=ns.context_window, pull_remote=pull_remote, cache=cache)
    from skillshelf.app.keptrun import watch_context

    watch_context(context)  # a command whose output is kept names the workspace it read
    return context


def open_catalog(ns: Namespace, *, env: Mapping[str, str] | None = None, pull_remote: bool = True,
                 announce: bool = False) -> Catalog:
    """Open a :class:`skillshelf.core.catalog.Catalog` from parsed COMMON options (``--host``
    and :func:`context_from`'s).

    Raises ``SystemExit(2)`` with a message on stderr when ``--cwd`` is not a directory or a
    ``--config`` file does not exist (SPEC C2: usage or unreadable input). ``announce`` prints
    configuration and remote problems to stderr (:func:`announce_problems`); ``debug`` leaves it
    off because its report lists them.
    """
    catalog = Catalog.from_context(ns.host, context_from(ns, env=env, pull_remote=pull_remote))
    if announce:
        announce_problems(catalog)
    return catalog


def terminal_text(text: str, stream: TextIO | None = None) -> str:
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
    return visible(text, multiline=True)


def home_short(path: str, home: str | None, cwd: str | None = None) -> str:
    """``path`` shortened for display: ``./…`` under ``cwd`` (when given), ``~/…`` under ``home``,
    else as is."""
    cwd = (cwd or "").rstrip("/")
    if cwd and path.startswith(cwd + "/"):
        return "./" + path[len(cwd) + 1:]
    home = (home or "").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path
