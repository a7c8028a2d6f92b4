"""Maintainer console (Streamlit): knowledge, playground, runs, monitoring over `core`.

Built in its own issue; pages hold no business logic.
"""
