"""What maintainers watch, computed from the RunStore (requests, runs, steps) with SQL.

Everything is aggregated in SQLite (indexes on time), so 100,000 rows stay well under a second.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
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
FAILED_RUN = ("failed", "aborted", "paused", "interrupted", "partial")


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



def _percentiles(store: RunStore, width: int, iso: str) -> tuple[dict[str, tuple[float, float]], tuple[float, float]]:
    """p50/p95 latency per bucket and overall (numpy over one column: fast on 100,000 rows)."""
    rows = store.read("SELECT substr(at, 1, ?) AS b, latency_ms FROM requests WHERE at >= ? AND latency_ms IS NOT NULL"
                      " ORDER BY at", (width, iso))  # the at index: bucket order without a sort
    if not rows:
        return {}, (float("nan"), float("nan"))
    keys = [r[0] for r in rows]
    values = np.fromiter((r[1] for r in rows), dtype=float, count=len(rows))
    out: dict[str, tuple[float, float]] = {}
    start = 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[start]:
            p50, p95 = np.percentile(values[start:i], [50, 95])
            out[keys[start]] = (float(p50), float(p95))
            start = i
    p50, p95 = np.percentile(values, [50, 95])
    return out, (float(p50), float(p95))


def overview(store: RunStore, range_label: str = "last 24 hours", *, now: datetime | None = None) -> Overview:
    width, span = RANGES[range_label]
    since = (now or utcnow()) - span
    iso = since.isoformat()
    rows = store.read(
        "SELECT substr(at, 1, ?) AS b, COUNT(*) AS n, SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END) AS ok,"
        " SUM(CASE WHEN status IN ('failed', 'aborted', 'partial', 'error') THEN 1 ELSE 0 END) AS bad,"
        " SUM(CASE WHEN cache = 'hit' THEN 1 ELSE 0 END) AS hits,"
        " SUM(CASE WHEN cache IN ('hit', 'miss') THEN 1 ELSE 0 END) AS lookups, SUM(llm_calls) AS calls,"
        " SUM(prompt_tokens) AS pt,"
        " SUM(completion_tokens) AS ct, SUM(cost_usd) AS cost FROM requests WHERE at >= ? GROUP BY b ORDER BY b",
        (width, iso))
    pct, overall = _percentiles(store, width, iso)
    buckets = [Bucket(at=r["b"], requests=r["n"], succeeded=r["ok"], failed=r["bad"],
                      success_rate=r["ok"] / (r["ok"] + r["bad"]) if r["ok"] + r["bad"] else None,
                      p50_ms=pct.get(r["b"], (None, None))[0], p95_ms=pct.get(r["b"], (None, None))[1],
                      cache_hits=r["hits"], cache_lookups=r["lookups"], llm_calls=r["calls"] or 0,
                      tokens=(r["pt"] or 0) + (r["ct"] or 0)) for r in rows]
    failing_rules = [(r["name"], r["n"]) for r in store.read(
        f"SELECT COALESCE(rule, tool, '-') AS name, COUNT(*) AS n FROM runs WHERE created_at >= ? AND status IN "
        f"{FAILED_RUN} GROUP BY name ORDER BY n DESC LIMIT 10", (iso,))]
    failing_tools = [(r["tool_name"], r["n"]) for r in store.read(
        "SELECT s.tool_name, COUNT(*) AS n FROM steps s JOIN runs r ON r.run_id = s.run_id WHERE r.created_at >= ?"
        " AND s.status IN ('failed', 'paused') GROUP BY s.tool_name ORDER BY n DESC LIMIT 10", (iso,))]
    unanswered = [(r["status"], r["text"], r["n"]) for r in store.read(
        "SELECT status, lower(trim(text)) AS text, COUNT(*) AS n FROM requests WHERE at >= ? AND status IN"
        " ('no_match', 'needs_input') GROUP BY status, lower(trim(text)) ORDER BY n DESC LIMIT 15", (iso,))]
    ok, bad = sum(b.succeeded for b in buckets), sum(b.failed for b in buckets)
    hits, lookups = sum(b.cache_hits for b in buckets), sum(b.cache_lookups for b in buckets)
    costs = [r["cost"] for r in rows if r["cost"] is not None]
    return Overview(
        since=since, requests=sum(b.requests for b in buckets), success_rate=ok / (ok + bad) if ok + bad else None,
        p50_ms=overall[0] if pct else None, p95_ms=overall[1] if pct else None,
        cache_hit_rate=hits / lookups if lookups else None, llm_calls=sum(b.llm_calls for b in buckets),
        prompt_tokens=sum(r["pt"] or 0 for r in rows), completion_tokens=sum(r["ct"] or 0 for r in rows),
        cost_usd=sum(costs) if costs else None, buckets=buckets, failing_rules=failing_rules,
        failing_tools=failing_tools, unanswered=unanswered)
