"""Kept command output: the finished text of a one-shot command, printed again while every
input it was made from provably holds.

``skillshelf index`` over an unchanged tree prints what it printed last time. A run whose
inputs can all be proved later keeps, beside the parse cache, its whole output (each write to
stdout and stderr, in order, and its exit code) with what it was made from:

- *exactly equal*: the command line (``argv`` as typed), the working directory, the whole
  process environment (but the session identifiers of :data:`IGNORED_VARIABLES`), whether stdout and stderr are
  terminals (SPEC X1 escapes), the
  skillshelf code and the Python that ran it (:func:`code_stamp`);
- *proved by the host* (:func:`skillshelf.core.hosts.output_proof_holds`): everything the
  host's first build read — configuration, roots, the walk of every root, every skill file's
  identity key, its other inputs — recomputed or re-``stat``-ed, never trusted;
- *asked again*: the other file-system questions the output depended on (the lint's look at
  references and enclosing skills, :mod:`skillshelf.core.fsprobe`).

Anything that does not match, cannot be read, or belongs to another format is ignored: the
command then runs normally (and keeps its new output). The file is written atomically
(temporary file + rename) after the command's output, never before. Values are
:mod:`marshal`-ed (plain tuples, strings and numbers: loading is a fraction of unpickling a
build), behind a magic line and a CRC-32; ``marshal`` is Python-version specific, so the
Python version is part of the namespace. This module imports nothing heavy: it runs before the
rest of skillshelf is imported.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from skillshelf.core.paths import private_dirs

__all__ = ["FORMAT", "IGNORED_VARIABLES", "Identity", "KeptOutput", "code_stamp", "environment_items", "keep", "kept_file", "load"]

#: Bumped whenever the layout of a kept-output file changes.
FORMAT = 1
#: Most kept outputs, and most bytes they may take together (a ``debug skill --json`` of
#: 10,000 skills is ~13 MB); the least recently written are removed beyond either. An output
#: larger than :data:`MAX_BYTES` alone is not kept.
MAX_FILES = 32
MAX_BYTES = 512 * 1024 * 1024

_MAGIC = b"skillshelf-kept-output\n"

def code_stamp(folders: Sequence[str] = ()) -> str:
    """The skillshelf version, the Python running it, each folder of its import path with its
    ``mtime_ns`` (libraries installed or removed) and, for every ``.py`` file of
    ``skillshelf.core`` and of ``folders`` (the caller's own package, e.g. ``skillshelf.app``):
    path, size and ``mtime_ns``, as one string — any change to the code that computes an output
    makes outputs kept by other code unusable."""
    from skillshelf import __version__

    parts = [__version__, sys.version, sys.executable]
    for entry in sys.path:  # installing, upgrading or removing a library changes its folder
        try:
            parts.append(f"{entry}\0{os.stat(entry or '.').st_mtime_ns}")
        except OSError:
            parts.append(f"{entry}\0-")
    for base in (os.path.dirname(os.path.abspath(__file__)), *folders):
        stack = [base]
        while stack:
            folder = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                parts.append(f"{folder}\0unreadable")
                continue
            for e in entries:
                if e.name == "__pycache__":
                    continue
                try:
                    if e.is_dir():
                        stack.append(e.path)
                    elif e.name.endswith(".py"):
                        st = e.stat()
                        parts.append(f"{e.path}\0{st.st_size}\0{st.st_mtime_ns}")
                except OSError:
                    parts.append(f"{e.path}\0unreadable")
    return "\n".join(parts)


#: Variables that differ from one shell, terminal window or login to the next and that nothing
#: skillshelf runs reads (neither skillshelf, nor the hosts' rules, nor git or Zuno): the shell's
#: own (previous directory, last command, nesting depth), the window and pane identifiers that
#: terminals and multiplexers set, the SSH connection and the desktop session. A ``cd`` back and
#: forth or a new terminal tab does not make a kept output unusable. Every other variable —
#: ``HOME``, ``PATH``, ``XDG_CONFIG_HOME``, ``TERM``, a locale, anything unknown — is compared.
#: (Decided here: the list only holds identifiers, never a variable that names a folder to read.)
IGNORED_VARIABLES = frozenset({
    "OLDPWD", "_", "SHLVL",
    "TERM_SESSION_ID", "ITERM_SESSION_ID", "WINDOWID", "KITTY_WINDOW_ID", "KITTY_PID",
    "ALACRITTY_WINDOW_ID", "WEZTERM_PANE", "WT_SESSION", "TMUX_PANE", "STY", "WINDOW",
    "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", "GPG_TTY", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
    "XDG_SESSION_ID", "XDG_VTNR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY",
    "XAUTHORITY", "STARSHIP_SESSION_KEY",
})


def environment_items(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The environment as kept and compared: every variable but :data:`IGNORED_VARIABLES`,
    sorted."""
    return tuple(sorted((k, v) for k, v in env.items() if k not in IGNORED_VARIABLES))


def kept_file(cache_dir: str, argv: Sequence[str], cwd: str) -> str:
    """Where the output of ``argv`` run in ``cwd`` is kept under skillshelf's cache directory
    (the name only locates it: every input is compared in full after reading)."""
    text = "\0".join((cwd, *argv)).encode("utf-8", "surrogateescape")
    name = f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}"
    return os.path.join(cache_dir, "output", name + ".kept")


