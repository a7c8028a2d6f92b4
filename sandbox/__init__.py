"""The demo business system: a sandbox e-commerce shop over HTTP (FastAPI + SQLite)."""
