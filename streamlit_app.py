"""研报问答 (research report Q&A): the script every session runs (``app.py`` serves it).

Sets up the page, the user's session defaults and the shared Library (whose first use starts the
model's load and the sample report's import into 示例 in the background), hands over to the page
the user picked, and then keeps that page's import progress current until the sample is in. Run
with ``streamlit run app.py`` (``make run``); ``streamlit run streamlit_app.py`` serves the same
pages without the start-up work at the server's start.
"""

from __future__ import annotations

import streamlit as st

from ui import resources, sample_progress, state
from ui.i18n import LANGUAGES, t
from ui.render import inject_css

st.set_page_config(
    page_title="研报问答", page_icon="📊", layout="wide", initial_sidebar_state="expanded"
)
state.init_session()
inject_css()

pages = [
    st.Page("views/ask.py", title=t("nav_ask"), icon="💬", default=True),
    st.Page("views/compare.py", title=t("nav_compare"), icon="⚖️", url_path="compare"),
    st.Page("views/library.py", title=t("nav_library"), icon="📚", url_path="library"),
    st.Page("views/evaluate.py", title=t("nav_evaluate"), icon="🧪", url_path="evaluate"),
    st.Page("views/audit.py", title=t("nav_audit"), icon="🧾", url_path="audit"),
    st.Page("views/settings.py", title=t("nav_settings"), icon="⚙️", url_path="settings"),
]
# The navigation is drawn here (st.navigation's own list hidden) so that it can sit above the
# page's own sidebar controls. The pages live in views/, not pages/: Streamlit would also serve a
# pages/ folder's files on their own at their addresses (/library without the app around it).
page = st.navigation(pages, position="hidden")
with st.sidebar:
    with st.container(key="nav", gap="small"):
        for item in pages:
            st.page_link(item, width="stretch")
    st.divider()  # as under Streamlit's own navigation: the page's controls follow

# The first call starts the background work (ui/startup.py): the embedding model loads and the
# sample report is imported into 示例 while this and every other page is already usable.
resources.library()
sample_progress.begin_run()
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

resources.page_shown()  # the background work that waited for a first page may begin
# Last, once everything is drawn: a page showing the sample's import progress keeps it current
# and runs again when the sample is in (a question asked meanwhile is answered then).
sample_progress.follow()
