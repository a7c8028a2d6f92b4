"""Repo-wide test set-up (tests/ and the packs' stories under knowledge/)."""

from __future__ import annotations

import os
import tempfile

from sandbox.server import free_port

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANCE_LOG", "error")
# The packs' stories (collected by the datasmith pytest plugin) start the shop sandbox on demand:
# on a free port and in a throwaway home, never on a developer's own sandbox and data.
if "SHOP_SANDBOX_PORT" not in os.environ:
    os.environ["SHOP_SANDBOX_PORT"] = str(free_port())
if "DATASMITH_HOME" not in os.environ:
    os.environ["DATASMITH_HOME"] = tempfile.mkdtemp(prefix="datasmith-test-home-")
