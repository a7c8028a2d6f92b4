"""Knowledge: browse and search packs, see a rule's DAG and mappings, edit a tool or rule as YAML."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from console import access, views
from console.state import assistant, reload, settings
from core.knowledge_edit import apply_edit, item_yaml
from core.yaml_comments import comment_cuts

a = assistant()
kn = a.knowledge
st.title("📚 Knowledge")
if not kn.packs:
    st.info("No packs loaded. Point `DATASMITH_KNOWLEDGE` at a pack folder (see README, *Writing a pack*).")
    st.stop()
st.caption(f"{len(kn.packs)} pack(s) · {len(kn.tools)} tools · {len(kn.rules)} rules · version `{kn.version}`")
if kn.warnings:
    with st.expander(f"⚠️ {len(kn.warnings)} value(s) in the packs are not what their text says", expanded=True):
        for warning in kn.warnings:
            st.warning(warning)

query = st.text_input("Search tools and rules (the hybrid retrieval the bot uses)", key="kn_search",
                      placeholder="e.g. 退货退款 / refund an order")
if query.strip():
    hits = a.retrieve(query)
    if hits:
        st.dataframe(pd.DataFrame([{"rank": h.rank, "kind": h.kind, "name": h.name, "score": round(h.score, 4)}
                                   for h in hits]), hide_index=True)
    else:
        st.info("Nothing matches; try other words.")

pack = st.selectbox("Pack", list(kn.packs), key="kn_pack")
st.caption(kn.packs[pack].description or "")
rules = [r for r in kn.rules.values() if r.pack == pack]
tools = [t for t in kn.tools.values() if t.pack == pack]
tab_rules, tab_tools, tab_edit = st.tabs([f"Rules ({len(rules)})", f"Tools ({len(tools)})", "Edit as YAML"])

with tab_rules:
    if not rules:
        st.info("This pack has no rules yet: single tools are planned on their own.")
    else:
        st.dataframe(pd.DataFrame([{"rule": r.rule_name, "steps": len(r.dag_definition), "description": r.description}
                                   for r in rules]), hide_index=True)
        name = st.selectbox("Rule", [r.rule_name for r in rules], key="kn_rule")
        rule = kn.rules[name]
        st.graphviz_chart(views.rule_dot(rule))
        st.markdown("**Parameter mapping**")
        st.dataframe(pd.DataFrame(views.mapping_rows(rule)), hide_index=True)
        st.markdown("**Trigger phrases:** " + (", ".join(rule.trigger_phrases) or "—"))
        for e in rule.examples:
            st.markdown(f"- “{e.user_query}” → `{e.extracted_params}`")

with tab_tools:
    st.dataframe(pd.DataFrame([{"tool": t.tool_name, "writes": t.side_effects, "binding": views.binding(t),
                                "description": t.description} for t in tools]), hide_index=True)
    if tools:
        name = st.selectbox("Tool", [t.tool_name for t in tools], key="kn_tool")
        tool = kn.tools[name]
        st.markdown(f"**Binding:** `{views.binding(tool)}` · **writes:** {tool.side_effects} · "
                    f"**timeout:** {tool.timeout_s or 'default'} s · **version:** {tool.version or '—'}")
        st.dataframe(pd.DataFrame(views.parameter_rows(tool)), hide_index=True)
        for e in tool.examples:
            st.markdown(f"- “{e.user_query}” → `{e.extracted_params}`")
        st.markdown("**Output contract (`returns`)**")
        st.json(tool.returns or {}, expanded=False)



def _edit_buttons(kind: str, target: str, text: str) -> None:
    check, save = st.columns(2)
    if check.button("Validate", key="kn_validate", width="stretch"):
        result = apply_edit(settings().knowledge, kn, kind, target, text, write=False)  # type: ignore[arg-type]
        if result.ok:
            st.success("Valid: the whole knowledge loads with this edit.")
        for err in result.errors:
            st.error(err)
        for cut in comment_cuts(text):
            st.warning(cut)
    if save.button("Save and re-index", key="kn_save", type="primary", width="stretch"):
        result = apply_edit(settings().knowledge, kn, kind, target, text)  # type: ignore[arg-type]
        a.store.audit(access.viewer().actor, "console", "knowledge.save" if result.ok else "knowledge.save_refused",
                      f"{kind}:{target}", {"file": result.file, "errors": result.errors[:3]})
        if result.ok:
            st.success(f"Saved to `{result.file}`; the index refreshes on the next load.")
            reload()
        else:
            st.error("Not saved: the edit does not validate. Nothing was written.")
            for err in result.errors:
                st.error(err)


with tab_edit:
    kind = st.radio("Edit a", ["tool", "rule"], horizontal=True, key="kn_edit_kind")
    names = [t.tool_name for t in tools] if kind == "tool" else [r.rule_name for r in rules]
    if not names:
        st.info(f"No {kind}s in this pack.")
    else:
        target = st.selectbox(kind.capitalize(), names, key="kn_edit_name")
        text = st.text_area("YAML", value=item_yaml(kn, kind, target), height=420, key=f"kn_yaml_{kind}_{target}")
        if access.may_change("Editing knowledge"):
            _edit_buttons(kind, target, text)
