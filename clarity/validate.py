"""Reading back what clarity wrote (journal, proposal, index): each field checked.

Every record clarity reads back can have been damaged (a full disk, a hand
edit, a bug of an older version). The readers take each field through these,
so a damaged record is one `Damaged` naming the field, never a KeyError or a
TypeError somewhere downstream.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

E = TypeVar("E", bound=StrEnum)


class Damaged(ValueError):
    """A record that is not what clarity writes: what is wrong with it."""


def record(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Damaged("not a JSON record")
    return value


def text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise Damaged(f"{key} is not text" if key in data else f"no {key}")
    return value


def count(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Damaged(f"{key} is not a whole number" if key in data else f"no {key}")
    if value < 0:
        raise Damaged(f"{key} is negative")
    return value


def flag(data: dict[str, Any], key: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise Damaged(f"{key} is not true or false")
    return value


def path(data: dict[str, Any], key: str) -> Path:
    value = text(data, key)
    if not value or "\0" in value:
        raise Damaged(f"{key} is not a path")
    return Path(value)


def optional_path(data: dict[str, Any], key: str) -> Path | None:
    return None if data.get(key) is None else path(data, key)


def optional_text(data: dict[str, Any], key: str) -> str | None:
    return None if data.get(key) is None else text(data, key)


def optional_count(data: dict[str, Any], key: str) -> int | None:
    return None if data.get(key) is None else count(data, key)


def sha256(data: dict[str, Any], key: str = "sha256") -> str:
    value = text(data, key)
    if len(value) != 64 or value.strip("0123456789abcdef"):
        raise Damaged(f"{key} is not a sha256")
    return value


def choice(data: dict[str, Any], key: str, enum: type[E]) -> E:
    value = text(data, key)
    try:
        return enum(value)
    except ValueError:
        raise Damaged(f"{key} {value!r} is not one of {', '.join(enum)}") from None


def moment(data: dict[str, Any], key: str) -> datetime:
    """An ISO-8601 time with its zone (a naive one is ambiguous: damaged)."""
    value = text(data, key)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise Damaged(f"{key} is not an ISO-8601 time") from None
    if parsed.utcoffset() is None:
        raise Damaged(f"{key} has no time zone")
    return parsed


def strings(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Damaged(f"{key} is not a list of text")
    return tuple(value)
