"""Choosing what a request asks for, from all the evidence together, with calibrated abstention.

Each candidate (a rule or a single tool) gets features, each in 0..1:

- trigger  a trigger phrase of the rule is in the request
- state    a `reaches_state` word of the rule is in the request
- lex      character-shingle similarity to its closest example or trigger
- cov      how much of the request's content (idf-weighted words) its own words explain
- rank     where hybrid retrieval (vectors + full text) put it
- fit      how many of the values the request states it can take (ids, emails, amounts, enum words)
- fill     1 / (1 + the values its plan would still have to ask for)
- alien    how much of the request no candidate of the knowledge knows a word of (off-domain)
- core     like cov, with only the words that say what it does: its name, triggers and examples
- unreached the request names a target state of another rule, not of this candidate
- verbatim how near-verbatim its closest example is (0 below a similarity of 0.75, 1 at 1.0)
- intent   +1 when the request asks for what it does (a change, or a look-up), -1 when the opposite
- mass     how much telling evidence (idf) its names/triggers/examples find in the request: "订单X"
           names a thing, not what to do with it
- excess   a recipe no trigger phrase or target state asked for: the share of its steps beyond one

A candidate that does not know a destructive word of the request ("delete", "wipe", "注销") is
never chosen: an off-domain request to destroy something must not become some other write. A write
that would leave a value the request states unused ("cancel my 3pm with dana@...": nothing takes
"3pm") is asked about, never run on the part it understood.

The score is a weighted sum. A request is answered with the best candidate only when the
evidence is strong enough — more for a plan that writes than for one that reads; when two
candidates are close, or the best is plausible but weak, the planner asks which one is meant;
when nothing explains the request, it is `no_match`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from core.models import Plan
from core.planning.extraction import DECLARED, Assignment
from core.planning.lexicon import name_stems, stem

# Weights of the features (fit by logistic regression on the blind dev packs, see benchmarks/fit_choice.py,
# then rounded; the held-out packs never took part).
WEIGHTS: dict[str, float] = {"trigger": 2.51, "state": 1.66, "lex": 1.93, "cov": 4.64, "rank": 1.97,
                             "fit": -0.18, "fill": 2.50, "alien": -2.40, "core": 2.88, "unreached": -1.37,
                             "verbatim": 1.55, "intent": 0.29, "mass": 0.46, "excess": -1.04}
BIAS = -7.33
# Abstention, on the score above (its logistic is a calibrated "this is the one" probability).
READ_MIN = 0.0      # a read plan needs at least this (more likely than "nothing fits")
WRITE_MIN = 0.5     # a plan that writes needs more evidence (1.6 times more likely than nothing)
ASK_MIN = -1.0      # plausible: below the bar but worth offering as a choice
CLOSE = 0.5         # two candidates this close (1.6 times as likely): ask which one is meant
# two sibling recipes whose differing steps the request speaks of in the same words: the gap between
# them is evidence of something else (retrieval rank, wording), up to this much
SIBLING_CLOSE = 1.5
UNEXPLAINED = 0.2   # a rival explaining this much less of the request than a best that explains it all is no rival
COV_MIN = 0.34      # most of the request unexplained by the best candidate: not ours
WRITE_MASS = 0.5    # a write needs a telling word of its own (or a trigger, state, near-verbatim example)
ALIEN_ASIDE = 0.2  # a weak write for a request a fifth of whose words nothing knows is about something else
LEX_LEAD = 0.15     # tolerance: a step whose example is no more than this further from the request than the recipe's
NEAR_LEX = 0.5     # an example this near says a write is meant, whatever words it shares
CORE_LEAD = 0.15   # a recipe's own words say this much more of the request than its first step's do
SAME_LEX = 0.03    # examples this much less near are as near
LONE_LEX = 0.4      # a lone weak reading asks for its values only when an example of it is this near
PINNED_MARGIN = 1.0  # ... or inputs pinned by the request, with every unrelated rival far behind (e ≈ 2.7×)


@dataclass
class Candidate:
    kind: Literal["rule", "tool"]
    name: str
    writes: bool
    trigger: float = 0.0
    state: float = 0.0
    lex: float = 0.0
    cov: float = 0.0
    rank: float = 0.0
    fit: float = 0.0
    fill: float = 0.0
    alien: float = 0.0
    core: float = 0.0
    unreached: float = 0.0
    verbatim: float = 0.0
    intent: float = 0.0
    mass: float = 0.0
    excess: float = 0.0
    content: list[str] = field(default_factory=list)  # the request's words it was scored on
    destroys: list[str] = field(default_factory=list)  # destructive words of the request it does not know
    unable: list[str] = field(default_factory=list)  # verbs the request names ("约一下") nothing here knows
    ignores: list[str] = field(default_factory=list)  # values the request states that its plan would not use
    # Request words (not single characters) each of its tools knows: which steps the request speaks of
    spoken: dict[str, frozenset[str]] = field(default_factory=dict)
    running_writes: frozenset[str] = frozenset()  # a recipe's steps that will run and write
    skipped_writes: frozenset[str] = frozenset()  # ... and those its conditions skip for this request
    presumes: list[str] = field(default_factory=list)  # things said to exist ("the booking") its first write makes
    presumed_by: str | None = None  # ... or, when a later write makes them, that write
    for_someone: bool = False  # ... a person the request acts for (帮他签合同), whom its first write would make
    undoes_wrong: str | None = None  # ... what the request asks to undo, which it would do (or ignore)
    undoes_asked: bool = False  # ... it undoes the change the request asks to undo
    named_against: bool = False  # ... a tool named by the opposite form of the asked word (disable for re-enable)
    opener_unknown: bool = False  # an English request leads with a word it does not know ("upgrade …")
    pronoun_object: bool = False  # ... the thing a verb acts on as a pronoun ("cancel them"), made by its first write
    pointed_at: bool = False  # ... a thing pointed at with 这/那/该 (这个授信申请), which its first write would make
    leaves: int = 0  # clauses of the request (with words the knowledge knows) it knows no word of
    deaf: bool = False  # a part put as a request of its own ("…，帮他开通邮箱") that it knows no word of
    verb_named: bool = False  # the request starts with the verb its name starts with ("send cmp_1": send_campaign)
    reasoned: bool = False  # the request is an order on one id and a plain statement of why ("…, it was leaked")
    unverbed: bool = False  # the request starts with a verb of change the knowledge knows and it does not ("send …")
    forbidden: list[str] = field(default_factory=list)  # its writes the request says not to do ("don't invoice them")
    elsewhere: bool = False  # the leading verb acts on a thing the knowledge knows, in words it knows none of ("refund the room charge")
    acts_on_own: bool = False  # ... on a thing it knows every word of ("revoke the leaked API key": revoke_api_key)
    scopes: frozenset[str] = frozenset()  # ids the request says as where, not what ("… on ws_1")
    lookups_dropped: bool = False  # a recipe whose plan dropped steps for values the request carries, all reads
    carried: bool = False  # a recipe whose producing steps were dropped: the thing they make exists already
    asks: bool = False  # the request is put as a question ("?", 吗, 有没有...)
    inquires: bool = False  # ... one that asks for information ("what's …?", 批了没), not "can we …?"
    only_asks: bool = False  # ... and nothing else: every clause a question ("where's SO-1? has it shipped")
    fact: bool = False  # the request asks when, why or how long (什么时候, 为什么): only a read answers it
    vague: bool = False  # the request asks only to "sort it out" / 处理一下: the change is left unsaid
    procedure: bool = False  # the request asks to go through the procedure (走下流程) of what it names
    direction: int = 0  # what it does to its thing: adds (+1: 增员, enable), takes away (-1), either or neither (0)
    asked_direction: int = 0  # ... and what the request asks to do to it, the same way
    asked_side: int = 0  # ... and what the request's first clause, its ask, says to do, the same way
    knows_asked_way: bool = False  # ... it knows a word that clause says it in (解绑 of unbind_device)
    assignment: Assignment | None = None
    plan: Plan | None = None
    score: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def strong(self) -> bool:
        """Named by the knowledge's own words (a trigger phrase, a target state, a near-verbatim example)."""
        return self.trigger > 0 or self.state > 0 or self.lex >= 0.75

    @property
    def named(self) -> bool:
        """Named as written: a whole trigger phrase, a target state word, a near-verbatim example — not
        a trigger with a gap or a state said loosely ("churn rate" is no request to churn an account)."""
        return self.trigger >= 1.0 or self.state >= 1.0 or self.lex >= 0.75

    @property
    def pinned(self) -> bool:
        """Its inputs are pinned by the request: every one it needs is filled, nothing in the
        request is left unexplained, and at least two values were stated in the parameters' own
        declared shapes (patterns, formats) — "hand TCK-77120 over to li.wei@ourco.com"."""
        return self.fill >= 1.0 and self.cov >= 0.99 and not self.ignores and _stated(self) >= 2

    def features(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in WEIGHTS}


