"""Where things are: plans (SPEC 2), archive, config and state (SPEC 7)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

from clarity.errors import ClarityError
from clarity.fsio import ParsedFiles
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


class Origin(Enum):
    """Where a setting's value came from: what code decides on (never the words)."""

    OPTION = "option"  # a command-line option (or the folder --all chose for one root)
    ENV = "env"  # a CLARITY_* variable
    CONFIG = "config"  # clarity's config file
    CLAUDE = "plansDirectory"  # Claude Code's settings for the project
    CLAUDE_CONFIG_DIR = "$CLAUDE_CONFIG_DIR"
    DEFAULT = "default"


class Source(str):
    """Where a setting's value came from: the words `clarity config` shows (it is that
    text, for every report and JSON document), and its origin, for code to decide on."""

    origin: Origin

    def __new__(cls, text: str, origin: Origin) -> Source:
        made = super().__new__(cls, text)
        made.origin = origin
        return made

    @property
    def given(self) -> bool:
        """Given for this run: an option or the environment (the same shell chooses it
        again; a hint that repeats the command must name an option's folder)."""
        return self.origin in (Origin.OPTION, Origin.ENV)

    @property
    def chosen(self) -> bool:
        """A person's own choice: given, or in clarity's config file."""
        return self.given or self.origin is Origin.CONFIG


DEFAULT = Source("default", Origin.DEFAULT)


class Located(NamedTuple):
    path: Path
    source: Source


def claude_config_dir(env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    return expand_home(configured) if configured else Path.home() / ".claude"


# Each settings file read once while it is unchanged: the user's settings.json applies in
# every project, and finding the roots of 20,000 projects read and parsed it 20,000 times.
_SETTINGS_READ: ParsedFiles[Mapping[str, Any]] = ParsedFiles()


def _read_settings(settings_file: Path) -> Mapping[str, Any]:
    return _SETTINGS_READ.get(settings_file, _read_settings_now, {})


def _read_settings_now(settings_file: Path) -> Mapping[str, Any]:
    from clarity.settings.files import parse_json, read_settings_text

    try:
        settings = parse_json(read_settings_text(settings_file))
    except (OSError, ValueError):
        # Claude Code's file, not ours (a repository's, often): unreadable (not a regular
        # file, too big, not JSON, which Claude Code would not read either) is "no setting"
        return {}
    return settings if isinstance(settings, dict) else {}


class ProjectRoots:
    """What one look at many projects learns as it goes, for claude_project_root: the
    user's config dir, and the project of each folder asked about (20,000 projects in one
    folder ask about the same parents 20,000 times)."""

    def __init__(self, claude_dir: Path) -> None:
        self.user = folder_identity(claude_dir)
        self.of: dict[Path, Path | None] = {}


def claude_project_root(
    cwd: Path, claude_dir: Path, known: ProjectRoots | None = None
) -> Path | None:
    """The project clarity runs in as Claude Code sees it: the nearest ancestor of cwd with a
    `.claude/` folder (the Claude config dir itself is the user's, not a project's).
    known: shared by the calls of one look at many projects, with claude_dir's."""
    user_dir = known.user if known is not None else folder_identity(claude_dir)
    memo = known.of if known is not None else {}
    seen: list[Path] = []
    root: Path | None = None
    folder, above = cwd, cwd.parent
    while True:
        if folder in memo:
            root = memo[folder]
            break
        seen.append(folder)
        found = folder_identity(folder / ".claude")
        if found is not None and found != user_dir:
            root = folder
            break
        if above == folder:
            break  # the top: no project
        folder, above = above, above.parent
    memo.update(dict.fromkeys(seen, root))
    return root


def folder_identity(path: Path) -> tuple[int, int] | None:
    """The folder path is (through links), as the filesystem knows it: (device, inode);
    None for no folder, or one that cannot be looked at. Two paths are one folder when
    their identities are equal: one stat each, where comparing real paths costs a stat
    of every component (roots of 20,000 projects spent most of their time there)."""
    import stat

    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def is_folder(path: Path) -> bool:
    """Whether path is a folder (through links); False where it cannot be looked at (no
    permission, a name too long): Path.is_dir raises for those."""
    try:
        return path.is_dir()
    except OSError:
        return False


class ClaudeSettings:
    """Claude Code's settings files that apply in a folder, the one that wins first: the
    project's local, then its shared settings, then the user's. Read when first asked,
    and once: the plans dir and the cleanup period both come from them."""

    def __init__(
        self, cwd: Path, claude_dir: Path, roots_known: ProjectRoots | None = None
    ) -> None:
        self._cwd, self._claude_dir, self._roots_known = cwd, claude_dir, roots_known

    @functools.cached_property
    def root(self) -> Path | None:
        """The project (claude_project_root); None: no project."""
        return claude_project_root(self._cwd, self._claude_dir, self._roots_known)

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


class PlansDirectorySetting(NamedTuple):
    """A project's `plansDirectory` as Claude Code reads it: the folder it names (relative
    to the project root), the file that set it, and whether Claude Code uses it (a value
    that resolves outside the project is ignored)."""

    path: Path
    settings_file: Path
    inside: bool
    value: str
    project: Path  # the project root it is relative to (the folder, with no project)


def plans_directory_setting(claude: ClaudeSettings, cwd: Path) -> PlansDirectorySetting | None:
    """The first usable `plansDirectory` of the settings files that apply in cwd, resolved
    against the project root (cwd when there is no project); None when none sets one.
    A leading `~` is a folder named `~`, as Claude Code joins the value without expanding it."""
    found = claude.first("plansDirectory", _plans_directory)
    if found is None:
        return None
    value, settings_file = found
    root = claude.root or cwd
    resolved, real_root = _real(root / value), _real(root)
    inside = resolved.is_relative_to(real_root)
    return PlansDirectorySetting(resolved, settings_file, inside, value, real_root)


def project_plans_dir(claude: ClaudeSettings, cwd: Path) -> Located | None:
    """Claude Code's `plansDirectory` for the project clarity runs in, if any and if Claude
    Code would use it (plans_directory_setting)."""
    setting = plans_directory_setting(claude, cwd)
    if setting is None or not setting.inside:
        return None
    return Located(
        setting.path, Source(f"plansDirectory in {setting.settings_file}", Origin.CLAUDE)
    )


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
    if env.get("CLAUDE_CONFIG_DIR"):
        return Located(
            claude_dir / "plans", Source("$CLAUDE_CONFIG_DIR/plans", Origin.CLAUDE_CONFIG_DIR)
        )
    return Located(claude_dir / "plans", DEFAULT)


def default_archive_dir(plans_dir: Path) -> Path:
    """Beside the plans dir, out of reach of Claude Code's own cleanup of it."""
    return plans_dir.parent / f"{plans_dir.name}-archive"


def project_of(plans_dir: Path, claude_dirs: tuple[Path, ...]) -> Path | None:
    """The project a plans dir lies in: its nearest ancestor (or itself) that is a git work
    tree (`.git`) or a Claude Code project (a `.claude/` folder that is no Claude config
    dir); None for a plans dir in no project."""
    users = {folder_identity(directory) for directory in claude_dirs}
    for folder in (plans_dir, *plans_dir.parents):
        if os.path.lexists(folder / ".git"):
            return folder
        found = folder_identity(folder / ".claude")
        if found is not None and found not in users:
            return folder
    return None


def project_archive_dir(user_archive: Path, project: Path) -> Path:
    """A project's archive inside the user's: `projects/<project name>-<short hash>`, the
    hash of the project's real path (two projects of one name stay apart)."""
    import hashlib
    import re

    real = _real(project)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:8]
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", real.name)[:40].lstrip(".") or "project"
    return user_archive / "projects" / f"{readable}-{digest}"


