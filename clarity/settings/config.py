"""Effective settings and where each came from (SPEC 7).

Precedence: option > env `CLARITY_*` > config file > default. A bad value
anywhere is a ClarityError naming where it came from and what is wrong.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from clarity.errors import ClarityError
from clarity.model import Retention, Thresholds
from clarity.settings.files import read_settings_text
from clarity.settings.locations import (
    DEFAULT,
    ClaudeSettings,
    Origin,
    Source,
    absolute,
    archive_dir_for,
    claude_config_dir,
    claude_retention,
    config_file,
    default_plans_dir,
    expand_home,
    path_problem,
)

# The terminal markers of SPEC 4 (clarity/plans/markers.py matches them); config may replace them.
DEFAULT_MARKERS: tuple[str, ...] = (
    "COMPLETED",
    "-- Complete",
    "-- Completed",
    "-- Done",
    "No further planning",
    "No code changes",
    "No plan needed",
    "finalized",
)

_DEFAULTS = Thresholds()
PROTECT_HOURS = 24.0  # a plan a Claude Code session used this recently is kept (SPEC 9)
KEEP_DAYS = 7.0  # a plan this close to Claude Code's cleanup has its text kept (SPEC 6.1)


def _duration(unit: str) -> Callable[[Any], float]:
    """A check for a number of days or hours: finite and not negative."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"must be a number of {unit}")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"must be a number of {unit} >= 0, not {value:g}")
        return float(value)

    return check


_days = _duration("days")
_hours = _duration("hours")


