"""Load knowledge packs from folders and validate everything the pack spec lists.

Every problem is a PackError naming the file, the rule or tool, and the step. Loading is
all-or-nothing: a Knowledge object exists only when every pack is valid.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jmespath
import jmespath.exceptions
import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ValidationError

from core.code_policy import DEFAULT_POLICY, CodePolicy, check_command, check_python_binding
from core.contracts import parameters_schema
from core.errors import CodeNotAllowed, PackError
from core.models import EnvironmentSpec, PackSpec, RuleSpec, StepId, ToolSpec
from core.pack_regex import compile_pattern
from core.yaml_comments import comment_cuts
from core.yaml_text import load_yaml

ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
log = logging.getLogger("datasmith.knowledge")


@dataclass
class Knowledge:
    """Every loaded pack, with global tool and rule names."""

    packs: dict[str, PackSpec] = field(default_factory=dict)
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    rules: dict[str, RuleSpec] = field(default_factory=dict)
    defaults: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    version: str = ""
    policy: CodePolicy = field(default_factory=lambda: DEFAULT_POLICY)
    # What loads but is likely not what the author meant (text a YAML comment cut short), "file: line …"
    warnings: list[str] = field(default_factory=list)

    def environment_names(self, pack: str) -> list[str]:
        return list(self.packs[pack].environments)

    def default_environment(self, pack: str) -> str | None:
        spec = self.packs[pack]
        return spec.default_environment or next(iter(spec.environments), None)

    def environment(self, pack: str, name: str) -> EnvironmentSpec | None:
        return self.packs[pack].environments.get(name)

    def defaults_for(self, pack: str, env: str | None) -> dict[str, Any]:
        """defaults.yaml values for an environment: `all` overridden by the environment's own."""
        table = self.defaults.get(pack, {})
        return {**table.get("all", {}), **(table.get(env, {}) if env else {})}

    def idempotent(self, tool: ToolSpec) -> bool:
        """Whether calling the tool again with the same idempotency key is safe (reads always are)."""
        if not tool.side_effects:
            return True
        if tool.idempotent is not None:
            return tool.idempotent
        pack = self.packs.get(tool.pack)
        return bool(pack and pack.idempotent_writes)

    def pack_of(self, name: str) -> str:
        item = self.rules.get(name) or self.tools.get(name)
        return item.pack if item else ""


def expand_env(text: str, environ: Mapping[str, str]) -> str:
    """Expand `${NAME}` and `${NAME:-fallback}`; an unset name without fallback stays empty."""
    return ENV_REF.sub(lambda m: environ.get(m.group(1)) or (m.group(2) or ""), text)


def pack_dirs(paths: Iterable[Path]) -> list[Path]:
    """Each path is a pack (has pack.yaml) or a folder of packs."""
    found: list[Path] = []
    for path in paths:
        path = Path(path)
        if (path / "pack.yaml").is_file():
            found.append(path)
        elif path.is_dir():
            subs = sorted(p for p in path.iterdir() if (p / "pack.yaml").is_file())
            if not subs:
                raise PackError("no pack.yaml here nor in any subfolder", file=str(path))
            found.extend(subs)
        else:
            raise PackError("knowledge folder does not exist", file=str(path))
    return found


def load_knowledge(paths: Iterable[Path], policy: CodePolicy | None = None) -> Knowledge:
    """Load and validate every pack under `paths`; raise PackError on the first problem.
    `policy` is the deployment's allowlist for code outside the packs (settings)."""
    kn = Knowledge(policy=policy or DEFAULT_POLICY)
    digest = hashlib.sha256()
    for pdir in pack_dirs(paths):
        _load_pack(pdir, kn, digest)
    for rule in kn.rules.values():
        validate_rule(rule, kn)
    kn.version = digest.hexdigest()[:16]
    for warning in kn.warnings:
        log.warning("%s", warning)
    return kn


def _read_yaml(path: Path, digest: Any, warnings: list[str]) -> Any:
    raw = path.read_bytes()
    digest.update(str(path.name).encode() + b"\0" + raw)
    try:
        text = raw.decode("utf-8")
        data = load_yaml(text)
        warnings.extend(f"{path}: {cut}" for cut in comment_cuts(text))
        return data
    except UnicodeDecodeError as exc:
        raise PackError(f"not UTF-8 text ({exc.reason})", file=str(path)) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise PackError(f"invalid YAML{where}: {problem}", file=str(path)) from exc


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(x) for x in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


