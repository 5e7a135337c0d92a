"""研报问答 (research report Q&A): the Streamlit entry point.

Sets up the page, the user's session defaults and the shared Library, imports the sample report
into the 示例 knowledge base on first start, and hands over to the page the user picked. Run
with ``streamlit run app.py`` (``make run``).
"""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from ui import state
from ui.i18n import LANGUAGES, t
from ui.render import inject_css

st.set_page_config(
    page_title="研报问答", page_icon="📊", layout="wide", initial_sidebar_state="expanded"
)
state.init_session()
inject_css()

pages = [
    st.Page("pages/ask.py", title=t("nav_ask"), icon="💬", default=True),
    st.Page("pages/compare.py", title=t("nav_compare"), icon="⚖️", url_path="compare"),
    st.Page("pages/library.py", title=t("nav_library"), icon="📚", url_path="library"),
    st.Page("pages/audit.py", title=t("nav_audit"), icon="🧾", url_path="audit"),
    st.Page("pages/settings.py", title=t("nav_settings"), icon="⚙️", url_path="settings"),
]
# The navigation is drawn here, not by st.navigation: with a pages/ folder beside app.py,
# Streamlit first shows its own file-name navigation ("app, ask, compare...") until this script
# has run, a flash on every cold start. `client.showSidebarNavigation = false`
# (.streamlit/config.toml) hides that one, and with it st.navigation's own sidebar list.
page = st.navigation(pages, position="hidden")
with st.sidebar:
    with st.container(key="nav", gap="small"):
        for item in pages:
            st.page_link(item, width="stretch")
    st.divider()  # as under Streamlit's own navigation: the page's controls follow

# After st.navigation, so the sidebar already shows the real page names while this runs.
library = state.library()
if not st.session_state.get("_sample_checked"):
    try:
        # A spinner for the first seeding; otherwise a quick check (once per process) that
        # re-indexes the sample only when this version chunks it differently.
        first = state.sample_needed(library)
        spinner = st.spinner(t("seeding", kb=state.SAMPLE_KB), show_time=True)
        with spinner if first else nullcontext():
            state.seed_sample(library)
        st.session_state["_sample_checked"] = True
    except Exception as exc:  # noqa: BLE001 - the app still works without the sample
        st.error(t("seed_failed", error=exc), icon="⚠️")

page.run()

with st.sidebar:
    st.divider()
    state.bound(
        st.segmented_control,
        t("language"),
        "lang",
        where="sidebar",
        options=list(LANGUAGES),
        format_func=LANGUAGES.get,
        required=True,
        label_visibility="collapsed",
    )
