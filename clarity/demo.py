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
    return Path(__file__).resolve().parent.parent / "fixtures" / "sample"


def sample_plans(sample: Path | None = None) -> list[SamplePlan]:
    sample = sample or sample_dir()
    manifest = tomllib.loads((sample / "ages.toml").read_text(encoding="utf-8"))
    return [
        SamplePlan(name, float(entry["age_days"]), str(entry["expect"]))
        for name, entry in manifest["plans"].items()
    ]


def _target(directory: Path | None) -> Path:
    if directory is None:
        return Path(tempfile.mkdtemp(prefix="clarity-demo-")) / "plans"
    if directory.is_symlink() and not directory.exists():
        raise ClarityError(f"--dir {directory} is a link to nothing; give a new or empty folder")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ClarityError(f"--dir {directory} must be a new or empty directory")
    return directory


def lay_out_sample(directory: Path | None, now: datetime) -> Path:
    """Copy the sample plans into directory and give each its age as of now."""
    sample = sample_dir()
    target = _target(directory)
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
