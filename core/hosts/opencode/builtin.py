"""opencode 1.18.33's built-in skill ``customize-opencode``: its name and sizes, and its text
read at run time from an installed opencode when one is found.

skillshelf does not ship opencode's prose. What is stored here are facts measured on the real
client: the description is 386 characters (all ASCII), the content 16,060 characters (16,072
UTF-8 bytes), and the SHA-256 of each. :func:`builtin_texts` looks for the ``opencode`` executable
(on ``PATH``, then ``~/.opencode/bin``), reads the two string literals out of the JavaScript
bundled in it and keeps them only when their SHA-256 matches, so another version never puts a
wrong text into the catalog. Without them a sized marker of the same length stands in, and the
catalog says so.
"""

from __future__ import annotations

import glob
import hashlib
import json
import mmap
import os
import re
import shutil
from dataclasses import dataclass
from threading import Lock

from skillshelf.core.fileread import mapped

Buffer = bytes | mmap.mmap

__all__ = ["BUILTIN", "BUILTIN_LOCATION", "BuiltinSkill", "BuiltinTexts", "builtin_texts", "find_executable"]

#: The built-in's locator in skillshelf (opencode prints ``<built-in>``).
BUILTIN_LOCATION = "builtin://opencode/customize-opencode"


@dataclass(frozen=True)
class BuiltinSkill:
    """One built-in skill: ``name``, ``location`` as opencode prints it, the lengths (UTF-16
    units = characters here) and SHA-256 (UTF-8) of its description and content."""

    name: str
    location: str
    description_len: int
    description_sha256: str
    content_len: int
    content_sha256: str

    def description_marker(self) -> str:
        """A stand-in description of exactly :attr:`description_len` ASCII characters."""
        text = f"<<opencode built-in description of {self.name}: {self.description_len} characters>>"
        return text.ljust(self.description_len, ".")

    def content_marker(self) -> str:
        """A stand-in content (short: the length is stated in it)."""
        return (f"<<opencode built-in skill {self.name}: {self.content_len:,} characters; "
                "install opencode 1.18.33 on PATH for skillshelf to show its text>>")


#: The one built-in skill of opencode 1.18.33.
BUILTIN = BuiltinSkill(
    name="customize-opencode",
    location="<built-in>",
    description_len=386,
    description_sha256="005957c825ebc1eea571edbdbebcf2f942534659c6321304a456a54b31170648",
    content_len=16_060,
    content_sha256="eda4eae3679562180d26a31817cb5b2c8c801599b85f80b2796beae5620bad66",
)


@dataclass(frozen=True)
class BuiltinTexts:
    """The verified texts (``None`` when not found) and the executable they came from."""

    description: str | None = None
    content: str | None = None
    origin: str = ""


_CACHE: dict[tuple[str, int, int], BuiltinTexts] = {}
_LOCK = Lock()


def find_executable(path_var: str | None, home: str) -> str | None:
    """The opencode binary (symlinks resolved): ``opencode`` on ``path_var``, else
    ``~/.opencode/bin/opencode``; an npm launcher script is followed to the platform package's
    binary. ``None`` when none is found."""
    candidates = []
    found = shutil.which("opencode", path=path_var) if path_var else None
    if found:
        candidates.append(found)
    candidates.append(os.path.join(home, ".opencode", "bin", "opencode"))
    for c in candidates:
        try:
            real = os.path.realpath(c)
            size = os.path.getsize(real)
        except OSError:
            continue
        if size > 1_000_000:
            return real
        package = os.path.dirname(os.path.dirname(real))
        for pattern in ("../opencode-*/bin/opencode", "node_modules/opencode-*/bin/opencode"):
            for hit in sorted(glob.glob(os.path.join(package, pattern))):
                if os.path.getsize(hit) > 1_000_000:
                    return os.path.realpath(hit)
    return None


_DESCRIPTION = re.compile(rb'="customize-opencode",[\w$]{1,4}="((?:[^"\\]|\\.){1,4000})"')
_EXPORT = re.compile(rb"CustomizeOpencodeContent:\(\)=>([\w$]{1,4})[,}]")


def _js_string(raw: bytes) -> str | None:
    try:
        return str(json.loads(b'"' + raw.replace(b"\\'", b"'") + b'"'))
    except ValueError:
        return None


_TEMPLATE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _template(data: Buffer, start: int) -> str | None:
    """The cooked value of the template literal whose backtick is at ``start`` (``None`` when
    it holds an expression or does not end)."""
    end = start + 1
    limit = min(len(data), start + 200_000)
    while end < limit:
        byte = data[end]
        if byte == 0x5C:  # backslash
            end += 2
            continue
        if byte == 0x60:  # closing backtick
            break
        if byte == 0x24 and data[end + 1:end + 2] == b"{":
            return None
        end += 1
    else:
        return None
    text = data[start + 1:end].decode("utf-8", errors="strict")
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            if text[i + 2] == "{":
                close = text.index("}", i)
                out.append(chr(int(text[i + 3:close], 16)))
                i = close + 1
            else:
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
        elif nxt == "x":
            out.append(chr(int(text[i + 2:i + 4], 16)))
            i += 4
        elif nxt == "\n":
            i += 2
        else:
            out.append(_TEMPLATE_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def _content(data: Buffer) -> str | None:
    m = _EXPORT.search(data)
    if m is None:
        return None
    name = m.group(1)
    chunk_end = data.find(b"\x00/$bunfs/root/", m.start())
    chunk_end = len(data) if chunk_end < 0 else chunk_end
    for _ in range(3):  # var X=Y aliases, then var Y=`…`, later in the same bundled chunk
        at = data.find(b"var " + name + b"=", m.start(), chunk_end)
        if at < 0:
            return None
        value = at + len(b"var ") + len(name) + 1
        if data[value:value + 1] == b"`":
            try:
                return _template(data, value)
            except (ValueError, IndexError, UnicodeDecodeError):
                return None
        alias = re.match(rb"[\w$]{1,4}", data[value:value + 8])
        if alias is None:
            return None
        name = alias.group(0)
    return None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read(path: str) -> BuiltinTexts:
    try:
        with mapped(path) as data:
            description = None
            for m in _DESCRIPTION.finditer(data):
                text = _js_string(m.group(1))
                if text is not None and _sha(text) == BUILTIN.description_sha256:
                    description = text
                    break
            content = _content(data)
    except (OSError, ValueError):
        return BuiltinTexts()
    if content is not None and _sha(content) != BUILTIN.content_sha256:
        content = None
    if description is None and content is None:
        return BuiltinTexts()
    return BuiltinTexts(description, content, path)


def builtin_texts(path_var: str | None, home: str) -> BuiltinTexts:
    """The verified built-in texts of the opencode found from ``path_var`` and ``home``
    (memoised per executable, size and modification time). Never raises."""
    exe = find_executable(path_var, home)
    if exe is None:
        return BuiltinTexts()
    try:
        st = os.stat(exe)
    except OSError:
        return BuiltinTexts()
    key = (exe, st.st_size, st.st_mtime_ns)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = _read(exe)
        return _CACHE[key]
