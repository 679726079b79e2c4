"""A home with the demo's sample applied once, and `clarity browse` serving it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browse.page import browse_server, lay_out_home
from tests.browse.server import Served


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("browse-home")
    return folder, lay_out_home(folder)


@pytest.fixture(scope="module")
def served(home: tuple[Path, dict[str, str]]) -> Iterator[Served]:
    with browse_server(home[1]) as (_, url):
        yield Served.from_url(url)
