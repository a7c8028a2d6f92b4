"""datasmith console: `datasmith console` (or `streamlit run console/app.py`; DATASMITH_KNOWLEDGE and
DATASMITH_HOME as for the CLI). Every page runs behind `access.gate`, which runs first on every rerun."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from console import access
from console.state import settings

HERE = Path(__file__).parent

st.set_page_config(page_title="datasmith console", page_icon="🛠️", layout="wide")
viewer = access.gate(settings())
st.session_state["_viewer"] = viewer
if viewer.how != "local":
    role = "maintainer" if viewer.maintainer else "read-only"
    st.sidebar.caption(f"Signed in as **{viewer.name}** ({role})")
    st.sidebar.button("Sign out", key="auth_logout", on_click=access.sign_out)
pages = [
    st.Page(HERE / "screens" / "knowledge.py", title="Knowledge", icon="📚", url_path="knowledge", default=True),
    st.Page(HERE / "screens" / "playground.py", title="Playground", icon="🧪", url_path="playground"),
    st.Page(HERE / "screens" / "runs.py", title="Runs", icon="🏃", url_path="runs"),
    st.Page(HERE / "screens" / "monitoring.py", title="Monitoring", icon="📈", url_path="monitoring"),
]
st.navigation(pages).run()
