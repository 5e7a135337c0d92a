"""Prompt modes (seed 001's PromptGenerator): simple, advanced, precise; Chinese and English.

The system message carries the role (replaceable through ``PromptSettings.system_prompt``). The
user message carries the task, the sources, the question, a note for the model when the caller
has one (what the library check found missing) and the answer requirements, so the rules that
the rest of the pipeline relies on (cite ``[Source N]``; say ``NOT_FOUND`` when the sources lack
the answer) are there whatever the system prompt says. The note is a section of its own, never
part of the question: the question's words pick the sources' excerpts, the note's must not.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_app.stage_settings import MODES, Language, Mode

# What the model is told to answer when the sources lack the answer; the citation checker and
# the offline answerer can match on these exact strings.
NOT_FOUND: dict[Language, str] = {
    "zh": "参考资料中未找到相关信息",
    "en": "The sources do not contain the answer.",
}


@dataclass(frozen=True)
class PromptTemplate:
    mode: Mode
    language: Language
    system: str
    task: str
    requirements: tuple[str, ...]
    no_source_requirements: tuple[str, ...]  # replace ``requirements`` when nothing was found
    sources_heading: str
    no_sources: str
    question_label: str
    requirements_heading: str

    def render_user(self, context: str, question: str, note: str = "") -> str:
        """The user message: task, sources (or a note that there are none), question, the
        caller's ``note`` as its own paragraph when given, rules."""
        if not context.strip():
            return self._render(self.no_sources, question, self.no_source_requirements, note)
        return self._render(context.strip(), question, self.requirements, note)

    def instructions(self, has_sources: bool, note: str = "") -> str:
        """The user message without its sources and question: what the template itself (and
        the ``note``) costs."""
        if has_sources:
            return self._render("", "", self.requirements, note)
        return self._render(self.no_sources, "", self.no_source_requirements, note)

    def _render(
        self, context: str, question: str, requirements: tuple[str, ...], note: str = ""
    ) -> str:
        rules = "\n".join(f"{i}. {rule}" for i, rule in enumerate(requirements, start=1))
        note_part = f"{note.strip()}\n\n" if note.strip() else ""
        return (
            f"{self.task}\n\n"
            f"{self.sources_heading}\n\n{context}\n\n"
            f"{self.question_label}{question}\n\n"
            f"{note_part}"
            f"{self.requirements_heading}\n{rules}"
        )


_ZH_GROUNDING = "你根据用户提供的参考资料（研究报告中的文本、表格和图片描述）回答问题。"
_ZH_CITE = (
    "每个事实、数据或结论之后用 [Source N] 标注出处，N 是参考资料的编号；"
    "依据多个来源时写成 [Source 1][Source 3]。只能引用上面列出的编号。"
)
_ZH_NOT_FOUND = f"如果参考资料中没有答案，直接回答“{NOT_FOUND['zh']}”，不要编造。"
_ZH_FIGURES = "引用数据时保留原文的数值、单位和报告期（如 2023A、2024E）。"
_ZH_LANGUAGE = "使用中文回答。"

_EN_GROUNDING = (
    "You answer from the sources the user provides: text, tables and figure descriptions "
    "taken from research reports."
)
_EN_CITE = (
    "After each fact, figure or conclusion, cite its source as [Source N], where N is the "
    "number of a source above; cite several as [Source 1][Source 3]. Cite only numbers listed "
    "above."
)
_EN_NOT_FOUND = (
    f'If the sources do not contain the answer, reply exactly "{NOT_FOUND["en"]}" '
    "and do not make one up."
)
_EN_FIGURES = (
    "Keep numbers exactly as the sources give them, with units and reporting periods "
    "(e.g. 2023A, 2024E)."
)
_EN_LANGUAGE = "Answer in English, even though the sources may be in Chinese."


def _zh(mode: Mode, system: str, task: str, requirements: tuple[str, ...]) -> PromptTemplate:
    return PromptTemplate(
        mode=mode,
        language="zh",
        system=system + _ZH_GROUNDING,
        task=task,
        requirements=requirements,
        no_source_requirements=(
            f"没有检索到参考资料，请直接回答“{NOT_FOUND['zh']}”，不要凭自身知识作答。",
            _ZH_LANGUAGE,
        ),
        sources_heading="参考资料：",
        no_sources="（未检索到相关参考资料。）",
        question_label="问题：",
        requirements_heading="回答要求：",
    )


