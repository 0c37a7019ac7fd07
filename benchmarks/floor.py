"""Community Cloud's floor on this machine: a server held to a share of one core, and the page
every figure is compared with.

Streamlit's documentation guarantees an app 0.078 of a core. :func:`cpu_quota` holds processes
to such a share with a cgroup-v1 CFS quota (root and ``/sys/fs/cgroup/cpu`` needed: the share is
``cfs_quota_us`` per ``cfs_period_us`` of 100 ms), and removes the group afterwards.
:data:`MINIMAL_APP` is the least a Streamlit page can be (one slider, one Plotly chart): what a
design that runs a script per student per gesture costs at best.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.streamlit_server import REPO_ROOT, StreamlitServer

CGROUP = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000
#: Streamlit Community Cloud's guaranteed CPU, in cores (its documentation, "as of February 2024").
GUARANTEE = 0.078

MINIMAL_APP = textwrap.dedent(
    """
    import plotly.graph_objects as go
    import streamlit as st

    v = st.slider("value", 0, 100, 50, key="v")
    st.plotly_chart(go.Figure(go.Bar(x=list("abcd"), y=[v, 100 - v, 30, 20])), key="chart")
    """
)


@contextlib.contextmanager
def cpu_quota(pids: Sequence[int], share: float | None) -> Iterator[str]:
    """Hold the processes ``pids`` (their threads, and children started later) to ``share`` of
    one core together; yields a description. None: no quota. The group goes on exit."""
    if not share:
        yield "not held (no CPU quota)"
        return
    if not (CGROUP / "cgroup.procs").exists() or os.geteuid() != 0:
        raise SystemExit(f"--cpu-quota needs root and a cgroup-v1 cpu controller at {CGROUP}")
    group = Path(tempfile.mkdtemp(prefix="specviz-floor-", dir=CGROUP))
    try:
        (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(round(share * PERIOD_US)))
        for pid in pids:
            (group / "cgroup.procs").write_text(str(pid))
        yield f"held to {share:g} of a core (CFS quota {round(share * PERIOD_US)} µs per 100 ms)"
    finally:
        for line in (group / "cgroup.procs").read_text().split():  # back to the root group
            with contextlib.suppress(ProcessLookupError, OSError):
                (CGROUP / "cgroup.procs").write_text(line)
        group.rmdir()


@contextlib.contextmanager
def minimal_server(wrap: Sequence[str] = (), pages: int = 0) -> Iterator[StreamlitServer]:
    """:data:`MINIMAL_APP` served by ``streamlit run`` from a folder of its own, with the app's
    server options (.streamlit/config.toml: without it, a garbage collection after every run
    made a first page cost 48 ms instead of ~10), and ``pages`` one-line pages beside it in a
    ``pages/`` folder: Streamlit lists a folder's pages again on every run, so SpecViz's layout
    (11 pages) has a floor of its own."""
    with tempfile.TemporaryDirectory(prefix="specviz-minimal-") as folder:
        Path(folder, "app.py").write_text(MINIMAL_APP)
        if pages:
            Path(folder, "pages").mkdir()
            for i in range(1, pages + 1):
                Path(folder, "pages", f"{i}_Page_{i}.py").write_text("import streamlit\n")
        Path(folder, ".streamlit").mkdir()
        shutil.copy(REPO_ROOT / ".streamlit" / "config.toml", Path(folder, ".streamlit"))
        server = _Wrapped(root=Path(folder))
        server.wrap = list(wrap)
        server.start()
        try:
            yield server
        finally:
            server.stop()


class _Wrapped(StreamlitServer):
    wrap: list[str] = []  # noqa: RUF012 - set per instance before start

    def command(self) -> list[str]:
        return [*self.wrap, *super().command()]
