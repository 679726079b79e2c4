"""Where things are: plans (SPEC 2), archive, config and state (SPEC 7)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from clarity.errors import ClarityError
from clarity.model import Retention

APP_NAME = "clarity"
_PROJECT_SETTINGS = ("settings.local.json", "settings.json")  # local overrides shared


def expand_home(path: str | Path) -> Path:
    """`~` and `~user` expanded; an unknown user is one clear line, not a RuntimeError."""
    path = Path(path)
    try:
        return path.expanduser()
    except RuntimeError:
        user = str(path).split("/", 1)[0]
        raise ClarityError(
            f"{path}: {user} names no user on this machine; write the path out in full"
        ) from None


def path_problem(text: str) -> str | None:
    """Why text can name no file here, or None. A NUL ends a path at the system call; a
    lone surrogate has no bytes (except U+DC80..U+DCFF: how Python holds a name's bytes
    that are not UTF-8, in argv and the environment, which are a real path)."""
    if "\0" in text:
        return "has a NUL character, which no path can hold"
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        return "has a character no path can hold (a lone surrogate)"
    return None


class Located(NamedTuple):
    path: Path
    source: str


def claude_config_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    return expand_home(configured) if configured else Path.home() / ".claude"


def _read_settings(settings_file: Path) -> Mapping[str, Any]:
    from clarity.settings_files import parse_json, read_settings_text

    try:
        settings = parse_json(read_settings_text(settings_file))
    except (OSError, ValueError):
        # Claude Code's file, not ours (a repository's, often): unreadable (not a regular
        # file, too big, not JSON, which Claude Code would not read either) is "no setting"
        return {}
    return settings if isinstance(settings, dict) else {}


def claude_project_root(cwd: Path, claude_dir: Path) -> Path | None:
    """The project clarity runs in as Claude Code sees it: the nearest ancestor of cwd with a
    `.claude/` folder (the Claude config dir itself is the user's, not a project's)."""
    user_dir = _real(claude_dir)
    for root in (cwd, *cwd.parents):
        dot_claude = root / ".claude"
        if dot_claude.is_dir() and _real(dot_claude) != user_dir:
            return root
    return None


class ClaudeSettings:
    """Claude Code's settings files that apply in a folder, the one that wins first: the
    project's local, then its shared settings, then the user's. Read when first asked,
    and once: the plans dir and the cleanup period both come from them."""

    def __init__(self, cwd: Path, claude_dir: Path) -> None:
        self._cwd, self._claude_dir = cwd, claude_dir

    @functools.cached_property
    def root(self) -> Path | None:
        """The project (claude_project_root); None: no project."""
        return claude_project_root(self._cwd, self._claude_dir)

    @functools.cached_property
    def files(self) -> tuple[tuple[Path, Mapping[str, Any]], ...]:
        root = self.root
        project = () if root is None else [root / ".claude" / name for name in _PROJECT_SETTINGS]
        paths = (*project, self._claude_dir / "settings.json")
        return tuple((path, _read_settings(path)) for path in paths)

    def first(self, key: str, usable: Callable[[Any], Any]) -> tuple[Any, Path] | None:
        """The first usable value of key (usable returns it, or None to pass over it), and
        the file that set it."""
        for path, settings in self.files:
            value = usable(settings.get(key))
            if value is not None:
                return value, path
        return None


def _plans_directory(value: Any) -> str | None:
    """A plansDirectory that can name a folder, else None: passed over, as a value of the
    wrong type is. Claude Code could not use a NUL (its file calls refuse it) or a lone
    surrogate (a `\\ud800` escape: it would write another name) as the folder either, and
    a repository's file must not stop clarity from running in it."""
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


CLAUDE_CLEANUP_DAYS = 30.0  # Claude Code's default cleanupPeriodDays


def _cleanup_days(value: Any) -> float | None:
    """A cleanupPeriodDays Claude Code accepts (a number of days, at least 1), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 1:
        return None
    return float(value)


def claude_retention(claude: ClaudeSettings, claude_dir: Path, plans_dir: Path) -> Retention | None:
    """How long Claude Code keeps the plans in plans_dir, or None when it never deletes them.

    Claude Code's age-based cleanup covers `<claude config dir>/plans` only; a
    plansDirectory elsewhere is left alone. The period is the first usable
    `cleanupPeriodDays` in Claude Code's settings files, in its precedence.
    """
    if _real(plans_dir) != _real(claude_dir / "plans"):
        return None
    found = claude.first("cleanupPeriodDays", _cleanup_days)
    if found is None:
        return Retention(CLAUDE_CLEANUP_DAYS, "Claude Code's default")
    days, settings_file = found
    return Retention(days, f"cleanupPeriodDays in {settings_file}")


def project_plans_dir(claude: ClaudeSettings, cwd: Path) -> Located | None:
    """Claude Code's `plansDirectory` for the project clarity runs in, if any: the first of
    its settings files that sets it; the value is relative to the project root (cwd when
    there is no project) and, as in Claude Code, ignored if it resolves outside it."""
    found = claude.first("plansDirectory", _plans_directory)
    if found is None:
        return None
    value, settings_file = found
    root = claude.root or cwd
    resolved = _real(root / expand_home(value))
    if not resolved.is_relative_to(_real(root)):
        return None
    return Located(resolved, f"plansDirectory in {settings_file}")


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        return path.absolute()


def default_plans_dir(env: Mapping[str, str], cwd: Path, claude: ClaudeSettings) -> Located:
    claude_dir = claude_config_dir(env)
    project = project_plans_dir(claude, cwd)
    if project is not None:
        return project
    source = "$CLAUDE_CONFIG_DIR/plans" if env.get("CLAUDE_CONFIG_DIR") else "default"
    return Located(claude_dir / "plans", source)


def default_archive_dir(plans_dir: Path) -> Path:
    """Beside the plans dir, out of reach of Claude Code's own cleanup of it."""
    return plans_dir.parent / f"{plans_dir.name}-archive"


def config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


def state_dir() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir(APP_NAME, appauthor=False))


def absolute(path: Path) -> Path:
    """Absolute, with ~ expanded, without resolving links (the user's spelling)."""
    # not Path.resolve(): a plans dir reached through a link keeps the user's path
    return Path(os.path.abspath(expand_home(path)))  # noqa: PTH100
