"""`clarity archived [QUERY]`: the archive's plans, newest first (those matching QUERY, the
search index asked which texts hold it), and the kept versions' totals. Read-only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clarity.archive.shelf import Shelf
    from clarity.settings.config import Settings


@dataclass(frozen=True, slots=True)
class ArchiveListing:
    shelf: Shelf
    versions: tuple[int, int, int]  # plans with kept texts, texts, bytes


def list_archive(settings: Settings, query: str | None) -> ArchiveListing:
    from clarity.archive.shelf import list_archived
    from clarity.archive.versions import versions_size
    from clarity.search import archived_text_matches

    matches = archived_text_matches(settings)
    shelf = list_archived(settings.archive_dir, query, matches, settings.plans_dir)
    return ArchiveListing(shelf, versions_size(settings.archive_dir))
