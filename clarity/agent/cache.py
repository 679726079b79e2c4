"""Answers already paid for, by content hash and model: an unchanged plan costs nothing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from clarity.fsio import write_atomic


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("clarity", appauthor=False)) / "agent"


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class AnswerCache:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else cache_dir()

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # missing or damaged: ask again
        return data if isinstance(data, dict) else None

    def put(self, key: str, answer: dict[str, Any]) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomic(self.folder / f"{key}.json", json.dumps(answer).encode())
        except OSError:
            pass  # a cache that cannot be written only costs a later request
