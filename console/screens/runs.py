"""Runs: every run with filters and paging; a run's steps, timeline, events; re-run or replay it."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from console import access, views
from console.state import assistant, run
from core.contracts import REDACTED
from core.errors import DatasmithError
from core.models import Request

PAGE = 50
a = assistant()
store = a.store
st.title("🏃 Runs")

f1, f2, f3, f4, f5 = st.columns(5)
status = f1.selectbox("Status", ["any", "succeeded", "partial", "failed", "paused", "aborted", "interrupted",
                                      "running"],
                      key="rn_status")
surface = f2.selectbox("Surface", ["any", "slack", "cli", "console"], key="rn_surface")
user = f3.text_input("User", key="rn_user")
name = f4.selectbox("Rule / tool", ["any", *sorted(a.knowledge.rules), *sorted(a.knowledge.tools)], key="rn_name")
text = f5.text_input("Request contains", key="rn_text")
filters = {"status": None if status == "any" else status, "surface": None if surface == "any" else surface,
           "user": user or None, "name": None if name == "any" else name, "text": text or None}
total = store.count(**filters)
if total == 0:
    if any(filters.values()):
        st.info("No run matches these filters.")
    else:
        st.info("No runs yet. Try the Playground, mention the bot in Slack, or "
                "`datasmith ask \"给商品id为123456的商品生成一笔退货退款的订单\"`.")
    st.stop()

pages = (total + PAGE - 1) // PAGE
page = st.number_input(f"Page (of {pages}; {total} runs)", min_value=1, max_value=pages, value=1, key="rn_page")
rows = store.list(limit=PAGE, offset=(page - 1) * PAGE, **filters)
table = pd.DataFrame([{"time": r.created_at.strftime("%Y-%m-%d %H:%M:%S"), "run": r.run_id, "user": r.user or "",
                       "surface": r.surface or "", "request": r.request_text[:120], "rule/tool": r.rule or r.tool,
                       "env": r.environment, "status": r.status,
                       "latency ms": round(r.latency_ms) if r.latency_ms is not None else None,
                       "attempts": r.attempts} for r in rows])
st.dataframe(table, hide_index=True)

run_id = st.selectbox("Run detail", [r.run_id for r in rows], key="rn_pick",
                      format_func=lambda rid: next(f"{r.run_id} · {r.status} · {r.request_text[:50]}"
                                                   for r in rows if r.run_id == rid))
detail = store.get(run_id)
st.subheader(f"Run {detail.run_id}: {detail.status}")
st.markdown(f"trace `{detail.trace_id}` · {detail.plan.rule or detail.plan.tool} · env {detail.plan.environment} · "
            f"by {detail.request.user or '—'} via {detail.request.surface} · “{detail.request.text}”")
if detail.error:
    st.error(f"{detail.error.code}: {detail.error.message}")
st.dataframe(pd.DataFrame(views.step_rows(detail)), hide_index=True)
bars = views.gantt_rows(detail)
if bars:
    st.altair_chart(alt.Chart(pd.DataFrame(bars)).mark_bar().encode(
        x=alt.X("start_ms:Q", title="ms since the run started"), x2="end_ms:Q", y=alt.Y("step:N", sort=None, title=None),
        color=alt.Color("status:N", scale=alt.Scale(domain=list(views.STATUS_COLOURS),
                                                    range=list(views.STATUS_COLOURS.values())))),
        width="stretch")
with st.expander("Events"):
    st.dataframe(pd.DataFrame(store.events(detail.run_id)), hide_index=True)

if not access.may_change("Re-running and replaying runs"):
    st.stop()
actor = access.viewer().actor
again, replay = st.columns(2)
if again.button("Re-run (plan the same request again)", key="rn_rerun", width="stretch"):
    req = Request(text=detail.request.text, environment=detail.plan.environment, user=actor, surface="console")
    report = run(a.handle(req, confirmed=True))
    a.store.audit(actor, "console", "run.rerun", detail.run_id, {"new_run": report.run.run_id if report.run else None,
                                                                 "new_runs": [r.run_id for r in report.runs]})
    if report.runs:  # the request asked for copies: one run each
        ok = sum(r.status == "succeeded" for r in report.runs)
        st.success(f"{len(report.runs)} new runs ({ok} succeeded): " + ", ".join(r.run_id for r in report.runs))
    else:
        st.success(f"New run {report.run.run_id}: {report.run.status}" if report.run else
                   f"{report.plan.status if report.plan else report.error.code}: "
                   f"{(report.plan.question if report.plan else report.error.message) or ''}")
if replay.button("Replay (the same plan, as stored)", key="rn_replay", width="stretch"):
    if any(v == REDACTED for step in detail.plan.steps for v in step.arguments.values()):
        st.warning("This plan held PII arguments; they were redacted when stored. Use Re-run instead.")
    else:
        try:
            report = run(a.execute(detail.request.model_copy(update={"surface": "console", "user": actor}),
                                   detail.plan, confirmed=True))
            a.store.audit(actor, "console", "run.replay", detail.run_id,
                          {"new_run": report.run.run_id if report.run else None})
            st.success(f"Replayed as run {report.run.run_id}: {report.run.status}" if report.run
                       else f"{report.error.code}: {report.error.message}")
        except DatasmithError as exc:
            st.error(f"{exc.code}: {exc.message}")
