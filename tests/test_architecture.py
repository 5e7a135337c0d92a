"""The house's rules, enforced: which part of rag_app may import which (docs/ARCHITECTURE.md),
no import circle (lazy imports included), one module that segments words, one of each word rule
(sentence splitter, year patterns, CJK range, language detector, token estimate, plural rule),
one SQLite opener, small modules, a UI-free core."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rag_app"

# The layers of rag_app, lowest first (docs/ARCHITECTURE.md draws them): a module imports its
# own part and the parts of lower layers, never a part of its own layer or one above it.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"models"}),
    frozenset({"protocols"}),
    frozenset({"text"}),  # the words room, tokens included
    frozenset({"stage_settings"}),
    frozenset({"config"}),
    frozenset({"database"}),  # where shared state lives: SQLite files, or one PostgreSQL database
    frozenset({"understand"}),  # the question's analysis and its follow-up resolution
    frozenset({"facts"}),  # table cells as facts, and the facts a question asks for
    frozenset({"ingest", "encoder"}),
    frozenset({"index"}),
    frozenset({"retrieve", "prompt"}),
    frozenset({"answer"}),
    frozenset({"cite"}),
    frozenset({"trust", "chat"}),
    frozenset({"access"}),  # who may read, change and manage each knowledge base
    frozenset({"pipeline"}),
    frozenset({"evaluation"}),  # the development sets' harness, and TAT-QA's metric
    frozenset({"evals"}),  # evaluation in the product: sets, runs, scores, comparisons
    frozenset({"server"}),
    frozenset({"cli"}),
)
LAYER = {part: n for n, parts in enumerate(LAYERS) for part in parts}
# Stages that are handed what they read and never reach for the library themselves.
NEVER: dict[str, frozenset[str]] = {
    part: frozenset({"ingest", "encoder", "index", "retrieve"})
    for part in ("prompt", "answer", "cite")
}
UI = frozenset({"streamlit", "ui", "views", "pages", "app", "streamlit_app"})
MAX_LINES = 450
ROOT = PACKAGE.parent
# The UI, above the whole core: ui/ (parts) under views/ (pages) under streamlit_app.py (the
# script every session runs) under app.py (the server serving it).
UI_LAYERS = {"ui": 0, "views": 1, "streamlit_app": 2, "app": 3}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    return rel.parts[0]


def _imports(path: Path) -> list[str]:
    """Every module an import statement in ``path`` names (at any depth: lazy imports count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _target(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "rag_app" and len(parts) > 1 else None


def _wrong_imports(part: str, modules: list[str]) -> list[str]:
    """The imports of a module of ``part`` that break the layers."""
    wrong = []
    for module in modules:
        if module.split(".")[0] in UI:
            wrong.append(module)
        target = _target(module)
        if target is None or target == part or target not in LAYER:
            continue
        if LAYER[target] >= LAYER[part] or target in NEVER.get(part, frozenset()):
            wrong.append(module)
    return wrong


def test_every_part_has_a_layer() -> None:
    parts = {_part(path) for path in _modules()} - {"__init__"}
    assert parts <= set(LAYER), f"parts without a layer: {sorted(parts - set(LAYER))}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_respect_the_layers(path: Path) -> None:
    wrong = _wrong_imports(_part(path), _imports(path))
    assert not wrong, f"{path.relative_to(PACKAGE)} ({_part(path)}) must not import {wrong}"


def _ui_modules() -> list[Path]:
    return [
        ROOT / "app.py",
        ROOT / "streamlit_app.py",
        *sorted((ROOT / "ui").rglob("*.py")),
        *(ROOT / "views").glob("*.py"),
    ]


@pytest.mark.parametrize("path", _ui_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_ui_imports_only_downwards(path: Path) -> None:
    """ui/ never imports a page or the entry; a page never imports the entry."""
    rel = path.relative_to(ROOT)
    here = UI_LAYERS[rel.parts[0].removesuffix(".py")]
    wrong = [
        m
        for m in _imports(path)
        if m.split(".")[0] in UI_LAYERS and UI_LAYERS[m.split(".")[0]] > here
    ]
    assert not wrong, f"{rel} must not import {wrong}"


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, at any depth (lazy and ``TYPE_CHECKING``
    imports count, relative ones resolved); ``from a.b import c`` points at the module ``a.b.c``
    when there is one, else at ``a.b``."""
    paths = {_module_name(path, package): path for path in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                named = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for module in named:
                while module and module not in paths:
                    module = module.rpartition(".")[0]
                if module and module != name:
                    graph[name].add(module)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or around a circle."""
    reach: dict[str, set[str]] = {}
    for start in graph:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for target in graph[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        reach[start] = seen
    groups = {
        frozenset({m} | {other for other in reach[m] if m in reach[other]})
        for m in graph
        if m in reach[m]
    }
    return sorted(sorted(group) for group in groups)


def test_no_import_circles() -> None:
    circles = _circles(_import_graph(PACKAGE)) + _circles(_import_graph(ROOT / "ui"))
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_circle_check_catches_a_lazy_circle(tmp_path: Path) -> None:
    """The checker itself: a circle closed by an import inside a function is reported."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from pkg.sub import b\n", encoding="utf-8")
    (package / "sub" / "b.py").write_text("def f():\n    from .c import g\n", encoding="utf-8")
    (package / "sub" / "c.py").write_text("def g():\n    from pkg import a\n", encoding="utf-8")
    (package / "d.py").write_text("import pkg.a\n", encoding="utf-8")
    assert _circles(_import_graph(package)) == [["pkg.a", "pkg.sub.b", "pkg.sub.c"]]


def test_no_module_imports_rag_app_by_name_at_run_time() -> None:
    """importlib with a string would hide an arrow from the layer test."""
    hidden = [
        str(path.relative_to(PACKAGE))
        for path in _modules()
        if 'import_module("rag_app' in path.read_text(encoding="utf-8")
        or "import_module('rag_app" in path.read_text(encoding="utf-8")
    ]
    assert not hidden


def test_only_the_analyzer_imports_jieba() -> None:
    importers = [
        str(path.relative_to(PACKAGE))
        for path in _modules()
        if any(m.split(".")[0] == "jieba" for m in _imports(path))
    ]
    assert importers == ["text/analyzer.py"]


def test_only_the_sentence_module_splits_sentences() -> None:
    splitters = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in (
                "split_sentences",
                "sentences",
                "segment_sentences",
            ):
                splitters.append(str(path.relative_to(PACKAGE)))
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "_SENTENCE_END" for t in node.targets
            ):
                splitters.append(str(path.relative_to(PACKAGE)))
    assert set(splitters) == {"text/sentences.py"}


def _strings(path: Path) -> list[str]:
    """The string constants of a module (f-strings' literal parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _everywhere() -> list[tuple[str, Path]]:
    """Every module of rag_app, ui/ and views/, app.py and streamlit_app.py, named from the
    repository root."""
    return [(str(p.relative_to(ROOT)), p) for p in [*_modules(), *_ui_modules()]]


def _holders(test: re.Pattern[str], source: bool = False) -> set[str]:
    """The modules whose string constants (or, with ``source``, whose text) ``test`` finds."""
    return {
        name
        for name, path in _everywhere()
        if (
            test.search(path.read_text(encoding="utf-8"))
            if source
            else any(test.search(s) for s in _strings(path))
        )
    }


def test_only_the_sentence_module_holds_sentence_ends() -> None:
    """A pattern of the Chinese full stops ("。！？") is a sentence splitter's."""
    assert _holders(re.compile("。！？")) <= {"rag_app/text/sentences.py"}


def test_only_the_periods_module_knows_what_a_year_looks_like() -> None:
    assert _holders(re.compile(r"19\|20|\b20\\d|\[12\]\\d")) == {"rag_app/text/periods.py"}


def test_one_module_holds_the_cjk_range() -> None:
    """The CJK blocks are spelt out once (as escapes or as characters); every other module
    reads ``CJK_CLASS`` or a named narrower reading from there."""
    cjk = re.compile(r"\\u(?:4e00|9fff|9fa5|3400|4dbf|f900)|[\u4e00\u9fa5\u9fff]-|-[\u9fa5\u9fff]")
    assert _holders(cjk, source=True) == {"rag_app/text/language.py"}


def _defined(names: re.Pattern[str]) -> set[str]:
    """The modules defining a function, method or class whose name ``names`` matches."""
    return {
        name
        for name, path in _everywhere()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and names.fullmatch(node.name)
    }


def test_one_language_detector() -> None:
    detectors = re.compile(
        r"detect_language|cjk_share|language_of|is_chinese|is_english|\w*cjk_count"
    )
    assert _defined(detectors) == {"rag_app/text/language.py"}


def test_tokens_are_estimated_only_as_the_tokenizers_fallback() -> None:
    """Anything that needs a token count asks a ``TokenCounter``; the one estimate is the
    fallback ``CharCounter`` beside the tokenizer."""
    estimators = _defined(re.compile(r"\w*(?:estimate|approx)\w*tokens?\w*|\w*Counter"))
    assert estimators == {"rag_app/text/tokens.py", "rag_app/protocols.py"}
    counters = set()
    for name, path in _everywhere():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in ("count", "truncate"):
                if node.args.args and node.args.args[-1].arg in ("text", "max_tokens"):
                    counters.add(name)
    assert counters <= {"rag_app/text/tokens.py", "rag_app/protocols.py"}


def test_one_plural_rule() -> None:
    """English plurals are matched, stemmed and counted by ``text/language.py`` alone."""
    rule = re.compile(
        r"endswith\(\s*[\"'](?:s|es|ies)[\"']|\(\?:e\?s\)\?|\(\?:s\)\?"
        r"|[\"']s[\"'] if [^\n]*[<>!=]=? ?1\b|not in \([\"'][\"'], ?[\"']1[\"']\)"
    )
    assert _holders(rule, source=True) == {"rag_app/text/language.py"}


def test_only_the_opener_connects_to_sqlite() -> None:
    """The catalogue, the conversations and the audit log open their files one way (WAL, busy
    timeout, migrations by ``user_version``): ``rag_app/database/sqlite.py``."""
    openers = {
        name
        for name, path in _everywhere()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "connect"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "sqlite3"
    }
    pragmas = _holders(re.compile(r"journal_mode|busy_timeout|user_version", re.I))
    assert openers == {"rag_app/database/sqlite.py"}
    assert pragmas == {"rag_app/database/sqlite.py"}


def test_no_module_is_too_long_to_hold() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in [*_modules(), *_ui_modules()]
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_the_rules_catch_a_wrong_import(tmp_path: Path) -> None:
    """The checker itself: a lazy import of a higher layer, of the same layer and of the library
    from a stage that is handed what it reads are each reported; a lower layer is not."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from rag_app.text.analyzer import index_tokens\n"
        "def f():\n    from rag_app.pipeline.ask import Pipeline\n"
        "def g():\n    from rag_app.retrieve.fusion import rrf\n"
        "def h():\n    from rag_app.index.library import Library\n",
        encoding="utf-8",
    )
    assert _wrong_imports("prompt", _imports(bad)) == [
        "rag_app.pipeline.ask",
        "rag_app.retrieve.fusion",
        "rag_app.index.library",
    ]
