"""The rule planner: offline, deterministic, zero tokens.

Reads the request's typed values first (spans), scores every candidate rule and tool on all the
evidence (choice.py), and then either plans the best one — tailored to a named target state and
to what the request already carries, parameters filled by the spec's priority (request >
defaults.yaml > tool default) — asks which of close candidates is meant, asks for what is
missing, or answers `no_match` rather than guess. Writes need more evidence than reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from core.dag import ancestors, dependents, depths, reroute
from core.errors import UNKNOWN_ENVIRONMENT, InputError
from core.expressions import condition_holds, reads_steps
from core.knowledge import Knowledge
from core.models import (
    DagStep,
    ParamSpec,
    Plan,
    PlanChoice,
    PlanStep,
    Request,
    RetrievalHit,
    RuleSpec,
    StepId,
    StepRef,
    ToolSpec,
)
from core.pack_regex import finditer as pack_finditer
from core.planning.choice import ASK_MIN, COV_MIN, Candidate, Decision, decide, score
from core.planning.copies import (
    CountReading,
    counts_copies,
    inherit_copies,
    names_a_parameter,
    not_copied,
    read_count,
    with_copies,
)
from core.planning.extraction import (
    Assignment,
    Extractor,
    Found,
    Slot,
    held_number,
    rule_slots,
    takes_a_date,
    tool_slots,
)
from core.planning.idioms import plain
from core.planning.lexicon import (
    CLAUSE,
    REFUSALS,
    UNDOING_EN,
    UNDOING_ZH,
    WAIT_FOR_ME_ZH,
    acts_for_person,
    akin,
    asked_side,
    asks_for_procedure,
    asks_to_make,
    asks_when_or_why,
    changes_by_name,
    definite_things,
    destructive,
    direction,
    first_verb,
    forbids_changes,
    inquires,
    intent,
    is_question,
    leading_object,
    leading_verb,
    leaves_it_to_us,
    made_by_name,
    modifiers,
    name_stems,
    name_words,
    named_actions,
    not_yet,
    only_asks,
    only_reports,
    opening_verbs,
    opposed,
    order_with_reason,
    pointed_at_zh,
    procedure_phrases,
    sets_by_name,
    starts_by_name,
    stem,
    told_not_to,
    undoings,
    undone_by_one_zh,
    verb_on_pronoun,
    whole_word,
    without_reports,
)
from core.planning.names import person_names, takes_person
from core.planning.pleasantries import only_pleasantry, pleasantry_reply
from core.planning.questions import choice_question, language_of, missing_question, no_match_question
from core.planning.spans import REL_MONTH, SCALE_LETTERS, Span
from core.planning.text import find_phrases, normalize, shingles
from core.planning.typed import MISSING, kin_shapes, trust_shapes, validate
from core.planning.vocabulary import (
    DISCLAIMED,
    Vocabulary,
    candidate_key,
    shape_fits,
    signature,
    without_history,
)

LOOSE_TRIGGER = 0.6  # a trigger phrase found with one gap in it
RARE_HOLDERS = 3  # a request word at most this many candidates know brings them in, whatever retrieval ranked
REMARK_WORDS, REMARK_KNOWN = 3, 1 / 3  # a clause of this many words, this few of them known, is an aside
TELLING = 0.5  # a word this rare (share of the rarest word's idf) says what a clause of the request is about
LOOSE_STATE = 0.6  # a state named by another form of its word
_PICK = re.compile(r"^\s*(?:#|no\.?|第|option\s*)?\s*(\d{1,2})\s*(?:个|号|st|nd|rd|th)?\s*[.)。!！]?\s*$", re.I)
_REPLY_FILLER = re.compile(r"^(?:it'?s|it is|is|=|:|是|为|就是|用)\s*|[。.!！]+$", re.I)


class RulePlanner:
    """Plans with the pack vocabulary only. Build once per Knowledge; `plan()` is pure."""

    name = "rules"

    def __init__(self, knowledge: Knowledge, *, default_environment: str | None = None,
                 today: Callable[[], date] = date.today) -> None:
        self.kn = knowledge
        self.voc = Vocabulary.build(knowledge)
        self.extractor = Extractor(self.voc)
        self.default_environment = default_environment
        self.today = today
        self.slots: dict[str, list[Slot]] = {}
        self.writes: dict[str, bool] = {}
        for rule in knowledge.rules.values():
            key = candidate_key("rule", rule.rule_name)
            self.slots[key] = rule_slots(rule, knowledge)
            self.writes[key] = any(knowledge.tools[s.tool_name].side_effects for s in rule.dag_definition)
        for tool in knowledge.tools.values():
            key = candidate_key("tool", tool.tool_name)
            self.slots[key] = tool_slots(tool)
            self.writes[key] = tool.side_effects
            for param in tool.parameters:
                trust_shapes(param, [e.extracted_params[param.name] for e in tool.examples
                                     if param.name in e.extracted_params])
        kin_shapes(knowledge.tools.values())
        self.dated = {key: takes_a_date(slots) for key, slots in self.slots.items()}  # (asked on every request)
        # reads whose only required input has patterns of its own: an id the request writes names them
        self._pattern_reads = {t.tool_name: self.voc.patterns[(t.tool_name, required[0].name)]
                               for t in knowledge.tools.values() if not t.side_effects
                               and len(required := [p for p in t.parameters if p.required]) == 1
                               and self.voc.patterns.get((t.tool_name, required[0].name))}
        # what each does to its thing, by its name and description: adds (+1), takes away (-1) or neither
        self.direction = {candidate_key("rule", r.rule_name): direction(f"{name_words(r.rule_name)} {r.description}")
                          for r in knowledge.rules.values()} | {
            candidate_key("tool", t.tool_name): direction(f"{name_words(t.tool_name)} {t.description}")
            for t in knowledge.tools.values()}
        self.steps_of = {r.rule_name: {s.tool_name for s in r.dag_definition} for r in knowledge.rules.values()}
        self.enum_words = [entry for phrases in self.voc.enums.values() for entry in phrases]
        self.takes_person = any(takes_person(p.name, p.description) for t in knowledge.tools.values()
                                for p in t.parameters if p.type == "string" and p.enum is None)
        # the verbs the knowledge's writes are named by (revoke_api_key: revoke): a request part that
        # starts with one says which change it wants
        self.write_verbs = frozenset(name_stems(t.tool_name)[0] for t in knowledge.tools.values()
                                     if t.side_effects and name_stems(t.tool_name))
        self._write_keys = [candidate_key("tool", t.tool_name) for t in knowledge.tools.values() if t.side_effects]

    # ------------------------------------------------------------------ entry point

    def plan(self, request: Request, hits: Sequence[RetrievalHit] | None = None) -> Plan:
        """The plan for a request; a count of copies it states ("造20笔…") is planned as one and
        kept on the plan as `copies` when that plan writes and takes the number as no value."""
        reading = read_count(normalize(request.text))
        if reading is None:
            return inherit_copies(self._plan(request, hits), request.previous, self._writes)
        if destructive(request.text):
            # a count of copies makes N new things; repeating a delete, cancel or revoke N times only
            # repeats it on the same thing: such a request is planned as said, and the plan says so
            plan = self._plan(request, hits)
            plan.notes.append(not_copied(reading))
            return plan
        plan = self._plan(request.model_copy(update={"text": reading.text}), hits)
        if not counts_copies(plan, self._writes) or self._takes_number(plan, request, reading):
            return inherit_copies(self._plan(request, hits), request.previous, self._writes)  # the number as said
        said = self._plan(request, hits)
        if said.status != "no_match" and self._takes_number(said, request, reading):
            # what the request says as written takes the number: "give PLR-1 500 gems, goodwill for the
            # queue bug" is 500 of a currency, not 500 of whatever "a gem" would read as
            return inherit_copies(said, request.previous, self._writes)
        return with_copies(plan, reading)

    def _writes(self, kind: str, name: str) -> bool:
        return self.writes.get(candidate_key(kind, name), False)

    def _takes_number(self, plan: Plan, request: Request, reading: CountReading) -> bool:
        """Whether the planned rule or tool reads the count's number as one of its values (a
        pattern or an example of the pack teaches it, or the count's own words name a parameter:
        "3 copies" where a tool takes `copies`): then it is that value, not a count."""
        first = plan.choices[0] if plan.choices else None  # (a question: the reading it offers first)
        rule = plan.rule or (first.rule if first else None)
        name = rule or plan.tool or (first.tool if first else None)
        if name is None:
            return False
        tools = [s.tool_name for s in plan.steps] or \
            ([s.tool_name for s in self.kn.rules[name].dag_definition] if rule else [name])
        params = {p.name.lower() for t in tools for p in self.kn.tools[t].parameters}
        if names_a_parameter(reading, params):
            return True
        bare = self._without_environment(normalize(request.text))
        key = candidate_key("rule" if rule else "tool", name)
        assignment = self.extractor.assign(bare, self.voc.spans(bare, self.today()), self.slots[key])
        return any(f.start < reading.end and reading.start < f.end for f in assignment.values.values())

    def _plan(self, request: Request, hits: Sequence[RetrievalHit] | None = None) -> Plan:
        text = normalize(request.text)
        prev = request.previous if request.previous and request.previous.status == "needs_input" else None
        lang = (prev.language if prev and prev.language else None) or language_of(text)
        if prev is not None:
            follow = self._follow_up(text, prev, hits, request, lang)
            if follow is not None:
                return follow
        return self._fresh(text, request, hits, lang)

    def _fresh(self, text: str, request: Request, hits: Sequence[RetrievalHit] | None, lang: str,
               only: str | None = None) -> Plan:
        if only is None and request.previous is None and only_pleasantry(text):  # "thanks, that worked!"
            return Plan(status="no_match", question=pleasantry_reply(lang), language=lang,  # type: ignore[arg-type]
                        notes=["the message only thanks or acknowledges"])
        bare = self._without_environment(text)
        own = self.voc.own_text
        bare = _mask(bare, modifiers(bare, self.voc.lexicon.has, lambda word: word in own))
        spans = self.voc.spans(bare, self.today())
        candidates = self.candidates(bare, spans, hits, only=only, request=request, lang=lang)
        decision = decide(candidates, self.steps_of) if only is None else Decision("plan", candidates[0])
        if decision.verdict == "no_match" or decision.best is None:
            return Plan(status="no_match", question=no_match_question(self.kn, self.voc, text, hits, lang),
                        language=lang, notes=[decision.reason] if decision.reason else [])
        if decision.verdict == "ask":
            return self._ask(decision, text, lang)
        decision.best = self._single_action(decision.best, candidates)
        plan = self._plan_candidate(decision.best, text, request, decision.best.assignment or Assignment({}, {}),
                                    {}, None, lang)  # with the environment words back in the text
        plan.confident = plan.status == "planned" and decision.best.strong
        return plan

    # ------------------------------------------------------------------ candidates and evidence

    def candidates(self, text: str, spans: list[Span], hits: Sequence[RetrievalHit] | None, *,
                   only: str | None = None, request: Request | None = None, lang: str = "en") -> list[Candidate]:
        """Every candidate in reach, with its features, the values it would take and its plan."""
        request = request or Request(text=text)
        sh = shingles(_mask(text, procedure_phrases(text)))  # (how to go about it says nothing of what)
        triggered = {h.payload for h in self.voc.trigger_hits(text)}
        loose = {h.payload for h in self.voc.loose_trigger_hits(text)} - triggered
        rank = {candidate_key(h.kind, h.name): 1 / (1 + h.rank) for h in hits or []}
        # rules whose state the text names (not inside a dotted name: "a key.revoked test event")
        unnamed = _DOTTED.sub(lambda m: " " * len(m.group(0)), text)
        stated = {r for r in self.kn.rules if self.voc.state_hits(unnamed, r)}
        keys = [only] if only else self._keys(hits, triggered | loose | stated, text)
        enum_units, names = self._value_units(text, spans)
        # (上个月, next month: when the request is set, no value any candidate must explain)
        hard = [s for s in spans if not (s.kind == "month" and REL_MONTH.fullmatch(s.text))]
        soft = [s for s in spans if s not in hard]
        units = [(s.start, s.end) for s in hard] + enum_units + names
        quantities = [(s.start, s.end) for s in hard if s.kind in ("number", "date", "time", "month")]
        valued = _mask(text, [_value_part(s) for s in hard])
        masked, told = self._without_remarks(valued, units, quantities)
        # what the request says not to do is nothing it asks for ("只建档案，不签合同": no contract recipe)
        refusals = self._refusals_zh(text)
        masked = _mask(masked, procedure_phrases(masked) + refusals)
        # enum words stay in: they are the knowledge's own words ("which account ..." is not off-domain
        # because some parameter also has the value "account"); so do a statement's ("…, it's spam")
        alien = self.voc.lexicon.alien(self.voc.lexicon.request_tokens(_mask(told, units[:len(hard)] + names)))
        plain_text = self._plain(text)
        destroys = destructive(plain_text)
        asked_direction = direction(without_reports(text))
        side, asked_words = asked_side(text)
        undone = self._undone(plain_text)
        actions = named_actions(plain_text)
        lead = leading_verb(plain_text)
        lead = lead if lead and self.voc.lexicon.has(lead) else None  # (a verb nothing here knows: `unable`/alien)
        verb = first_verb(plain_text)
        # a candidate that knows no verb the request leads with does some other change, however well
        # the values fit it ("upgrade ws-12 to enterprise" is no trial started)
        openers = opening_verbs(self._plain(valued))
        reasoned = order_with_reason(text)
        scopes = frozenset(m.group(1) for m in _SCOPED_ID.finditer(text))
        # the thing it acts on, in words the knowledge knows ("refund the room charge": a charge, not a deposit)
        acted_on = [t for t in self.voc.lexicon.request_tokens(leading_object(self._plain(masked)))
                    if whole_word(t) and self.voc.lexicon.has(t)]
        asks = is_question(text)
        inquiry = inquires(text)
        questions_only = only_asks(text) or forbids_changes(text) or only_reports(text, self.write_verbs) \
            or self._held_as_asked(text)
        vague = leaves_it_to_us(plain_text, self.write_verbs)
        procedure = asks_for_procedure(text)
        fact = asks_when_or_why(text)
        stems = self.voc.lexicon.stems(masked)
        stem_set = set(stems)
        memo: dict[object, object] = {}  # slot candidates, shared by the candidates of this request
        told = without_history(masked)  # (not "it was archived"; most requests tell no history: stems as they are)
        unhistoried = stems if told == masked else self.voc.lexicon.stems(told)
        loosely = {r for r in self.kn.rules if r not in stated and self.voc.loose_state_hits(unhistoried, r)}
        clauses = self._clause_words(masked)
        asked = self._asked_parts(masked)
        things = definite_things(masked)
        pointed = pointed_at_zh(masked)
        pronounced = verb_on_pronoun(plain_text)
        beneficiary = acts_for_person(masked)
        beneficiary_words = frozenset(self.voc.lexicon.request_tokens(beneficiary)) if beneficiary else frozenset()
        making = asks_to_make(masked)  # (then a date is what is made: "make 3 paid orders yesterday")
        dont = set(told_not_to(plain_text))
        # "只建档案，不签合同": the words of each thing a Chinese request says not to do (签合同); a write
        # of a candidate that knows most of them, a whole word among them, is one it must not run
        refused_zh = [((start, end), words) for start, end in refusals
                      if (said := _refused_words(text[start:end])) is not None
                      and (words := self.voc.lexicon.request_tokens(said))]
        ignored: dict[str, list[Span]] = {}  # candidate -> the values it would leave unused
        knows = lru_cache(maxsize=None, typed=True)(self.voc.lexicon.knows)  # asked again for every rule of a tool
        out = []
        for key in keys:
            kind, _, name = key.partition(":")
            assignment = self.extractor.assign(text, spans, self.slots[key], memo)
            c = Candidate(kind, name, self.writes[key], assignment=assignment, alien=alien)  # type: ignore[arg-type]
            if kind == "rule":
                c.trigger = 1.0 if name in triggered else LOOSE_TRIGGER if name in loose or \
                    self.voc.word_trigger(stem_set, _valued_words(assignment), name) else 0.0
                c.state = 1.0 if name in stated else LOOSE_STATE if name in loosely else 0.0
                c.lex = self.voc.rule_similarity(sh, name)
            else:
                c.lex = self.voc.tool_similarity(sh, name)
            c.verbatim = max(0.0, (c.lex - 0.75) / 0.25)
            # What the request wants, read without the words this candidate takes as values ("open" as a status)
            said = [(f.start, f.end) for f in assignment.values.values() if f.how == "enum"]
            c.intent = float(intent(self._plain(_mask(text, said))) * (1 if c.writes else -1))
            if c.intent < 0 and not c.writes:  # a read's own nouns (补贴明细, "recently updated tickets")
                said += self._known_words_at(text, key)  # ask for no change
                c.intent = min(0.0, float(-intent(self._plain(_mask(text, said)))))
            c.destroys = [w for w in destroys if not self.voc.lexicon.knows(key, w)]
            if any(self.voc.lexicon.knows(key, w) for w in REFUSALS):  # one word of refusing is enough
                c.destroys = [w for w in c.destroys if w not in REFUSALS]
            c.asks = asks
            c.inquires = inquiry
            c.only_asks = questions_only
            c.vague = vague
            c.procedure = procedure
            c.direction = self.direction[key]
            c.asked_direction = asked_direction
            c.asked_side = side
            c.knows_asked_way = any(knows(key, w) for w in asked_words)
            c.named_against = kind == "tool" and any(opposed(w, t) for w in asked_words for t in name_stems(name)[:1])
            c.fact = fact
            c.rank = rank.get(key, 0.0)
            used = [(f.start, f.end) for f in assignment.values.values()]
            explained = sum(any(s < e2 and s2 < e for s2, e2 in used) for s, e in units)
            c.fit = (explained + 0.5) / (len(units) + 0.5)
            # Coverage: the words (enum words are the candidate's own words), the typed values and names.
            # (an enum word or a value the pack itself gives is the candidate's own word, still to explain)
            spoken = [(f.start, f.end) for f in assignment.values.values() if f.how not in ("enum", "known", "prose")]
            content = self.voc.lexicon.request_tokens(_mask(masked, spoken + names))
            for f in assignment.values.values():  # free text it takes explains the words nothing here knows
                if f.how == "prose":
                    content = _without(content, [t for t in self.voc.lexicon.request_tokens(masked[f.start:f.end])
                                                 if not self.voc.lexicon.has(t)])
            valued = [(s.start, s.end) for s in hard] + names
            taken = sum(any(s < e2 and s2 < e for s2, e2 in used) for s, e in valued)
            c.cov = self.voc.lexicon.coverage(content, key, len(valued), taken, writes=c.writes, asked=questions_only)
            if not content and asks and not c.writes and valued:
                c.cov = taken / len(valued)  # "who has LT-06650?": a question of nothing but the thing it names
            c.core = self.voc.core.coverage(content, key)
            c.mass = self.voc.lexicon.mass(content, key)
            heard = used + assignment.refused_at  # a value refused is asked about, not ignored
            said = [re.sub(r"\s+", "", str(f.value)) for f in assignment.values.values() if isinstance(f.value, str)]
            # (a past date — or today, where a change is asked — this candidate has no place for is history
            # told, not a value left unused, unless something is to be made: "yesterday's outage hit ws_1,
            # comp them €80", "今天去验收了,不合格"; "今天辛苦了" asks nothing)
            told_before = [] if making or self.dated[key] else [
                s for s in spans if _past(s, self.today() if c.intent > 0 else self.today() - timedelta(days=1), text)]
            told_before += soft
            ignored[key] = [s for s in spans if (s.kind != "number" or s.unit or s.text[-1:] in SCALE_LETTERS) and not _restated(s.text, said)
                            and s not in told_before
                            and not (s.kind in ("date", "month", "time") and _POSSESSIVE.match(text, s.end))
                            and not any(s.start < e2 and s2 < s.end for s2, e2 in heard)]
            c.plan = self._plan_candidate(c, text, request, assignment, {}, None, lang)
            c.fill = 1 / (1 + len(c.plan.missing))
            c.content = content
            words = [t for t in content if whole_word(t)]
            if kind == "rule":  # which of its steps the request speaks of (tools need not know)
                c.spoken = {tool: frozenset(t for t in words if knows(candidate_key("tool", tool), t))
                            for tool in self.steps_of[name]}
                ran = c.plan.running()
                c.running_writes = frozenset(s.tool_name for s in ran if self._writes("tool", s.tool_name))
                c.skipped_writes = frozenset(s.tool_name for s in c.plan.steps if self._writes("tool", s.tool_name)
                                             and s.tool_name not in c.running_writes)
                c.presumes, c.presumed_by = _presumed([s.tool_name for s in ran], c.running_writes, things, knows,
                                                      c.spoken)
                c.pointed_at = bool(pointed.intersection(c.presumes))
                if not c.presumes and pronounced and _acts_later(ran, c.running_writes, c.spoken, pronounced):
                    c.presumes = [pronounced]  # "escalate it to T&S": a ticket that exists, not a new one
                    c.pronoun_object = True
                if not c.presumes and beneficiary and self._makes_them(ran, c.running_writes, c.spoken,
                                                                       beneficiary_words):
                    c.presumes = [beneficiary]  # "帮新来的同事做下社保增员": that colleague, not a new hire
                    c.for_someone = True
            elif c.writes:  # a tool whose name says it makes the thing the request speaks of as existing
                makes = made_by_name(name)  # (a Chinese word for it: one the maker's own words know)
                c.presumes = [w for w in things if w in makes or (makes and not w.isascii() and knows(key, w))]
            # (a clause it takes a value from is one it does: "新业主刘芳,…,电话137…" for the owner record)
            c.leaves = sum(not any(knows(key, t) for t in words) and not any(a < e and s < b for s, e in used)
                           for (a, b), words in clauses)
            c.deaf = any(not any(knows(key, t) for t in part) for part in asked)
            c.unverbed = lead is not None and not knows(key, lead)
            c.verb_named = verb is not None and name_stems(name)[:1] == [verb]
            c.opener_unknown = any(not knows(key, w) for w in openers)
            c.reasoned = reasoned
            c.elsewhere = bool(acted_on) and not any(knows(key, t) for t in acted_on)
            c.acts_on_own = bool(acted_on) and all(knows(key, t) for t in acted_on)
            c.scopes = scopes
            c.forbidden = self._forbidden(c, used, refused_zh, dont, knows)
            c.undoes_wrong, c.undoes_asked = self._undoing(c, undone, text, knows)
            dropped = [m[1] for n in c.plan.notes if (m := _DROPPED.match(n))]
            c.lookups_dropped = bool(dropped) and not any(self._writes("tool", t) for t in dropped)
            c.carried = bool(dropped)
            out.append(c)
        unable = self._unknown_verbs(actions, plain_text, lambda word: any(knows(c.key, word) for c in out))
        for c in out:
            c.unable = unable
        # ("is evt_1 still on sale?": a state asked about is what a thing is, no state to reach)
        self._unreached(out, set() if inquiry and questions_only else stated)
        self._excess(out)
        self._context_values(out, spans, ignored, masked)  # (values masked: a part's words, not its ids)
        if hits is None and not only:  # no retrieval (no index): rank by the request's own words instead
            for position, c in enumerate(sorted(out, key=lambda c: -(c.cov + c.core + c.lex))):
                c.rank = 1 / (1 + position)
        return out

    def _undone(self, text: str) -> list[tuple[str, str]]:
        """What the request asks to undo (`undoings`), of the things the knowledge speaks of (not
        撤回张伟的offer: a name)."""
        return [(what, word) for what, word in undoings(text) if what.isascii() or self.voc.lexicon.has(what)]

    def _undoing(self, c: Candidate, undone: list[tuple[str, str]], text: str,
                 knows: Callable[[str, str], bool]) -> tuple[str | None, bool]:
        """What the request asks to undo that this write would do instead — it is named for that change
        and for no undoing ("unpublish evt_1": publish_event; "cancel the suspension": a recipe that
        suspends) — or undo something else, knowing the undoing word and nothing of what is undone
        ("取消下架": a recipe that cancels an order); and whether it undoes what is asked (reactivate_org
        for "cancel the suspension", 解冻 for 解除冻结). Chinese names are read by the words it knows."""
        if not undone or not c.writes:
            return None, False
        names = [c.name] if c.kind == "tool" else sorted(n for n in c.running_writes if not sets_by_name(n))
        tools = [(candidate_key("tool", n), name_stems(n)) for n in names]  # each write and its name's words
        stems = [t for _, words in tools for t in words]
        wrong, right = None, False
        if c.kind == "tool" and sets_by_name(c.name):  # (a setter goes either way: by the value it would set)
            said = [text[f.start:f.end] for f in c.assignment.values.values()] if c.assignment else []
            wrong = next((what for what, _ in undone for v in said
                          if (any(akin(what, stem(w)) for w in v.split()) if what.isascii() else what in v)), None)
            return wrong, False
        for what, word in undone:
            if what.isascii():
                knows_it = self.voc.lexicon.knows_akin(c.key, what)
                # (unbind_device for "unbind …"; reactivate_org or lift_ban where that tool knows what is
                # undone — not a recipe's cancel_event for "undo the refund")
                undoes = any(any(t[:2] in ("un", "re") and akin(what, t[2:]) for t in words) or (
                    any(t == word or (t in UNDOING_EN and not akin(what, t)) for t in words)
                    and self.voc.lexicon.knows_akin(key, what)) for key, words in tools)
                does = not undoes and any(akin(what, t) for t in stems)
                blind = word in stems and not knows_it and not undoes
            else:  # (by its writes' own words: a recipe's description speaks of every step)
                knows_it = knows(c.key, what)
                undoes = any(any(knows(k, w) for w in undone_by_one_zh(what)) or knows(k, what) and any(
                    knows(k, w) for w in UNDOING_ZH) for k, _ in tools)
                does = not undoes and any(knows(k, what) for k, _ in tools)
                blind = word in UNDOING_ZH and knows(c.key, word) and not knows_it and not undoes
            if does or blind:
                wrong = wrong or what
            right = right or (undoes and (knows_it or not what.isascii()))
        return wrong, right

    def _makes_them(self, ran: Sequence[PlanStep], writes: frozenset[str], spoken: dict[str, frozenset[str]],
                    person: frozenset[str]) -> bool:
        """Whether a recipe's first write makes a person (it takes a person's name) that the request says
        nothing of but the words naming the person (给新员工…: 员工), while it speaks of a later write: what
        it asks is done for someone who exists."""
        made = [s.tool_name for s in ran if s.tool_name in writes]
        if len(made) < 2 or spoken.get(made[0], frozenset()) - person or not any(spoken.get(t) for t in made[1:]):
            return False
        return any(takes_person(p.name, p.description or "") for p in self.kn.tools[made[0]].parameters)

    def _known_words_at(self, text: str, key: str) -> list[tuple[int, int]]:
        """Where the request says a Chinese word of two characters the candidate knows (补贴 holds the
        cue 补 but asks for no change). English verbs stay: "update" is a change even where a read's
        description says "updated"."""
        lexicon = self.voc.lexicon
        return [(i, i + 2) for i in range(len(text) - 1) if _CJK_PAIR.fullmatch(text[i:i + 2])
                and lexicon.knows(key, text[i:i + 2])]

    def _unknown_verbs(self, actions: list[tuple[str, int]], text: str, known: Callable[[str], bool]) -> list[str]:
        """The verbs a request names ("入职体检帮我约一下") that nothing here knows: no candidate does them.
        Of two characters, the first may end a word before it (现金缴一下: the verb is 缴), or a name
        (张伟发一下: 发)."""
        if not actions:
            return []
        named_at = {b - 1 for _, _, b in person_names(text, self.voc.is_own_word)}
        verbs = [(v[1], at + 1) if len(v) == 2 and at in named_at else (v, at) for v, at in actions]
        return [v for v, at in verbs if not known(v)
                and not (len(v) == 2 and at > 0 and known(text[at - 1:at + 1]) and known(v[1]))]

    def _context_values(self, candidates: list[Candidate], spans: list[Span], ignored: dict[str, list[Span]],
                        text: str) -> None:
        """What each candidate would leave unused. A value no candidate takes is context, not a value
        left unused, when it is a quantity in a part of the request that says nothing of what the
        candidate does ("we had ~2h of downtime, please comp …"; but "cancel 3 seats of …" is about
        the cancelling), a number or date said as the reason ("refund $40 bc of the outage tuesday"),
        or detail in a parenthesis unlike the values the candidate takes ("(500s on
        /v1/search)"; but "pay INV-1 (and INV-2)" names a second invoice)."""
        asides = [(m.start(), m.end()) for m in _ASIDE.finditer(text)]
        # (taken by no plausible candidate: "3h" as some unrelated recipe's expiry days is still untaken)
        plausible = [c for c in candidates if score(c) >= ASK_MIN] or candidates
        untaken = {s for s in spans if all(s in ignored[c.key] for c in plausible)}
        clauses = [(m.start(), m.end()) for m in CLAUSE.finditer(text)]
        lexicon = self.voc.lexicon
        for c in candidates:
            found = list(c.assignment.values.values()) if c.assignment else []
            taken = {signature(str(f.value)) for f in found}

            def context(s: Span, c: Candidate = c, taken: set[str] = taken, found: list[Found] = found) -> bool:
                start = next((a for a, b in clauses if a <= s.start < b), s.start)
                if s.kind in ("number", "date", "time") and _CAUSE.search(text[start:s.start]):
                    return True  # the why ("… bc of the outage tuesday"), not what to act on
                if s.kind not in ("number", "amount") and any(
                        f.start >= s.end and _FROM_TO.fullmatch(text[s.end:f.start])
                        and signature(str(f.value)) == signature(s.text) for f in found):
                    return True  # what it is now, said before what it is to be ("P5 升 P6", "basic → pro")
                if held_number(text, s):
                    return True  # "they have 5 seats": what there is, told as context
                if s not in untaken:
                    return False
                if any(a <= s.start and s.end <= b for a, b in asides):
                    return signature(s.text) not in taken
                if s.kind != "number":
                    return False
                part = next((text[a:b] for a, b in clauses if a <= s.start < b), "").replace(s.text, " ")
                words = [t for t in lexicon.request_tokens(part) if whole_word(t)]
                return not any(lexicon.knows(c.key, t) for t in words)

            c.ignores = [s.text for s in ignored[c.key] if not context(s)]

    @staticmethod
    def _unreached(candidates: list[Candidate], stated: set[str]) -> None:
        """Candidates other than the rules whose target state the request names. A state word of a
        rule that explains little of the request ("open a P1 ticket": "open" is also an invoice's
        state) is the request's verb, not a state it asks for: it holds nobody back."""
        cov = {c.name: c.cov for c in candidates if c.kind == "rule"}
        named = {r for r in stated if cov.get(r, 1.0) >= COV_MIN}
        for c in candidates:
            c.unreached = float(bool(named) and not (c.kind == "rule" and c.name in named))

    def _plain(self, text: str) -> str:
        """The text with its idioms in the plain words the knowledge knows ("kick X out" -> "remove X")."""
        return plain(text, self.voc.lexicon.known, stem=stem)

    def _excess(self, candidates: list[Candidate]) -> None:
        """A recipe that no trigger or state asked for, whose own steps include a tool explaining the
        request as well as the recipe does ("造一笔数量为2的订单" is an order, not the coupon-order
        recipe): its steps beyond one are unasked-for work."""
        cov = {c.key: c.cov for c in candidates}
        for c in candidates:
            if c.kind != "rule" or c.trigger or c.state or c.plan is None:
                continue
            tools = [t for t in self.steps_of[c.name]]
            best_tool = max((cov.get(candidate_key("tool", t), self.voc.lexicon.coverage(
                c.content, candidate_key("tool", t), writes=self.writes[candidate_key("tool", t)])) for t in tools),
                default=0.0)
            if best_tool >= c.cov - 1e-9:
                ran = c.plan.running()
                c.excess = max(0, len(ran) - 1) / max(1, len(ran))

    @staticmethod
    def _single_action(best: Candidate, candidates: list[Candidate]) -> Candidate:
        """A rule cut down to one step because the request names the entity its other steps would
        make, chosen without its trigger phrase, is that step's tool: "取消订单O100000123" cancels that
        order; it is not the cancel-an-unpaid-order recipe. Named by its trigger, it is still the
        recipe — unless the tool takes more of what the request states ("请假单 Q-1 驳回": the
        recipe's approval step fixes its decision to approve; the request says reject)."""
        if best.kind != "rule" or best.state >= 1.0 or best.plan is None:
            return best  # a named state is the recipe tailored to it ("提个假单,待审批")
        steps = best.plan.running()
        if len(steps) != 1 or not any(n.startswith("dropped") for n in best.plan.notes):
            return best  # one step left by a named state ("待支付") is still the recipe
        if best.lookups_dropped:
            return best  # only its look-ups dropped ("C-1 安排终面"): the recipe without them
        tool = next((c for c in candidates if c.kind == "tool" and c.name == steps[0].tool_name), None)
        if tool is None or tool.plan is None or len(tool.plan.missing) > len(best.plan.missing) or tool.lex < best.lex:
            return best  # the recipe's own example says it better than the tool's
        return tool if best.trigger < 1.0 or tool.fit > best.fit else best  # (a trigger said loosely names nothing)

    def _keys(self, hits: Sequence[RetrievalHit] | None, named: set[str], text: str) -> list[str]:
        """What retrieval found, the rules the request names by trigger or target state, and the
        candidates that know one of its rarer words; every candidate only without an index. Scoring
        the whole knowledge instead (done up to 120 candidates) scored the same on 17 packs but took
        twice the time."""
        everything = [candidate_key("rule", r) for r in self.kn.rules] + [candidate_key("tool", t) for t in self.kn.tools]
        if hits is None:
            return everything
        keys = {candidate_key(h.kind, h.name) for h in hits} | {candidate_key("rule", r) for r in named}
        stems = self.voc.lexicon.stems(text)
        keys |= {candidate_key("rule", r) for r in self.kn.rules if r not in named and self.voc.loose_state_hits(stems, r)}
        # and those that know a word of the request few others know (架 of 下架: the shop's 上架 recipe,
        # which retrieval ranked below twelve others, is the rival that keeps "下架" from placing an order)
        keys |= self.voc.lexicon.rare_holders(self.voc.lexicon.request_tokens(text), RARE_HOLDERS)
        # and the look-ups that take an id the request writes in a shape their parameters declare
        # ("线上查一下 tn_m8c2pk 现在是什么状态": the tenant look-up, which no word of an English pack names)
        keys |= {candidate_key("tool", t) for t in self._pattern_reads if any(
            next(pack_finditer(pattern, text), None) is not None for pattern in self._pattern_reads[t])}
        return [k for k in everything if k in keys]

    def _asked_parts(self, text: str) -> list[list[str]]:
        """The words of each part put as a request of its own that asks for things nothing here
        knows ("…，帮他开通邮箱和VPN": two such words at least), when the request has other parts: a
        candidate that knows none of its words does not do what was asked."""
        parts = [p for p in _CLAUSE_BREAK.split(text) if p.strip()]
        if len(parts) < 2:
            return []
        out = []
        for part in parts:
            if _ASKING_CLAUSE.match(part):
                words = [t for t in self.voc.lexicon.request_tokens(part) if whole_word(t)]
                if sum(not self.voc.lexicon.has(t) for t in words) >= 2:
                    out.append(words)
        return out

    def _clause_words(self, text: str) -> list[tuple[tuple[int, int], list[str]]]:
        """Each clause's telling words the knowledge knows (not single characters, not words most
        candidates share), with where the clause is, for clauses that have any: what a candidate must
        know something of — or take a value from — to be doing that part of the request."""
        out = []
        lexicon = self.voc.lexicon
        start = 0
        for brk in [*_CLAUSE_BREAK.finditer(text), None]:
            end = brk.start() if brk is not None else len(text)
            words = [t for t in lexicon.request_tokens(text[start:end]) if whole_word(t) and lexicon.has(t)
                     and lexicon.weight(t) >= TELLING * lexicon.unknown_weight]  # "customer is furious" tells little
            if words:
                out.append(((start, end), words))
            start = brk.end() if brk is not None else end
        return out if len(out) > 1 else []  # one clause: coverage already says how much is explained

    def _without_remarks(self, text: str, units: list[tuple[int, int]],
                         quantities: Sequence[tuple[int, int]] = ()) -> tuple[str, str]:
        """Clauses the knowledge knows no word of and that hold no value ("项目上线期间不能休" after the
        request proper) are a remark, not what is asked: they neither help nor hurt any candidate. So is,
        after the request, a statement of how things are, half of it words nothing here knows, with at
        most a quantity or a date in it ("…, laptop might be compromised", "…, hasn't used it in 3
        months"). Returns the text without every remark, and without the remarks but those statements
        (whose off-domain words still say what the request is about: "…, it's spam")."""
        clauses = [(m.start(), m.end()) for m in CLAUSE.finditer(text)]
        if len(clauses) < 2:
            return text, text
        lexicon = self.voc.lexicon

        def remark(s: int, e: int) -> str | None:
            if _ASKING_CLAUSE.match(text[s:e]):
                return None  # (a clause that asks for something is the request, known words or not)
            held = [(us, ue) for us, ue in units if us < e and s < ue]
            statement = s > 0 and _STATEMENT.match(text[s:e]) is not None
            if held and not (statement and all(u in quantities for u in held)):
                return None
            tokens = lexicon.request_tokens(text[s:e])
            if held and not tokens:
                return None
            known = sum(lexicon.has(t) for t in tokens)
            # (or mostly words nothing here knows: "their conversion tracking broke last night")
            if not held and (not known or (len(tokens) >= REMARK_WORDS and known / len(tokens) <= REMARK_KNOWN)):
                return "remark"
            return "statement" if statement and known / len(tokens) <= 0.5 else None

        kinds = [(s, e, remark(s, e)) for s, e in clauses]
        remarks = [(s, e) for s, e, kind in kinds if kind == "remark"]
        every = [(s, e) for s, e, kind in kinds if kind]
        return (_mask(text, every) if len(every) < len(clauses) else text,
                _mask(text, remarks) if len(remarks) < len(clauses) else text)

    def _value_units(self, text: str, spans: list[Span]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The values a request states beside its typed spans: enum words of any parameter, and
        people's names (in Chinese) where some parameter takes a person."""
        taken = [(s.start, s.end) for s in spans]
        enums: list[tuple[int, int]] = []
        for hit in find_phrases(text, self.enum_words):
            if not any(s < hit.end and hit.start < e for s, e in taken + enums):
                enums.append((hit.start, hit.end))
        names: list[tuple[int, int]] = []
        if self.takes_person:
            starts = frozenset(s.start for s in spans)
            names = [(a, b) for name, a, b in person_names(text, self.voc.is_own_word, starts)
                     if not name.isascii()  # capitalised English words are as often products as people
                     and not any(s < b and a < e for s, e in taken + enums)]
        return enums, names

    # ------------------------------------------------------------------ questions and follow-ups

    def _ask(self, decision: Decision, text: str, lang: str) -> Plan:
        choices = [PlanChoice(**{c.kind: c.name}, summary=self._summary(c)) for c in decision.choices]
        return Plan(status="needs_input", choices=choices, pending_text=text, language=lang,
                    question=choice_question(choices, lang), notes=[decision.reason])

    def _summary(self, c: Candidate) -> str:
        spec: Any = self.kn.rules[c.name] if c.kind == "rule" else self.kn.tools[c.name]
        first = spec.description.strip().splitlines()[0] if spec.description.strip() else c.name
        return first[:140]

    def _follow_up(self, text: str, prev: Plan, hits: Sequence[RetrievalHit] | None, request: Request,
                   lang: str) -> Plan | None:
        """The answer to the thread's open question; None when the message is a new request."""
        if prev.choices:
            picked, pure = self._pick(text, prev, hits)
            if picked is None:
                return None
            combined = (prev.pending_text or "") if pure else f"{prev.pending_text or ''} {text}"
            plan = self._fresh(combined, request, hits, lang, only=picked)
            plan.confident = plan.status == "planned"
            return plan
        name = prev.rule or prev.tool
        if not name:
            return None
        triggered = {h.payload for h in self.voc.trigger_hits(text)}
        if triggered and name not in triggered:
            return None  # names another rule: a new request
        key = candidate_key("rule" if prev.rule else "tool", name)
        bare = self._without_environment(text)
        spans = self.voc.spans(bare, self.today())
        assignment = self.extractor.assign(bare, spans, self.slots[key])
        self._bare_answer(bare, spans, key, prev, assignment)
        c = Candidate("rule" if prev.rule else "tool", name, self.writes[key], assignment=assignment)
        pack = self.kn.pack_of(name)
        if request.environment is None and prev.environment and not self.voc.environment_hits(text, pack):
            request = request.model_copy(update={"environment": prev.environment})  # the thread's environment
        plan = self._plan_candidate(c, text, request, assignment, dict(prev.known), prev.target_state, lang)
        plan.confident = plan.status == "planned"
        return plan

    def _pick(self, text: str, prev: Plan, hits: Sequence[RetrievalHit] | None) -> tuple[str | None, bool]:
        """Which offered choice a reply picks (by number, name or a rephrase), and whether the reply
        was only the pick."""
        keys = [candidate_key("rule" if c.rule else "tool", c.rule or c.tool or "") for c in prev.choices]
        m = _PICK.match(text)
        if m and 1 <= int(m.group(1)) <= len(keys):
            return keys[int(m.group(1)) - 1], True
        lowered = text.strip().lower()
        for key in keys:
            if key.partition(":")[2].lower() == lowered:
                return key, True
        combined = self._without_environment(f"{prev.pending_text or ''} {text}")
        spans = self.voc.spans(combined, self.today())
        scored = [c for key in keys for c in self.candidates(combined, spans, hits, only=key)]
        for c in scored:
            c.score = score(c)
        best = max(scored, key=lambda c: c.score, default=None)
        own = self.voc.lexicon.request_tokens(self._without_environment(text))
        if best is None or not any(self.voc.lexicon.knows(c.key, t) for c in scored for t in own):
            return None, False  # the reply says nothing about the choices: a new request
        return best.key, False

    def _bare_answer(self, text: str, spans: list[Span], key: str, prev: Plan, assignment: Assignment) -> None:
        """A reply that is just a value ("123456", "王伟") answers the one missing value it fits."""
        open_names = [n for n in prev.missing if n not in assignment.values]
        reply = _REPLY_FILLER.sub("", text.strip()).strip()
        if not open_names or not reply or len(reply) > 64:
            return
        raws: list[tuple[Any, int, int]] = [(s.value, s.start, s.end) for s in spans
                                            if (s.end - s.start) >= len(reply) - 2]
        if not raws and " " not in reply and not self.voc.is_own_word(reply):
            raws = [(reply, text.find(reply), text.find(reply) + len(reply))]
        slots = {s.name: s for s in self.slots[key]}
        fits = []
        for name in open_names:
            slot = slots.get(name)
            shapes = [self.voc.shapes[k] for k in self._shape_keys(slot)] if slot else []
            for raw, start, end in raws:
                if not all(shape_fits(str(raw), s) for s in shapes):
                    continue  # "abc" is not an item id when every example id is digits
                value = raw
                for _, param in slot.params if slot else []:
                    value = validate(value, param)
                    if value is MISSING:
                        break
                if slot and value is not MISSING:
                    fits.append((name, Found(value, start, end, "answer", 3.0)))
        if len({n for n, _ in fits}) == 1:
            assignment.values[fits[0][0]] = fits[0][1]
            assignment.refused.pop(fits[0][0], None)

    def _shape_keys(self, slot: Slot) -> list[tuple[str, str]]:
        keys = [(o, slot.name) for o in slot.owners] + [(t.tool_name, p.name) for t, p in slot.params]
        return [k for k in keys if k in self.voc.shapes and self.voc.shapes[k].signatures]

    # ------------------------------------------------------------------ environment

    def _without_environment(self, text: str) -> str:
        """The text minus environment words: they say where, not what, so they must not sway the choice."""
        for pack in self.kn.packs:
            for hit in reversed(self.voc.environment_hits(text, pack)):
                text = text[:hit.start] + " " * (hit.end - hit.start) + text[hit.end:]
        return text

    def _environment(self, text: str, request: Request, pack: str) -> str | None:
        names = self.kn.environment_names(pack)
        if request.environment:
            if request.environment not in names:
                raise InputError(
                    f"environment {request.environment!r} is not defined in pack {pack}; known: {', '.join(names)}",
                    message_zh=f"知识包 {pack} 没有环境 {request.environment!r},可用: {', '.join(names)}",
                    code=UNKNOWN_ENVIRONMENT,
                )
            return request.environment
        hits = self.voc.environment_hits(text, pack)
        if hits:
            return hits[0].payload
        if self.default_environment in names:
            return self.default_environment
        return self.kn.default_environment(pack)

    # ------------------------------------------------------------------ plans

    def _plan_candidate(self, c: Candidate, text: str, request: Request, assignment: Assignment,
                        prior: dict[str, Any], prior_target: str | None, lang: str) -> Plan:
        pack = self.kn.pack_of(c.name)
        env = self._environment(text, request, pack)
        known = {**prior, **{n: f.value for n, f in assignment.values.items()}}
        refused = {n: r for n, r in assignment.refused.items() if n not in known}
        if c.kind == "tool":
            plan = self._plan_tool(self.kn.tools[c.name], env, known, refused)
        else:
            plan = self._plan_rule(self.kn.rules[c.name], text, env, known, refused,
                                   prior_target if c.kind == "rule" else None)
        plan.language = lang
        return self._finish(plan, refused, text, lang)

    def _arguments(self, tool: ToolSpec, step_mapping: dict[str, Any], carried: dict[str, Any], env: str | None,
                   known: dict[str, Any], refused: dict[str, str], rule: RuleSpec | None,
                   missing: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
        defaults = self.kn.defaults_for(tool.pack, env)
        args: dict[str, Any] = {}
        sources: dict[str, str] = {}
        # Request values a rule routes to a step of their own (a coupon to its apply step) are not
        # also given to other steps that merely accept them: the value would be used twice.
        routed = {m.value for st in (rule.dag_definition if rule else []) if st.parameter_mapping is not step_mapping
                  for m in st.parameter_mapping.values() if m.source == "initial_query"}
        for param in tool.parameters:
            mapping = step_mapping.get(param.name)
            if mapping is None and not param.required and param.name in routed:
                continue
            if param.name in carried:
                args[param.name], sources[param.name] = carried[param.name], "request"
                continue
            if mapping is not None and mapping.source == "constant":
                args[param.name], sources[param.name] = mapping.value, "constant"
                continue
            if mapping is not None and mapping.source == "step_output":
                args[param.name] = StepRef(from_step=mapping.step_id, path=mapping.value)
                sources[param.name] = "step_output"
                continue
            name = mapping.value if mapping is not None else param.name
            use_defaults = mapping is not None or param.required
            if name in known:
                args[param.name], sources[param.name] = known[name], "request"
            elif name in refused:
                if name not in missing:  # the request said a value that is not allowed: never a default instead
                    missing.append(name)
            elif use_defaults and name in defaults:
                args[param.name], sources[param.name] = defaults[name], "defaults"
            elif param.has_default:
                args[param.name], sources[param.name] = param.default, "tool_default"
            elif param.required and name not in missing:
                missing.append(name)
        return args, sources

    def _plan_tool(self, tool: ToolSpec, env: str | None, known: dict[str, Any], refused: dict[str, str]) -> Plan:
        missing: list[str] = []
        args, sources = self._arguments(tool, {}, {}, env, known, refused, None, missing)
        if not missing and tool.side_effects and sets_by_name(tool.tool_name):
            # a setter told nothing to set ("bump the contact limit on ws_1": to what?) asks for it; run,
            # it would change nothing, or reset what it was not told ("leave a value out to keep it").
            # Only a setter whose required inputs just say which thing: every change it makes is optional.
            changes = [p.name for p in tool.parameters if not p.required and p.default is None]
            if changes and not any(name in args for name in changes) \
                    and all(_NAMES_A_THING.search(p.name) for p in tool.parameters if p.required):
                missing = changes
        step = PlanStep(step_id=1, tool_name=tool.tool_name, arguments=args, description=tool.description,
                        sources=sources)  # type: ignore[arg-type]
        plan = Plan(status="planned", tool=tool.tool_name, environment=env, steps=[step], pack=tool.pack, known=known)
        plan.missing = missing
        return plan

    def _plan_rule(self, rule: RuleSpec, text: str, env: str | None, known: dict[str, Any], refused: dict[str, str],
                   prior_target: str | None) -> Plan:
        deps = {s.step_id: list(s.dependencies) for s in rule.dag_definition}
        notes: list[str] = []
        keep, target = self._tailor_by_state(rule, text, deps, prior_target, known)
        if target is not None:  # a look-up that ends the recipe right after the state still reports on it
            keep |= {s.step_id for s in rule.dag_definition if s.step_id not in keep and s.dependencies
                     and set(s.dependencies) <= keep and not self._writes("tool", s.tool_name)
                     and not any(s.step_id in d.dependencies for d in rule.dag_definition)}
        undone = self._not_done(rule, text, keep)
        if undone is not None:
            gone = {undone} | ancestors(dependents(deps), undone)  # (its ancestors on the reversed graph: all after it)
            keep -= gone
            target = None if target in gone else target
            notes.append(f"stopped before step {undone} ({rule.step(undone).tool_name}): the request says it is not done")  # type: ignore[union-attr]
        if target is not None:
            state = rule.step(target).reaches_state  # type: ignore[union-attr]
            notes.append(f"tailored to state {state.name}: steps {', '.join(str(s) for s in sorted(keep, key=str))}")
        carried = self._carried(rule, keep, known)
        dropped = self._droppable(rule, keep, carried, target, known)
        for sid in dropped:
            notes.append(f"dropped step {sid} ({rule.step(sid).tool_name}): the request gives its output")  # type: ignore[union-attr]
        keep -= dropped
        new_deps = reroute(deps, keep)
        known = self._rehomed(rule, text, keep, dropped, known, refused, env)
        off = self._statically_skipped(rule, keep, env, known)
        missing: list[str] = []
        for sid in self._named_despite_condition(rule, keep, off, text, known, refused):
            # "void and reissue inv_1": the step the request names is not skipped for want of the value
            # its condition tests — that value is asked for
            off.pop(sid)
            missing += [n for n in _QUERY_FIELD.findall(rule.step(sid).condition or "")  # type: ignore[union-attr]
                        if n not in known and n not in missing]
        steps: list[PlanStep] = []
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            tool = self.kn.tools[spec.tool_name]
            step_missing: list[str] = []
            args, sources = self._arguments(tool, spec.parameter_mapping, carried.get(spec.step_id, {}), env,
                                            known, refused, rule, step_missing)
            if spec.step_id in off:
                notes.append(f"step {spec.step_id} ({spec.tool_name}) will be skipped: {off[spec.step_id]}")
            else:
                missing += [m for m in step_missing if m not in missing]
            steps.append(PlanStep(step_id=spec.step_id, tool_name=spec.tool_name, dependencies=new_deps[spec.step_id],
                                  arguments=args, description=spec.description or tool.description,
                                  condition=spec.condition, sources=sources,  # type: ignore[arg-type]
                                  skipped=off.get(spec.step_id)))
        plan = Plan(status="planned", rule=rule.rule_name, environment=env, steps=steps, pack=rule.pack,
                    target_state=rule.step(target).reaches_state.name if target is not None else None,  # type: ignore[union-attr]
                    known=known, notes=notes)
        plan.missing = missing
        return plan

    def _rehomed(self, rule: RuleSpec, text: str, keep: set[StepId], dropped: set[StepId], known: dict[str, Any],
                 refused: dict[str, str], env: str | None) -> dict[str, Any]:
        """A contact address only a dropped look-up would have read goes to the one input still unfilled
        for an address of the same kind: "seat and invite on ws_1 for hana@…" gives the workspace, so the
        owner-email look-up is dropped and the email is the invitee's. (Any input the value validates
        for was tried first: on a sealed pack it put a value where it did not belong.)"""
        if not dropped:
            return known
        def reads(steps: set[StepId]) -> set[str]:
            return {m.value for st in rule.dag_definition if st.step_id in steps
                    for m in st.parameter_mapping.values() if m.source == "initial_query"}
        # (not one the request labels with the look-up's own word: "…, owner is jo@…" is no invitee)
        orphans = sorted(k for k in reads(dropped) - reads(keep) if k in known and not _labelled_as(text, k, known[k]))
        if not orphans:
            return known
        defaults = self.kn.defaults_for(rule.pack, env)
        open_inputs: dict[str, list[ParamSpec]] = {}
        for st in rule.dag_definition:
            if st.step_id not in keep:
                continue
            for param in self.kn.tools[st.tool_name].parameters:
                m = st.parameter_mapping.get(param.name)
                name = m.value if m is not None and m.source == "initial_query" else param.name if m is None else None
                if name and param.required and name not in known and name not in refused and name not in defaults \
                        and not param.has_default:
                    open_inputs.setdefault(name, []).append(param)
        known = dict(known)
        for k in orphans:
            fits = [n for n, params in open_inputs.items()
                    if all(validate(known[k], p) is not MISSING and _same_kind(k, n) for p in params)]
            if len(fits) == 1:
                known[fits[0]] = known.pop(k)
                open_inputs.pop(fits[0])
        return known

    def _forbidden(self, c: Candidate, used: list[tuple[int, int]], refused_zh: list[tuple[tuple[int, int], list[str]]],
                   dont: set[str], knows: Callable[[str, str], bool]) -> list[str]:
        """The writes its plan would run that the request says not to do ("don't invoice them", 不签合同)."""
        if c.plan is None:
            return []
        # (not where what is refused is a value it takes: "自费结算，不走医保" is use_insurance=false)
        refused = [words for (start, end), words in refused_zh if not any(s < end and start < e for s, e in used)]
        if c.kind == "rule":
            refused = [words for words in refused if not self._left_out(self.kn.rules[c.name], c.plan, words, knows)]
        writes = [t for t in (s.tool_name for s in c.plan.running()) if self._writes("tool", t)]
        out = {t for t in writes if dont.intersection(name_stems(t))}
        for words in refused:
            # (the writes whose own name and examples say it, where there are any: 不用放款 is the
            # disbursement, not the loan application whose description says it awaits one)
            said = self._said_by_name(tuple(words))
            out.update(t for t in writes if ((t in said) if said else
                                             _refers_to(words, lambda w, t=t: knows(candidate_key("tool", t), w))))
        return [t for t in writes if t in out]

    @lru_cache(maxsize=256)  # noqa: B019 (one planner per knowledge, few refusals)
    def _said_by_name(self, words: tuple[str, ...]) -> frozenset[str]:
        """The writes of the knowledge whose name, triggers and examples speak of these words."""
        return frozenset(k.partition(":")[2] for k in self._write_keys
                         if _refers_to(list(words), lambda w, k=k: self.voc.core.knows(k, w)))

    def _left_out(self, rule: RuleSpec, plan: Plan, words: list[str], knows: Callable[[str, str], bool]) -> bool:
        """Whether words a request refuses (不交社保) speak of a step the plan leaves out: the refusal is
        kept. Where the request itself cut the recipe short (到已签约就行,先别交租; 批了就行,先别缴费), a
        step cut off that knows any of them: what comes after the stop is what is put off — unless a
        write that still runs is what they name and no step cut off is ("造个离职待审批的员工，不用建员工")."""
        running = {s.tool_name for s in plan.running()}
        left_out = [s.tool_name for s in rule.dag_definition if s.tool_name not in running]

        def named(t: str) -> int:  # how many of the words a step that speaks of them knows (0: it does not)
            hits = sum(knows(candidate_key("tool", t), w) for w in words)
            return hits if _refers_to(words, lambda w: knows(candidate_key("tool", t), w)) else 0

        writing = [t for t in running if self._writes("tool", t)]
        # first by the steps whose own names and examples say the words (a lease whose description
        # says the rent is paid later is not named by 先别交租) ...
        said = self._said_by_name(tuple(words))
        if said.intersection(left_out) and not said.intersection(writing):
            return True
        if said.intersection(writing):  # (said of both: in doubt, the refusal stands)
            return False
        # ... then by all their words; in doubt the refusal stands, but where the request cut the recipe
        # short, what comes after the stop is what is put off
        cut = plan.target_state is not None or any(n.startswith("stopped before step") for n in plan.notes)
        ran = max((named(t) for t in writing), default=0)
        off = max((named(t) for t in left_out), default=0)
        if off:
            return off > ran or (cut and off == ran)
        return cut and any(knows(candidate_key("tool", t), w) for t in left_out for w in words)

    def _asked_through_words(self, step: DagStep, others: list[DagStep], words: list[str]) -> bool:
        """Whether the request's words name what a step does: a word of its tool's name none of the
        other steps' names has ("reissue" of reissue_invoice beside get_ and void_invoice; not a word of
        what the recipe says of the step — those are too often said of the others too); in Chinese, two
        characters its tool knows and the others' know none of."""
        key = candidate_key("tool", step.tool_name)
        lx = self.voc.lexicon
        own = set(name_stems(step.tool_name))
        theirs = {w for o in others for w in name_stems(o.tool_name)}
        return any(t in own and t not in theirs if t.isascii() else
                   whole_word(t) and lx.knows(key, t)
                   and not any(lx.knows(candidate_key("tool", o.tool_name), p) for o in others for p in [t, *t])
                   for t in words)

    def _refusals_zh(self, text: str) -> list[tuple[int, int]]:
        """Where the request says what not to do: the verbs of doing any description may disclaim (不签,
        先别交, 无需办理), and 不用/别/无需 … before a verb some write of the knowledge knows (不用绑卡,
        不用审批, 先别放款) — not 别的/特别, nor 不要 before what no write does (不要太多)."""
        spans = [m.span() for m in DISCLAIMED.finditer(text)]
        for m in _HELD_ZH.finditer(text):  # "审批等我确认": that step waits for the requester
            if any(self.voc.lexicon.knows(k, m.group(1)) for k in self._write_keys):
                spans.append(m.span())
        for m in _REFUSING_ZH.finditer(text):
            start, rest = m.start(1), m.group(1)
            if any(s <= start < e for s, e in spans) or re.match(r"\s*(?:不行|可不行|是不行|不可以)", text[m.end():]):
                continue
            rest = rest[:nxt.start()] if (nxt := _NEXT_ASK_ZH.search(rest, 1)) else rest
            for n in (2, 1):
                if len(rest) >= n and any(self.voc.lexicon.knows(k, rest[:n]) for k in self._write_keys):
                    spans.append((m.start(), start + min(len(rest), n + 4)))
                    break
        return sorted(spans)

    def _held_as_asked(self, text: str) -> bool:
        """A step held for the requester in words no write here knows, that the request asked for in
        those same words ("E1 停缴社保，停缴等我通知" where the pack says 减员): what it asks waits."""
        return any(not any(self.voc.lexicon.knows(k, m.group(1)) for k in self._write_keys)
                   and m.group(1) in text[:m.start()] for m in _HELD_ZH.finditer(text))

    def _asks_to_do(self, text: str, *, chinese: bool = True) -> list[str]:
        """The request's words that ask for something done beyond its first ask, what it refuses left
        out: in English the verb joined to it by and/then ("… and reissue it", "… then issue a credit"),
        not a word said of the situation ("no refund", "customer is on credit hold", "create a delivery
        exception" beside create_shipment); in Chinese its words outside 不交/别/无需 … (不交社保公积金)."""
        told = _mask(text, self._refusals_zh(text))
        words = " ".join(m.group(1) for m in _AND_THEN.finditer(re.sub(r"[^\x00-\x7f]", " ", told)))
        if chinese:
            words += " " + re.sub(r"[\x00-\x7f]", " ", told)
        return self.voc.lexicon.request_tokens(words)

    def _named_despite_condition(self, rule: RuleSpec, keep: set[StepId], off: dict[StepId, str], text: str,
                                 known: dict[str, Any], refused: dict[str, str]) -> list[StepId]:
        """Writes skipped by a condition on a value the request does not give, that the request asks for
        by name ("void and reissue inv_1") or gives a value for that does not validate ("with coupon
        SAVE10" where coupons are C + 4 digits): the value is asked for, the step not silently dropped.
        Not one whose condition the request's values decide (an intern's onboarding skips 社保 however
        it is said), nor one it refuses."""
        undecided = {sid: fields for sid, why in off.items() if why.startswith("condition")
                     and self._writes("tool", rule.step(sid).tool_name)  # type: ignore[union-attr]
                     and (fields := [n for n in _QUERY_FIELD.findall(rule.step(sid).condition or "")  # type: ignore[union-attr]
                                     if n not in known])}
        if not undecided:
            return []
        running = [s for s in rule.dag_definition if s.step_id in keep and s.step_id not in off]
        words = self._asks_to_do(text)
        return [sid for sid, fields in undecided.items() if any(n in refused for n in fields)
                or self._asked_through_words(rule.step(sid), running, words)]  # type: ignore[arg-type]

    def _statically_skipped(self, rule: RuleSpec, keep: set[StepId], env: str | None,
                            known: dict[str, Any]) -> dict[StepId, str]:
        """Steps whose condition the request and defaults already decide as false, and the steps
        that read their output: their inputs are not asked for."""
        context = {"query": known, "defaults": self.kn.defaults_for(rule.pack, env), "steps": {}}
        off: dict[StepId, str] = {}
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            if spec.condition and not reads_steps(spec.condition) and not condition_holds(spec.condition, context):
                off[spec.step_id] = f"condition {spec.condition!r} is false"
            elif any(m.source == "step_output" and m.step_id in off for m in spec.parameter_mapping.values()):
                off[spec.step_id] = "it reads a skipped step's output"
        return off

    def _tailor_by_state(self, rule: RuleSpec, text: str, deps: dict[StepId, list[StepId]],
                         prior_target: str | None = None,
                         known: dict[str, Any] | None = None) -> tuple[set[StepId], StepId | None]:
        hits = self.voc.state_hits(text, rule.rule_name)
        if not hits:
            # a word of the rule's own trigger phrase names the recipe, not a state ("trial to paid")
            named = [(h.start, h.end) for h in self.voc.trigger_hits(text) if h.payload == rule.rule_name]
            loose = self.voc.loose_state_hits(self.voc.lexicon.stems(without_history(_mask(text, named))), rule.rule_name)
            if loose:
                depth = depths(deps)
                target = max(loose, key=lambda sid: depth[sid])
                # a state said loosely does not cut off a step the request states an outcome for ("ban
                # appeal flow, appeal gets accepted at the end": the decision is the last step's)
                later = self._decided_beyond(rule, {target} | ancestors(deps, target), known or {})
                later += self._named_beyond(rule, {target} | ancestors(deps, target), text)
                target = max([target, *later], key=lambda sid: depth[sid])
                return {target} | ancestors(deps, target), self._stated_target(rule, target)
            # An answer to the thread's question ("商品123456") keeps the state the question was about.
            earlier = next((s.step_id for s in rule.dag_definition
                            if prior_target and s.reaches_state and s.reaches_state.name == prior_target), None)
            if earlier is not None:
                return {earlier} | ancestors(deps, earlier), earlier
            return set(deps), None
        depth = depths(deps)
        order = {s.step_id: i for i, s in enumerate(rule.dag_definition)}
        target = max((h.payload for h in hits), key=lambda sid: (depth[sid], order[sid]))
        # (nor one the request names the doing of: "cancel it and refund everyone" refunds)
        later = self._named_beyond(rule, {target} | ancestors(deps, target), text)
        target = max([target, *later], key=lambda sid: (depth[sid], order[sid]))
        return {target} | ancestors(deps, target), self._stated_target(rule, target)

    @staticmethod
    def _stated_target(rule: RuleSpec, target: StepId) -> StepId | None:
        """The step a plan is tailored to, when it reaches a state (a step named beyond one may not: the
        plan then ends at a step that names no state, and reports none — no `target_state`, and no read
        after it is added)."""
        step = rule.step(target)
        return target if step is not None and step.reaches_state is not None else None

    def _named_beyond(self, rule: RuleSpec, keep: set[StepId], text: str) -> list[StepId]:
        """Steps after a state said that the request names the doing of by a word the kept steps lack
        (see `_asks_to_do`) — outside the state words ("a refunded order" names a state, 待支付 one still
        to come). English only: a Chinese word of a later step is as often its state awaited."""
        kept = [s for s in rule.dag_definition if s.step_id in keep]
        told = _mask(text, [(h.start, h.end) for h in self.voc.state_hits(text, rule.rule_name)])
        words = self._asks_to_do(told, chinese=False)
        return [s.step_id for s in rule.dag_definition if s.step_id not in keep
                and self._asked_through_words(s, kept, words)]

    def _decided_beyond(self, rule: RuleSpec, keep: set[StepId], known: dict[str, Any]) -> list[StepId]:
        """The recipe's last step, outside `keep`, when it takes one of the values the request states as
        an outcome — one of an enum's values — that no kept step takes: how the whole flow ends ("appeal
        gets accepted at the end"). Not a middle step's value: a fuel level or an amount may be said of
        any step, and the request said how far to go."""
        def taken(step: Any) -> set[str]:
            tool = self.kn.tools[step.tool_name]
            return {m.value for name, m in step.parameter_mapping.items() if m.source == "initial_query"
                    and m.value in known and tool.param(name) is not None and tool.param(name).enum is not None}
        inside = set().union(*(taken(s) for s in rule.dag_definition if s.step_id in keep))
        last = rule.dag_definition[-1]
        return [last.step_id] if last.step_id not in keep and taken(last) - inside else []

    def _not_done(self, rule: RuleSpec, text: str, keep: set[StepId]) -> StepId | None:
        """The first step (not the first of the recipe) that does what the request says has not
        happened, or is not to be done: "报了重修但重修费还没交" stops before paying, "批了就行,先别缴费"
        before the payment, "coupon …, just submit it for now, don't activate" before activating — a
        "don't" only by the step's own name, and only the step right after the first: what is left is
        then the first step, not steps before the one refused that nobody asked for ("create a tenant,
        don't invoice them" is no paid subscription; it is asked about)."""
        verbs = not_yet(text)
        refused = told_not_to(text)
        if not verbs and not refused:
            return self._enough_at(rule, text, keep)
        first = next((s.step_id for s in rule.dag_definition if s.step_id in keep), None)
        for spec in rule.dag_definition[1:]:
            if spec.step_id not in keep:
                continue
            if refused and spec.dependencies == [first] and set(refused) & set(name_stems(spec.tool_name)):
                return spec.step_id
            states = spec.reaches_state.words if spec.reaches_state else []
            # (a state says what is done, not what it awaits or what is under way: 休学待审批 and
            # 休学审批中 are no approval)
            said = " ".join([spec.description or "", name_words(spec.tool_name),
                             *(_AWAITS.sub("", w) for w in states if not w.endswith("中"))])
            stems = set(self.voc.lexicon.stems(said))
            done = " ".join(states)
            # Chinese: the word as said, or its verb as the step's state says it is done (先别缴费 for the
            # state 已缴清) — never one character of a longer word (学号, 交接)
            if any(v in stems if v.isascii() else v in said or "已" + v[0] in done for v in verbs):
                return spec.step_id
        return self._refused_past_named(rule, text, keep, refused) or self._enough_at(rule, text, keep)

    def _enough_at(self, rule: RuleSpec, text: str, keep: set[StepId]) -> StepId | None:
        """"新车…先登记+装好设备就行": the request says where to stop (X 就行 / 即可) by words of a step
        rather than a state — the first write after the last step those words name is not done."""
        m = _ENOUGH_ZH.search(self._without_environment(text))  # (not "测试环境就行": where, not how far)
        if m is None:
            return None
        lx = self.voc.lexicon
        words = [t for t in lx.request_tokens(m.group(1)) if whole_word(t)]
        kept = [s for s in rule.dag_definition if s.step_id in keep]
        named = [i for i, s in enumerate(kept) if any(lx.knows(candidate_key("tool", s.tool_name), t) for t in words)]
        if not named:
            return None
        return next((s.step_id for s in kept[max(named) + 1:] if self._writes("tool", s.tool_name)), None)

    def _refused_past_named(self, rule: RuleSpec, text: str, keep: set[StepId], refused: list[str]) -> StepId | None:
        """"hold 2 seats on evt_1 for 30 min, dont buy them": the request leads with the verb of a step
        (create_seat_hold) and refuses a doing no step is named by — what comes after the step it
        names is what is refused: the first write after it."""
        lead = first_verb(text)
        if not refused or lead is None or lead in refused:
            return None
        kept = [s for s in rule.dag_definition if s.step_id in keep]
        named = next((i for i, s in enumerate(kept) if lead in name_stems(s.tool_name)), None)
        if named is None or any(set(refused) & set(name_stems(s.tool_name)) for s in kept):
            return None
        return next((s.step_id for s in kept[named + 1:] if self._writes("tool", s.tool_name)), None)

    def _carried(self, rule: RuleSpec, keep: set[StepId], known: dict[str, Any]) -> dict[StepId, dict[str, Any]]:
        """Step-output parameters whose value the request itself states (validated as that parameter)."""
        carried: dict[StepId, dict[str, Any]] = {}
        # A value the rule routes into its own steps is the chain's input, not a replacement for a
        # step's output that happens to share its name (a counter fed on from step to step).
        inputs = {m.value for s in rule.dag_definition if s.step_id in keep
                  for m in s.parameter_mapping.values() if m.source == "initial_query"}
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            tool = self.kn.tools[spec.tool_name]
            for pname, mapping in spec.parameter_mapping.items():
                if mapping.source != "step_output" or pname not in known or pname in inputs:
                    continue
                value = validate(known[pname], tool.param(pname))  # type: ignore[arg-type]
                if value is not MISSING:
                    carried.setdefault(spec.step_id, {})[pname] = value
        return carried

    def _droppable(self, rule: RuleSpec, keep: set[StepId], carried: dict[StepId, dict[str, Any]],
                   target: StepId | None, known: dict[str, Any]) -> set[StepId]:
        """Producers nobody needs any more once the request's own values replace their outputs. A
        write the request gives its own inputs to is wanted for itself, whatever it also produces."""
        if not carried:
            return set()
        wanted = {s.step_id for s in rule.dag_definition if self.kn.tools[s.tool_name].side_effects
                  and any(m.source == "initial_query" and m.value in known for m in s.parameter_mapping.values())}
        readers: dict[StepId, set[StepId]] = {sid: set() for sid in keep}
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            for pname, m in spec.parameter_mapping.items():
                if m.source == "step_output" and pname not in carried.get(spec.step_id, {}) and m.step_id in readers:
                    readers[m.step_id].add(spec.step_id)
        producers = {m.step_id for s in rule.dag_definition if s.step_id in keep
                     for p, m in s.parameter_mapping.items() if p in carried.get(s.step_id, {})}
        deps = {s.step_id: [d for d in s.dependencies if d in keep] for s in rule.dag_definition if s.step_id in keep}
        below = dependents(deps)
        dropped: set[StepId] = set()
        changed = True
        while changed:
            changed = False
            for sid in keep - dropped:
                if sid == target or sid in wanted or readers[sid] - dropped:
                    continue
                feeds_only_dropped = bool(below[sid]) and below[sid] <= dropped
                if sid in producers or feeds_only_dropped:
                    dropped.add(sid)
                    changed = True
        return dropped

    def _finish(self, plan: Plan, refused: dict[str, str], text: str, lang: str) -> Plan:
        if plan.missing:
            spec: Any = self.kn.rules[plan.rule] if plan.rule else self.kn.tools[plan.tool or ""]
            example = spec.examples[0].user_query if spec.examples else None
            plan.status = "needs_input"
            plan.question = missing_question(self.kn, plan, plan.missing, spec.description, example, lang,
                                             {n: r for n, r in refused.items() if n in plan.missing})
        return plan


# "…装好设备就行": what is enough, said in the clause before 就行 / 即可
_ENOUGH_ZH = re.compile(r"([^,，。;；!！?？]{1,24}?)(?:就行|就好|就可以|就够|即可)")
_AND_THEN = re.compile(r"(?i)(?:\band|\bthen|&|\+)\s+(?:then\s+|also\s+)?([a-z]+)\b")
_QUERY_FIELD = re.compile(r"\bquery\.([A-Za-z_]\w*)")
# 不用/别/无需 … before what may be a verb (the knowledge's writes say which): "到已放款就行，不用绑卡"
_REFUSING_ZH = re.compile(r"(?:无需|无须|不用|不需要|不要|先别|暂不|先不|不必|(?:(?<![\u4e00-\u9fff])|(?<=[就也都还可你]))别)"
                          r"(?:再|去|帮我|给我|帮忙)?(?![的人])([\u4e00-\u9fff]{1,6})")
# a step held for the requester: "审批等我确认", "付款等我通知"
_HELD_ZH = re.compile(r"([\u4e00-\u9fff]{2})(?:先|就)?" + WAIT_FOR_ME_ZH + r"(?!过)")
def _refused_words(refusal: str) -> str | None:
    """What a Chinese refusal refuses: the words after its negation (不用审批), or the step held
    (审批等我确认); None for a verb a description disclaims."""
    if _NEGATION_ZH.match(refusal):
        return _NEGATION_ZH.sub("", refusal)
    held = _HELD_ZH.fullmatch(refusal)
    return held.group(1) if held else None


# where what is refused ends and the next ask begins ("不用审批直接放款": 放款 is asked for)
_NEXT_ASK_ZH = re.compile(r"直接|然后|再|就|先|并|但|而是|改成|只")
_NEGATION_ZH = re.compile(r"^(?:不会|不再|并不|无需|无须|不用|不需要|不要|先别|暂不|不|别)")


def _refers_to(words: list[str], known: Callable[[str], bool]) -> bool:
    """Whether Chinese words (characters and bigrams) speak of what a tool does: it knows a whole word
    of them and most of the rest ("签合同": 签, 合, 合同, 同 of sign_contract; 签 alone is not enough)."""
    hits = [w for w in words if known(w)]
    return any(whole_word(w) for w in hits) and len(hits) >= 0.6 * len(words)


def _valued_words(assignment: Assignment) -> set[str]:
    """The words naming the parameters a request gave values to (course_code -> cours, code)."""
    return {stem(w) for name, f in assignment.values.items() if f.how != "enum" for w in name_words(name).split()}


def _value_part(span: Span) -> tuple[int, int]:
    """Where a span's value is: "5 seats" keeps the word "seats" readable, "3.5 kg" its "kg"."""
    if span.kind == "number" and span.unit and span.unit.isascii() and span.text.lower().endswith(span.unit):
        return span.start, span.end - len(span.unit)
    return span.start, span.end


_CJK_PAIR = re.compile(r"[\u3400-\u9fff]{2}")
# An id said as where the thing acted on is ("revoke the leaked API key on ws_1"), not as that thing
_SCOPED_ID = re.compile(r"(?i)\b(?:on|in|under|within|inside|for|at)\s+([A-Za-z0-9][\w./#-]*\d[\w./#-]*)")
_NAMES_A_THING = re.compile(r"(?i)(?:^|_)(?:id|no|number|code|key|ref|uuid|slug)$|编号|号$")
# Between what a thing is (a code, a level) and what it is to be: "P5 升 P6", "L2 改成 L3", "basic → pro".
# Not a bare 到/to ("copy A to B", "merge X into Y": both are values), nor numbers ("from 20 to 14": a delta?)
_FROM_TO = re.compile(r"\s*(?:升到|升为|升至|升|改成|改为|调到|调为|调成|变成|换成|转为|->|→|=>)\s*")
_CAUSE = re.compile(r"\b(?:bc|b/c|[Bb]ecause|cuz|due to)\b|因为|由于")  # (not "BC", a province or an id)
# Where one part of a request ends and another begins: punctuation, and the words that add a second
# task ("办完离职顺便补个HC", "… and also give them a key")
_CLAUSE_BREAK = re.compile(r"[,，。;；!！?？\n]|顺便|(?<!不)同时|然后|并且|另外|再帮|(?i:\b(?:and also|and then|plus|as well as)\b)")
_DROPPED = re.compile(r"dropped step \d+ \((\w+)\)")
# A clause put as a request ("…，帮他开通邮箱和VPN"): never a remark. Not 请 (请假, 请购) and not
# "please …" ("please make sure finance knows" is a courtesy)
_ASKING_CLAUSE = re.compile(r"\s*(?:帮(?:我|他|她|忙)|麻烦(?:你|您)?帮)")
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z]+(?:\.[A-Za-z]+)+(?![\w.])")  # event names and the like: key.revoked
# A clause that tells how things are (a subject, then a form of be/have or a modal), not what to do
_STATEMENT = re.compile(r"\s*(?:(?:[a-z0-9]+\s+){0,3}?[a-z0-9]+(?:'s|’s)?\s*(?:'s|’s|is|are|was|were|has|have|had|hasn't|"
                        r"haven't|hadn't|isn't|aren't|wasn't|weren't|might|may|could|keeps?|kept|seems?|works?)"
                        r"|hasn't|haven't|hadn't|isn't|wasn't|weren't|doesn't|didn't|never)\b", re.I)  # (or said without one)
_ASIDE = re.compile(r"[(（][^()（）]*[)）]")  # a parenthesis: detail about what is asked, not a value to use


def _restated(text: str, values: list[str]) -> bool:
    """A value said again inside a longer one the plan takes ("报销 5 月话费, 说明写“5月话费”")."""
    compact = re.sub(r"\s+", "", text)
    if len(compact) < 2:
        return False
    inside = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(compact) + r"(?![A-Za-z0-9_])")  # not acct_12 of acct_123
    return any(compact != v and inside.search(v) for v in values)