def archive_dir_for(
    plans_dir: Path, claude_dirs: tuple[Path, ...], configured: Path | None
) -> Located:
    """Where a plans dir's archive is when no option or environment names one (SPEC 2, 5).

    A Claude config dir's own plans: the configured archive, else beside them. A plans
    dir in a project (a git work tree, a `.claude/` folder): never a new folder inside the
    project, which git would see as untracked, but `projects/<name>-<hash>/` of the user's
    archive (the configured one, else beside `<first config dir>/plans`); an archive
    clarity made beside it earlier is kept, so that no archived plan is stranded. Any
    other plans dir: the configured archive, else beside it. The user's archive is
    `~/.claude/plans-archive` whatever CLAUDE_CONFIG_DIR is set to now.
    """
    beside = default_archive_dir(plans_dir)
    if any(_real(plans_dir) == _real(directory / "plans") for directory in claude_dirs):
        project = None
    else:
        project = project_of(plans_dir, claude_dirs)
    if project is None or is_folder(beside):
        if configured is not None:
            return Located(configured, Source("config", Origin.CONFIG))
        if project is not None:
            before = "default: beside the plans dir, where clarity archived before"
            return Located(beside, Source(before, Origin.DEFAULT))
        return Located(beside, Source("default: beside the plans dir", Origin.DEFAULT))
    # ~/.claude's, whatever CLAUDE_CONFIG_DIR says today: a project's archive stays put
    user_archive = configured or default_archive_dir(Path.home() / ".claude" / "plans")
    whose = "the configured archive" if configured is not None else "the user's archive"
    origin = Origin.CONFIG if configured is not None else Origin.DEFAULT
    source = Source(f"{whose}, for project {project}", origin)
    return Located(project_archive_dir(user_archive, project), source)


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
