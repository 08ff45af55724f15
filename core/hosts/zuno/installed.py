"""Host ``zuno``: Zuno's own texts, read at run time from an installed Zuno (conformance Z-B, Z-P).

Zuno's built-in skill descriptions and bodies and its skill trigger policy are Zuno's prose, so
skillshelf does not ship them (:mod:`.pack` holds only their sizes and digests). When a ``zuno``
executable is found (``$SKILLSHELF_ZUNO_BIN``, else ``zuno`` on ``PATH``):

- ``zuno debug skill --json`` is run in an empty, throw-away workspace (its own ``HOME`` and
  XDG folders, ``ZUNO_CONFIG_CONTENT={}`` so Zuno writes no default files, project and external
  skills off): the built-ins it lists give their names, descriptions and locators, and the
  locators give the Zuno version;
- the policy and the bodies are looked up in the executable itself by a short anchor and kept
  only when their SHA-256 matches (:data:`POLICY`, :data:`.pack.PackSkill.body_sha256`).

Anything not found is represented by a stand-in of the same size (:func:`policy_marker`,
:func:`.pack.description_marker`, :func:`.pack.body_marker`); :class:`ZunoTexts.note` says which.
Results are remembered per executable (path, size, mtime) for the life of the process.
"""

from __future__ import annotations

import json
import mmap
import os
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from skillshelf.core.hosts.zuno.pack import LOCATOR_PREFIX, PACK_VERSION, PackSkill, pack, parse_locator
from skillshelf.core.paths import Environment

__all__ = [
    "BIN_VARIABLE",
    "POLICY",
    "POLICY_TOKENS",
    "InstalledSkill",
    "TextSpec",
    "ZunoTexts",
    "find_zuno",
    "policy_marker",
    "scan_binary",
    "zuno_texts",
]

#: Environment variable naming the Zuno executable to read (else ``zuno`` on ``PATH``).
BIN_VARIABLE = "SKILLSHELF_ZUNO_BIN"
#: How long ``zuno debug skill --json`` may take, in seconds.
RUN_TIMEOUT = 15.0


@dataclass(frozen=True)
class TextSpec:
    """How to recognise one of Zuno's texts in its executable: the bytes it starts with
    (``anchor``), its length in bytes (``None`` = unknown: every length up to ``max_bytes`` is
    tried) and its SHA-256."""

    anchor: bytes
    length: int | None
    sha256: str
    max_bytes: int = 16_384


#: ``SKILL_USAGE_POLICY`` of Zuno 0.10.3 (``zuno-cli/src/cmd/turn.rs``): 1,423 ASCII characters.
POLICY = TextSpec(b"Skills are mandatory trigger rules", 1423,
                  "11027a55f1f7d058cfd5b063ffde5c39308d36cd84ee4f569c33a500af3c9be1")


#: ``cl100k_base`` tokens of that policy followed by the blank line that joins it to the index
#: (the two newlines join its last pre-token, so this is the exact share of the prompt's count).
POLICY_TOKENS = 275


def policy_marker(version: str = PACK_VERSION, length: int = 1423) -> str:
    """A stand-in for Zuno's skill trigger policy: ``length`` ASCII characters saying the text
    is Zuno's and not available here."""
    head = (f"[Zuno {version} skill trigger policy: {length:,} characters of Zuno's own text, not shown "
            "here (install Zuno to read it)]")
    return (head + "." * length)[:length]


@dataclass(frozen=True)
class InstalledSkill:
    """One built-in an installed Zuno listed: ``name``, ``location`` and ``description``."""

    name: str
    location: str
    description: str | None


@dataclass(frozen=True)
class ZunoTexts:
    """What was read from an installed Zuno.

    ``executable``: the path read (``None``: no Zuno found). ``version``: the Zuno version its
    built-ins carry (``None`` when unknown). ``builtins``: the built-ins ``zuno debug skill
    --json`` listed, in its order (empty when it could not be run). ``policy``: the trigger
    policy when found and checked; ``bodies``: built-in name → body found and checked.
    ``notes``: one line per thing that could not be read, and why.
    """

    executable: str | None = None
    version: str | None = None
    builtins: tuple[InstalledSkill, ...] = ()
    policy: str | None = None
    bodies: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    notes: tuple[str, ...] = ()


def find_zuno(env: Environment) -> str | None:
    """The Zuno executable to read: ``$SKILLSHELF_ZUNO_BIN`` when it names an executable file,
    else the first ``zuno`` on ``$PATH``; ``None`` when there is none."""
    explicit = env.get(BIN_VARIABLE)
    if explicit and os.path.isfile(explicit) and os.access(explicit, os.X_OK):
        return os.path.abspath(explicit)
    for folder in (env.get("PATH") or "").split(os.pathsep):
        if not folder:
            continue
        candidate = os.path.join(folder, "zuno")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _isolated_env(env: Environment, root: str) -> dict[str, str]:
    out = {
        "HOME": os.path.join(root, "home"),
        "XDG_CONFIG_HOME": os.path.join(root, "config"),
        "XDG_CACHE_HOME": os.path.join(root, "cache"),
        "XDG_DATA_HOME": os.path.join(root, "data"),
        "XDG_STATE_HOME": os.path.join(root, "state"),
        "ZUNO_CONFIG_CONTENT": "{}",
        "ZUNO_DISABLE_PROJECT_CONFIG": "1",
        "ZUNO_DISABLE_EXTERNAL_SKILLS": "1",
        "ZUNO_DISABLE_MODELS_FETCH": "1",
        "ZUNO_TEST_MANAGED_CONFIG_DIR": os.path.join(root, "managed"),
    }
    for key in ("PATH", "LANG", "LC_ALL", "TMPDIR"):
        value = env.get(key)
        if value:
            out[key] = value
    return out


