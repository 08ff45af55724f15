"""``fast_init``: the records made once per skill file get an ``__init__`` that makes exactly the
object the generated one makes (same parameters, defaults, attributes and their order)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import pickle
from dataclasses import InitVar, dataclass, field

import pytest

from skillshelf.core.discovery import Match
from skillshelf.core.frontmatter import SkillParse, Split
from skillshelf.core.hosts.zuno.build import _Output, _Parsed
from skillshelf.core.model import SkillEntry, Source, fast_init


def _pair():
    def make():
        @dataclass(frozen=True)
        class Rec:
            a: str
            b: int = 2
            c: dict = field(default_factory=dict, compare=False)
            d: tuple = ()

            @functools.cached_property
            def twice(self) -> int:
                return self.b * 2

        return Rec

    return make(), fast_init(make())


@pytest.mark.parametrize("args, kwargs", [(("x",), {}), (("x", 5), {"d": (1,)}), ((), {"a": "y", "c": {"k": 1}})])
def test_the_object_is_the_generated_init_s(args, kwargs):
    plain, fast = _pair()
    p, f = plain(*args, **kwargs), fast(*args, **kwargs)
    assert list(vars(p).items()) == list(vars(f).items())
    assert repr(p).split("(", 1)[1] == repr(f).split("(", 1)[1] and p.twice == f.twice
    entry = SkillEntry("n", "/l/SKILL.md", "d")
    assert vars(pickle.loads(pickle.dumps(entry))) == vars(entry)
    assert vars(dataclasses.replace(f, b=9)) == vars(dataclasses.replace(p, b=9))
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.a = "z"  # type: ignore[misc]


def test_defaults_factories_and_wrong_calls_behave_as_before():
    plain, fast = _pair()
    one, two = fast("x"), fast("x")
    assert one.c == {} and one.c is not two.c  # a fresh default per object
    assert [p.name for p in inspect.signature(fast).parameters.values()] == ["a", "b", "c", "d"]
    for bad_args, bad_kwargs in [((), {}), (("x",), {"e": 1}), (("x", 1, {}, (), 5), {}), (("x",), {"a": "y"})]:
        with pytest.raises(TypeError):
            plain(*bad_args, **bad_kwargs)
        with pytest.raises(TypeError):
            fast(*bad_args, **bad_kwargs)


def test_classes_it_cannot_treat_so_are_refused():
    @dataclass
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class Slots:
        a: int

    @dataclass(frozen=True)
    class KwOnly:
        a: int = field(kw_only=True)

    @dataclass(frozen=True)
    class NoInit:
        a: int = field(default=1, init=False)

    @dataclass(frozen=True)
    class WithInitVar:
        a: int
        b: InitVar[int] = 0

    class NotADataclass:
        pass

    for cls in (Mutable, Post, Slots, KwOnly, NoInit, WithInitVar, NotADataclass):
        with pytest.raises(TypeError):
            fast_init(cls)


@pytest.mark.parametrize("cls", [Source, SkillEntry, SkillParse, Split, Match, _Parsed, _Output])
def test_the_per_file_records_have_every_field_as_a_parameter_in_order(cls):
    params = list(inspect.signature(cls).parameters.values())
    own = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in own]
    assert [p.default is inspect.Parameter.empty for p in params] == [
        f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING for f in own]


def test_a_pickled_source_keeps_only_its_fields_that_are_not_defaults_and_comes_back_equal():
    from skillshelf.core.model import Exposure, Provenance, Status

    plain = Source(name="a", location="/r/a/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
                   canonical="/r/a/SKILL.md", description="does a")
    _ = plain.entry  # (a cached entry is never pickled)
    state = plain.__getstate__()
    assert sorted(state) == ["canonical", "description", "frontmatter", "location", "name", "provenance"]
    back = pickle.loads(pickle.dumps(plain))
    assert back == plain and hash(back) == hash(plain) and repr(back) == repr(plain)
    assert (back.aliases, back.enabled, back.status, back.size, back.mtime) == ((), True, Status.OK, 0, 0.0)
    assert dataclasses.asdict(back) == dataclasses.asdict(plain) and back.entry == plain.entry
    # a value equal to its default but of another type, and every changed default, are kept
    odd = dataclasses.replace(plain, size=0.0, enabled=False, status=Status.DISABLED, exposure=Exposure.EXPLICIT,
                              aliases=("/r/b/SKILL.md",))
    assert {"size", "enabled", "status", "exposure", "aliases"} <= set(odd.__getstate__())
    again = pickle.loads(pickle.dumps(odd))
    assert again == odd and type(again.size) is float and again.aliases == ("/r/b/SKILL.md",)
