"""`clarity config` as the CLI calls it: every effective setting, where it came from, and
what the kept versions take on disk (a renderer reads this report, never the archive)."""

from __future__ import annotations

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
