"""Files a host's walk passes over without a word from the host itself: a file named almost
``SKILL.md`` (``skill.md``, ``SKILL.MD``, ``SKILLS.md`` …) and ``SKILL.md`` files inside dot
folders the host does not enter. The walkers (:mod:`skillshelf.core.scan` and each host's own)
report them as catalog warnings with these helpers, so nothing a user meant as a skill vanishes
silently. Names are compared as the directory listing spells them, so a case-insensitive file
system gives the same answer as a case-sensitive one.
"""

from __future__ import annotations

import os

from skillshelf.core.model import CatalogWarning

__all__ = [
    "COUNT_DIR_LIMIT",
    "DOT_FOLDER_SKIPPED",
    "NEAR_MISS_NAMES",
    "NOT_COUNTED",
    "WRONG_FILE_NAME",
    "count_skill_files",
    "dot_folder_warning",
    "is_near_miss",
    "near_miss_warning",
]

#: Warning kinds (skillshelf's own: the hosts say nothing).
WRONG_FILE_NAME = "wrong-file-name"
DOT_FOLDER_SKIPPED = "dot-folder-skipped"

#: File names that look like a skill file but are not ``SKILL.md`` (lower-cased; ``skill.md``
#: also stands for ``Skill.md``, ``SKILL.MD`` …).
NEAR_MISS_NAMES = frozenset({"skill.md", "skills.md", "skill.markdown", "skill.mdx", "skill.txt", "skill.md.md"})
_LONGEST = max(len(n) for n in NEAR_MISS_NAMES)

#: Dot folders never counted: version-control stores hold no skills and can be huge.
NOT_COUNTED = frozenset({".git", ".hg", ".svn"})
#: Most directories looked at when counting the ``SKILL.md`` files of one dot folder (then the
#: count is a lower bound, said so).
COUNT_DIR_LIMIT = 5_000


def is_near_miss(name: str) -> bool:
    """Whether a file called ``name`` looks meant as ``SKILL.md`` but is not exactly that."""
    return name != "SKILL.md" and len(name) <= _LONGEST and name.lower() in NEAR_MISS_NAMES


def near_miss_warning(path: str, reader: str = "the host") -> CatalogWarning:
    """``wrong-file-name`` for the file at ``path``; ``reader`` names who skips it (``Zuno``)."""
    folder, name = os.path.split(path)
    return CatalogWarning(
        WRONG_FILE_NAME, path,
        f"{path} is not read: {reader} reads only a file named exactly `SKILL.md` (case-sensitive), "
        f"and this one is `{name}`; rename it to {os.path.join(folder, 'SKILL.md')}")


def count_skill_files(directory: str, limit: int = COUNT_DIR_LIMIT) -> tuple[int, bool]:
    """``(count, complete)``: ``SKILL.md`` files at or below ``directory`` (dot folders too,
    except :data:`NOT_COUNTED`; symlinked folders are not followed), looking at no more than
    ``limit`` directories (``complete`` False when it stopped there). Never raises."""
    count = 0
    seen = 0
    stack = [directory]
    while stack:
        if seen >= limit:
            return count, False
        current = stack.pop()
        seen += 1
        try:
            with os.scandir(current) as it:
                for entry in it:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.name not in NOT_COUNTED:
                                stack.append(entry.path)
                        elif entry.name == "SKILL.md" and entry.is_file():
                            count += 1
                    except OSError:
                        continue
        except OSError:
            continue
    return count, True


def dot_folder_warning(folder: str, count: int, complete: bool, reader: str, include: str) -> CatalogWarning:
    """``dot-folder-skipped``: ``count`` ``SKILL.md`` files (``complete`` False: at least that
    many) under ``folder`` that ``reader`` never scans, and ``include``: what would make it read
    them, in its terms."""
    many = f"{count}{'' if complete else '+'} SKILL.md file{'s' if count != 1 or not complete else ''}"
    return CatalogWarning(
        DOT_FOLDER_SKIPPED, folder,
        f"{many} under {folder} {'were' if count != 1 or not complete else 'was'} not scanned: {reader} skips "
        f"folders whose name starts with `.`; {include}")
