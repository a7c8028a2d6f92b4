"""Playground: a request in, retrieval hits, the plan (graph + where each value came from), then
dry-run or execute it and watch the steps; answer a question in place; resume a paused run."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from console import access, views
from console.state import assistant, run
from core.errors import OUTCOME_UNKNOWN, DatasmithError, describe
from core.models import Plan, Request, RunRecord, StepRun

a = assistant()
ss = st.session_state
st.title("🧪 Playground")

envs = sorted({e for p in a.knowledge.packs.values() for e in p.environments})
c1, c2, c3 = st.columns([6, 2, 2])
text = c1.text_input("Request", key="pg_text", placeholder="给商品id为123456的商品生成一笔退货退款的订单")
env = c2.selectbox("Environment", ["(from the request)", *envs], key="pg_env")
planner = c3.radio("Planner", ["auto", "rules", "llm"], horizontal=True, key="pg_planner")


def request_for(text: str, previous: Plan | None = None) -> Request:
    return Request(text=text, environment=None if env.startswith("(") else env, planner=planner, user=access.viewer().actor,
                   surface="console", previous=previous, bypass_cache=True)


def make_plan(req: Request) -> None:
    try:
        a.check_input(req)
        hits = a.retrieve(req.text)  # shown on the page, and the planner's own input
        plan, _, usage = run(a.aplan(req, hits=hits))
    except DatasmithError as exc:
        ss.pg_error, ss.pg_plan = f"{exc.code}: {exc.message}", None
        return
    ss.pg_error, ss.pg_plan, ss.pg_request, ss.pg_hits, ss.pg_usage = None, plan, req, hits, usage
    ss.pg_run = None


if st.button("Plan", key="pg_go", type="primary", disabled=not text.strip()):
    make_plan(request_for(text))

if ss.get("pg_error"):
    st.error(ss.pg_error)
plan: Plan | None = ss.get("pg_plan")
if plan is None:
    st.info("Type a request and press **Plan**: nothing runs until you choose Execute.")
    st.stop()

with st.expander(f"Retrieval: {len(ss.pg_hits)} hits", expanded=False):
    st.dataframe(pd.DataFrame([{"rank": h.rank, "kind": h.kind, "name": h.name, "score": round(h.score, 4)}
                               for h in ss.pg_hits]), hide_index=True)

what = plan.rule or plan.tool or "—"
st.subheader(f"{plan.status} · {what} · env {plan.environment or '—'} · planner {plan.planner}")
if plan.fallback:
    st.warning(f"LLM not used: {plan.fallback}")
if plan.status == "no_match":
    st.info(plan.question or "Nothing in the knowledge fits.")
    st.stop()
if plan.status == "needs_input":
    st.warning(plan.question or f"Missing: {', '.join(plan.missing)}")
    answer = st.text_input("Answer", key="pg_answer")
    if st.button("Send answer", key="pg_send", disabled=not answer.strip()):
        make_plan(request_for(answer, previous=plan))
        st.rerun()
    st.stop()

graph = st.empty()
graph.graphviz_chart(views.plan_dot(plan, ss.get("pg_run")))
st.markdown("**Arguments and where each value came from**")
st.dataframe(pd.DataFrame(views.argument_rows(plan)), hide_index=True)

req: Request = ss.pg_request
try:
    a.gate(plan, req)
    gate_ok = True
except DatasmithError as exc:
    gate_ok = False
    title, hint = describe(exc.code)
    st.error(f"{exc.code} {title}: {exc.message} — {hint}")
if a.needs_confirmation(plan):
    st.warning(f"Environment {plan.environment} needs a confirmation before writes: Execute confirms it.")

may_run = access.may_change("Executing a plan")
dry, go = st.columns(2)
if dry.button("Dry-run", key="pg_dry", width="stretch"):
    st.success("Dry-run: the plan passes the gate (contracts and permissions). Nothing was executed."
               if gate_ok else "Dry-run: the gate refuses this plan (see above). Nothing was executed.")

live = st.empty()


def show_progress(run_rec: RunRecord, step: StepRun) -> None:
    graph.graphviz_chart(views.plan_dot(plan, run_rec))
    live.dataframe(pd.DataFrame(views.step_rows(run_rec)), hide_index=True)


if may_run and go.button("Execute", key="pg_exec", type="primary", width="stretch", disabled=not gate_ok):
    with st.spinner("Running…"):
        report = run(a.execute(req, plan, confirmed=True, progress=show_progress))
    a.store.audit(access.viewer().actor, "console", "playground.execute", plan.rule or plan.tool,
                  {"run_id": report.run.run_id if report.run else None, "environment": plan.environment})
    ss.pg_run = report.run
    if report.runs:  # copies: the first that did not succeed (else the first) is shown below
        ok = sum(r.status == "succeeded" for r in report.runs)
        st.info(f"{len(report.runs)} copies ran ({ok} succeeded): " + ", ".join(r.run_id for r in report.runs))
    if report.error and report.run is None:
        st.error(f"{report.error.code}: {report.error.message} (trace {report.trace_id})")

current: RunRecord | None = ss.get("pg_run")
if current is not None:
    graph.graphviz_chart(views.plan_dot(plan, current))
    live.dataframe(pd.DataFrame(views.step_rows(current)), hide_index=True)
    st.markdown(f"**Run `{current.run_id}`: {current.status}** · trace `{current.trace_id}`")
    if current.error:
        st.error(f"{current.error.code}: {current.error.message}")
    if current.status in ("paused", "interrupted") and may_run:
        st.warning("Paused at a breakpoint: retry the step, skip it, or abort the run.")
        if ss.get("pg_unsure") == current.run_id:
            st.error("A write of this run may already have happened (its call was cut off). Check the system: "
                     "retry anyway only if it did not happen, skip the step if it did.")
        actions = ("retry", "skip", "abort") + (("force",) if ss.get("pg_unsure") == current.run_id else ())
        cols = st.columns(len(actions))
        for col, action in zip(cols, actions, strict=True):
            label = "Retry anyway" if action == "force" else action.capitalize()
            if col.button(label, key=f"pg_resume_{action}", width="stretch"):
                resumed = run(a.resume(current.run_id, "retry" if action == "force" else action,  # type: ignore[arg-type]
                                       by=access.viewer().actor, progress=show_progress, force=action == "force"))
                a.store.audit(access.viewer().actor, "console", f"run.{action}", current.run_id)
                ss.pg_unsure = current.run_id if resumed.error and resumed.error.code == OUTCOME_UNKNOWN else None
                ss.pg_run = resumed.run or current
                st.rerun()
