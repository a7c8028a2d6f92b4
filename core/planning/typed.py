"""Typed values: a value reaches a parameter only if it validates against that parameter.

Its JSON type (cast from the request's text), `enum` (case-insensitively), and every JSON-Schema
keyword the parameter declares — `pattern`, `format` (email, date, date-time, uri...),
`minimum`/`maximum`, `minLength`/`maxLength`, `multipleOf`... — checked with jsonschema, the
same library the plan gate uses, so the planner never proposes what the gate would refuse.
A parameter's own `patterns` say what its values look like too: a value must have the shape of
what one of them captures (`E\\d{5}` in `工号\\s*(E\\d{5})`), so a name never becomes an id.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlparse

import regex
from jsonschema import Draft202012Validator, FormatChecker

from core.models import ParamSpec, ToolSpec
from core.pack_regex import MATCH_BUDGET_S
from core.planning.text import cast

MISSING: Any = object()
_FORMATS = FormatChecker()


@_FORMATS.checks("uri", raises=ValueError)
def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parsed = urlparse(value)
    return bool(parsed.scheme and (parsed.netloc or parsed.path))


_HOST_LABEL = regex.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


@_FORMATS.checks("hostname", raises=ValueError)
def _hostname(value: object) -> bool:  # (jsonschema checks it only with an optional package)
    if not isinstance(value, str):
        return True
    labels = value.rstrip(".").split(".")
    return len(value) <= 253 and len(labels) >= 2 and all(_HOST_LABEL.fullmatch(label) for label in labels)


@_FORMATS.checks("email", raises=ValueError)
def _email(value: object) -> bool:  # jsonschema's own check only looks for an "@"
    if not isinstance(value, str):
        return True
    local, _, domain = value.rpartition("@")
    return bool(local) and "." in domain and " " not in value and not domain.startswith(".")


_OUR_KEYS = ("description", "default", "synonyms", "patterns", "required", "name", "examples")


def _schema(param: ParamSpec) -> dict[str, Any]:
    schema = {k: v for k, v in param.json_schema().items() if k not in _OUR_KEYS}
    schema.pop("enum", None)  # enum is matched case-insensitively below, then given as declared
    return schema


def validate(raw: Any, param: ParamSpec) -> Any:
    """The value as the parameter takes it, or MISSING when it does not validate."""
    try:
        value = cast(raw, param.type)
    except (ValueError, TypeError, OverflowError):
        return MISSING
    if param.enum is not None:
        match = next((e for e in param.enum if e == value or (isinstance(e, str) and isinstance(value, str)
                                                              and e.lower() == value.lower())), MISSING)
        if match is MISSING:
            return MISSING
        value = match
    validator = _validator(param)
    if validator is not None and not validator.is_valid(value):
        return MISSING
    if not _has_shape(value, param) and not (isinstance(raw, str) and _has_shape(raw.strip(), param)):
        return MISSING  # (the text as said counts too: 007 for an integer whose pattern is \d{3})
    return value


def _has_shape(value: Any, param: ParamSpec) -> bool:
    """Whether the value is what one of the parameter's `patterns` captures (true without any)."""
    shapes = _shapes(param)
    if not shapes or isinstance(value, bool) or not isinstance(value, str | int | float):
        return True
    text = str(value)
    try:
        return any(shape.fullmatch(text, timeout=MATCH_BUDGET_S) for shape in shapes)
    except TimeoutError:
        return True


def trust_shapes(param: ParamSpec, examples: list[Any]) -> None:
    """Keep a parameter's pattern shapes only if the pack's own example values have them: a pattern
    written wrong (a doubled backslash in YAML) must not refuse the values the pack teaches."""
    shapes = _shapes(param)
    if shapes and any(not _has_shape(v, param) for v in examples if isinstance(v, str | int | float)):
        param._shapes = []  # noqa: SLF001


def kin_shapes(tools: Iterable[ToolSpec]) -> None:
    """A parameter that declares no shape takes that of the parameter its name ends with
    (`return_branch_id` -> `branch_id`'s `BR-\\d+`), unless its own example values differ: a
    vehicle id is never a return branch. Run after `trust_shapes`."""
    tools = list(tools)
    by_name: dict[str, list[regex.Pattern[str]]] = {}
    for tool in tools:
        for param in tool.parameters:
            by_name.setdefault(param.name, []).extend(_shapes(param))
    # (a kin of several words: return_branch_id -> branch_id; never coupon_code -> code, new_name -> name)
    kins = sorted((name for name, shapes in by_name.items() if shapes and "_" in name), key=len, reverse=True)
    for tool in tools:
        for param in tool.parameters:
            extra = param.model_extra or {}
            if param.type != "string" or param.patterns or param.enum is not None or "pattern" in extra \
                    or "format" in extra:
                continue
            kin = next((name for name in kins if param.name.endswith("_" + name)), None)
            if kin is None:
                continue
            own = [str(e.extracted_params[param.name]) for e in tool.examples if param.name in e.extracted_params]
            if all(any(shape.fullmatch(v) for shape in by_name[kin]) for v in own):
                param._shapes = by_name[kin]  # noqa: SLF001


