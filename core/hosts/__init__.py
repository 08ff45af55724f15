"""The host registry (SPEC N1): every host by name, in the order ``h`` cycles them.

Import hosts from here, never by module: ``get_host("claude")``, ``HOSTS``, ``DEFAULT_HOST``.
The protocol and shared types live in :mod:`skillshelf.core.hosts.base`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from skillshelf.core.hosts.base import Host
from skillshelf.core.hosts.claude import CLAUDE
from skillshelf.core.hosts.codex import CODEX
from skillshelf.core.hosts.gemini import GEMINI
from skillshelf.core.hosts.opencode import OPENCODE
from skillshelf.core.hosts.zhin import ZHIN
from skillshelf.core.hosts.zuno import ZUNO

__all__ = ["DEFAULT_HOST", "HOSTS", "UnknownHostError", "get_host", "host_names", "next_host"]

#: Every registered host by name, in registry order (CLI choices, ``h`` cycle, help).
HOSTS: Mapping[str, Host] = MappingProxyType({h.name: h for h in (
    ZUNO,
    ZHIN,
    CLAUDE,
    CODEX,
    OPENCODE,
    GEMINI,
)})

#: The host used when none is named.
DEFAULT_HOST: Host = ZUNO


class UnknownHostError(KeyError):
    """No host is registered under this name; ``str(exc)`` lists the registered ones."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown host {self.name!r}; choose one of: {', '.join(HOSTS)}"


def get_host(name: str) -> Host:
    """The registered host called ``name``. Raises :class:`UnknownHostError`."""
    try:
        return HOSTS[name]
    except KeyError:
        raise UnknownHostError(name) from None


def host_names() -> tuple[str, ...]:
    """Registered host names in registry order."""
    return tuple(HOSTS)


def next_host(host: Host) -> Host:
    """The host after ``host`` in registry order (wrapping), for the TUI's ``h``."""
    names = host_names()
    i = names.index(host.name) if host.name in names else -1
    return HOSTS[names[(i + 1) % len(names)]]
