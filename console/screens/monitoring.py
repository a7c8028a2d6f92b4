"""Monitoring: request rate, success, latency, cache, LLM use, what fails, what the knowledge lacks."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from console.state import assistant
from core.monitoring import RANGES, overview

a = assistant()
st.title("📈 Monitoring")
label = st.selectbox("Range", list(RANGES), index=1, key="mo_range")
ov = overview(a.store, label)
if ov.requests == 0:
    st.info(f"No requests in the {label}. Every request from Slack, the CLI or the Playground shows up here.")
    st.stop()


def pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.0%}"


m = st.columns(6)
m[0].metric("Requests", f"{ov.requests:,}")
m[1].metric("Success rate", pct(ov.success_rate))
m[2].metric("Latency p50 / p95", f"{ov.p50_ms or 0:.0f} / {ov.p95_ms or 0:.0f} ms")
m[3].metric("Cache hit rate", pct(ov.cache_hit_rate))
m[4].metric("LLM calls", f"{ov.llm_calls:,}")
m[5].metric("Tokens", f"{ov.prompt_tokens + ov.completion_tokens:,}",
            help=f"prompt {ov.prompt_tokens:,} · completion {ov.completion_tokens:,}"
                 + (f" · ${ov.cost_usd:.4f}" if ov.cost_usd else ""))

df = pd.DataFrame([b.model_dump() for b in ov.buckets])
df["cache hit rate"] = df["cache_hits"] / df["cache_lookups"].where(df["cache_lookups"] > 0)
left, right = st.columns(2)
with left:
    st.markdown("**Requests**")
    st.bar_chart(df, x="at", y="requests")
    st.markdown("**Latency (ms)**")
    st.line_chart(df, x="at", y=["p50_ms", "p95_ms"])
    st.markdown("**LLM calls and tokens**")
    st.bar_chart(df, x="at", y="llm_calls")
with right:
    st.markdown("**Success rate**")
    st.line_chart(df, x="at", y="success_rate")
    st.markdown("**Cache hit rate**")
    st.line_chart(df, x="at", y="cache hit rate")
    st.markdown("**Tokens**")
    st.bar_chart(df, x="at", y="tokens")


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