def _bytes(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number of bytes")
    if value < 0:
        raise ValueError(f"must be a number of bytes >= 0, not {value}")
    return value


def _markers(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise ValueError('must be a list of strings, e.g. ["COMPLETED", "-- Done"]')
    markers = tuple(item for item in value if item.strip())
    if not markers:
        raise ValueError("must name at least one marker")
    return markers


def _path(value: Any) -> Path:
    if not isinstance(value, str | Path):
        raise ValueError("must be a path")
    if not str(value).strip():  # never the current folder by accident
        raise ValueError("is empty (an unset shell variable?); give a path")
    problem = path_problem(str(value))
    if problem is not None:
        raise ValueError(problem)
    try:
        return expand_home(value)
    except ClarityError as error:  # a user this machine does not have: the key is named
        raise ValueError(error.message) from None


def _paths(value: Any) -> tuple[Path, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError('must be a list of paths, e.g. ["~/.claude-work"]')
    paths = []
    for item in value:
        try:
            path = _path(item)
        except ValueError as error:
            raise ValueError(f"{item!r}: {error}") from None
        if not path.is_absolute():
            raise ValueError(f"must be absolute paths or start with ~, not {path}")
        paths.append(path)
    return tuple(paths)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _flag_text(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("must be true or false (1/0, yes/no)")


def _model(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError('must name a Claude model, e.g. "claude-haiku-5-5"')
    return value.strip()


def _positive(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("must be a whole number > 0")
    return value


def _confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number from 0 to 1")
    if not 0 <= value <= 1:
        raise ValueError(f"must be a number from 0 to 1, not {value:g}")
    return float(value)


def _number_text(text: str) -> float | int:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise ValueError("must be a number") from None


class _Key(NamedTuple):
    name: str  # as in config.toml
    check: Callable[[Any], Any]  # validates a typed value, raising ValueError
    from_text: Callable[[str], Any]  # turns an env string into a typed value

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return "CLARITY_" + self.name.upper()

    def from_env(self, text: str) -> Any:
        return self.check(self.from_text(text))


KEYS: dict[str, _Key] = {
    key.name: key
    for key in (
        _Key("plans_dir", _path, str),
        _Key("archive_dir", _path, str),
        _Key("stale_days", _days, _number_text),
        _Key("stale_bytes", _bytes, _number_text),
        _Key("dormant_days", _days, _number_text),
        _Key("markers", _markers, lambda text: text.split(",")),
        _Key("protect_hours", _hours, _number_text),
        _Key("keep_days", _days, _number_text),
        _Key(
            "claude_config_dirs",
            _paths,
            lambda text: [t for t in text.split(os.pathsep) if t.strip()],
        ),
        _Key("agent", _flag, _flag_text),
        _Key("agent_model", _model, str),
        _Key("agent_budget", _positive, _number_text),
        _Key("agent_plan_bytes", _positive, _number_text),
        _Key("agent_archives", _flag, _flag_text),
        _Key("agent_min_confidence", _confidence, _number_text),
    )
}


class AgentSettings(NamedTuple):
    """SPEC 8: whether to ask Claude, which model, how much it may spend, and whether its
    `finished` verdicts may archive a dormant plan (SPEC 4.4)."""

    enabled: bool = False
    model: str = "claude-haiku-5-5"  # the current small, fast model the SDK lists
    budget: int = 50_000  # tokens, input and output, per run
    plan_bytes: int = 12_000  # at most this much of a plan is sent, head and tail
    archives: bool = False  # a dormant plan it judges finished is archived
    min_confidence: float = 0.8  # ... when it is at least this sure


class Settings(NamedTuple):
    plans_dir: Path
    archive_dir: Path
    thresholds: Thresholds
    markers: tuple[str, ...]
    sources: Mapping[str, Source]  # key -> where its value came from
    config_path: Path
    claude_dir: Path  # where Claude Code keeps its settings and session transcripts
    agent: AgentSettings = AgentSettings()
    protect_hours: float = PROTECT_HOURS
    retention: Retention | None = None  # Claude Code's cleanup of the plans dir, if it has one
    keep_days: float = KEEP_DAYS
    # Every Claude config dir clarity knows (SPEC 2): $CLAUDE_CONFIG_DIR or ~/.claude first,
    # then ~/.claude, then those the config names; each has its plans and transcripts.
    claude_dirs: tuple[Path, ...] = ()
    include_tracked: bool = False  # move plans git tracks too (--include-tracked)
    plan_source: str = ""  # the agent whose plans these are (sources/: its name); "": ask
    plans_gone: bool = False  # the agent deleted the plans folder; its kept texts remain
    only_agent: str = ""  # --from: only this agent's plans folders are every root's ("": all)

    def values(self) -> dict[str, Any]:
        return {
            "plans_dir": str(self.plans_dir),
            "archive_dir": str(self.archive_dir),
            "stale_days": self.thresholds.stale_days,
            "stale_bytes": self.thresholds.stale_bytes,
            "dormant_days": self.thresholds.dormant_days,
            "markers": list(self.markers),
            "protect_hours": self.protect_hours,
            "keep_days": self.keep_days,
            "claude_config_dirs": [str(path) for path in self.claude_dirs],
            "agent": self.agent.enabled,
            "agent_model": self.agent.model,
            "agent_budget": self.agent.budget,
            "agent_plan_bytes": self.agent.plan_bytes,
            "agent_archives": self.agent.archives,
            "agent_min_confidence": self.agent.min_confidence,
        }


def read_config_file(path: Path) -> dict[str, Any]:
    """The config file's keys; {} when there is none. One that is there but cannot be
    read (a FIFO, a device, a link loop or to nothing) is an error, never passed over."""
    try:
        text = read_settings_text(path)
    except OSError as error:
        if not os.path.lexists(path):
            return {}  # most runs have no config file
        reason = "it links to nothing" if isinstance(error, FileNotFoundError) else error.strerror
        raise ClarityError(f"cannot read config {path}: {reason}; fix or remove it") from None
    except ValueError as error:  # not UTF-8
        raise ClarityError(f"{path}: not valid TOML ({error}); fix or remove the file") from None
    import tomllib  # here: most runs have no config file, and every run starts here

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ClarityError(f"{path}: not valid TOML ({error}); fix or remove the file") from None
    except RecursionError:  # arrays or tables deeper than tomllib's recursion goes
        raise ClarityError(f"{path}: nested too deeply to read; fix or remove the file") from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ClarityError(f'{path}: unknown key "{unknown[0]}" (known keys: {", ".join(KEYS)})')
    return data


def load_settings(
    options: Mapping[str, Any],
    env: Mapping[str, str],
    cwd: Path,
    config_path: Path | None = None,
) -> Settings:
    """Resolve every setting; options hold None for what was not given."""
    config_path = config_path or config_file()
    from_file = read_config_file(config_path)
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    claude_dir = absolute(claude_config_dir(env))
    claude = ClaudeSettings(cwd, claude_dir)  # read only if the plans dir or retention ask
    for key in KEYS.values():
        if options.get(key.name) is not None:
            values[key.name] = _checked(key.check, options[key.name], key.option)
            sources[key.name] = Source(f"option {key.option}", Origin.OPTION)
        elif key.env in env and key.check is _path and not env[key.env].strip():
            raise ClarityError(f"{key.env} is set but empty; unset it, or give a path")
        elif env.get(key.env, "").strip():
            where = f"{key.env}={env[key.env]}"
            values[key.name] = _checked(key.from_env, env[key.env], where)
            sources[key.name] = Source(f"env {key.env}", Origin.ENV)
        elif key.name in from_file:
            where = f"{config_path}: {key.name}"
            values[key.name] = _checked(key.check, from_file[key.name], where)
            sources[key.name] = Source(f"config {config_path}", Origin.CONFIG)
    for name in ("plans_dir", "archive_dir"):
        path = values.get(name)
        if path is not None and sources[name].origin is Origin.CONFIG and not path.is_absolute():
            raise ClarityError(
                f"{config_path}: {name}: must be an absolute path or start with ~, not {path}"
            )
        if path is not None:
            values[name] = absolute(cwd / path)
    if "plans_dir" not in values:
        located = default_plans_dir(env, cwd, claude)
        values["plans_dir"], sources["plans_dir"] = absolute(located.path), located.source
    claude_dirs = _unique((claude_dir, absolute(Path.home() / ".claude")))
    claude_dirs = _unique(
        (*claude_dirs, *(absolute(p) for p in values.get("claude_config_dirs", ())))
    )
    if "archive_dir" not in values or sources["archive_dir"].origin is Origin.CONFIG:
        configured = values.get("archive_dir")
        located = archive_dir_for(values["plans_dir"], claude_dirs, configured)
        values["archive_dir"] = located.path
        if located.path != configured:  # a project's, under it (or the default)
            sources["archive_dir"] = located.source
    return Settings(
        plans_dir=values["plans_dir"],
        archive_dir=values["archive_dir"],
        thresholds=Thresholds(
            stale_days=values.get("stale_days", _DEFAULTS.stale_days),
            stale_bytes=values.get("stale_bytes", _DEFAULTS.stale_bytes),
            dormant_days=values.get("dormant_days", _DEFAULTS.dormant_days),
        ),
        markers=values.get("markers", DEFAULT_MARKERS),
        sources={name: sources.get(name, DEFAULT) for name in KEYS},
        config_path=config_path,
        protect_hours=values.get("protect_hours", PROTECT_HOURS),
        claude_dir=claude_dir,
        retention=claude_retention(claude, claude_dir, values["plans_dir"]),
        keep_days=values.get("keep_days", KEEP_DAYS),
        claude_dirs=claude_dirs,
        agent=AgentSettings(
            enabled=values.get("agent", _AGENT.enabled),
            model=values.get("agent_model", _AGENT.model),
            budget=values.get("agent_budget", _AGENT.budget),
            plan_bytes=values.get("agent_plan_bytes", _AGENT.plan_bytes),
            archives=values.get("agent_archives", _AGENT.archives),
            min_confidence=values.get("agent_min_confidence", _AGENT.min_confidence),
        ),
    )


_AGENT = AgentSettings()


def _unique(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    """paths in their order, each real folder once."""
    seen: set[str] = set()
    kept = []
    for path in paths:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            kept.append(path)
    return tuple(kept)


def _checked(check: Callable[[Any], Any], value: Any, where: str) -> Any:
    """check(value), with a failure turned into one line that says where the value came from."""
    try:
        return check(value)
    except ValueError as error:
        raise ClarityError(f"{where}: {error}") from None
