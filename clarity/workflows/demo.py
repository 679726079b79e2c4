"""`clarity demo`: lay out the shipped sample plans with the ages they should have.

git does not keep mtimes, so each sample plan's age lives in the fixture's
`ages.toml` and is set here, relative to the moment the demo runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from datetime import datetime
from importlib.resources import files
from pathlib import Path

from clarity.errors import ClarityError
from clarity.judge.scan import scan
from clarity.model import ScanReport, ScanRequest
from clarity.settings.config import Settings, load_settings


@dataclass(frozen=True, slots=True)
class SamplePlan:
    name: str
    age_days: float
    expect: str  # the class a reader of the plan would give it: checked by the tests


def sample_dir() -> Path:
    """The sample: inside the installed package, or fixtures/ in a source checkout."""
    packaged = Path(str(files("clarity"))) / "_sample"
    if packaged.is_dir():
        return packaged
    return Path(str(files("clarity"))).resolve().parent / "fixtures" / "sample"


def sample_plans(sample: Path | None = None) -> list[SamplePlan]:
    sample = sample or sample_dir()
    manifest = tomllib.loads((sample / "ages.toml").read_text(encoding="utf-8"))
    return [
        SamplePlan(name, float(entry["age_days"]), str(entry["expect"]))
        for name, entry in manifest["plans"].items()
    ]


def _check_target(directory: Path) -> None:
    if directory.is_symlink() and not directory.exists():
        raise ClarityError(f"--dir {directory} is a link to nothing; give a new or empty folder")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ClarityError(f"--dir {directory} must be a new or empty directory")


def lay_out_sample(target: Path, now: datetime) -> Path:
    """Copy the sample plans into target (new or empty) and give each its age as of now."""
    sample = sample_dir()
    _check_target(target)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ClarityError(
            f"--dir {target}: {error.strerror or error}; give a new or empty folder"
        ) from None
    for plan in sample_plans(sample):
        destination = target / plan.name
        shutil.copyfile(sample / "plans" / plan.name, destination)
        mtime = now.timestamp() - plan.age_days * 86400
        os.utime(destination, (mtime, mtime))
    return target.absolute()


def sample_settings(plans_dir: Path) -> Settings:
    """The defaults, whatever this machine's config, environment or Claude Code settings say:
    the sample shows what clarity does out of the box (files named here do not exist)."""
    return load_settings(
        {"plans_dir": plans_dir},
        {"CLAUDE_CONFIG_DIR": str(plans_dir / ".no-claude-here")},
        plans_dir,
        config_path=plans_dir / ".no-config-here.toml",
    )


def run_demo(directory: Path | None, now: datetime) -> tuple[ScanReport, Path | None]:
    """The sample's scan, and where the sample stays (None: a temporary folder, gone again).

    Nothing is recorded: apply on the sample starts from a scan of it.
    """
    if directory is not None:
        plans_dir = lay_out_sample(directory, now)
        return scan(sample_settings(plans_dir), ScanRequest(now)), plans_dir
    with tempfile.TemporaryDirectory(prefix="clarity-demo-") as temporary:
        plans_dir = lay_out_sample(Path(temporary) / "plans", now)
        return scan(sample_settings(plans_dir), ScanRequest(now))._replace(gone=True), None