def pattern_shapes(param: ParamSpec) -> list[regex.Pattern[str]]:
    """What the parameter's patterns capture, each as a pattern of its own (none when unreadable)."""
    return _shapes(param)


def _shapes(param: ParamSpec) -> list[regex.Pattern[str]]:
    """Each pattern's captured part as a pattern of its own; none when one cannot be read off
    (then the patterns do not constrain the value at all)."""
    cached = param._shapes  # noqa: SLF001 - the planner's own cache slot on the model
    if cached is None:
        cached = []
        for pattern in param.patterns:
            part = captured_part(pattern)
            try:
                cached.append(regex.compile(part) if part is not None else None)
            except regex.error:
                cached.append(None)
        cached = [] if None in cached else cached
        param._shapes = cached  # noqa: SLF001
    return cached


def captured_part(pattern: str) -> str | None:
    """The source of a pattern's first capturing group (the whole pattern when it has none),
    with the pattern's leading inline flags; None when it cannot be checked alone: alternatives at
    the top ("工号(E\\d{5})|(\\d{6})"), a group inside another one ("(?i:order (ORD-\\d+))"), a
    look-around or a back-reference in the part."""
    flags = regex.match(r"(?:\(\?[a-zA-Z]+\))*", pattern)
    lead = flags.group(0) if flags else ""
    if _alternates(pattern, len(lead)):
        return None
    depth, opened = 0, None
    for i, c in _structure(pattern, len(lead)):
        if c == "(":
            capturing = not pattern.startswith("(?", i) or (pattern.startswith(("(?P<", "(?<"), i)
                                                           and not pattern.startswith(("(?<=", "(?<!"), i))
            if capturing and opened is None:
                if depth:
                    return None
                opened = (pattern.index(">", i) + 1 if pattern.startswith(("(?P<", "(?<"), i) else i + 1, depth)
            depth += 1
        elif c == ")":
            depth -= 1
            if opened is not None and depth == opened[1]:
                part = pattern[opened[0]:i]
                if _LOOKAROUND.search(part) or regex.search(r"\\\d", part):
                    return None
                return lead + part
    return None if opened is not None or _LOOKAROUND.search(pattern) else pattern


_LOOKAROUND = regex.compile(r"\(\?<?[=!]")


def _structure(pattern: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """The pattern's parentheses and bars, with their positions (not escaped, not in a [class])."""
    i, in_class = start, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += pattern[i + 1:i + 2] == "]"
        elif c in "()|":
            yield i, c
        i += 1


def _alternates(pattern: str, start: int) -> bool:
    """A bar at the top level: the pattern is alternatives."""
    depth = 0
    for _, c in _structure(pattern, start):
        depth += (c == "(") - (c == ")")
        if c == "|" and depth <= 0:
            return True
    return False


def _validator(param: ParamSpec) -> Draft202012Validator | None:
    """Compiled once per parameter (kept on it); None when only the type is declared."""
    cached = param._check  # noqa: SLF001 - the planner's own cache slot on the model
    if cached is None:
        schema = _schema(param)
        cached = Draft202012Validator(schema, format_checker=_FORMATS) if len(schema) > 1 else False
        param._check = cached  # noqa: SLF001
    return cached or None


def is_typed(param: ParamSpec) -> bool:
    """Whether the parameter says what its values look like (patterns, pattern, format, enum)."""
    extra = param.model_extra or {}
    return bool(param.patterns or param.enum is not None or "pattern" in extra or "format" in extra)


def explain(raw: Any, param: ParamSpec) -> str:
    """Why `raw` does not fit the parameter, in words a requester understands."""
    try:
        value = cast(raw, param.type)
    except (ValueError, TypeError, OverflowError):
        return f"{raw!r} is not a{'n' if param.type[0] in 'aeiou' else ''} {param.type}"
    if param.enum is not None and not any(str(e).lower() == str(value).lower() for e in param.enum):
        return f"{value!r} is not one of {', '.join(map(str, param.enum))}"
    validator = _validator(param)
    if validator is not None:
        error = next(iter(validator.iter_errors(value)), None)
        if error is not None:
            return error.message
    if _shapes(param):
        return f"{raw!r} does not look like {' or '.join(s.pattern for s in _shapes(param))}"
    return f"{raw!r} is not allowed"
