"""Monitoring: request rate, success, latency, cache, LLM use, what fails, what the knowledge lacks."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from console.state import assistant
from core.monitoring import RANGES, overview

a = assistant()
st.title("📈 Monitoring")
with st.expander("Audit log: who edited or ran what from the console"):
    entries = a.store.audit_log(limit=200)
    if entries:
        st.dataframe(pd.DataFrame([{k: e[k] for k in ("at", "actor", "action", "target")} for e in entries]),
                     hide_index=True)
    else:
        st.info("No console edits or runs yet.")
label = st.selectbox("Range", list(RANGES), index=1, key="mo_range")
ov = overview(a.store, label)
if ov.requests == 0:
    st.info(f"No requests in the {label}. Every request from Slack, the CLI or the Playground shows up here.")
    st.stop()


def pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.0%}"


m = st.columns(7)
m[0].metric("Requests", f"{ov.requests:,}")
m[1].metric("Success rate", pct(ov.success_rate))
m[2].metric("Latency p50", f"{ov.p50_ms or 0:,.0f} ms")
m[3].metric("Latency p95", f"{ov.p95_ms or 0:,.0f} ms")
m[4].metric("Cache hit rate", pct(ov.cache_hit_rate))
m[5].metric("LLM calls", f"{ov.llm_calls:,}")
m[6].metric("Tokens", f"{ov.prompt_tokens + ov.completion_tokens:,}",
            help=f"prompt {ov.prompt_tokens:,} · completion {ov.completion_tokens:,}"
                 + (f" · ${ov.cost_usd:.4f}" if ov.cost_usd else ""))

df = pd.DataFrame([b.model_dump() for b in ov.buckets])
df["time"] = pd.to_datetime(df["at"].map(lambda a: a + ":00" if len(a) == 13 else a))
df["cache hit rate"] = df["cache_hits"] / df["cache_lookups"].where(df["cache_lookups"] > 0)


def chart(columns: list[str], title: str, *, bars: bool = False, percent: bool = False) -> None:
    """One time series chart (points too, so a single bucket still shows)."""
    data = df.melt(id_vars=["time"], value_vars=columns, var_name="series", value_name="value").dropna()
    base = alt.Chart(data, title=title)
    mark = base.mark_bar() if bars else base.mark_line(point=True)
    y = alt.Y("value:Q", title=None, axis=alt.Axis(format="%" if percent else ",.0f"))
    st.altair_chart(mark.encode(x=alt.X("time:T", title=None), y=y, color=alt.Color("series:N", title=None)),
                    width="stretch")


left, right = st.columns(2)
with left:
    chart(["requests"], "Requests", bars=True)
    chart(["p50_ms", "p95_ms"], "Latency (ms)")
    chart(["llm_calls"], "LLM calls", bars=True)
with right:
    chart(["success_rate"], "Success rate", percent=True)
    chart(["cache hit rate"], "Cache hit rate", percent=True)
    chart(["tokens"], "Tokens (prompt + completion)", bars=True)


def ranked(rows: list[tuple[str, int]], what: str) -> None:
    if not rows:
        st.caption(f"No failing {what} in this range.")
        return
    data = pd.DataFrame(rows, columns=[what, "failures"])
    st.altair_chart(alt.Chart(data).mark_bar(color="#c62828").encode(
        x="failures:Q", y=alt.Y(f"{what}:N", sort="-x", title=None)), width="stretch")


a1, a2 = st.columns(2)
with a1:
    st.markdown("**Top failing rules / tools (runs)**")
    ranked(ov.failing_rules, "rule")
with a2:
    st.markdown("**Top failing tools (steps)**")
    ranked(ov.failing_tools, "tool")

st.markdown("**What the knowledge is missing:** requests that ended `no_match` or `needs_input` most often")
if ov.unanswered:
    miss = pd.DataFrame(ov.unanswered, columns=["status", "request", "times"])
    st.altair_chart(alt.Chart(miss).mark_bar().encode(
        x="times:Q", y=alt.Y("request:N", sort="-x", title=None), color="status:N"), width="stretch")
    st.dataframe(miss, hide_index=True)
else:
    st.caption("Every request in this range was understood.")
