"""What the library check (``rag_app.trust.answerability``) found a question asks for and the
library does not hold, and how it is said, in the question's language."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gap:
    """Something a question asks for that the library does not hold: ``kind`` subject / period /
    metric / exhibit (a numbered table or figure), or presumed (an acronym no report writes,
    taken for the one company the library covers), what was ``asked``, and the closest things
    ``held``."""

    kind: str
    asked: str
    held: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """What the check found: the gaps, and whether they leave nothing to answer."""

    gaps: tuple[Gap, ...] = ()
    declines: bool = False

    def note(self, language: str = "zh") -> str:
        """The finding in words, for the answer and for a model's prompt ("" when none)."""
        return " ".join(say(gap, language) for gap in self.gaps)


def say(gap: Gap, language: str) -> str:
    """The gap in words, with the closest things the library holds."""
    held = "、".join(gap.held[:6]) if language == "zh" else ", ".join(gap.held[:6])
    if language == "en":
        if gap.kind == "subject":
            return f"The library holds no report on {gap.asked}" + (
                f"; it holds: {held}." if held else "."
            )
        if gap.kind == "presumed":
            return f"The library's reports do not mention {gap.asked}, so this answers for {held}, the one company they cover."
        if gap.kind == "mentioned":
            return f"No report in the library covers {gap.asked}; it is only mentioned" + (
                f" in: {held}." if held else "."
            )
        if gap.kind == "name":
            return f"The library's report does not mention {gap.asked}" + (
                f"; it gives: {held}." if held else "."
            )
        if gap.kind == "exhibit":
            return f"No report in the library has {gap.asked}" + (
                f"; they have: {held}." if held else "."
            )
        if gap.kind == "period":
            return f"The library's reports do not cover {gap.asked}" + (
                f" (they cover {held.replace(', ', ' to ')})." if held else "."
            )
        return f"No report in the library gives {gap.asked}" + (
            f"; its tables give: {held}." if held else "."
        )
    if gap.kind == "subject":
        return f"库中没有{gap.asked}的报告" + (f"；现有：{held}。" if held else "。")
    if gap.kind == "presumed":
        return f"库中报告没有提及{gap.asked}，以下按库中唯一的公司{held}作答。"
    if gap.kind == "mentioned":
        return f"库中没有关于{gap.asked}的报告，它只在以下内容中被提及，且未给出所问数据：" + (
            f"{held}。" if held else "。"
        )
    if gap.kind == "name":
        return f"库中相关报告没有提到{gap.asked}" + (f"；报告中有：{held}。" if held else "。")
    if gap.kind == "exhibit":
        return f"库中报告没有{gap.asked}" + (f"；现有：{held}。" if held else "。")
    if gap.kind == "period":
        # years take 年; a month (2025年11月) or a part (2024Q3, 2024H1) names its own
        unit, held_unit = ("年" if x.replace("、", "").isdigit() else "" for x in (gap.asked, held))
        return f"库中报告不含{gap.asked}{unit}的数据" + (
            f"（只覆盖{held.replace('、', '至')}{held_unit}）。" if held else "。"
        )
    return f"库中报告没有「{gap.asked}」" + (f"；表中现有：{held}。" if held else "。")