def _model(cls: type[BaseModel], data: Any, **where: Any) -> Any:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise PackError(_validation_message(exc), **where) from exc


def _entries(path: Path, digest: Any, warnings: list[str]) -> list[Any]:
    data = _read_yaml(path, digest, warnings)
    if data is None:
        return []
    return data if isinstance(data, list) else [data]


def _load_pack(pdir: Path, kn: Knowledge, digest: Any) -> None:
    pack_file = pdir / "pack.yaml"
    data = _read_yaml(pack_file, digest, kn.warnings)
    if not isinstance(data, dict):
        raise PackError("pack.yaml must be a mapping", file=str(pack_file))
    pack: PackSpec = _model(PackSpec, data, file=str(pack_file))
    pack.path = str(pdir)
    if pack.name in kn.packs:
        raise PackError(f"pack {pack.name!r} is loaded twice", file=str(pack_file))
    if pack.default_environment and pack.default_environment not in pack.environments:
        raise PackError(f"environments.default names {pack.default_environment!r}, which is not defined",
                        file=str(pack_file))
    _check_commands(pack, pdir, kn.policy, str(pack_file))
    kn.packs[pack.name] = pack
    kn.defaults[pack.name] = _load_defaults(pdir / "defaults.yaml", pack, digest, kn.warnings)
    for path in sorted((pdir / "tools").glob("*.y*ml")):
        for entry in _entries(path, digest, kn.warnings):
            tool = _load_tool(entry, path, pack)
            if tool.call.python:
                try:
                    check_python_binding(tool.call.python, pdir, kn.policy)
                except CodeNotAllowed as exc:
                    raise CodeNotAllowed(exc.message, file=str(path), tool=tool.tool_name) from None
            if tool.tool_name in kn.tools:
                other = kn.tools[tool.tool_name].source_file
                raise PackError(f"duplicate tool_name (also in {other})", file=str(path), tool=tool.tool_name)
            kn.tools[tool.tool_name] = tool
    for path in sorted((pdir / "rules").glob("*.y*ml")):
        for entry in _entries(path, digest, kn.warnings):
            name = entry.get("rule_name") if isinstance(entry, dict) else None
            rule: RuleSpec = _model(RuleSpec, entry, file=str(path), rule=name)
            rule.pack, rule.source_file = pack.name, str(path)
            if rule.rule_name in kn.rules:
                other = kn.rules[rule.rule_name].source_file
                raise PackError(f"duplicate rule_name (also in {other})", file=str(path), rule=rule.rule_name)
            kn.rules[rule.rule_name] = rule
    for py in sorted(pdir.glob("*.py")):  # python bindings change behaviour: part of the version
        digest.update(py.name.encode() + b"\0" + py.read_bytes())


def _check_commands(pack: PackSpec, pdir: Path, policy: CodePolicy, file: str) -> None:
    """MCP stdio servers and the local service run only the pack's own code or allowlisted programs."""
    try:
        for name, server in pack.mcp_servers.items():
            if server.command:
                check_command(server.command, server.args, pdir, policy, what=f"mcp_servers.{name}")
        if pack.local_service and pack.local_service.command:
            cmd = pack.local_service.command
            check_command(cmd[0], cmd[1:], pdir, policy, what="local_service")
    except CodeNotAllowed as exc:
        raise CodeNotAllowed(exc.message, file=file) from None


def _load_defaults(path: Path, pack: PackSpec, digest: Any, warnings: list[str]) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    data = _read_yaml(path, digest, warnings) or {}
    if not isinstance(data, dict):
        raise PackError("defaults.yaml must map `all` and environment names to values", file=str(path))
    for key, values in data.items():
        if key != "all" and key not in pack.environments:
            raise PackError(f"section {key!r} is neither `all` nor an environment of pack {pack.name}",
                            file=str(path))
        if not isinstance(values, dict):
            raise PackError(f"section {key!r} must be a mapping of names to values", file=str(path))
    return data


