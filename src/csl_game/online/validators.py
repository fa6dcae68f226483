"""Reading what the network sends, field by field, without I/O.

A message is one JSON object on one line. `json_object` reads a line as one,
`check_keys` refuses a message with a key missing or unknown, and each
``*_field`` function gives one field checked for its type and range, or
raises `ProtocolError` naming the field and what it must be. The match
protocol (csl_game.online.protocol) and the tournament broadcast's
(csl_game.online.tourney_protocol) are read with these, so both refuse the
same things in the same words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from csl_game.errors import ProtocolError

__all__ = ["MAX_MS", "json_object", "check_keys", "int_field", "ms_field", "text_field",
           "choice_field", "list_field"]

MAX_MS = 10 ** 9
"""Milliseconds a time in a message may be at most."""


def json_object(line: bytes | str, loads: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """The line (UTF-8 bytes, or text already decoded) as a JSON object (no
    NaN or Infinity, nothing nested too deeply), read by `loads` (the
    standard library's reader if None; the server gives orjson's, whose
    errors are ValueErrors too).

    Raises:
        ProtocolError: the line is no JSON object.
    """
    try:
        doc = (loads or _DECODER.decode)(line if isinstance(line, str) else line.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProtocolError("a line that is not UTF-8 text") from None
    except RecursionError:
        raise ProtocolError("a line nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, and ints of more digits than Python reads
        raise ProtocolError(f"a line that is not JSON ({str(e)[:80]})") from None
    if not isinstance(doc, dict):
        raise ProtocolError("a line that is not a JSON object")
    return doc


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number here")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
"""Made once: json.loads with an argument makes a decoder for every line."""


def check_keys(doc: Mapping[str, Any], required: tuple[str, ...],
               optional: tuple[str, ...] = ()) -> None:
    """Every `required` key is there, and no key but those, `optional` and "type".

    Raises:
        ProtocolError: a key missing, or one unknown.
    """
    missing = [k for k in required if k not in doc]
    if missing:
        raise ProtocolError(f"a {doc.get('type')!r} message without {missing[0]!r}")
    if "type" in doc and len(doc) == len(required) + 1:
        return  # "type" and the required keys: there is no other
    unknown = sorted(set(doc) - {"type", *required, *optional})
    if unknown:
        raise ProtocolError(f"a {doc.get('type')!r} message with an unknown key "
                            f"{unknown[0][:40]!r}")


def int_field(doc: Mapping[str, Any], key: str, low: int, high: int) -> int:
    """`doc[key]`, a whole number (not a bool) from `low` to `high`."""
    value = doc.get(key)
    if type(value) is not int or not low <= value <= high:
        raise ProtocolError(f"'{key}' must be a whole number from {low} to {high}")
    return value


def ms_field(doc: Mapping[str, Any], key: str = "ms") -> float:
    """`doc[key]`, milliseconds from 0 to MAX_MS, as seconds."""
    value = doc.get(key)
    if not (isinstance(value, int | float) and not isinstance(value, bool)
            and 0 <= value <= MAX_MS):  # NaN fails too
        raise ProtocolError(f"'{key}' must be a number of milliseconds from 0 to {MAX_MS}")
    return float(value) / 1000


def text_field(doc: Mapping[str, Any], key: str, longest: int, empty: bool = True,
               lines: bool = False) -> str:
    """`doc[key]`, printable text of at most `longest` characters (with `lines`, also
    newlines; unless `empty`, at least one character)."""
    value = doc.get(key)
    if not isinstance(value, str) or len(value) > longest or (not value and not empty):
        raise ProtocolError(f"'{key}' must be a text of {'0' if empty else '1'} to "
                            f"{longest} characters")
    if not value.isprintable() and not (lines and value.replace("\n", "").isprintable()):
        raise ProtocolError(f"'{key}' holds control characters")
    return value


_T = TypeVar("_T")


def choice_field(doc: Mapping[str, Any], key: str, choices: Mapping[str, _T]) -> _T:
    """What `doc[key]`, one of the words of `choices`, stands for."""
    value = doc.get(key)
    if not isinstance(value, str) or value not in choices:
        raise ProtocolError(f"'{key}' must be one of {', '.join(choices)}")
    return choices[value]


def list_field(doc: Mapping[str, Any], key: str, longest: int) -> list[dict[str, Any]]:
    """`doc[key]`, a list of at most `longest` objects."""
    value = doc.get(key)
    if not isinstance(value, list) or len(value) > longest or \
            not all(isinstance(v, dict) for v in value):
        raise ProtocolError(f"'{key}' must be a list of at most {longest} objects")
    return value
