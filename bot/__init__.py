"""Slack surface (slack-bolt): translates Slack events to `core.Assistant` requests and back.

Built in its own issue; it imports only `core.assistant` and the models.
"""
