"""The write lock across threads and processes over one data dir (the journal's writers hold it
for a whole change: rag_app/index/journal.py)."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

_LOCK_FILE = "write.lock"


class WriteLock:
    """A reentrant lock over one data dir, held across threads and processes: a thread lock and
    an exclusive ``flock`` on ``<data_dir>/write.lock`` (released by the kernel when its holder
    dies, so a killed writer never leaves it held). One instance per data dir per process."""

    _made: dict[str, WriteLock] = {}
    _made_lock = threading.Lock()

    def __init__(self, path: Path) -> None:
        self.path = path
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        # Journal rows of changes under way in this process (never recovered as interrupted).
        self.active: set[int] = set()

    @classmethod
    def for_dir(cls, data_dir: Path) -> WriteLock:
        data_dir.mkdir(parents=True, exist_ok=True)
        key = str((data_dir / _LOCK_FILE).resolve())
        with cls._made_lock:
            if key not in cls._made:
                cls._made[key] = cls(Path(key))
            return cls._made[key]

    def acquire(self, blocking: bool = True) -> bool:
        if not self._thread_lock.acquire(blocking=blocking):
            return False
        if self._depth == 0:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BaseException as exc:
                os.close(fd)
                self._thread_lock.release()
                if isinstance(exc, BlockingIOError):
                    return False
                raise
            self._fd = fd
        self._depth += 1
        return True

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        self._thread_lock.release()

    def __enter__(self) -> WriteLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
