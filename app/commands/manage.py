"""``skillshelf enable|disable SKILL`` and ``skillshelf expose SKILL --exposure index|search|explicit``
(SPEC K3–K4, C): decide one skill in ``skills.config``, conflict or not.

``SKILL`` is any spelling that designates exactly one source: a unique skill name, a locator,
an alias, the canonical path, the skill's folder, a path relative to the shell's directory or
the project, or ``~/…`` (:func:`skillshelf.core.spelling.match_sources`); a name declared by
several sources, or a folder holding several skills, is refused with the candidates listed
(exit 2). ``enable``: the source is enabled (its exposure left to the skill); ``disable``:
``enabled: false``; ``expose``: enabled with that exposure. The rest — target file, portable
paths, lock, undo journal, outcome check, output, exit codes — is ``resolve``'s
(:func:`skillshelf.app.commands.resolve.write_choices`). Changing a skill back removes the
entry skillshelf wrote for it; when that is the file's state before skillshelf's write, the
file gets those exact bytes back.
"""

from __future__ import annotations

from typing import Any

from skillshelf.app.commands.resolve import (
    add_target_options,
    candidates_text,
    fail,
    refuse_host_without_config,
    spelling_bases,
    write_choices,
)

_HELP = {
    "enable": "enable one skill in skills.config (its exposure left to the skill)",
    "disable": "disable one skill in skills.config",
    "expose": "set one skill's exposure (index, search or explicit) in skills.config",
}


def add_parser(sub: Any, common: Any) -> None:
    """Register ``enable``, ``disable`` and ``expose``."""
    for verb, text in _HELP.items():
        p = sub.add_parser(verb, parents=[common], help=text, description=text + "; every other byte "
                           "of the file is kept and `skillshelf undo` reverts it.")
        p.add_argument("skill", metavar="SKILL",
                       help="a unique skill name, or the source's locator, folder, or a relative or ~/ path")
        if verb == "expose":
            p.add_argument("--exposure", choices=["index", "search", "explicit"], required=True,
                           help="index: in the prompt index; search: found by search, not indexed; "
                                "explicit: loaded only when named exactly")
        add_target_options(p)
        p.set_defaults(run=run, verb=verb)


def run(ns: Any) -> int:
    """Designate the source, then write through ``resolve``'s flow."""
    from skillshelf.app.common import open_catalog
    from skillshelf.core.configwrite import Choice
    from skillshelf.core.spelling import match_sources

    refused = refuse_host_without_config(ns, ns.verb)
    if refused is not None:
        return refused
    catalog = open_catalog(ns, announce=True)
    gen = catalog.current
    found = match_sources(gen.sources, ns.skill, bases=spelling_bases(ns, catalog), home=catalog.env.home)
    if len(found) != 1:
        if not found:
            return fail(ns.verb, f"{ns.skill} designates no skill source (give a skill name, a SKILL.md "
                        "path or its folder)", 2)
        return fail(ns.verb, f"{ns.skill} designates {len(found)} sources; give one of them (a path or "
                    f"folder):\n{candidates_text(found, catalog.env.home)}", 2)
    source = found[0]
    choice = {"enable": Choice.KEEP, "disable": Choice.DISABLE}.get(ns.verb)
    if choice is None:
        choice = Choice(ns.exposure)
    return write_choices(ns, catalog, source.name, {source.location: choice}, verb=ns.verb)
