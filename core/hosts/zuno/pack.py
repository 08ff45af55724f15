"""Host ``zuno``: Zuno's own built-in skills, the ``zuno-orchestration`` pack (conformance Z-B).

Zuno inserts every skill of its first-party pack before it reads the disk, in pack order, each
with exposure ``index`` and the locator ``builtin://zuno-orchestration/<zuno version>/<name>``.
The pack changes between Zuno versions (7, 9, then 11 skills), so it is keyed by version:
:data:`PACKS` holds Zuno 0.10.3's eleven.

The skills' descriptions and bodies are Zuno's prose and are not stored here. What is stored
are facts about them: for a description, the length of each of its words (so a stand-in has
exactly the same characters, bytes, spaces and truncation points) and its SHA-256; for a body,
its size in bytes, its SHA-256 (the pack's own ``content_sha256``) and its heading line, used
to find it in an installed Zuno binary. :mod:`.installed` reads the real texts from an
installed Zuno; without one, :func:`description_marker` and :func:`body_marker` stand in, and
every count (characters, bytes, truncation, omission) comes out the same.

Visibility (``builtin.rs`` ``visible_to``): the agent's **name** must be one of the skill's
profiles and every required tool must be visible to the agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "LOCATOR_PREFIX",
    "PACKS",
    "PACK_ID",
    "PACK_VERSION",
    "PackSkill",
    "body_marker",
    "description_marker",
    "locator",
    "pack",
    "parse_locator",
]

#: The pack's identifier and the Zuno version whose pack :data:`PACKS` describes by default.
PACK_ID = "zuno-orchestration"
PACK_VERSION = "0.10.3"
#: Prefix of every Zuno built-in locator.
LOCATOR_PREFIX = f"builtin://{PACK_ID}/"

_USER = ("orchestrator", "build", "plan", "deep", "fixer", "general", "explorer", "librarian", "oracle", "looker")
_DEEPWORK = ("orchestrator", "build", "plan", "deep")
_CODEMAP = ("orchestrator", "build", "plan", "deep", "fixer", "general", "explorer", "librarian", "oracle")
_VERIF = ("orchestrator", "build", "plan", "deep", "fixer", "general", "oracle")
_REFLECT = ("orchestrator", "build", "deep", "general", "oracle")
_MUT = ("orchestrator", "build", "deep", "fixer", "general")
_UI = ("orchestrator", "build", "plan", "deep", "fixer", "general", "oracle", "looker")
_CLAIM = ("orchestrator", "build")


@dataclass(frozen=True)
class PackSkill:
    """One built-in of a Zuno pack, as facts (no prose).

    ``words``: the length in characters of each space-separated word of the description (all
    ASCII: characters = bytes); ``description_sha256``: hex SHA-256 of its UTF-8 bytes.
    ``profiles``: agent names allowed to see it; ``tools``: tools it requires.
    ``body_bytes``: size of the body in UTF-8 bytes (``None`` when skillshelf does not know it);
    ``body_sha256``: hex SHA-256 of the body (the pack's ``content_sha256``); ``heading``: the
    body's first line, used to find it in a Zuno binary.
    """

    name: str
    words: tuple[int, ...]
    description_sha256: str
    profiles: tuple[str, ...]
    tools: tuple[str, ...]
    body_sha256: str
    body_bytes: int | None
    heading: str

    @property
    def description_chars(self) -> int:
        """Length of the description in characters (= bytes: the text is ASCII)."""
        return sum(self.words) + len(self.words) - 1


_V0_10_3 = (
    PackSkill("customize-zuno", (7, 2, 6, 4, 14, 10, 15, 12, 7, 10, 7, 3, 8, 2, 11),
              "51c1c013dafe51df074280f671363396e65f1e24898773cab7781300085ca42f", _USER, ("read", "glob", "grep"),
              "2d95bcf802d8d49e9c5a0c46a6105d234977a45a1fa6ef4eb025f33b83d46360", 2131, "# Customize Zuno"),
    PackSkill("develop-zuno", (6, 2, 9, 6, 4, 14, 7, 7, 10, 3, 13, 9, 8, 2, 7, 9, 7),
              "2e6d12de5332a412040fb4fc238676e040dc64f501e80c692e6ecd310b66d28e", _USER, ("read", "glob", "grep"),
              "bd92eb5b2988d57385d666e7e0ae1a26aad7349f1bfee23294e481998b83a13b", 4291, "# Develop Zuno"),
    PackSkill("deepwork", (4, 1, 7, 7, 7, 4, 7, 5, 5, 5, 10, 11, 3, 12, 6),
              "36491414eba03398bc356f4d05b6958cbcb9a6d87a96564a3b12368eb5f271c0", _DEEPWORK,
              ("goal_get", "plan_get", "plan_update", "todo_get", "todo_update"),
              "14ae721a96c7621e08b2bb030657e4d271f133f92baa6b449a1c687ee1e92284", 623, "# Deep Work"),
    PackSkill("codemap", (3, 3, 6, 9, 5, 3, 9, 5, 2, 6, 1, 6, 10, 4, 3, 4, 9),
              "4e82572470dbadfad71b4e9b53cd8624131277268b4a557dd7ba7b84df53e6cc", _CODEMAP, ("read", "glob", "grep"),
              "0d52f475ad0dfa6a7d82049ad50b48d39f2201f67d5902ee30375e59a8f34d93", 743, "# Code Map"),
    PackSkill("verification-planning", (4, 8, 3, 10, 14, 8, 10, 9, 2, 10, 9, 12, 5, 4, 7, 7, 7, 5, 10, 8, 3, 7, 6),
              "921aa7f2ad0904594a8b309abec3fda1bb0fb63abdf7593816839676f4f13f8d", _VERIF, ("read",),
              "29d7b59c4b9b026617c48ddc574e2ad01bc6dd6585b87eef4a648e6c02ac0898", 664, "# Verification Planning"),
    PackSkill("reflect", (7, 8, 10, 6, 10, 4, 9, 8, 7, 8, 8, 4, 2, 8),
              "00ca5c48d10736a51a661521aa9e52a2964be2ba834711c5d6b68cc73103d10c", _REFLECT, ("read",),
              "fc492f59ae4d699a855f5f6372eb4822293abfefae4f4c6812f86deec12b8d84", 718, "# Reflect"),
    PackSkill("worktree", (6, 8, 7, 4, 10, 3, 5, 2, 15, 3, 9, 7, 8, 13, 7),
              "06db3fac23ba7c372661fbf1df56fd608975730ab7ba45c71cfad5496d10ddc3", _MUT, ("read", "shell"),
              "29db03056613a6790bed39a2517b35cfc704be0e7a90054831ae7e23de5cc740", 1866, "# Git Worktree Isolation"),
    # git-workflow's 0.10.3 body was not among the versions of Zuno's source skillshelf could
    # check against the pack's digest, so its size is not known here (an installed Zuno still
    # supplies the body, found by heading and digest).
    PackSkill("git-workflow", (3, 4, 8, 8, 9, 10, 8, 8, 2, 1, 10, 5, 10, 7, 3, 10, 4, 8, 10, 8, 3, 8, 11, 6),
              "70d99e50923c89dc2702b116b74b550dbcb22a89be2d6bed5001095772dabe02", _MUT, ("read", "shell"),
              "f3be76e43e213c6db9c8f3b6cbd37e7984fd85e5f34c913f3f409cc6e9e9e699", None, "# Git Workflow"),
    PackSkill("github-delivery", (5, 8, 2, 7, 6, 4, 8, 8, 3, 4, 9, 2, 7, 8, 4, 6, 8, 3, 12),
              "9a869dfb62bc1f58f98adf98dd5b6ffef2f71a337f6556b8399e27bdda132cca", _USER, ("read",),
              "8767494e8544f2a9cba582da9299699757b62bf213186021c7fc610cdbad830e", 1787, "# GitHub Delivery"),
    PackSkill("ui-design", (6, 2, 9, 2, 4, 15, 10, 11, 3, 13, 13, 3, 4, 6, 10, 9),
              "1fa68c7c57e6525c4f88618ac6b916d8f903e68f03f7a26b7ec0a1361b50dc7c", _UI, ("read", "skill"),
              "c7be8a1d626f396f2dd068f6ca4f0cd64565bfc5584dba52e7360f4676afb7c0", 1482, "# UI design and implementation"),
    PackSkill("bedrock-model-capability-review",
              (6, 2, 6, 7, 5, 10, 3, 5, 2, 3, 6, 4, 1, 5, 6, 8, 2, 2, 8, 6, 3, 6, 2, 4, 16, 6, 7, 8, 14),
              "d572c93f8b7d6f2408814bac6b18c984f32ed518625e804672fceff5421d4d82", _CLAIM, ("read", "capability_claim"),
              "f56621fa11ffeadd9b3d09131ad3efc6e979101a6e4d2a2ba7b66dcc61b81285", 1412,
              "# Bedrock Model Capability Review"),
)

#: Zuno version → its built-in pack, in pack order.
PACKS: Mapping[str, tuple[PackSkill, ...]] = MappingProxyType({"0.10.3": _V0_10_3})


def pack(version: str = PACK_VERSION) -> tuple[PackSkill, ...]:
    """The pack of Zuno ``version`` (``()`` for a version skillshelf has no data for)."""
    return PACKS.get(version, ())


def locator(name: str, version: str = PACK_VERSION) -> str:
    """``builtin://zuno-orchestration/<version>/<name>``."""
    return f"{LOCATOR_PREFIX}{version}/{name}"


def parse_locator(loc: str) -> tuple[str, str] | None:
    """``(version, name)`` of a Zuno built-in locator, else ``None``."""
    if not loc.startswith(LOCATOR_PREFIX):
        return None
    version, sep, name = loc[len(LOCATOR_PREFIX):].partition("/")
    if not sep or not version or not name or "/" in name:
        return None
    return version, name


#: The character every letter of a description stand-in is made of. It needs no escaping in
#: the index and is not whitespace, so the stand-in renders, escapes, normalises and truncates
#: exactly like Zuno's text (same characters, same spaces).
DESCRIPTION_FILL = "~"


def description_marker(skill: PackSkill) -> str:
    """A stand-in for ``skill``'s description: its words as runs of ``~`` of the same lengths,
    ending with ``.`` like Zuno's text (``~~~~ ~~ ~~~~~~.``). Exactly as many characters."""
    text = " ".join(DESCRIPTION_FILL * n for n in skill.words)
    return text[:-1] + "."


def body_marker(skill: PackSkill, version: str = PACK_VERSION) -> str:
    """A stand-in for ``skill``'s body of exactly ``body_bytes`` ASCII bytes, saying it is Zuno's
    text and not available here (a short note when the size is not known)."""
    size = skill.body_bytes
    if size is None:
        return (f"[Zuno {version} built-in `{skill.name}`: its body is Zuno's text, not shown here "
                "(install Zuno to read it); skillshelf does not know its size]\n")
    head = (f"[Zuno {version} built-in `{skill.name}`: its body ({size:,} bytes) is Zuno's text, not "
            "shown here (install Zuno to read it)]\n")
    if len(head) >= size:
        return head[:size]
    return head + "." * (size - len(head) - 1) + "\n"
