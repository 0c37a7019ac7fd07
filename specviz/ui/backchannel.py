"""Streamlit's back channel cut down to what a student's tab sends (README.md, "Deploy"): any
client could empty every student's caches (``clear_cache``) or run git (``load_git_info``).
``debug_*`` never get here: Streamlit drops them unless ``global.developmentMode``/``e2eTest``."""

from __future__ import annotations

import streamlit as st
from streamlit.logger import get_logger
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime.app_session import AppSession

#: Run a page (a control, a link, the R key), stop one's own run, the host's liveness check.
#: Ignored: clear cache, git info, run on save, upload URLs and backend operations (no uploader,
#: lazy table or deferred download here; a page that adds one must allow its message).
ALLOWED = frozenset({"rerun_script", "stop_script", "app_heartbeat"})


def install() -> None:
    """Guard every session of this process (once), unless ``client.toolbarMode`` is "developer":
    the development switch, which also puts "Clear cache" in Streamlit's menu."""
    # No lock: two first runs racing here both wrap Streamlit's own handler; either one wins.
    handle = AppSession.handle_backmsg
    if getattr(handle, "guarded", False) or st.get_option("client.toolbarMode") == "developer":
        return

    def guarded(session: AppSession, msg: BackMsg) -> None:
        if (kind := msg.WhichOneof("type")) in ALLOWED:
            handle(session, msg)
        else:
            get_logger(__name__).warning("Ignored a %r back message (README.md)", kind)

    guarded.guarded = True  # type: ignore[attr-defined]
    AppSession.handle_backmsg = guarded  # type: ignore[method-assign]