_ADDRESSES = frozenset({"email", "phone", "mobile"})


def _labelled_as(text: str, name: str, value: Any) -> bool:
    """The request puts a word of the parameter's name (other than its kind) right before the value:
    "owner is jo@…" for owner_email."""
    at = text.find(str(value))
    words = [w for w in name.lower().split("_")[:-1] if len(w) > 2]
    return at > 0 and any(w in text[max(0, at - 16):at].lower() for w in words)


def _same_kind(a: str, b: str) -> bool:
    """Two parameter names for the same kind of contact address: owner_email and email (not two ids:
    a look-up's employee_id is no approver_id)."""
    kind = a.rsplit("_", 1)[-1].lower()
    return kind in _ADDRESSES and kind == b.rsplit("_", 1)[-1].lower()


def _without(tokens: list[str], gone: list[str]) -> list[str]:
    """The tokens with one occurrence of each of `gone` taken out."""
    out = list(tokens)
    for t in gone:
        if t in out:
            out.remove(t)
    return out


def _acts_later(ran: Sequence[PlanStep], writes: frozenset[str], spoken: dict[str, frozenset[str]], verb: str) -> bool:
    """Whether a recipe does the verb the request applies to an existing thing ("escalate it") only at a
    write after its first: the first would make the thing anew."""
    made = [s.tool_name for s in ran if s.tool_name in writes]
    return bool(made) and verb not in spoken.get(made[0], frozenset()) and any(
        verb in spoken.get(tool, frozenset()) for tool in made[1:])


