"""Issue 42, case 6 (in part): past LEDGER_MOST the ledger was ignored whole, and every
approval in it with it; its newest LEDGER_MOST bytes are read now, a piece at a time.
What is read equals what a plain split of the same bytes says, whatever the pieces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clarity.transcripts import ledger


def _line(n: int, event: str = "presented") -> bytes:
    record = {"event": event, "at": f"2026-11-20T10:00:{n % 60:02d}.000Z", "session": f"s{n}"}
    return (json.dumps(record) + "\n").encode()


def _plain(data: bytes, start: int = 0) -> list[tuple[int, str]]:
    """The lines of data a whole read finds (offset of each end, session), the first
    passed over when the window starts inside the file."""
    found, end = [], 0
    for number, raw in enumerate(data.splitlines(keepends=True)):
        end += len(raw)
        if end <= start or (start and number == 0) or not raw.endswith(b"\n"):
            continue
        if len(raw) > ledger.LINE_MOST:
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("event") in ledger.EVENTS
            and isinstance(record.get("at"), str)
            and isinstance(record.get("session"), str)
        ):
            found.append((end, record["session"]))
    return found


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(
        st.one_of(
            st.integers(0, 10_000).map(_line),
            st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"") + b"\n"),
            st.just(b'{"event": "approved", "at": 1}\n'),
        ),
        max_size=40,
    ),
    tail=st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
    chunk=st.integers(1, 300),
)
def test_a_ledger_read_a_piece_at_a_time_reads_as_a_whole_read(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], tail: bytes, chunk: int
) -> None:
    folder = tmp_path_factory.mktemp("state")
    data = b"".join(pieces) + tail  # a line still being written at the end
    (folder / ledger.LEDGER).write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ledger, "_CHUNK", chunk)
        read = [(end, line["session"]) for end, line in ledger.read_ledger(str(folder))]
    assert read == _plain(data)


def test_a_ledger_past_its_bound_keeps_its_newest_approvals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past LEDGER_MOST the whole ledger was passed over: the newest approval too.
    old, new = _line(1), _line(2, "approved")
    filler = b"x" * 100 + b"\n"
    data = old + filler * 60 + new  # 6 KiB, over a bound of 4 KiB
    (tmp_path / ledger.LEDGER).write_bytes(data)
    monkeypatch.setattr(ledger, "LEDGER_MOST", 4096)
    read = [(end, line["session"]) for end, line in ledger.read_ledger(str(tmp_path))]
    assert read == [(len(data), "s2")]  # the newest, where it ends; the oldest passed over
    assert read == _plain(data, start=len(data) - 4096)
