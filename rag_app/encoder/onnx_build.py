"""Export the built multilingual-e5-small folder to ONNX Runtime models, offline, at set-up.

The same weights as the torch model, run by ONNX Runtime (docs/ENCODER.md has the numbers):

- ``onnx/model.onnx``: float32, the graph exported by the legacy ``torch.onnx.export``
  (``dynamo=False``, opset 17; the dynamo exporter and optimum do not work with the installed
  transformers, RECIPES "A faster encoder"), then with attention, layer norm and GELU fused by
  ``onnxruntime.transformers.optimizer`` for BERT (long passages gain little until attention is
  fused);
- ``onnx/model_int8.onnx``: the same, weights quantised to int8 per channel with dynamic
  activation quantisation (``quantize_dynamic``), which this CPU runs with AVX-512 VNNI.

The exported graph takes ``input_ids, attention_mask`` and returns ``last_hidden_state``; mean
pooling and normalising happen in numpy (``onnx_encoder``), as sentence-transformers does.

Idempotent and atomic like ``e5_build``: files go into a temporary sibling folder, then it is
renamed into place; the marker ``onnx/build.json``, written last, names the format version.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ONNX_DIR = "onnx"
ONNX_MARKER = "build.json"
# Bump whenever the files written here change: an older export is rebuilt at the next set-up.
ONNX_FORMAT_VERSION = 2  # 2: int8 weights per channel
FILES = {"onnx": "model.onnx", "onnx-int8": "model_int8.onnx"}
# multilingual-e5-small: 12 heads, hidden 384 (its config.json; read from there at build time).
OPSET = 17

Progress = Callable[[str], None]


class OnnxBuildError(RuntimeError):
    """The ONNX export failed; the torch runtime is unaffected."""


def onnx_path(model_dir: Path, runtime: str) -> Path:
    """Where ``runtime`` (``onnx`` or ``onnx-int8``) lives inside the model folder."""
    return Path(model_dir) / ONNX_DIR / FILES[runtime]


def onnx_is_built(model_dir: Path) -> bool:
    """True if ``model_dir/onnx`` holds a complete export in the current format version."""
    try:
        info = json.loads((Path(model_dir) / ONNX_DIR / ONNX_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(info, dict)
        and info.get("format_version") == ONNX_FORMAT_VERSION
        and all(onnx_path(model_dir, r).is_file() for r in FILES)
    )


def build_onnx(model_dir: Path, *, progress: Progress | None = None) -> Path:
    """Export ``model_dir`` (a built e5 sentence-transformers folder) to ``model_dir/onnx``.

    Returns the onnx folder. Idempotent: returns at once when a current export is there.

    Raises:
        OnnxBuildError: torch, onnx or onnxruntime is missing, or the export or check failed;
            the message says that the torch runtime still works.
    """
    model_dir = Path(model_dir)
    say: Progress = progress or (lambda _line: None)
    target = model_dir / ONNX_DIR
    if onnx_is_built(model_dir):
        say(f"ONNX encoders already built: {target}")
        return target
    started = time.perf_counter()
    staging = model_dir / ".onnx.unmade"
    try:
        staging = Path(tempfile.mkdtemp(prefix=".onnx.building-", dir=model_dir))
        staging.chmod(0o755)
        with warnings.catch_warnings():
            # torch's tracer warnings and the quantiser's root-logger advice are not for users.
            warnings.simplefilter("ignore")
            root = logging.getLogger()
            level = root.level
            root.setLevel(logging.ERROR)
            try:
                _export(model_dir, staging, say)
            finally:
                root.setLevel(level)
        _move_into_place(staging, target)
    except Exception as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OnnxBuildError):
            raise
        raise OnnxBuildError(
            f"building the ONNX encoders failed ({type(exc).__name__}: {exc}); the torch "
            "runtime still works (RAG_APP_ENCODER_RUNTIME=torch)"
        ) from exc
    say(f"built ONNX encoders (fp32, int8) at {target} in {time.perf_counter() - started:.1f} s")
    return target


def _export(model_dir: Path, out: Path, say: Progress) -> None:
    try:
        import onnx
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.transformers.optimizer import optimize_model
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise OnnxBuildError(
            f"cannot build the ONNX encoders: {exc}; the torch runtime still works"
        ) from exc

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    say("exporting the encoder to ONNX (torch.onnx, opset 17)")
    hf_logging.disable_progress_bar()
    # "eager" attention exports the plain MatMul-Softmax pattern the optimizer fuses; the
    # default (sdpa) exports NaN guards it does not recognise.
    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()

    class LastHidden(torch.nn.Module):
        # Keyword call: BertModel's positional arguments shifted across transformers versions.
        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    # torch's vectors for the check, taken before exporting: after the export the same module
    # gave different ones (cosine 0.985), while a fresh load agrees with the ONNX file to 1.000.
    expected = _torch_vectors(model)
    raw = out / "raw.onnx"
    sample = torch.ones((2, 8), dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(
            LastHidden(model),
            (sample, torch.ones_like(sample)),
            str(raw),
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "last_hidden_state": {0: "batch", 1: "sequence"},
            },
            opset_version=OPSET,
            dynamo=False,
        )
    say("fusing attention (onnxruntime.transformers optimizer, BERT)")
    optimized = optimize_model(
        str(raw),
        model_type="bert",
        num_heads=int(config["num_attention_heads"]),
        hidden_size=int(config["hidden_size"]),
        opt_level=1,
    )
    optimized.save_model_to_file(str(out / FILES["onnx"]))
    raw.unlink()
    say("quantising to int8 (dynamic)")
    quantize_dynamic(
        str(out / FILES["onnx"]),
        str(out / FILES["onnx-int8"]),
        weight_type=QuantType.QInt8,
        # One scale per output channel, not per matrix: cosine to torch 0.997 instead of 0.986
        # on 293 tatqa_dev chunks, at the same speed (docs/ENCODER.md).
        per_channel=True,
        # Fused ops (com.microsoft domain) defeat shape inference; their outputs are float.
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    say("checking both against torch")
    _check_against_torch(expected, out)
    (out / ONNX_MARKER).write_text(
        json.dumps(
            {
                "format_version": ONNX_FORMAT_VERSION,
                "opset": OPSET,
                "files": FILES,
                "torch": torch.__version__,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )


# Two token sequences of different lengths in one batch, so padding and the mask count too.
_CHECK_IDS = [[0, 6, 3293, 35550, 4, 2], [0, 33683, 1649, 2, 1, 1]]


def _torch_vectors(model: Any) -> Any:
    import numpy as np
    import torch

    ids = np.array(_CHECK_IDS, dtype=np.int64)
    mask = (ids != 1).astype(np.int64)
    with torch.no_grad():
        hidden = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
    return _pool(hidden.last_hidden_state.numpy(), mask)


def _check_against_torch(expected: Any, out: Path) -> None:
    """Raise OnnxBuildError unless both files give torch's mean-pooled vectors (a broken export
    would still run, only into nonsense): cosine >= 0.999 for fp32, >= 0.98 for int8."""
    import numpy as np
    import onnxruntime as ort

    ids = np.array(_CHECK_IDS, dtype=np.int64)
    mask = (ids != 1).astype(np.int64)
    for runtime, floor in (("onnx", 0.999), ("onnx-int8", 0.98)):
        session = ort.InferenceSession(
            str(out / FILES[runtime]), providers=["CPUExecutionProvider"]
        )
        (got,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
        cosine = float((_pool(got, mask) * expected).sum(axis=1).min())
        if cosine < floor:
            raise OnnxBuildError(
                f"the exported {runtime} model disagrees with torch (cosine {cosine:.4f} < "
                f"{floor}); the torch runtime still works"
            )


def _pool(hidden: Any, mask: Any) -> Any:
    weights = mask[:, :, None].astype("float32")
    pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
    return pooled / ((pooled**2).sum(axis=1, keepdims=True) ** 0.5)


def _move_into_place(staging: Path, target: Path) -> None:
    if target.exists():
        if onnx_is_built(target.parent):  # another process finished first
            shutil.rmtree(staging, ignore_errors=True)
            return
        aside = Path(tempfile.mkdtemp(prefix=".onnx.old-", dir=target.parent))
        os.rename(target, aside / ONNX_DIR)
        os.rename(staging, target)
        shutil.rmtree(aside, ignore_errors=True)
        return
    os.rename(staging, target)
