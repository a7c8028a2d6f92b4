"""datasmith's engine: knowledge, retrieval, planning, execution. Imports neither Slack nor Streamlit."""

import os

# litellm must never fetch its price list at import time (no network here, and none needed).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
