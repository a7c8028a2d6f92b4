"""GET /v1/knowledge: what a token may use, read off the loaded knowledge."""

from __future__ import annotations

from api.config import TokenSpec
from api.models import EnvironmentOut, KnowledgeOut, NamedOut, PackOut
from core.knowledge import Knowledge


def knowledge_view(knowledge: Knowledge, token: TokenSpec | None) -> KnowledgeOut:
    packs = []
    for name, pack in knowledge.packs.items():
        if token is not None and token.packs is not None and name not in token.packs:
            continue
        default = knowledge.default_environment(name)
        envs = [EnvironmentOut(name=e, aliases=spec.aliases, confirm=spec.confirm, default=e == default)
                for e, spec in pack.environments.items()
                if token is None or token.environments is None or e in token.environments]
        rules = [NamedOut(name=r.rule_name, description=r.description) for r in knowledge.rules.values() if r.pack == name]
        tools = [NamedOut(name=t.tool_name, description=t.description, side_effects=t.side_effects)
                 for t in knowledge.tools.values() if t.pack == name]
        packs.append(PackOut(name=name, description=pack.description, environments=envs, rules=rules, tools=tools))
    return KnowledgeOut(version=knowledge.version, packs=packs)
