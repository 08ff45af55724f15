"""Explicitly tagged YAML values each client's parser must be matched on (core tags on text that
is not of their type, on collections, unknown tags): ``folder → (description, extra lines)``,
shared by the agreement tests."""

from __future__ import annotations

#: ``folder → (description value, extra frontmatter lines)``; the name is the folder.
TAGGED: dict[str, tuple[str, str]] = {
    "tag-meta-bool": ("d", "metadata:\n  x: !!bool z"),
    "tag-meta-null": ("d", "metadata:\n  x: !!null z"),
    "tag-meta-int": ("d", 'metadata:\n  x: !!int ""'),
    "tag-meta-float": ("d", 'metadata:\n  x: !!float ""'),
    "tag-meta-bool-empty": ("d", 'metadata:\n  x: !!bool ""'),
    "tag-other-timestamp": ("d", "other: !!timestamp z"),
    "tag-other-binary": ("d", "other: !!binary zz"),
    "tag-other-str-list": ("d", "other: !!str [a]"),
    "tag-other-set": ("d", "other: !!set {a}"),
    "tag-other-int-ok": ("d", "other: !!int 12"),
    "tag-desc-bool": ("!!bool z", ""),
    "tag-desc-bool-yes": ("!!bool yes", ""),
    "tag-desc-int-empty": ('!!int ""', ""),
    "tag-desc-int-map": ("!!int {a: 1}", ""),
    "tag-desc-hex": ("!!int 0x1F", ""),
    "tag-desc-float": ("!!float x", ""),
    "tag-desc-null": ("!!null z", ""),
    "tag-desc-null-empty": ('!!null ""', ""),
    "tag-desc-binary": ("!!binary aGk=", ""),
    "tag-desc-str-list": ("!!str [a]", ""),
    "tag-desc-timestamp": ("!!timestamp z", ""),
}


def tagged_text(folder: str) -> str:
    """The ``SKILL.md`` of one :data:`TAGGED` case."""
    description, extra = TAGGED[folder]
    lines = ["---", f"name: {folder}", f"description: {description}"] + ([extra] if extra else []) + ["---", "Body.", ""]
    return "\n".join(lines)