def _load_tool(entry: Any, path: Path, pack: PackSpec) -> ToolSpec:
    name = entry.get("tool_name") if isinstance(entry, dict) else None
    tool: ToolSpec = _model(ToolSpec, entry, file=str(path), tool=name)
    tool.pack, tool.source_file = pack.name, str(path)
    where = {"file": str(path), "tool": tool.tool_name}
    names = [p.name for p in tool.parameters]
    if len(names) != len(set(names)):
        raise PackError("duplicate parameter names", **where)
    for p in tool.parameters:
        for pattern in p.patterns:
            try:
                compile_pattern(pattern)
            except ValueError as exc:
                raise PackError(f"parameter {p.name}: {exc}", **where) from exc
        unknown = set(p.synonyms) - {str(v) for v in (p.enum or [])}
        if unknown:
            raise PackError(f"parameter {p.name}: synonyms for values not in enum: {sorted(unknown)}", **where)
    schema = parameters_schema(tool)
    try:
        Draft202012Validator.check_schema(schema)
        if tool.returns is not None:
            Draft202012Validator.check_schema(tool.returns)
    except SchemaError as exc:
        raise PackError(f"bad JSON Schema keyword: {exc.message}", **where) from exc
    for ex in tool.examples:
        extra = set(ex.extracted_params) - set(names)
        if extra:
            raise PackError(f"example {ex.user_query!r} extracts unknown parameters {sorted(extra)}", **where)
    if tool.call.mcp and tool.call.mcp.server not in pack.mcp_servers:
        raise PackError(f"call.mcp.server {tool.call.mcp.server!r} is not in pack.yaml mcp_servers", **where)
    return tool


def _ancestors(deps: dict[StepId, list[StepId]], sid: StepId) -> set[StepId]:
    seen: set[StepId] = set()
    stack = list(deps[sid])
    while stack:
        cur = stack.pop()
        if cur not in seen:
            seen.add(cur)
            stack.extend(deps.get(cur, []))
    return seen


def _check_acyclic(rule: RuleSpec, deps: dict[StepId, list[StepId]]) -> None:
    state: dict[StepId, int] = {}  # 1 = on the stack, 2 = done

    def visit(sid: StepId, trail: list[StepId]) -> None:
        state[sid] = 1
        for dep in deps[sid]:
            if state.get(dep) == 1:
                cycle = " -> ".join(str(s) for s in [*trail[trail.index(dep):], sid, dep]) if dep in trail \
                    else f"{sid} -> {dep}"
                raise PackError(f"dependency cycle {cycle}", file=rule.source_file, rule=rule.rule_name, step=sid)
            if state.get(dep) is None:
                visit(dep, [*trail, sid])
        state[sid] = 2

    for sid in deps:
        if state.get(sid) is None:
            visit(sid, [])


def validate_rule(rule: RuleSpec, kn: Knowledge) -> None:
    """Check the DAG: tools exist, ids exist and are unique, acyclic, mappings sound."""
    file, name = rule.source_file, rule.rule_name
    if not rule.dag_definition:
        raise PackError("dag_definition is empty", file=file, rule=name)
    ids = [s.step_id for s in rule.dag_definition]
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        raise PackError("duplicate step_id", file=file, rule=name, step=dup)
    deps = {s.step_id: list(s.dependencies) for s in rule.dag_definition}
    for step in rule.dag_definition:
        if step.tool_name not in kn.tools:
            raise PackError(f"unknown tool {step.tool_name!r}", file=file, rule=name, step=step.step_id)
        for dep in step.dependencies:
            if dep not in deps:
                raise PackError(f"dependency {dep!r} is not a step of this rule", file=file, rule=name,
                                step=step.step_id)
    _check_acyclic(rule, deps)
    for step in rule.dag_definition:
        _validate_step(rule, step, kn, _ancestors(deps, step.step_id))


def _validate_step(rule: RuleSpec, step: Any, kn: Knowledge, ancestors: set[StepId]) -> None:
    where = {"file": rule.source_file, "rule": rule.rule_name, "step": step.step_id}
    tool = kn.tools[step.tool_name]
    for pname, mapping in step.parameter_mapping.items():
        if tool.param(pname) is None:
            raise PackError(f"parameter {pname!r} does not exist on tool {tool.tool_name}", **where)
        if mapping.source == "step_output":
            if mapping.step_id not in ancestors:
                raise PackError(f"parameter {pname!r} reads step {mapping.step_id!r}, which is not an ancestor "
                                "(add it to dependencies)", **where)
            _compile(mapping.value, f"parameter {pname!r} path", where)
    if step.condition:
        _compile(step.condition, "condition", where)


def _compile(expr: str, what: str, where: dict[str, Any]) -> None:
    try:
        jmespath.compile(expr)
    except jmespath.exceptions.JMESPathError as exc:
        raise PackError(f"{what} {expr!r} is not valid JMESPath: {exc}", **where) from exc
