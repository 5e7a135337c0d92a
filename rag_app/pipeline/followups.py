"""The question as a conversation means it: a follow-up made standalone before retrieval.

``understand`` is what the pipeline, the evaluation and any client use: with a configured model
(and ``FollowUpSettings.model_rewrite``) the model rewrites the follow-up within a time limit
(rag_app.answer.rewrite); otherwise, or when that fails, what the earlier questions named carries
over (rag_app.understand.followup), read against what the library holds: its documents'
subjects, the entities their profiles name (with aliases and tickers) and the metrics of their
tables (``Known``, built once per knowledge-base generation).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.answer.base import LLM
from rag_app.answer.rewrite import RewriteFailed, rewrite_question
from rag_app.config import Settings
from rag_app.index.library import Library
from rag_app.index.profile import DocumentProfile
from rag_app.models import Understood
from rag_app.text.language import CJK_UNIFIED
from rag_app.text.subjects import is_listed, shortest_chinese_name
from rag_app.understand.followup import standalone
from rag_app.understand.known import Known, known_of

_CJK = re.compile(f"[{CJK_UNIFIED}]")


def understand(
    question: str,
    earlier: Sequence[str],
    library: Library,
    kb: str,
    settings: Settings,
    llm: LLM | None = None,
    answer: str = "",
) -> Understood:
    """``question`` made standalone from the ``earlier`` user questions (oldest first) of its
    conversation; ``llm`` None (or the offline answerer) means no model rewrite; ``answer`` is
    the answer to the last earlier question, when known (what "这家公司" may point at)."""
    options = settings.followup
    earlier = (
        [q for q in earlier if q.strip()][-options.history_turns :] if options.history_turns else []
    )
    if not earlier:
        return Understood(question)
    note = ""
    if llm is not None and options.model_rewrite:
        try:
            text = rewrite_question(llm, question, earlier, options.rewrite_timeout_s)
        except RewriteFailed as exc:
            note = str(exc)
        else:
            return Understood(text, "model" if text != question else "")
    if options.carry_over:
        known = _known(library, kb, options.min_bigram_share)
        resolution = standalone(
            question, earlier, known, options.max_ellipsis_chars, answer, options.latest_period
        )
        if resolution.changed:
            return Understood(resolution.text, "carried", resolution.carried, note)
    return Understood(question, "", (), note)


def _company(profile: DocumentProfile) -> str:
    """The company a report is about, by its shortest Chinese name (中芯国际, 澄远智能 of
    江苏澄远智能装备股份有限公司), when it is one (named with a ticker or in legal form): what a
    facility its tables list belongs to. An industry report's rows are companies of their own:
    ""."""
    spellings = profile.subject_names
    if not any(is_listed(n) for n in spellings):
        return ""
    return shortest_chinese_name(spellings) or spellings[0]


def _other_names(profile: DocumentProfile) -> tuple[str, ...]:
    """The aliases the document gives its own subject (not its tickers)."""
    own = [e for e in profile.entities if e.name == profile.subject]
    return own[0].aliases if own else ()


def _known(library: Library, kb: str, min_share: float) -> Known:
    """What the knowledge base holds that a question can name, once per generation."""
    from rag_app.retrieve.signals import per_generation
    from rag_app.retrieve.subjects import subjects_by_document

    if kb not in library.knowledge_bases():
        return Known()

    def build(_snapshot: object) -> Known:
        by_document = subjects_by_document(library, kb)
        subjects: list[str] = []
        entities: list[tuple[str, str, tuple[str, ...]]] = []
        metrics: list[str] = []
        periods: dict[str, list[str]] = {}
        quantities: list[str] = []
        qualified: list[str] = []
        for doc_id, profile in library.profiles(kb).items():
            words = sorted(by_document.get(doc_id, ()))
            subjects += words
            owner = profile.subject or (words[0] if words else "")
            periods.setdefault(owner, []).extend(profile.periods)
            if profile.subject:
                subjects.append(profile.subject)
                # The report's other names for its company (its short name 澄远智能, the one it
                # writes most): a report's subject each, written again as the question wrote it,
                # not as the legal name (which the passages seldom repeat), with its periods.
                for other in _other_names(profile):
                    subjects.append(other)
                    periods.setdefault(other, []).extend(profile.periods)
            company = _company(profile)
            entities += [(e.name, company, e.aliases + e.tickers) for e in profile.entities]
            for metric in profile.metrics:
                # "产能 当前产能": a table's section and its column, each a metric's words
                parts = metric.name.split()
                if not all(_CJK.search(part) for part in parts):
                    parts = [metric.name]  # an English label keeps its words together
                metrics += [*parts, *([metric.alias] if metric.alias else [])]
                quantities += parts if metric.unit else []
                qualified += [metric.name] if len(parts) > 1 else []
        return known_of(subjects, entities, metrics, periods, quantities, min_share, qualified)

    return per_generation(f"followup_known {min_share}", library, kb, build)