def _en(mode: Mode, system: str, task: str, requirements: tuple[str, ...]) -> PromptTemplate:
    return PromptTemplate(
        mode=mode,
        language="en",
        system=system + " " + _EN_GROUNDING,
        task=task,
        requirements=requirements,
        no_source_requirements=(
            f'No sources were retrieved: reply exactly "{NOT_FOUND["en"]}" and do not answer '
            "from your own knowledge.",
            _EN_LANGUAGE,
        ),
        sources_heading="Sources:",
        no_sources="(No sources were retrieved.)",
        question_label="Question: ",
        requirements_heading="Requirements:",
    )


_TEMPLATES: dict[tuple[Mode, Language], PromptTemplate] = {
    ("simple", "zh"): _zh(
        "simple",
        "你是一个专业的研报问答助手。",
        "请根据以下参考资料回答问题。",
        ("简洁明了，直接回答问题。", _ZH_CITE, _ZH_NOT_FOUND, _ZH_LANGUAGE),
    ),
    ("advanced", "zh"): _zh(
        "advanced",
        "你是一个专业的研报问答助手，擅长深入分析和综合推理。",
        "请根据以下参考资料，深入分析并回答问题。",
        (
            "综合多个来源的信息，给出分析和推理过程。",
            _ZH_CITE,
            _ZH_FIGURES,
            "资料只能回答一部分时，先回答能回答的部分，再明确指出缺少哪些信息。",
            _ZH_NOT_FOUND,
            "回答长度：300-500字；问题简单时可以更短。",
            _ZH_LANGUAGE,
        ),
    ),
    ("precise", "zh"): _zh(
        "precise",
        "你是一个严谨的研报问答系统，只陈述参考资料中明确写出的内容。",
        "请仅基于以下参考资料回答问题，不要添加任何推测或额外信息。",
        (
            "只使用参考资料中的信息，不要推测或补充额外信息。",
            "每句话都必须用 [Source N] 标注来源，N 是参考资料的编号；只能引用上面列出的编号。",
            "数值必须与资料原文一致，并注明单位和报告期。",
            _ZH_NOT_FOUND,
            _ZH_LANGUAGE,
        ),
    ),
    ("simple", "en"): _en(
        "simple",
        "You are a professional assistant for questions about research reports.",
        "Answer the question using the sources below.",
        ("Be brief and answer the question directly.", _EN_CITE, _EN_NOT_FOUND, _EN_LANGUAGE),
    ),
    ("advanced", "en"): _en(
        "advanced",
        "You are a professional assistant for questions about research reports, skilled at "
        "in-depth analysis and synthesis.",
        "Using the sources below, analyse the question in depth and answer it.",
        (
            "Combine information from several sources and show your analysis and reasoning.",
            _EN_CITE,
            _EN_FIGURES,
            "If the sources answer only part of the question, answer that part and say "
            "clearly what is missing.",
            _EN_NOT_FOUND,
            "Length: about 150-300 words; shorter for a simple question.",
            _EN_LANGUAGE,
        ),
    ),
    ("precise", "en"): _en(
        "precise",
        "You are a rigorous question-answering system for research reports and state only "
        "what the sources explicitly say.",
        "Answer the question strictly from the sources below, without speculation or "
        "outside information.",
        (
            "Use only information from the sources; do not speculate or add anything else.",
            "Cite a source as [Source N] after every sentence, where N is the number of a "
            "source above; cite only numbers listed above.",
            "Numbers must match the sources exactly, with units and reporting periods.",
            _EN_NOT_FOUND,
            _EN_LANGUAGE,
        ),
    ),
}


def get_template(mode: Mode, language: Language) -> PromptTemplate:
    """The template for a mode and language. Raises ValueError for an unknown mode."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if language not in ("zh", "en"):
        raise ValueError(f"language must be zh or en, not {language!r}")
    return _TEMPLATES[(mode, language)]
