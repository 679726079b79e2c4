"""Holding a file alone while it is copied to another filesystem: a Linux write lease.

A move across filesystems copies the file, then unlinks it. A program that
has it open (an editor saving in place, a sync) could write between the copy
and the unlink, and the write would go with the unlinked file. Linux grants a
write lease only while no other process has the file open, and while the
lease is held any other open waits for its holder (F_GETLEASE then says
someone is waiting). Held from before the copy until after the unlink, it
leaves no moment in which a write can land that the copy does not hold.

Where no lease is to be had (macOS, NFS, a file of another user, leases
switched off, a thread that cannot set signal handlers), `held` says so and
the mover re-reads the file through its own descriptor after the unlink.
"""

from __future__ import annotations

import contextlib
import errno
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass


class InUse(OSError):
    """Another program has the file open: it is left where it is."""

    def __init__(self) -> None:
        super().__init__(errno.EBUSY, "open in another program; left in place (apply again later)")


@dataclass
class Lease:
    fd: int
    held: bool = False

    def wanted(self) -> bool:
        """Whether another process is waiting to open the file (the lease is being broken)."""
        if not self.held:
            return False
        import fcntl

        return bool(fcntl.fcntl(self.fd, fcntl.F_GETLEASE) != fcntl.F_WRLCK)


def _can_lease() -> bool:
    # A lease break is told by SIGIO, whose default kills: only the main thread may
    # ignore it for the moment the lease is held.
    return sys.platform == "linux" and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def held_alone(fd: int) -> Iterator[Lease]:
    """Hold fd's file alone while the block runs, where the system allows it.

    Raises InUse if another process has the file open. The lease is always given
    back; the SIGIO a waiting opener would send is ignored meanwhile.
    """
    lease = Lease(fd)
    if not _can_lease():
        yield lease
        return
    import fcntl

    before = signal.signal(signal.SIGIO, signal.SIG_IGN)
    try:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
            lease.held = True
        except OSError as error:
            if error.errno == errno.EAGAIN:  # open elsewhere, for reading or writing
                raise InUse from None
            # EINVAL (no leases on this filesystem), EACCES (not the owner), ENOLCK...
        if lease.held:
            fcntl.fcntl(fd, fcntl.F_SETOWN, 0)  # no signal at all when someone waits
        yield lease
    finally:
        if lease.held:
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        if before is not None:  # None: a handler set outside Python, left as it was
            signal.signal(signal.SIGIO, before)
