"""glibc malloc thresholds in processes started by Dask.

Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
(``distributed.nanny.pre-spawn-environ``), which doubles the CPU time of the EM kernels;
:func:`unset_dask_malloc_trim` keeps the variable out of the workers of a LocalCluster started
from this process, and :func:`repair_malloc_trim`, called by a task, undoes its effect in a
worker that was started with it anyway.  Dask itself is imported only by
:func:`unset_dask_malloc_trim`.
"""
from __future__ import annotations

import os

__all__ = ["repair_malloc_trim", "unset_dask_malloc_trim"]

_MALLOC_REPAIRED = False


def repair_malloc_trim() -> bool:
    """Undo the effect of ``MALLOC_TRIM_THRESHOLD_`` in this process (once); True if it acted.

    Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
    (``distributed.nanny.pre-spawn-environ``).  Setting any glibc malloc threshold switches off
    glibc's dynamic mmap threshold, so every temporary array above 128 KiB is mmap-ed, zeroed and
    unmapped again: measured on Reuters class ``acq`` (HBN-AVG, 64 restarts) the EM fit takes
    6.2 s of CPU instead of 2.9 s, in a Dask worker or in a plain process with that variable.
    When the variable is set, this sets the thresholds glibc's dynamic rule would reach (mmap
    threshold 32 MiB, trim threshold twice that, glibc ``malloc.c``); the fit then takes 2.5 s.
    Without the variable (local pool; a LocalCluster started by ``hbnlab sweep``, which unsets
    it) it does nothing.  Not glibc: nothing either.
    """
    global _MALLOC_REPAIRED
    if _MALLOC_REPAIRED or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return False
    _MALLOC_REPAIRED = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
        mmap = 32 * 1024 * 1024
        return bool(libc.mallopt(m_mmap_threshold, mmap)) and bool(libc.mallopt(m_trim_threshold, 2 * mmap))
    except (OSError, AttributeError):
        return False


def unset_dask_malloc_trim() -> None:
    """Keep Dask's nanny from setting ``MALLOC_TRIM_THRESHOLD_`` in the workers it starts from
    this process (a LocalCluster); see :func:`repair_malloc_trim`.  Call before creating the
    cluster.  A nanny also leaves the variable in the ``os.environ`` of the process that started
    it, where every later child would inherit it, so an earlier cluster's value is dropped too.
    (For ``dask worker`` processes started from a shell, set
    ``DASK_DISTRIBUTED__NANNY__PRE_SPAWN_ENVIRON__MALLOC_TRIM_THRESHOLD_=None``; otherwise the
    task repairs it.)"""
    import dask
    import distributed  # noqa: F401  (load its config defaults first)

    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