class KeptOutput:
    """One kept run: ``writes`` — ``(1 or 2, text)`` per write to stdout / stderr, in order —,
    the exit ``code``, the ``host`` whose ``proof`` (host-defined, marshal-able) says what its
    build read, and the other questions the output depended on (``probes``:
    :func:`skillshelf.core.fsprobe.flat`)."""

    __slots__ = ("code", "host", "probes", "proof", "writes")

    def __init__(self, writes: Sequence[tuple[int, str]], code: int, host: str, proof: Any,
                 probes: Sequence[Any] = ()) -> None:
        self.writes = tuple(writes)
        self.code = code
        self.host = host
        self.proof = proof
        self.probes = tuple(probes)

    def replay(self) -> int:
        """Write the kept output to ``sys.stdout`` / ``sys.stderr`` as it was written; the exit code."""
        streams = {1: sys.stdout, 2: sys.stderr}
        for fd, text in self.writes:
            streams[fd].write(text)
        sys.stdout.flush()
        sys.stderr.flush()
        return self.code


#: What a kept output is for: the code (:func:`code_stamp`), the command line as typed, the
#: working directory, the environment and whether stdout and stderr are terminals.
Identity = tuple[str, Sequence[str], str, Mapping[str, str], tuple[bool, bool]]


def _identity(ident: Identity) -> tuple[Any, ...]:
    code, argv, cwd, env, ttys = ident
    return (FORMAT, code, tuple(argv), cwd, environment_items(env), tuple(ttys))


def load(file: str, ident: Identity) -> KeptOutput | None:
    """The output kept in ``file`` for exactly ``ident`` (code, command line, working directory,
    environment, terminals), or ``None`` (none kept, damaged, another format, anything
    different). The host's proof is not checked here. Never raises."""
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        if not data.startswith(_MAGIC):
            return None
        pos = len(_MAGIC)
        crc = int.from_bytes(data[pos:pos + 4], "little")
        payload = memoryview(data)[pos + 4:]
        if zlib.crc32(payload) != crc:
            return None
        doc = marshal.loads(payload)
        identity, writes, code, host, proof, probes = doc
        if identity != _identity(ident):
            return None
        return KeptOutput([(int(fd), str(text)) for fd, text in writes], int(code), str(host), proof, probes)
    except Exception:  # a damaged or foreign file is never an error: the command runs normally
        return None


def keep(file: str, ident: Identity, kept: KeptOutput) -> bool:
    """Write ``kept`` for ``ident`` to ``file`` atomically (directory mode 0700); True when written. Never raises."""
    import tempfile

    try:
        payload = marshal.dumps((_identity(ident), kept.writes, kept.code, kept.host, kept.proof, kept.probes))
    except ValueError:  # something not marshal-able in the proof: nothing is kept
        return False
    if len(payload) > MAX_BYTES:
        return False
    directory = os.path.dirname(file)
    try:
        private_dirs(directory)
        fd, tmp = tempfile.mkstemp(prefix=".kept-", suffix=".tmp", dir=directory)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + zlib.crc32(payload).to_bytes(4, "little"))
            fh.write(payload)
        os.replace(tmp, file)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    _evict(directory)
    return True


def _evict(directory: str) -> None:
    """Keep the most recently written outputs within :data:`MAX_FILES` and :data:`MAX_BYTES`;
    remove temporary files left by a process that died while writing (older than an hour)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    now = time.time()
    files: list[tuple[int, int, str]] = []
    for e in entries:
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if e.name.endswith(".tmp"):
            if now - st.st_mtime > 3600:
                with contextlib.suppress(OSError):
                    os.unlink(e.path)
        elif e.name.endswith(".kept"):
            files.append((st.st_mtime_ns, st.st_size, e.path))
    files.sort(reverse=True)
    total = 0
    for i, (_, size, path) in enumerate(files):
        total += size
        if i >= MAX_FILES or total > MAX_BYTES:
            with contextlib.suppress(OSError):
                os.unlink(path)
