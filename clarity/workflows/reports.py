"""Every report a use case hands a renderer, in one place: render/ reads these and the
shared value objects (clarity/model.py), never the wing that made them (an
import-linter contract holds it: pyproject.toml, "render-reads-reports").

The types live with the code that makes them; this module only names them for the
renderers. Those a renderer needs only for its annotations are imported for the type
checker alone, so that printing a report never imports the search index or the archive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clarity.executor.records import RunKind as RunKind
from clarity.executor.results import RunReport as RunReport
from clarity.executor.results import Status as Status

if TYPE_CHECKING:
    from clarity.archive.kept import KeptPlan as KeptPlan
    from clarity.archive.shelf import ArchivedPlan as ArchivedPlan
    from clarity.archive.shelf import Shelf as Shelf
    from clarity.executor.restore import RestoreGroup as RestoreGroup
    from clarity.executor.undo import UndoPlan as UndoPlan
    from clarity.search import Found as Found
    from clarity.search.index import Hit as Hit
