"""datasmith console: `streamlit run console/app.py` (DATASMITH_KNOWLEDGE and DATASMITH_HOME as for the CLI)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent

st.set_page_config(page_title="datasmith console", page_icon="🛠️", layout="wide")
pages = [
    st.Page(HERE / "screens" / "knowledge.py", title="Knowledge", icon="📚", url_path="knowledge", default=True),
    st.Page(HERE / "screens" / "playground.py", title="Playground", icon="🧪", url_path="playground"),
    st.Page(HERE / "screens" / "runs.py", title="Runs", icon="🏃", url_path="runs"),
    st.Page(HERE / "screens" / "monitoring.py", title="Monitoring", icon="📈", url_path="monitoring"),
]
st.navigation(pages).run()