def _listed(executable: str, env: Environment) -> tuple[tuple[InstalledSkill, ...], str | None]:
    """The built-ins ``zuno debug skill --json`` lists, or ``()`` and why not."""
    try:
        with tempfile.TemporaryDirectory(prefix="skillshelf-zuno-") as root:
            for sub in ("home", "work"):
                os.makedirs(os.path.join(root, sub), exist_ok=True)
            done = subprocess.run([executable, "debug", "skill", "--json"], cwd=os.path.join(root, "work"),
                                  env=_isolated_env(env, root), capture_output=True, timeout=RUN_TIMEOUT,
                                  check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return (), f"`zuno debug skill --json` could not be run ({type(exc).__name__}: {exc})"
    if done.returncode != 0:
        return (), f"`zuno debug skill --json` exited with status {done.returncode}"
    try:
        doc = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return (), f"`zuno debug skill --json` printed no JSON document ({exc})"
    raw = doc.get("skills") if isinstance(doc, dict) else None
    if isinstance(raw, dict):  # older Zuno: one object keyed by name
        raw = list(raw.values())
    if not isinstance(raw, list):
        return (), "`zuno debug skill --json` printed no `skills` list"
    out: list[InstalledSkill] = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        name, location, description = item.get("name"), item.get("location"), item.get("description")
        if not isinstance(name, str) or not isinstance(location, str) or not location.startswith(LOCATOR_PREFIX):
            continue
        out.append(InstalledSkill(name, location, description if isinstance(description, str) else None))
    if not out:
        return (), "`zuno debug skill --json` listed no zuno-orchestration built-ins"
    return tuple(out), None


def scan_binary(path: str, specs: Mapping[str, TextSpec]) -> dict[str, str]:
    """The texts of ``specs`` found in the file at ``path``: key → text, for each text whose
    anchor occurs and whose bytes at that place have the spec's SHA-256 (and decode as UTF-8).
    Never raises; an unreadable file finds nothing."""
    found: dict[str, str] = {}
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for key, spec in specs.items():
                text = _find(data, spec)
                if text is not None:
                    found[key] = text
    except (OSError, ValueError):
        return {}
    return found


def _find(data: mmap.mmap, spec: TextSpec) -> str | None:
    import hashlib  # (only where an executable is read)

    at = data.find(spec.anchor)
    while at >= 0:
        if spec.length is not None:
            piece = bytes(data[at:at + spec.length])
            if hashlib.sha256(piece).hexdigest() == spec.sha256:
                return _decoded(piece)
        else:
            window = bytes(data[at:at + spec.max_bytes])
            h = hashlib.sha256()
            for i, byte in enumerate(window):
                h.update(bytes((byte,)))
                if byte == 0:
                    break
                if h.copy().hexdigest() == spec.sha256:
                    return _decoded(window[:i + 1])
        at = data.find(spec.anchor, at + 1)
    return None


def _decoded(piece: bytes) -> str | None:
    try:
        return piece.decode("utf-8")
    except UnicodeDecodeError:
        return None


_MEMO: dict[tuple[str, int, int], ZunoTexts] = {}
_LOCK = threading.Lock()


def _body_specs(skills: Sequence[PackSkill]) -> dict[str, TextSpec]:
    return {s.name: TextSpec((s.heading + "\n").encode("utf-8"), s.body_bytes, s.body_sha256) for s in skills}


def zuno_texts(env: Environment, *, policy: TextSpec | None = None) -> ZunoTexts:
    """Zuno's texts from the installed executable (:func:`find_zuno`), remembered per executable;
    ``policy``: how to recognise the policy (default :data:`POLICY`). Never raises; without a
    Zuno every field is empty and ``notes`` says so."""
    policy = policy or POLICY
    executable = find_zuno(env)
    if executable is None:
        return ZunoTexts(notes=("no `zuno` found on PATH (or $SKILLSHELF_ZUNO_BIN): Zuno's own texts are "
                                "shown as stand-ins of the same size",))
    try:
        st = os.stat(executable)
    except OSError:
        return ZunoTexts(notes=(f"{executable} cannot be read: Zuno's own texts are shown as stand-ins",))
    key = (executable, st.st_size, st.st_mtime_ns)
    with _LOCK:
        memo = _MEMO.get(key)
    if memo is not None and policy is POLICY:
        return memo
    notes: list[str] = []
    listed, why = _listed(executable, env)
    if why:
        notes.append(why)
    versions = {v for s in listed if (p := parse_locator(s.location)) for v in (p[0],)}
    version = sorted(versions)[0] if len(versions) == 1 else None
    skills = pack(version or PACK_VERSION)
    specs: dict[str, TextSpec] = {"policy": policy}
    specs.update({f"body:{k}": v for k, v in _body_specs(skills).items()})
    found = scan_binary(os.path.realpath(executable), specs)
    text_policy = found.get("policy")
    if text_policy is None:
        notes.append(f"{executable} does not hold Zuno {version or PACK_VERSION}'s skill trigger policy "
                     "(SHA-256 checked): it is shown as a stand-in of the same size")
    bodies = {k[5:]: v for k, v in found.items() if k.startswith("body:")}
    if skills and len(bodies) < len(skills):
        notes.append(f"{len(skills) - len(bodies)} of Zuno's built-in bodies were not found in {executable}: "
                     "they are shown as stand-ins of the same size")
    result = ZunoTexts(executable, version, listed, text_policy, MappingProxyType(bodies), tuple(notes))
    if policy is POLICY:
        with _LOCK:
            _MEMO[key] = result
    return result