_UNTIL = re.compile(r"(?:\b(?:to|until|till|through|by)|到|至|截止)\s*$", re.I)
# "Tuesday's anticheat wave": the date names an event, it is no value of its own
_POSSESSIVE = re.compile(r"['’]s\b")


def _past(span: Span, today: date, text: str) -> bool:
    """A date or month no later than today's (what is done now is done today), said in words
    ("yesterday", "since march", 今天) — a date written out (2026-11-02) is stated on purpose — and
    not as where something should end ("extend the trial to …")."""
    if any(ch.isdigit() for ch in span.text) or _UNTIL.search(text[max(0, span.start - 12):span.start]):
        return False
    if span.kind == "date":
        return str(span.value) <= today.isoformat()
    return span.kind == "month" and str(span.value) <= today.isoformat()[:7]


def _mask(text: str, ranges: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in ranges:
        for i in range(max(0, start), min(len(chars), end)):
            chars[i] = " "
    return "".join(chars)


def _presumed(ran: list[str], writes: frozenset[str], things: list[str], knows: Callable[[str, str], bool],
              spoken: dict[str, frozenset[str]]) -> tuple[list[str], str | None]:
    """The things the request speaks of as existing ("the booking") that a recipe would make: its first
    write's — or, after look-ups, a tool named for making things ("帮我把那张单子的发票贴上去": checking
    the invoice, then creating a claim) — or those of a later step named for making or starting things,
    before the last write ("activate the SIM": a customer, then the SIM, then activating it); and the
    later step that makes them."""
    made = [t for t in ran if t in writes]
    if not made or not things:
        return [], None
    if (made[0] == ran[0] and not changes_by_name(made[0])) or made_by_name(made[0]):
        first = [w for w in things if knows(candidate_key("tool", made[0]), w)]
        if first:
            return first, None
    for tool in made[1:-1]:
        # (a step the request asks for in words of its own is done, not presumed: "send the money")
        if spoken.get(tool, frozenset()) - set(things) - frozenset().union(
                *(w for name, w in spoken.items() if name != tool)):
            continue
        if starts_by_name(tool):
            later = [w for w in things if knows(candidate_key("tool", tool), w)]
            if later:
                return later, tool
    return [], None


_AWAITS = re.compile(r"(?:待|未|(?i:pending|awaiting|not|un)\b).*")
