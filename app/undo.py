"""The journal of configuration writes skillshelf made, and undoing them (SPEC K5).

Every write (CLI ``resolve`` / ``enable`` / ``disable`` / ``expose``, the picker) is recorded in
skillshelf's own state folder (:func:`state_dir`: ``$XDG_STATE_HOME/skillshelf``, by default
``~/.local/state/skillshelf`` — platformdirs' place for it — read from the catalog's environment
so a temporary HOME keeps its own journal). A record keeps the exact previous bytes and the
bytes written (content-addressed files under ``blobs/``), so ``skillshelf undo`` and the TUI put
a file back byte for byte in any later session. An undo is refused when the file changed since
(it never clobbers a later edit). The newest :data:`KEEP` records are kept.

The journal also tells the planner which earlier states lead to a file's current bytes
(:meth:`Journal.earlier_states`), so changing one's mind back restores the exact old bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace

import platformdirs

from skillshelf.core.configwrite import ConfigWriteError, WriteResult, config_lock, undo, write_atomically
from skillshelf.core.fileread import read_regular
from skillshelf.core.paths import Environment, own_home, private_dirs

__all__ = ["KEEP", "Journal", "JournalEntry", "state_dir", "undo_words"]

#: Records kept in the journal (older ones, and their saved bytes, are dropped).
KEEP = 200


def state_dir(env: Environment) -> str:
    """skillshelf's state folder for ``env``: ``$SKILLSHELF_STATE_DIR`` when set; on Linux and
    other XDG systems ``$XDG_STATE_HOME/skillshelf`` or, when that is unset or relative (the XDG
    specification ignores a relative one), ``<home>/.local/state/skillshelf`` (what platformdirs
    gives, computed from ``env`` rather than the process); elsewhere platformdirs' own
    ``user_state_dir``."""
    override = env.get("SKILLSHELF_STATE_DIR")
    if override:
        return override
    if sys.platform in ("darwin", "win32"):  # pragma: no cover - not this machine's kind
        return platformdirs.user_state_dir("skillshelf")
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):  # (unset, empty or relative: the XDG specification ignores it)
        base = os.path.join(own_home(env.home), ".local", "state")
    return os.path.join(base, "skillshelf")


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class JournalEntry:
    """One recorded write. ``id`` counts up from 1; ``when`` seconds since the epoch; ``target``
    the file as named, ``path`` the file written; ``summary`` what changed, in words; the
    ``*_sha`` fields name saved bytes (``None``: absent); ``undone`` once undone."""

    id: int
    when: float
    target: str
    path: str
    summary: str
    previous_sha: str | None
    after_sha: str | None
    backup: str | None = None
    created: bool = False
    created_dirs: tuple[str, ...] = ()
    backup_previous_sha: str | None = None
    undone: bool = False
    tool: str = field(default="cli")


class Journal:
    """The journal in ``directory`` (see the module docstring). Methods raise
    :class:`~skillshelf.core.configwrite.ConfigWriteError` when the folder cannot be used."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.file = os.path.join(directory, "journal.json")
        self.blobs = os.path.join(directory, "blobs")
        #: why the journal file could not be read (``None``: it could, or there is none); a
        #: damaged journal is started anew on the next write and kept beside it as ``.damaged``
        self.problem: str | None = None

    @classmethod
    def for_env(cls, env: Environment) -> Journal:
        """The journal of the user ``env`` describes (:func:`state_dir`)."""
        return cls(state_dir(env))

    # ------------------------------------------------------------------ storage
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            private_dirs(self.blobs)  # (copies of the user's config files: theirs alone, as the caches are)
        except OSError as exc:
            raise ConfigWriteError(f"cannot use the undo journal in {self.directory}: "
                                   f"{exc.strerror or exc}") from None
        with config_lock(self.file):
            yield

    def _load(self) -> list[JournalEntry]:
        try:
            raw = json.loads(read_regular(self.file).decode("utf-8"))
        except FileNotFoundError:
            self.problem = None
            return []
        except (OSError, ValueError) as exc:
            # a damaged journal is started anew rather than blocking writes, and said
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a journal skillshelf wrote"
            self.problem = f"{self.file} cannot be read ({reason})"
            return []
        self.problem = None
        out = []
        for item in raw.get("entries", []) if isinstance(raw, dict) else []:
            try:
                item["created_dirs"] = tuple(item.get("created_dirs", ()))
                out.append(JournalEntry(**item))
            except TypeError:
                continue
        return out

    def _save(self, entries: list[JournalEntry]) -> None:
        entries = entries[-KEEP:]
        doc = {"version": 1, "entries": [asdict(e) for e in entries]}
        if self.problem is not None:  # keep what could not be read; never write over it
            with contextlib.suppress(OSError):
                os.replace(self.file, self.file + ".damaged")
            self.problem = None
        write_atomically(self.file, json.dumps(doc, indent=1).encode("utf-8"), private=True)
        used = {s for e in entries for s in (e.previous_sha, e.after_sha, e.backup_previous_sha) if s}
        with contextlib.suppress(OSError):
            for name in os.listdir(self.blobs):
                if name not in used:
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(self.blobs, name))

    def _put(self, data: bytes | None) -> str | None:
        sha = _sha(data)
        if data is not None and sha is not None:
            path = os.path.join(self.blobs, sha)
            if not os.path.exists(path):
                write_atomically(path, data, private=True)
        return sha

    def _get(self, sha: str | None) -> bytes | None:
        if sha is None:
            return None
        try:
            return read_regular(os.path.join(self.blobs, sha))
        except OSError:
            raise ConfigWriteError(f"the undo journal lost the saved bytes {sha[:12]}…; cannot undo") from None

    # ------------------------------------------------------------------ API
    def entries(self) -> list[JournalEntry]:
        """Every kept record, oldest first."""
        return self._load()

    def record(self, result: WriteResult, summary: str, *, tool: str = "cli") -> JournalEntry | None:
        """Record ``result`` (nothing when it wrote nothing); returns the new record."""
        if not result.written:
            return None
        with self._locked():
            entries = self._load()
            entry = JournalEntry(
                id=(entries[-1].id + 1) if entries else 1, when=time.time(), target=result.target,
                path=result.path, summary=summary, previous_sha=self._put(result.previous),
                after_sha=self._put(result.after), backup=result.backup, created=result.created,
                created_dirs=tuple(result.created_dirs), backup_previous_sha=self._put(result.backup_previous),
                tool=tool)
            self._save([*entries, entry])
        return entry

    def result_of(self, entry: JournalEntry) -> WriteResult:
        """The :class:`WriteResult` ``entry`` recorded (saved bytes loaded)."""
        return WriteResult(entry.target, entry.path, entry.backup, self._get(entry.previous_sha),
                           self._get(entry.after_sha), entry.created, True, entry.created_dirs,
                           self._get(entry.backup_previous_sha))

    def state(self, entry: JournalEntry) -> str:
        """``undone``, ``current`` (the file still holds what it wrote: undoable) or ``changed``."""
        if entry.undone:
            return "undone"
        try:
            now = read_regular(entry.path)
        except FileNotFoundError:
            now = None
        except OSError:
            return "changed"
        return "current" if _sha(now) == entry.after_sha else "changed"

    def latest(self) -> JournalEntry | None:
        """The newest record not undone yet, or ``None``."""
        return next((e for e in reversed(self._load()) if not e.undone), None)

    def undo(self, entry: JournalEntry | None = None) -> JournalEntry:
        """Undo ``entry`` (default :meth:`latest`) byte for byte and mark it undone; returns it.
        Raises :class:`ConfigWriteError` when there is nothing to undo, it was undone already,
        the file changed since, or the journal cannot be written (then nothing is undone)."""
        with self._locked():
            entries = self._load()
            if entry is None:
                entry = next((e for e in reversed(entries) if not e.undone), None)
                if entry is None and self.problem is not None:
                    raise ConfigWriteError(f"nothing to undo: the undo journal {self.problem}")
                if entry is None:
                    raise ConfigWriteError("nothing to undo: the journal has no write left to undo")
            found = next((e for e in entries if e.id == entry.id), None)
            if found is None:
                raise ConfigWriteError(f"write #{entry.id} is no longer in the journal")
            if found.undone:
                raise ConfigWriteError(f"write #{found.id} was undone already")
            result = self.result_of(found)
            # the journal must be able to record the undo before the file is touched: an undo it
            # cannot record would stay listed as undoable and leave the two disagreeing
            try:
                self._save(entries)
            except OSError as exc:
                raise ConfigWriteError(f"cannot update the undo journal in {self.directory}: "
                                       f"{exc.strerror or exc}; nothing undone") from None
            undo(result)
            done = replace(found, undone=True)
            try:
                self._save([done if e.id == found.id else e for e in entries])
            except OSError as exc:  # the folder broke between the two saves
                raise ConfigWriteError(f"{found.path} was put back, but the undo journal in {self.directory} "
                                       f"could not record it: {exc.strerror or exc}") from None
        return done

    def find(self, entry_id: int) -> JournalEntry | None:
        """The record with ``entry_id``, or ``None``."""
        return next((e for e in self._load() if e.id == entry_id), None)

    def earlier_states(self, path: str) -> list[bytes | None]:
        """Earlier states of the file at ``path`` that skillshelf's own writes lead from, without
        a break, to its current bytes; newest first (``None``: it did not exist)."""
        real = os.path.realpath(path)
        try:
            current: bytes | None = read_regular(real)
        except FileNotFoundError:
            current = None
        except OSError:
            return []
        out: list[bytes | None] = []
        for entry in reversed(self._load()):
            if entry.undone or os.path.realpath(entry.path) != real:
                continue
            if entry.after_sha != _sha(current):
                break
            try:
                previous = self._get(entry.previous_sha)
            except ConfigWriteError:
                break
            out.append(previous)
            current = previous
        return out


def undo_words(result: WriteResult) -> str:
    """What an undo of ``result`` did: ``/p/zuno.json removed (it did not exist before)`` for a
    file the write created, else ``/p/zuno.json restored``."""
    if result.created:
        return f"{result.target} removed (it did not exist before)"
    return f"{result.target} restored"
