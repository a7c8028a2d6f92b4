"""What maintainers watch, computed from the RunStore (requests, runs, steps) with SQL.

Everything is aggregated in SQLite (indexes on time), so 100,000 rows stay well under a second.
"""

from __future__ import annotations

import statistics
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from core.models import utcnow
from core.runstore import RunStore

# (label, length of the ISO prefix that buckets a row, span)
RANGES: dict[str, tuple[int, timedelta]] = {
    "last hour": (16, timedelta(hours=1)),        # per minute
    "last 24 hours": (13, timedelta(hours=24)),   # per hour
    "last 7 days": (13, timedelta(days=7)),       # per hour
    "last 30 days": (10, timedelta(days=30)),     # per day
}
FAILED_RUN = ("failed", "aborted", "paused", "interrupted")


class Bucket(BaseModel):
    at: str
    requests: int
    succeeded: int
    failed: int
    success_rate: float | None
    p50_ms: float | None
    p95_ms: float | None
    cache_hits: int
    cache_lookups: int
    llm_calls: int
    tokens: int


class Overview(BaseModel):
    since: datetime
    requests: int
    success_rate: float | None
    p50_ms: float | None
    p95_ms: float | None
    cache_hit_rate: float | None
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    buckets: list[Bucket]
    failing_rules: list[tuple[str, int]]
    failing_tools: list[tuple[str, int]]
    unanswered: list[tuple[str, str, int]]  # (status, request text, times): what the knowledge is missing


def _pct(values: list[float], p: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def overview(store: RunStore, range_label: str = "last 24 hours", *, now: datetime | None = None) -> Overview:
    width, span = RANGES[range_label]
    since = (now or utcnow()) - span
    iso = since.isoformat()
    rows = store.read(
        "SELECT substr(at, 1, ?) AS b, status, cache, llm_calls, prompt_tokens + completion_tokens AS tokens,"
        " latency_ms FROM requests WHERE at >= ? ORDER BY at", (width, iso))
    by: dict[str, list[Any]] = {}
    for r in rows:
        by.setdefault(r["b"], []).append(r)
    buckets = [_bucket(b, rs) for b, rs in by.items()]
    totals = store.read(
        "SELECT COUNT(*) AS n, SUM(status = 'succeeded') AS ok, SUM(status IN ('failed','aborted','error')) AS bad,"
        " SUM(cache = 'hit') AS hits, SUM(cache IN ('hit','miss')) AS lookups, SUM(llm_calls) AS calls,"
        " SUM(prompt_tokens) AS pt, SUM(completion_tokens) AS ct, SUM(cost_usd) AS cost FROM requests WHERE at >= ?",
        (iso,))[0]
    latencies = sorted(r["latency_ms"] for r in rows if r["latency_ms"] is not None)
    failing_rules = [(r["name"], r["n"]) for r in store.read(
        f"SELECT COALESCE(rule, tool, '-') AS name, COUNT(*) AS n FROM runs WHERE created_at >= ? AND status IN "
        f"{FAILED_RUN} GROUP BY name ORDER BY n DESC LIMIT 10", (iso,))]
    failing_tools = [(r["tool_name"], r["n"]) for r in store.read(
        "SELECT s.tool_name, COUNT(*) AS n FROM steps s JOIN runs r ON r.run_id = s.run_id WHERE r.created_at >= ?"
        " AND s.status IN ('failed', 'paused') GROUP BY s.tool_name ORDER BY n DESC LIMIT 10", (iso,))]
    unanswered = [(r["status"], r["text"], r["n"]) for r in store.read(
        "SELECT status, lower(trim(text)) AS text, COUNT(*) AS n FROM requests WHERE at >= ? AND status IN"
        " ('no_match', 'needs_input') GROUP BY status, lower(trim(text)) ORDER BY n DESC LIMIT 15", (iso,))]
    ok, bad = totals["ok"] or 0, totals["bad"] or 0
    return Overview(
        since=since, requests=totals["n"] or 0, success_rate=ok / (ok + bad) if ok + bad else None,
        p50_ms=_pct(latencies, 50), p95_ms=_pct(latencies, 95),
        cache_hit_rate=(totals["hits"] or 0) / totals["lookups"] if totals["lookups"] else None,
        llm_calls=totals["calls"] or 0, prompt_tokens=totals["pt"] or 0, completion_tokens=totals["ct"] or 0,
        cost_usd=totals["cost"], buckets=buckets, failing_rules=failing_rules, failing_tools=failing_tools,
        unanswered=unanswered)


def _bucket(at: str, rows: list[Any]) -> Bucket:
    ok = sum(r["status"] == "succeeded" for r in rows)
    bad = sum(r["status"] in ("failed", "aborted", "error") for r in rows)
    lat = sorted(r["latency_ms"] for r in rows if r["latency_ms"] is not None)
    return Bucket(at=at, requests=len(rows), succeeded=ok, failed=bad, success_rate=ok / (ok + bad) if ok + bad else None,
                  p50_ms=_pct(lat, 50), p95_ms=_pct(lat, 95), cache_hits=sum(r["cache"] == "hit" for r in rows),
                  cache_lookups=sum(r["cache"] in ("hit", "miss") for r in rows),
                  llm_calls=sum(r["llm_calls"] or 0 for r in rows), tokens=sum(r["tokens"] or 0 for r in rows))