def score(c: Candidate) -> float:
    return BIAS + sum(WEIGHTS[k] * v for k, v in c.features().items())


Verdict = Literal["plan", "ask", "no_match"]


@dataclass
class Decision:
    verdict: Verdict
    best: Candidate | None
    choices: list[Candidate] = field(default_factory=list)
    reason: str = ""


def related(a: Candidate, b: Candidate, steps_of: dict[str, set[str]]) -> bool:
    """A rule and one of its own tools: choosing between them is tailoring, not a different request."""
    rule, tool = (a, b) if a.kind == "rule" else (b, a)
    return rule.kind == "rule" and tool.kind == "tool" and tool.name in steps_of.get(rule.name, set())


def least_action(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A recipe whose extra steps nothing asked for (`excess`) gives way to its own step that explains
    the request as well and needs no more values: the plan that does what was asked, and no more."""
    if best.kind != "rule" or not best.excess or best.plan is None:
        return best
    mine = steps_of.get(best.name, set())
    fits = [c for c in ranked if c.kind == "tool" and c.name in mine and c.cov >= best.cov - 1e-9
            and c.core >= best.core - 1e-9  # the recipe's own words say no more of what is asked
            and c.lex >= best.lex - LEX_LEAD  # nor do its examples ("E1 明天请一天病假" is the recipe's own)
            and c.plan is not None and len(c.plan.missing) <= len(best.plan.missing)]
    return max(fits, key=lambda c: c.score, default=best)


def looked_up(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """A request whose words only ask to see something ("look up a ticket for me") is answered by
    the best plausible read, never by a write its own words did not name (a trigger, a state, a
    near-verbatim example)."""
    if not best.writes or ((best.intent >= 0 or (best.strong and not _read_fills(ranked, best.named)))
                           and not best.only_asks):
        return best
    reads = [c for c in ranked if not c.writes and c.score >= ASK_MIN]
    return max(reads, key=lambda c: c.cov, default=best)  # the read that explains the request ("the invoice")


def _read_fills(ranked: list[Candidate], named: bool = False) -> bool:
    """A plausible read asked for in reading words takes every value said and explains the request:
    "list the drafts in ws_1" lists the drafts (`draft` its own status value), though `draft` is a
    state a recipe reaches, loosely said. Against a write named as written ("show me the last 10
    sent campaigns": `sent` is a state the recipe reaches), only a read named as written as well, or
    one that takes a word said as the value of its own enum (`sent`, the status it lists by)."""
    return any(not c.writes and c.intent > 0 and c.fill >= 1.0 and not c.ignores and c.cov >= 0.99
               and c.score >= ASK_MIN and (not named or c.named or _filters(c)) for c in ranked)


def _filters(c: Candidate) -> bool:
    return c.assignment is not None and any(f.how == "enum" for f in c.assignment.values.values())


def wanted_change(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """The mirror of `looked_up`: a request whose words ask for a change ("帮我建个患者档案") is not
    answered by a close read its words oppose; the change is, if it clears every bar of a write."""
    if best.writes or best.intent >= 0 or best.strong:
        return best
    return next((c for c in ranked if c.writes and c.intent > 0 and best.score - c.score < CLOSE), best)


def fuller(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """Between a tool and a recipe of its own that score close, the one that takes every value the
    request states and needs nothing more: "欧阳晨还剩几天年假" is the recipe that finds 欧阳晨 first,
    not the balance tool that would ask for an employee id; "20% off for ann@example.com" is the
    recipe that finds her account, not the coupon tool that would leave her email unused."""
    if (best.fill >= 1.0 and not best.ignores) or best.strong or best.assignment is None:
        return best
    taken = len(best.assignment.values)
    return next((c for c in ranked if related(best, c, steps_of) and c.fill >= 1.0 and c.writes == best.writes
                 and c.assignment is not None and len(c.assignment.values) > taken
                 and not _unasked_writes(c, best.name)  # finding a value, not making more than was asked
                 and len(c.ignores) < len(best.ignores) + (best.fill < 1.0)  # uses more of what is said
                 and best.score - c.score < CLOSE), best)


def one_step(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A recipe nobody named (no trigger, no state, no near-verbatim example) that would run two writes
    or more the request says nothing of beyond one of its own steps — making the parent that step
    needs among them — is not asked for: that step is, and it asks which parent ("add a webhook
    pointing at https://…" registers a webhook on a project; it makes no org and project first, nor
    sends a test event). Only toward a step that will ask (nothing is written on the way)."""
    if best.kind != "rule" or best.strong or best.trigger > 0 or best.state > 0 or best.plan is None:
        return best
    makers = {s.tool_name for s in best.plan.running() if not s.dependencies} & best.running_writes
    return next((c for c in ranked if related(best, c, steps_of) and c.writes and c.plan is not None
                 and c.plan.missing and c.score >= ASK_MIN and best.spoken.get(c.name)
                 and len(unasked := _unasked_writes(best, c.name)) >= 2 and makers & set(unasked)
                 and c.name not in makers and not c.ignores), best)


def verbed(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """A write that does not know the request's leading verb (a verb the knowledge knows: "assign one
    zoom seat to mchen" is no revocation) gives way to a plausible write that does and explains as much."""
    if not best.writes or not best.unverbed or best.named:
        return best
    return next((c for c in ranked if c.writes and not c.unverbed and c.score >= ASK_MIN and c.fill >= best.fill
                 and c.cov >= best.cov and len(c.ignores) <= len(best.ignores)), best)


def procedure(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A write asked to be gone through as a procedure ("E1 离职，帮忙走下流程") is the recipe that starts
    with it, when one is near and uses what the request states: the resignation and what follows it,
    not the resignation alone."""
    if best.kind != "tool" or not best.writes or not best.procedure:
        return best
    # (a recipe that starts with it but is about something else — visa papers that start with the
    # employment certificate — explains less of the request in its own words)
    return next((c for c in ranked if related(best, c, steps_of) and c.plan is not None and c.score >= ASK_MIN
                 and next((s.tool_name for s in c.plan.running() if s.tool_name in c.running_writes), None) == best.name
                 and len(c.ignores) <= len(best.ignores) and c.core >= best.core - CORE_LEAD), best)


def clears_bar(c: Candidate) -> bool:
    """Evidence enough to plan it on its own: more for a plan that writes than for one that reads."""
    return c.score >= (WRITE_MIN if c.writes else READ_MIN)


def sufficient(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """The mirror of `fuller`: a recipe no trigger or state named, that would still have to ask for
    a value, gives way to one of its own steps that takes every value the request states and needs
    nothing more — "E1 的月薪从 2024-07-01 起调为 25000 元" is the salary change itself, not the
    transfer recipe (which would ask for a new department) that changes the salary on the way."""
    if best.kind != "rule" or best.strong or best.fill >= 1.0 or best.assignment is None:
        return best
    stated = {(f.start, f.end) for f in best.assignment.values.values()}
    return next((c for c in ranked if related(best, c, steps_of) and c.fill >= 1.0 and c.writes == best.writes
                 and not c.ignores and c.assignment is not None and not _spoken_beside(best, c.name)
                 and stated <= {(f.start, f.end) for f in c.assignment.values.values()}
                 and clears_bar(c)), best)


def named_recipe(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A request that says one of a recipe's trigger phrases asks for that recipe, not for one of its
    own steps alone (the spec: a single tool is planned when no rule matches) — when the recipe takes
    what the request states as well and needs no more values."""
    if best.kind != "tool" or best.strong or best.plan is None:
        return best  # a near-verbatim example of the tool itself says it is the tool
    return next((c for c in ranked if related(best, c, steps_of) and c.trigger >= 1.0 and c.fill >= best.fill
                 and len(c.ignores) <= len(best.ignores) and clears_bar(c)
                 and _goes_on_from(c, best.name)), best)


def said_as_recipe(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A tool whose recipe starts with it and goes on, when the recipe's own words (its name, triggers,
    examples) say more of the request than the tool's do: "UAT 给 E10099 请个调休,明天,一天" is the
    leave application the pack wrote (submit, then approve), not the submission alone — the spec plans
    a tool alone when no rule matches. Only where the recipe takes as much, needs no more, its examples
    are as near as the tool's, and it adds one write (submit → approve, book → pay): "提交一个年假申请" is
    the submission, "transfer 10 SKU-1 from Newark to Atlanta" no shipping and receiving too."""
    if best.kind != "tool" or best.named or best.plan is None:
        return best
    return next((c for c in ranked if related(best, c, steps_of) and _goes_on_from(c, best.name)
                 and c.core > best.core + CORE_LEAD and c.lex >= best.lex - SAME_LEX and len(c.running_writes) <= 2
                 and c.cov >= best.cov - 1e-9 and c.fill >= best.fill
                 and len(c.ignores) <= len(best.ignores) and c.plan is not None
                 and len(c.plan.missing) <= len(best.plan.missing) and c.score >= ASK_MIN), best)


def without_lookup(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A tool whose recipe, once the request's value replaces the recipe's look-up, is that tool and
    nothing more ("C-1 安排终面", the look-up by phone dropped): the recipe without its look-up (the spec's tailoring by what
    the request carries) — the same step, named as the recipe the pack wrote for it."""
    if best.kind != "tool" or best.strong or best.plan is None:
        return best  # the tool's own near-verbatim example says it is the tool
    return next((c for c in ranked if related(best, c, steps_of) and c.lookups_dropped and c.plan is not None
                 and c.fit >= best.fit and c.fill >= best.fill  # its constants take nothing the request says
                 # nor supply what the tool would ask for, unless the recipe was named ("change the role
                 # of U1" is not the make-a-billing-admin recipe whose constant picks the role)
                 and (c.fill <= best.fill or c.trigger >= 1.0 or c.state >= 1.0)
                 # a recipe that does more when asked (a write its condition skips here) is that recipe
                 # only when the request reads like it, not like the tool's own example
                 and (not c.skipped_writes or c.lex >= best.lex - LEX_LEAD)
                 and [s.tool_name for s in c.plan.running()] == [best.name]
                 and clears_bar(c)), best)


def _goes_on_from(c: Candidate, tool: str) -> bool:
    """The recipe's plan starts with the tool and goes on from it: "订单O100000009申请仅退款" is about
    an order that exists, and a recipe that would pay for it first is not what was asked."""
    ran = c.plan.running() if c.plan is not None else []
    return len(ran) > 1 and ran[0].tool_name == tool


def valued(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """A look-up that would leave values the request states unused ("给 E1 请个调休,明天,一天": the
    balance read takes no date nor a count of days) gives way to a close candidate that takes them all
    and explains the request as well — that is what the values are for."""
    if best.writes or not best.ignores or best.strong:
        return best
    return next((c for c in ranked if c is not best and best.score - c.score < CLOSE and not c.ignores
                 and c.fill >= best.fill and c.cov >= best.cov and clears_bar(c)), best)


def fitter(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """Of two candidates that score close, the one that takes more of the values the request states
    and needs no more: "get dana@… off their trial and onto yearly billing, they'll use a bank
    transfer" converts the trial (it takes the payment method too), not the lifecycle that stops at
    a trial."""
    return max((c for c in ranked if best.score - c.score < CLOSE and c.writes == best.writes
                and c.fit > best.fit + 1e-9 and c.fill >= best.fill and len(c.ignores) <= len(best.ignores)
                and not (best.kind == "tool" and _unasked_writes(c, best.name))),
               key=lambda c: (c.fit, c.score), default=best)


def explaining(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """Of two candidates that score close, the one that explains every word of the request when the
    best leaves a good part of it unexplained: "手机号13812345678的刘洋，约个HR面" is the interview
    (it knows 约 and 面), not the new-candidate tool that takes the same name and phone."""
    if best.strong or best.cov >= 0.99:
        return best
    return next((c for c in ranked if best.score - c.score < CLOSE and c.cov >= 0.99 and best.cov < c.cov - UNEXPLAINED
                 and c.writes == best.writes and c.fill >= best.fill and len(c.ignores) <= len(best.ignores)
                 and clears_bar(c)
                 # (not back to a recipe of its own that makes more than was asked: `one_step`)
                 and not (best.name in c.spoken and len(_unasked_writes(c, best.name)) >= 2)), best)


def _unasked_writes(rule: Candidate, tool: str) -> list[str]:
    """The recipe's other writes the request says nothing of beyond what this step knows: "给张伟开一份
    收入证明" is that certificate, not a visa pack that also issues an employment certificate."""
    own = rule.spoken.get(tool, frozenset())
    return [name for name in rule.running_writes if name != tool and not rule.spoken.get(name, frozenset()) - own]


def _spoken_beside(rule: Candidate, tool: str) -> frozenset[str]:
    """Request words the recipe's other steps know and this step does not: the request asks for more
    than this step ("绩效评优,顺便调个薪" speaks of the raise as well as the review)."""
    others = frozenset().union(*(words for name, words in rule.spoken.items() if name != tool))
    return others - rule.spoken.get(tool, frozenset())


def covering(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A write that would leave a whole clause of the request undone ("E1 2024Q3 绩效评优,顺便调个薪":
    the review tool knows nothing of the raise) is not run on the part it understood: a recipe of its
    own that also does that part is what was asked (it asks for what that part still needs)."""
    if not best.writes or not best.leaves or best.strong:
        return best
    return next((c for c in ranked if related(best, c, steps_of) and c.leaves < best.leaves
                 and c.score >= ASK_MIN and len(c.ignores) <= len(best.ignores)), best)


def unrun(best: Candidate, ranked: list[Candidate]) -> Candidate:
    """A recipe whose steps that will run know none of the request's words, while a step it skips
    does ("给E1调个薪": the confirmation recipe would skip its raise and confirm instead), does
    not do what was asked: that step's own tool is."""
    if best.strong:
        return best
    asked = _runs_unasked(best)
    return next((c for c in ranked if c.kind == "tool" and c.name in asked and c.score >= ASK_MIN), best)


def _runs_unasked(best: Candidate) -> list[str]:
    """The steps of a recipe the request speaks of, when it would run none of them (else [])."""
    if best.kind != "rule" or best.plan is None:
        return []
    ran = {s.tool_name for s in best.plan.running()}
    if any(words for name, words in best.spoken.items() if name in ran):
        return []
    return [name for name, words in best.spoken.items() if words and name not in ran]


def existing(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Candidate:
    """A recipe that would first make what the request speaks of as existing ("hand over the keys for
    the booking", "send the car to the workshop"), or that, given the existing thing's id, would
    first do to it what nobody asked ("cancel RS-1": confirming it and taking a deposit on the way),
    is not what was asked: the step that does what the request says is (it asks which thing is
    meant when the request does not say). A trigger or a target state said as written keeps it: the
    recipe was named ("invoice lifecycle on acct_1", "O1 推进到已发货")."""
    # (a state said of a thing the request speaks of as existing is done to that thing: "这个授信申请审批
    # 通过" approves that application, it does not make a user and an application to approve)
    # (in Chinese: 这个/那笔 say "that one"; English "its invoice", "the org itself" are as often parts of
    # what is made: "bring an org all the way to suspended for not paying its invoice")
    stated_of_one = best.state >= 1.0 and best.pointed_at
    if best.kind != "rule" or best.trigger >= 1.0 or (best.state >= 1.0 and not stated_of_one) or best.plan is None:
        return best
    ran = best.plan.running()
    writes = [s.tool_name for s in ran if s.tool_name in best.running_writes]
    if not writes:
        return best
    # the first thing it makes (after any look-ups: "那张单子的发票贴上去" would make a claim), or the
    # later one the request speaks of as existing ("activate the SIM": not the customer, the SIM)
    first = best.presumed_by or writes[0]
    own = best.spoken.get(first, frozenset())
    others = frozenset().union(*(w for name, w in best.spoken.items() if name != first))
    if not best.presumes and not (best.carried and ran[0].tool_name == first and not own - others):
        return best
    before = {s.tool_name for s in ran[:[s.tool_name for s in ran].index(first)]}  # its look-ups: not what was asked
    # (a step whose own name says what the request says of the existing thing is asked, even where the
    # maker's words know it too: "ship the order" is ship_order, though creating an order knows shipping)
    asked = {name for name, words in best.spoken.items() if name != first and name not in before
             and (words - own or (words - set(best.presumes)) & set(name_stems(name)))}
    # that step, or another recipe that does it and makes nothing the request speaks of as existing
    # ("把这台电脑领用给李娜": handing over, not the new-hire recipe that registers a new computer first)
    # (for someone the request acts for, or a state said of a thing that exists, its own step however
    # weakly scored, when that step would still ask which one is meant: a question, never a write —
    # "研发部新来的同事，帮他签合同" speaks of the colleague in words no step knows)
    weak_step = {id(c) for c in ranked if (best.for_someone or stated_of_one) and c.kind == "tool"
                 and c.name in steps_of[best.name] and c.plan is not None and c.plan.missing}
    return next((c for c in ranked if (c.score >= ASK_MIN or id(c) in weak_step) and (
        (c.kind == "tool" and c.name in asked)
        or (c.kind == "rule" and c is not best and not c.presumes and first not in c.running_writes
            and asked & c.running_writes))), best)


def pinned_read(ranked: list[Candidate]) -> Candidate | None:
    """Where nothing else fits: the one look-up that takes everything it needs, the thing's id among
    it in the shape its parameter declares, leaves nothing the request states unused, for a request
    put as a question ("did cmp_1 actually go out?" in words the pack does not use). Reading is
    harmless; no write is plausible beside it. (Not an order in words nothing knows: "给B0D…写一版listing
    五点描述" is no look-up of the listing.)"""
    if any(c.writes and c.score >= ASK_MIN for c in ranked):
        return None
    reads = [c for c in ranked if not c.writes and not c.destroys and not c.unable and c.asks and c.intent > 0
             and c.fill >= 1.0 and not c.ignores and not c.fact and c.assignment is not None
             and any(f.how == "pattern" for f in c.assignment.values.values())]
    return reads[0] if len(reads) == 1 or (reads and reads[0].score - reads[1].score >= CLOSE) else None


def corroborated(best: Candidate, rivals: list[Candidate]) -> bool:
    """A write below the bar whose values speak for it: it takes several values the request states
    (one in a shape its parameters declare), needs nothing more, leaves nothing said unused, asks for
    a change with a telling word of its own, and every unrelated rival is far behind — "李娜下个月起去
    市场部做品牌经理，工资涨到两万二" (a paraphrase no example is near, but department, position and
    salary are all the transfer recipe's). One value (the thing's id) corroborates nothing: any
    write on that thing would take it."""
    taken = best.assignment.values if best.assignment else {}
    # (a time — 这个月, tomorrow — fits any write that takes one: it corroborates nothing either)
    telling = [f for f in taken.values() if f.how not in ("span:date", "span:month", "span:time")]
    return (best.writes and best.fill >= 1.0 and best.intent >= 0 and not best.asks and not best.ignores
            and not best.opener_unknown and best.mass >= WRITE_MASS and len(telling) >= 2 and _stated(best) > 0
            and best.cov >= 0.5  # it explains most of the request ("帮我订一张明天去北京的机票": a trip's values, not booking)
            and far_ahead(best, rivals))


def far_ahead(best: Candidate, rivals: list[Candidate]) -> bool:
    """Every rival is at least PINNED_MARGIN behind: nothing else is a plausible reading."""
    return all(best.score - c.score >= PINNED_MARGIN for c in rivals)


def _stated(c: Candidate) -> int:
    """Values the request states in a shape the candidate's parameters declare (pattern, format)."""
    values = c.assignment.values.values() if c.assignment else []
    return sum(f.how == "pattern" or (f.how.startswith("span:") and f.score >= DECLARED) for f in values)


def _owns(best: Candidate, rivals: list[Candidate]) -> bool:
    """It takes everything it needs, explains the whole request and takes an id by its own declared
    pattern that no plausible rival takes: "receive ASN-204880, only 18 came in" — of the receiving
    tools only the ASN's takes an ASN id, though "receive" alone tells none of them apart."""
    if best.fill < 1.0 or best.cov < 0.99 or best.ignores or best.assignment is None:
        return False
    theirs = {(f.start, f.end) for c in rivals for f in (c.assignment.values.values() if c.assignment else [])}
    return any(f.how == "pattern" and (f.start, f.end) not in theirs for f in best.assignment.values.values())


def _beside_the_point(best: Candidate) -> bool:
    """A write the request says nothing of in its own words — no word of its name or examples, no
    example near, no value of its enums — while the request speaks of something nothing here knows:
    "帮我开一下 E1 的 VPN 权限" is no handover, though a handover lists 权限 among what it hands over."""
    told = best.assignment.values.values() if best.assignment else []
    return not best.strong and best.core <= 0 and best.lex < NEAR_LEX and best.alien > 0 \
        and not any(f.how == "enum" for f in told)


def _verb_owns(best: Candidate, rivals: list[Candidate]) -> bool:
    """It takes everything it needs, explains the whole request, and the request starts with the verb
    its name starts with and no plausible rival's does: "send cmp_1" is send_campaign, though a
    schedule tool knows "send" too (a send time)."""
    return best.verb_named and best.fill >= 1.0 and best.cov >= 0.99 and not best.ignores and not best.asks \
        and not any(c.verb_named for c in rivals)  # ("send cmp_1?" asks; it is no order)


def _bare_order(best: Candidate, rivals: list[Candidate]) -> bool:
    """An order in the write's own verb on a thing named by its id in the declared shape, needing
    nothing more and leaving nothing said unused, followed only by why — "revoke ak_f4g5h6j7 asap, it
    was exposed in a public gist" — where no rival is named by the verb and every rival is far behind.
    (A remark that takes the order back, limits it or makes it wait is no "why": see `order_with_reason`.)"""
    return best.writes and best.verb_named and best.reasoned and best.fill >= 1.0 and not best.ignores \
        and not best.asks and not best.presumes and not best.forbidden and best.intent >= 0 \
        and _stated(best) > 0 and not any(c.verb_named for c in rivals) and far_ahead(best, rivals)


def outvalued(best: Candidate, rival: Candidate) -> bool:
    """The request's stated values decide between two close candidates: the best takes them and
    has all it needs, the rival takes none of them and would still have to ask."""
    return best.fill >= 1.0 and _stated(best) > 0 and rival.fill < 1.0 and _stated(rival) == 0


def outfitted(best: Candidate, rival: Candidate) -> bool:
    """Both take the same stated values, and the best takes them as what they are while the rival
    only could ('"王建国"的工号': a person's name for the employee look-up, any quoted text for the
    supplier's): the values' own shape decides."""
    mine = {(f.start, f.end): f for f in (best.assignment.values.values() if best.assignment else [])}
    theirs = {(f.start, f.end): f for f in (rival.assignment.values.values() if rival.assignment else [])}
    # (found the same way, a value is no better taken for where the examples put it: "从2026-08开始交" is as
    # much a start month as a stop month — the words around it decide, not the value)
    return bool(mine) and mine.keys() == theirs.keys() and best.fill >= rival.fill \
        and all(mine[k].score >= theirs[k].score for k in mine) \
        and any(mine[k].score - theirs[k].score >= 0.25 and mine[k].how != theirs[k].how for k in mine)


def opposite(best: Candidate, rival: Candidate) -> bool:
    """The rival does the opposite of what the request asks and the best does: "社保从2026-07开始停掉" is
    the stop, not the enrolment that knows as many of its words."""
    return best.asked_direction != 0 and best.direction == best.asked_direction == -rival.direction


def unexplaining(best: Candidate, rival: Candidate) -> bool:
    """The best explains every word of the request and the rival leaves a good part of it
    unexplained ("look up the invoice for me": the account look-up knows no invoice)."""
    return best.cov >= 0.99 and rival.cov < best.cov - UNEXPLAINED and not rival.strong


_THING = re.compile(r"(?=[^@\s]*\d)[A-Za-z0-9][\w./#-]*|[^@\s]+@[^@\s]+\.[^@\s]+")  # an id or an email


def _about_something_else(best: Candidate, ranked: list[Candidate]) -> bool:
    """The request names the thing to act on (an id, an email) and no plausible candidate takes it,
    while the best takes no such thing of its own: "cancel invoice INV-7" where nothing here knows
    invoices is about something this knowledge does not hold, not a question of which write."""
    things = [v for v in best.ignores if _THING.fullmatch(v)]
    if not things or best.assignment is None:
        return False
    if best.verb_named and best.acts_on_own and all(v in best.scopes for v in things):
        return False  # ("revoke the leaked API key on ws_1": its own thing, the workspace is where it is)
    if any(isinstance(f.value, str) and _THING.fullmatch(f.value) for f in best.assignment.values.values()):
        return False
    return all(all(v in c.ignores for v in things) for c in ranked if c.score >= ASK_MIN)


def _unsaid_change(best: Candidate, rivals: list[Candidate]) -> Decision:
    """A write the request's own words do not name: which change is meant — or, when much of the
    request is words nothing here knows (订单…的发票重开一下), it is about something else."""
    if best.alien >= ALIEN_ASIDE:
        return Decision("no_match", None, reason="the request is about something nothing here knows")
    return Decision("ask", best, [best, *rivals[:2]], reason="nothing in the request says which change to make")


def decide(candidates: list[Candidate], steps_of: dict[str, set[str]]) -> Decision:
    """Plan the best, ask between close or weak ones, or say nothing fits — or, where nothing fits
    for want of evidence, the one look-up the request pins by an id."""
    decision = _decide(candidates, steps_of)
    if decision.verdict == "no_match" and decision.reason.startswith(_WEAK) \
            and (read := pinned_read(sorted(candidates, key=lambda c: -c.score))) is not None:
        return Decision("plan", read)
    return decision


_WEAK = ("the request is mostly unexplained", "weak evidence")


def _decide(candidates: list[Candidate], steps_of: dict[str, set[str]]) -> Decision:
    for c in candidates:
        c.score = score(c)
    ranked = sorted((c for c in candidates if not c.destroys and not c.unable and not (c.fact and c.writes)),
                    key=lambda c: -c.score)
    if not ranked:
        words = sorted({w for c in candidates for w in c.destroys + c.unable})
        if not words and any(c.fact for c in candidates):
            return Decision("no_match", None, reason="the request asks when or why; nothing here reads that")
        return Decision("no_match", None, reason=f"nothing here does {', '.join(words)}" if words else "no candidate")
    best = wanted_change(looked_up(least_action(unrun(valued(ranked[0], ranked), ranked), ranked, steps_of), ranked), ranked)
    best = named_recipe(sufficient(fuller(best, ranked, steps_of), ranked, steps_of), ranked, steps_of)
    recipe = said_as_recipe(best, ranked, steps_of)
    stepped = one_step(recipe, ranked, steps_of)
    best = without_lookup(covering(explaining(fitter(stepped, ranked), ranked), ranked, steps_of), ranked, steps_of)
    best = procedure(verbed(best, ranked), ranked, steps_of)
    presumed, best = best, existing(best, ranked, steps_of)
    if (best is not presumed or (stepped is not recipe and best is stepped)) and best.plan is not None \
            and best.plan.missing:
        return Decision("plan", best)  # it asks which existing thing is meant: nothing is written
    others = [c for c in ranked if c is not best and c.score >= ASK_MIN]
    # ("新人入职，帮他开通邮箱和VPN": what is asked is a part this write knows nothing of)
    if best.writes and not best.named and (best.deaf or _runs_unasked(best)):
        return _unsaid_change(best, others)
    if best.cov < COV_MIN and not best.strong:
        return Decision("no_match", None, reason=f"the request is mostly unexplained (coverage {best.cov:.2f})")
    if not best.writes and best.intent < 0 and not best.strong and not best.verb_named:
        # (not a read named by the request's own verb: "export the audit log as csv" is export_audit_log)
        # the request asks for a change ("个税申报提交了", "余额清零") and only a read is near: showing
        # something is not doing it — offer the plausible changes, or say nothing here does it
        changes = [c for c in ranked if c.writes and c.score >= ASK_MIN and c.intent >= 0]
        if changes:  # (the procedure of the first, when one is asked for: "E1 离职，走流程")
            first = procedure(changes[0], ranked, steps_of)
            changes = [first, *(c for c in changes if c is not first)]
            return Decision("ask", first, changes[:3], reason="the request asks for a change; this would only read")
        return Decision("no_match", None, reason="the request asks for a change nothing here makes")
    return _reconsidered(_judge(best, ranked, steps_of), best, others, candidates)


def _reconsidered(decision: Decision, best: Candidate, others: list[Candidate],
                  candidates: list[Candidate]) -> Decision:
    """A plan the evidence allows, asked about still where the request's words put it in doubt."""
    if decision.verdict != "plan":
        return decision
    if best.writes and best.vague and not best.named:
        return Decision("ask", best, [best, *others[:2]], reason="the request does not say which change to make")
    if best.writes and best.only_asks:  # (no read is near: still no change)
        return Decision("ask", best, [best, *others[:2]], reason="the request only asks; this would change data")
    if _misdirected(best):
        return _unsaid_change(best, others)
    if best.writes and best.forbidden:  # (offered: what does not do it)
        allowed = [c for c in others if not c.forbidden][:3]
        return Decision("ask", (allowed or [best])[0], allowed or [best],
                        reason=f"the request says not to do {best.forbidden[0]}")
    if best.kind == "rule" and best.writes and best.pronoun_object and not best.named and best.trigger < 1.0 \
            and best.state < 1.0:
        # ("northwind is leaving us, cancel them": they exist; a recipe that makes a subscription to
        # cancel it is not asked for, and no step of it alone was near enough to take its place)
        return Decision("ask", best, [*others[:2], best],
                        reason=f"the request acts on something that exists; this would make a new one to "
                               f"{best.presumes[0]}")
    if best.writes and best.undoes_wrong:
        # ("unpublish evt_1" is no publishing; "取消下架" no cancelled order): offer the writes that know
        # what is undone and would not redo it — none: nothing here undoes it
        # (offered though the request's undoing word is one it does not know, which `ranked` leaves out:
        # "cancel the suspension" for reactivate_org)
        undoing = sorted((c for c in candidates if c.writes and c.undoes_asked and not c.undoes_wrong
                          and not c.unable), key=lambda c: -c.score)[:3]
        if not undoing:
            return Decision("no_match", None, reason=f"nothing here undoes {best.undoes_wrong}")
        return Decision("ask", undoing[0], undoing, reason=f"the request asks to undo {best.undoes_wrong}; this would not")
    if undone := _undoes_unasked(best):
        return Decision("ask", best, [best, *others[:2]], reason=f"nothing in the request asks to {undone}")
    if (sibling := _sibling_unchosen(best, others)) is not None:
        return Decision("ask", best, [best, sibling[0]], reason=sibling[1])
    if (asked_way := _against_the_asked_way(best, others)) is not None:
        reason = ("the request asks to take away; this would add" if best.direction > 0
                  else "the request asks to add; this would take away")
        if not asked_way:  # ("解绑建行卡" where only binding is here: nothing here does it)
            return Decision("no_match", None, reason=reason)
        return Decision("ask", asked_way[0], [*asked_way[:2], best], reason=reason)
    return decision


def _against_the_asked_way(best: Candidate, others: list[Candidate]) -> list[Candidate] | None:
    """A write that goes the other way from the one side the request speaks of — "把 860… 从 VH-2231 上
    解绑" nearest the binding's example, beside an unbinding that knows 解绑 — with a plausible write
    going the asked way: those, to offer first — none: nothing here does what is asked. (Only where the
    best knows none of the words the request says its side in: a description may speak of both.)"""
    # (a tool's own description says what it does; a recipe's speaks of every state it passes through)
    # (its name is what it does: "re-enable we_1" is no disable_webhook, whose description says it "can
    # be re-enabled")
    if not best.writes or best.kind != "tool" or best.asked_side == 0 or not best.named_against and (
            best.direction != -best.asked_side or best.knows_asked_way):
        return None
    return [c for c in others if c.writes and c.direction == c.asked_side and c.knows_asked_way]


# Undoing what was just made (not the steps of a lifecycle's end: remove_social_insurance, terminate_contract)
_UNDOING = frozenset(stem(w) for w in "cancel void revoke delete reject withdraw freeze unbind unassign".split())


def _sibling_unchosen(best: Candidate, others: list[Candidate]) -> tuple[Candidate, str] | None:
    """A recipe no trigger or state named, beside a plausible sibling — the same writes but for one,
    its outcome (approve vs reject the application, refund vs check in the order) — where the request
    speaks of the two outcomes in the same words ("造个授信审批走完的用户": approved or rejected?), or
    names each ("a test order for the refund + scanner tests": one plan makes one of them): which
    outcome is meant, the request does not say."""
    if best.kind != "rule" or not best.writes or best.named:
        return None
    def telling(c: Candidate, differ: frozenset[str], shared: frozenset[str]) -> frozenset[str]:
        said_of_shared = frozenset().union(*(c.spoken.get(t, frozenset()) for t in shared))
        return frozenset().union(*(c.spoken.get(t, frozenset()) for t in differ)) - said_of_shared
    for c in others:
        if c.kind != "rule" or not c.writes or c.named:
            continue
        shared = best.running_writes & c.running_writes
        mine, theirs = best.running_writes - shared, c.running_writes - shared
        if not shared or len(mine) != 1 or len(theirs) != 1:
            continue
        said_mine, said_theirs = telling(best, mine, shared), telling(c, theirs, shared)
        # (the gap between them then owes to something else: retrieval rank, wording — up to a point)
        if said_mine and said_mine == said_theirs and best.score - c.score < SIBLING_CLOSE:
            return c, "two recipes fit; the request says nothing that tells them apart"
        if said_mine and said_theirs and not said_mine & said_theirs:
            return c, "the request names what each of two recipes does; one plan makes one of them"
    return None


def _undoes_unasked(best: Candidate) -> str | None:
    """A recipe no trigger or state named that would undo something (cancel, revoke, void …) at a step
    the request says nothing particular of: "给商品1造一笔订单,付了款但还没发货" is no order made and
    cancelled. Returns that step's tool."""
    # ("rotate the key": its trigger said, loosely; "860… 这个终端坏了 换成 868…": both IMEIs in the
    # recipe's own shapes, every word its own — a swap unbinds the old one)
    if best.kind != "rule" or best.strong or best.destroys or best.pinned:
        return None
    for tool in sorted(best.running_writes):
        if not _UNDOING.intersection(name_stems(tool)):
            continue
        others = frozenset().union(*(w for name, w in best.spoken.items() if name != tool))
        if not best.spoken.get(tool, frozenset()) - others:
            return tool
    return None


def _misdirected(best: Candidate) -> bool:
    """A write no trigger or state named that does not do the request's leading verb (a recipe of
    several writes: "send jane@… a pre-arrival email" is no stay lifecycle that knows the email and
    "arrival"), or does it to a thing it knows no word of ("refund the room charge on R1": a deposit
    refund knows refunds, not charges)."""
    return best.writes and not best.named and ((best.unverbed and len(best.running_writes) >= 2) or best.elsewhere)


def _leaving_unused(best: Candidate, ranked: list[Candidate], rivals: list[Candidate]) -> Decision:
    """A write plausible enough that would leave a value the request states unused."""
    if _about_something_else(best, ranked):
        return Decision("no_match", None, reason=f"nothing here takes {', '.join(best.ignores)}")
    if best.plan is not None and best.plan.missing and not best.asks and far_ahead(best, rivals):
        # it would still ask for a value before writing: ask for that ("disable the webhook for org_1,
        # …": which endpoint) — what it leaves unused says where to look, not what to do
        return Decision("plan", best)
    return Decision("ask", best, [best, *rivals[:2]],
                    reason=f"a write would leave what the request says unused: {', '.join(best.ignores)}")


def _judge(best: Candidate, ranked: list[Candidate], steps_of: dict[str, set[str]]) -> Decision:
    """Plan the chosen candidate, or ask, or say nothing fits: by its evidence against its rivals'."""
    rivals = [c for c in ranked if c is not best and not related(best, c, steps_of) and c.score >= ASK_MIN]
    # a rival the request's words oppose (a read, when they ask for a change) is no rival
    close = [c for c in rivals if best.score - c.score < CLOSE and not outvalued(best, c) and not outfitted(best, c)
             and not (c.intent < 0 < best.intent and c.trigger < 1.0 and not (c.strong and best.fill < 1.0))
             and not unexplaining(best, c)
             and not opposite(best, c)
             and not (c.writes and c.only_asks and not best.writes)  # (a question: a change is no reading of it)
             # (a recipe that would still ask for values to run writes the request says nothing of is no
             # rival to one that has all it needs: "刘洋，约个HR面" is the interview, not the whole pipeline)
             and not (c.kind == "rule" and best.fill >= 1.0 > c.fill and not c.strong
                      and any(not c.spoken.get(w) for w in c.running_writes))
             and not (not c.writes and c.ignores and not best.ignores and not c.strong)
             # (a recipe that would make what the request speaks of as existing: "close the file")
             and not (c.kind == "rule" and c.presumes and not best.presumes and not c.named)]
    # (a candidate that explains much less of the request, or a read that would leave its values unused, is no rival)
    if clears_bar(best) or (best.strong and best.score >= ASK_MIN):
        if close and not best.strong:
            return Decision("ask", best, [best, *close[:2]], reason="two candidates are close")
        pinned = (best.pinned or _owns(best, rivals) or _verb_owns(best, rivals)) and far_ahead(best, rivals)
        if best.writes and not best.strong and best.mass < WRITE_MASS and not pinned:
            return _unsaid_change(best, rivals)
        if best.writes and _beside_the_point(best):
            return _unsaid_change(best, rivals)
        # "INV-7 paid yet?" is not "pay INV-7"; "what's our churn rate?" is no request to churn an account
        if best.writes and best.asks and best.intent < 0 and not (best.named if best.inquires else best.strong):
            return Decision("ask", best, [best, *rivals[:2]], reason="the request asks a question; this would change data")
        if best.kind == "tool" and best.writes and best.presumes and not best.named:
            # "rotate the integration key on SVC-1": the key exists; a tool that makes one is not asked for
            return Decision("ask", best, [best, *rivals[:2]],
                            reason=f"the request speaks of an existing {best.presumes[0]}; this would make a new one")
        if best.writes and best.ignores:
            return _leaving_unused(best, ranked, rivals)
        return Decision("plan", best)
    if best.score >= ASK_MIN and not best.writes and best.fill >= 1.0 and _stated(best) > 0 and far_ahead(best, rivals):
        return Decision("plan", best)  # a look-up of the very thing the request names: reading is harmless
    if best.score >= ASK_MIN and corroborated(best, rivals):
        return Decision("plan", best)
    if best.score >= ASK_MIN and best.plan is not None and best.plan.missing and best.intent >= 0 \
            and not best.asks and not best.ignores and not best.presumes and best.mass >= WRITE_MASS \
            and best.lex >= LONE_LEX and far_ahead(best, rivals):
        # nothing else is a plausible reading, an example of it is near, and it needs values before
        # anything runs: ask for those ("create a policyholder called Dana Whitfield": the email), not
        # which of one thing is meant. (A far one — "给全员发个中秋福利通知" for the offer tool — is offered
        # as a choice: a value given in answer would run it.)
        return Decision("plan", best)
    if best.score >= ASK_MIN and not rivals and best.fill < 1.0 and best.ignores:
        # the one weak reading would leave what the request states unused and still ask for more
        # ("reset 2FA for admin@…", "what's the weather in Dallas tomorrow?"): not ours
        return Decision("no_match", None, reason=f"nothing here takes {', '.join(best.ignores)}")
    if best.score >= ASK_MIN and _bare_order(best, rivals):
        return Decision("plan", best)
    if best.score >= ASK_MIN:
        return Decision("ask", best, [best, *rivals[:2]], reason="plausible but weak evidence")
    return Decision("no_match", None, reason=f"weak evidence (score {best.score:.2f})")
