"""`clarity config` as the CLI calls it: every effective setting, where it came from, and
what the kept versions take on disk (a renderer reads this report, never the archive)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from clarity.settings.config import Settings


class ConfigView(NamedTuple):
    settings: Settings
    state_dir: Path
    config_exists: bool
    versions: tuple[int, int, int]  # plans with kept texts, texts, bytes


def view_config(settings: Settings) -> ConfigView:
    from clarity.archive.versions import versions_size
    from clarity.settings.locations import state_dir

    return ConfigView(
        settings,
        state_dir(),
        settings.config_path.exists(),
        versions_size(settings.archive_dir),
    )


def _toml(value: object) -> str:
    """A checked value as config.toml writes it."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # 30, as a person writes it, not 30.0
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def set_value(key: str, text: str) -> tuple[Path, str]:
    """Set key in the config file to text (read as its CLARITY_ variable reads it): the
    file and the line written. The new file is checked whole first; a bad key or value,
    or a file that would not load, is a ClarityError and the file is left as it was."""
    import re

    from clarity.errors import ClarityError
    from clarity.fsio import write_atomic
    from clarity.settings.config import KEYS, read_config_file
    from clarity.settings.locations import config_file

    known = KEYS.get(key)
    if known is None:
        raise ClarityError(f"no config key {key!r}; the keys are {', '.join(KEYS)}")
    try:
        value = known.from_env(text)
    except ValueError as error:
        raise ClarityError(f"{key} = {text!r}: {error}") from None
    path = config_file()
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, ValueError) as error:
        raise ClarityError(f"cannot read {path}: {error}; fix or remove it") from None
    line = f"{key} = {_toml(value)}"
    lines = old.splitlines()
    top = next((n for n, each in enumerate(lines) if each.lstrip().startswith("[")), len(lines))
    pattern = re.compile(rf"\s*{re.escape(key)}\s*=")
    at = next((n for n in range(top) if pattern.match(lines[n])), None)
    if at is None:
        lines.insert(top, line)
    else:
        lines[at] = line
    new = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.new")
    staged.write_text(new, encoding="utf-8")
    try:
        read_config_file(staged)  # the whole file as clarity will read it
        _check_loads(staged)
    except ClarityError as error:
        # said of the value given, or of the file as it is: never of the staged copy
        said = error.message
        if said.startswith(f"{staged}: {key}: "):
            said = f"{key} = {text!r}: {said.removeprefix(f'{staged}: {key}: ')}"
        else:
            said = said.replace(os.fspath(staged), os.fspath(path))
        raise ClarityError(f"{said} (nothing was written)", error.exit_code) from None
    finally:
        staged.unlink(missing_ok=True)
    write_atomic(path, new.encode("utf-8"))
    return path, line


def _check_loads(path: Path) -> None:
    from clarity.settings.config import load_settings

    load_settings(
        {},
        {k: v for k, v in os.environ.items() if not k.startswith("CLARITY_")},
        Path.cwd(),
        config_path=path,
    )


def edit_file(env: Mapping[str, str]) -> None:
    """Open the config file in the person's editor, then check it (one line if it does not
    load, naming the file, key and problem, as every bad config is said)."""
    import shlex
    import subprocess

    from clarity.errors import ClarityError
    from clarity.settings.locations import config_file

    path = config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    editor = env.get("VISUAL") or env.get("EDITOR") or "vi"
    try:
        command = shlex.split(editor)
        subprocess.run([*command, str(path)], check=False)
    except (OSError, ValueError) as error:
        raise ClarityError(
            f"cannot run the editor {editor!r} ({error}); set VISUAL or EDITOR"
        ) from None
    if path.exists():
        _check_loads(path)
