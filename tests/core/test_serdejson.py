"""serde_json's reading and words (core/serdejson.py): the pieces the index table in
test_remote.py does not reach — Rust's ``{:?}`` for strings, zmij's float text, serde's
``Unexpected`` words for config.py and tool.py, the recursion limit, and the fast path agreeing
with the byte-by-byte reading."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillshelf.core import serdejson
from skillshelf.core.remote import INDEX_SCHEMA
from skillshelf.core.serdejson import (
    Field,
    Opt,
    SerdeJsonError,
    Str,
    Struct,
    Vec,
    decode_exact,
    format_f64,
    from_str,
    rust_debug_str,
    unexpected,
)


# Rust's `impl Debug for str` (library/core/src/fmt/mod.rs): \0 \t \r \n \\ \" backslashed, `'`
# kept; grapheme extenders and the categories Cc Cf Cs Co Cn Zl Zp Zs (space excepted,
# library/core/src/unicode/printable.py) as \u{lowercase hex}; everything else as is.
@pytest.mark.parametrize(
    ("text", "debug"),
    [
        ("plain words", '"plain words"'),
        ("a\"b\\c'd/e", '"a\\"b\\\\c\'d/e"'),
        ("\0\t\r\n", '"\\0\\t\\r\\n"'),
        ("\x01\x1b\x7f", '"\\u{1}\\u{1b}\\u{7f}"'),
        ("\x08\x0c", '"\\u{8}\\u{c}"'),
        ("caf\u00e9 \u4e2d \U0001f600", '"caf\u00e9 \u4e2d \U0001f600"'),
        ("e\u0301", '"e\\u{301}"'),  # combining acute: Grapheme_Extend
        ("\u200b\u200d\u2028\u00a0\u3000", '"\\u{200b}\\u{200d}\\u{2028}\\u{a0}\\u{3000}"'),  # Cf Cf Zl Zs Zs
        ("\ue000\U000e0001", '"\\u{e000}\\u{e0001}"'),  # Co, Cf
        ("\u0378", '"\\u{378}"'),  # unassigned (Cn)
        ("\ufffd", '"\ufffd"'),
        ("\u20c1\u20c2", '"\u20c1\\u{20c2}"'),  # Rust has Unicode 17: U+20C1 is assigned, U+20C2 is not
    ],
)
def test_strings_are_printed_as_rust_debug_prints_them(text: str, debug: str) -> None:
    assert rust_debug_str(text) == debug


# zmij's `write` (dtolnay/zmij src/lib.rs, FIXED_DEC_EXP -5..=15 for f64) and its tests
# (tests/test.rs): shortest round-trip digits; plain with ".0" or a decimal part inside the
# range, else `d.ddd e±N` with the sign always written and no zero padding.
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (2.5, "2.5"),
        (43210.0, "43210.0"),
        (43210.1, "43210.1"),
        (-5942736479622170.0, "-5942736479622170.0"),
        (5.444310685350916e14, "544431068535091.6"),
        (1e15, "1000000000000000.0"),
        (1e16, "1e+16"),
        (1.5e300, "1.5e+300"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1, "0.1"),
        (0.00001, "0.00001"),
        (0.000012345, "0.000012345"),
        (1e-6, "1e-6"),
        (6.62607015e-34, "6.62607015e-34"),
        (5e-324, "5e-324"),
        (1.2e-322, "1.2e-322"),
        (2.2250738585072004e-308, "2.2250738585072004e-308"),
        (float("inf"), "inf"),
        (float("nan"), "NaN"),
    ],
)
def test_floats_are_printed_as_zmij_prints_them(value: float, text: str) -> None:
    assert format_f64(value) == text


# serde_json's JsonUnexpected (src/error.rs 465-479) over serde's Unexpected Display
# (serde_core src/de/mod.rs 401-425): the words config.py and tool.py put in their errors.
@pytest.mark.parametrize(
    ("value", "words"),
    [
        (None, "null"),
        (True, "boolean `true`"),
        (False, "boolean `false`"),
        (7, "integer `7`"),
        (-7, "integer `-7`"),
        (2.5, "floating point `2.5`"),
        (1e-7, "floating point `1e-7`"),
        (100.0, "floating point `100.0`"),
        ("x", 'string "x"'),
        ("tab\there\x1b", 'string "tab\\there\\u{1b}"'),
        ([1], "sequence"),
        ({"a": 1}, "map"),
    ],
)
def test_unexpected_values_use_serde_words(value: object, words: str) -> None:
    assert unexpected(value) == words


def _nested(depth: int) -> serdejson.Schema:
    schema: serdejson.Schema = Str()
    for _ in range(depth):
        schema = Vec(schema)
    return schema


def test_the_128th_nested_typed_container_exceeds_the_recursion_limit() -> None:
    # de.rs 1372-1388: remaining_depth starts at 128 and the check is a peek_error at the `[`
    with pytest.raises(SerdeJsonError) as info:
        from_str("[" * 128, _nested(130))
    assert str(info.value) == "recursion limit exceeded at line 1 column 128"
    with pytest.raises(SerdeJsonError) as info:
        from_str("[" * 127, _nested(130))
    assert str(info.value) == "EOF while parsing a list at line 1 column 127"
    assert from_str("[" * 127 + "]" * 127, _nested(130)) == _nest_list(127)


def _nest_list(depth: int) -> list[object]:
    out: list[object] = []
    for _ in range(depth - 1):
        out = [out]
    return out


def test_option_fields_and_defaults() -> None:
    schema = Struct("S", (Field("a", Opt(Str())), Field("b", Vec(Str()), default=True), Field("c", Str())))
    assert from_str('{"c":"x"}', schema) == {"a": None, "b": [], "c": "x"}
    assert from_str('{"a":null,"c":"x","b":["y"]}', schema) == {"a": None, "b": ["y"], "c": "x"}
    # in the array form only #[serde(default)] may be left out, not a plain Option
    # (serde_derive de.rs 808-839; in a map a missing Option is None, 766-806 via missing_field)
    with_default = Struct("T", (Field("c", Str()), Field("a", Opt(Str()), default=True)))
    without = Struct("T", (Field("c", Str()), Field("a", Opt(Str()))))
    assert from_str('["z"]', with_default) == {"c": "z", "a": None}
    assert from_str('{"c":"z"}', without) == {"c": "z", "a": None}
    with pytest.raises(SerdeJsonError) as info:
        from_str('["z"]', without)
    assert str(info.value) == "invalid length 1, expected struct T with 2 elements at line 1 column 5"
    with pytest.raises(SerdeJsonError) as info:
        from_str("[]", without)
    assert str(info.value) == "invalid length 0, expected struct T with 2 elements at line 1 column 2"


def test_the_error_keeps_reason_and_position_apart() -> None:
    with pytest.raises(SerdeJsonError) as info:
        from_str('{"skills":5}', INDEX_SCHEMA)
    assert (info.value.reason, info.value.line, info.value.column) == (
        "invalid type: integer `5`, expected a sequence", 1, 11)


# The fast path (Python's json) must give exactly what the byte-by-byte reading gives.
class Obj(tuple):  # type: ignore[type-arg]
    """A JSON object as (key, value) pairs, repeats allowed."""


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
    st.sampled_from(["SKILL.md", "\ud800", "\udc00x", "a\u0301", ""]),
)
_keys = st.sampled_from(["skills", "name", "files", "version", "x", "ski\u0301lls", "\udc00"])
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.builds(Obj, st.lists(st.tuples(_keys, inner), max_size=4))),
    max_leaves=12,
)
_names = st.one_of(st.text(max_size=4), st.sampled_from(["\ud800", "ok"]))
_entry = st.builds(Obj, st.lists(st.tuples(
    st.sampled_from(["name", "files", "version", "x", "\ud800"]),
    st.one_of(_names, st.lists(_names, max_size=2), st.none(), st.integers(0, 3)),
), max_size=4))
_index = st.builds(Obj, st.lists(st.tuples(st.sampled_from(["skills", "x", "\ud800"]), st.lists(_entry, max_size=3)), max_size=3))


def _dump(value: object) -> str:
    if isinstance(value, Obj):
        return "{" + ",".join(f"{json.dumps(k)}:{_dump(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump(v) for v in value) + "]"
    return json.dumps(value)


def _outcome(call: object, text: str) -> tuple[str, object]:
    try:
        return ("value", call(text, INDEX_SCHEMA))  # type: ignore[operator]
    except SerdeJsonError as exc:
        return ("error", str(exc))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_index, _values), st.sampled_from(["", " ", "\n", "x", ","]))
def test_the_fast_path_reads_what_serde_json_reads(doc: object, tail: str) -> None:
    text = _dump(doc) + tail
    assert _outcome(from_str, text) == _outcome(decode_exact, text)
