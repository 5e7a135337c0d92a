"""A table's rows counted by a category the question writes (rag_app/facts/categories.py, with
the count line of rag_app/answer/fact_counts.py)."""

from __future__ import annotations

from rag_app.answer.fact_lines import fact_value_lines
from rag_app.facts.categories import category_rows
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query
from rag_app.understand.operations import Operation

_FABS = (
    "<table><tr><th>序号</th><th>晶圆尺寸</th><th>厂区</th><th>状态</th></tr>"
    "<tr><td>1</td><td>8英寸</td><td>上海S1</td><td>量产</td></tr>"
    "<tr><td>2</td><td>8英寸</td><td>天津T1</td><td>量产</td></tr>"
    "<tr><td>3</td><td>12英寸</td><td>北京B1</td><td>量产</td></tr>"
    "<tr><td>4</td><td>12英寸</td><td>上海（12英寸）</td><td>在建</td></tr>"
    "<tr><td>5</td><td>12英寸</td><td>临港</td><td>在建</td></tr></table>"
)
SOURCES = [(3, Chunk("f", "d", "table", "", "", (0,), table_html=_FABS, header_rows=1))]


def test_the_rows_of_the_category_the_question_writes() -> None:
    twelve = category_rows("中芯国际有几条12英寸产线？", SOURCES)
    assert twelve is not None and (twelve.column, twelve.value) == ("晶圆尺寸", "12英寸")
    assert twelve.names == ("北京B1", "上海（12英寸）", "临港") and twelve.total == 5
    building = category_rows("在建的有几条？", SOURCES)
    assert building is not None and building.names == ("上海（12英寸）", "临港")
    # a name, not a category; a value no column holds; two categories at once
    assert category_rows("临港有几条产线？", SOURCES) is None
    assert category_rows("有几条18英寸产线？", SOURCES) is None
    assert category_rows("在建的12英寸产线有几条？", SOURCES) is None


def test_a_count_of_a_category_is_a_line_naming_its_rows() -> None:
    query = analyse_query("中芯国际有几座8英寸晶圆厂？")
    query._lazy["operation"] = Operation("count", 0.97)
    assert fact_value_lines(query, SOURCES) == [
        "晶圆尺寸为8英寸的行（上海S1; 天津T1）：2 [Source 3]"
    ]
