"""The knowledge index (LanceDB, embedded) and hybrid retrieval over it.

One row per tool and per rule: vector + text. Search fuses vector similarity and LanceDB's
native full-text search (ngram tokenizer, so Chinese is split) with reciprocal rank fusion.
`refresh()` re-embeds only documents whose text changed and drops the ones that went away.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from core.embedders import Embedder
from core.knowledge import Knowledge
from core.models import RetrievalHit, RuleSpec, ToolSpec

os.environ.setdefault("LANCE_LOG", "error")  # lance's Rust logger reads this once, before import

import lancedb  # noqa: E402 - after LANCE_LOG
from lancedb.index import FTS  # noqa: E402
from lancedb.rerankers import RRFReranker  # noqa: E402

Progress = Callable[[int, int], None]
FTS_CONFIG = FTS(base_tokenizer="ngram", ngram_min_length=1, ngram_max_length=2, stem=False,
                 remove_stop_words=False, ascii_folding=False, lower_case=True)


@dataclass
class IndexStats:
    added: int = 0
    removed: int = 0
    unchanged: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def tool_text(tool: ToolSpec) -> str:
    params = " ".join(f"{p.name} {p.description}" for p in tool.parameters)
    examples = " ".join(e.user_query for e in tool.examples)
    return f"{tool.tool_name} {tool.description} {examples} {params}"


def rule_text(rule: RuleSpec) -> str:
    steps = " ".join(f"{s.tool_name} {s.description}" for s in rule.dag_definition)
    return (f"{rule.rule_name} {rule.description} {' '.join(rule.trigger_phrases)} "
            f"{' '.join(e.user_query for e in rule.examples)} {steps}")


def documents(kn: Knowledge) -> list[dict[str, str]]:
    docs = [{"id": f"tool:{t.tool_name}", "kind": "tool", "name": t.tool_name, "pack": t.pack, "text": tool_text(t)}
            for t in kn.tools.values()]
    docs += [{"id": f"rule:{r.rule_name}", "kind": "rule", "name": r.rule_name, "pack": r.pack, "text": rule_text(r)}
             for r in kn.rules.values()]
    return docs


_FTS_UNSAFE = re.compile(r"[^\w\s]", re.UNICODE)
_held = threading.local()


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """An exclusive lock on a file, across processes (flock) and re-entrant within a thread."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth -= 1
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
            fcntl.flock(handle, fcntl.LOCK_UN)


class KnowledgeIndex:
    """A LanceDB table of tools and rules for one embedder, under `index_dir`."""

    def __init__(self, index_dir: Path, embedder: Embedder) -> None:
        self.embedder = embedder
        index_dir.mkdir(parents=True, exist_ok=True)
        self.lock_path = index_dir / ".refresh.lock"
        self.db = lancedb.connect(str(index_dir))
        self.table_name = "docs_" + re.sub(r"[^a-z0-9]+", "_", embedder.name.lower()).strip("_")
        self._reranker = RRFReranker()

    def _schema(self) -> pa.Schema:
        return pa.schema([("id", pa.string()), ("kind", pa.string()), ("name", pa.string()), ("pack", pa.string()),
                          ("text", pa.string()), ("hash", pa.string()),
                          ("vector", pa.list_(pa.float32(), self.embedder.dim))])

    def _table(self) -> Any:
        if self.table_name in self.db.list_tables().tables:
            return self.db.open_table(self.table_name)
        with _exclusive(self.lock_path):  # two first uses at once: one creates, the other opens
            return self.db.create_table(self.table_name, schema=self._schema(), exist_ok=True)

    def refresh(self, kn: Knowledge, progress: Progress | None = None, batch: int = 64) -> IndexStats:
        """Bring the index in line with the knowledge; embed only new or changed documents.
        Processes sharing a data dir take turns (a file lock); a document stored more than once
        (an index a crash or an older version left) is written again once."""
        with _exclusive(self.lock_path):
            return self._refresh(kn, progress, batch)

    def _refresh(self, kn: Knowledge, progress: Progress | None, batch: int) -> IndexStats:
        table = self._table()
        docs = documents(kn)
        for d in docs:
            d["hash"] = hashlib.sha256(f"{self.embedder.name}\0{d['text']}".encode()).hexdigest()[:16]
        rows = table.to_arrow().select(["id", "hash"]).to_pylist()
        existing = {r["id"]: r["hash"] for r in rows}
        twice = {i for i, n in Counter(r["id"] for r in rows).items() if n > 1}
        for i in twice:
            existing[i] = ""  # stored twice: delete every copy and add it once
        wanted = {d["id"]: d for d in docs}
        stale = [i for i, h in existing.items() if i not in wanted or wanted[i]["hash"] != h]
        fresh = [d for d in docs if existing.get(d["id"]) != d["hash"]]
        stats = IndexStats(added=len(fresh), removed=len([i for i in stale if i not in wanted]),
                           unchanged=len(docs) - len(fresh))
        if stale:
            quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in stale)
            table.delete(f"id IN ({quoted})")
        for start in range(0, len(fresh), batch):
            chunk = fresh[start:start + batch]
            vectors = self.embedder.passages([d["text"] for d in chunk])
            table.add([{**d, "vector": v.tolist()} for d, v in zip(chunk, vectors, strict=True)])
            if progress:
                progress(min(start + batch, len(fresh)), len(fresh))
        if stats.changed or not table.list_indices():
            table.create_index("text", config=FTS_CONFIG, replace=True)
        if len(fresh) > 256:
            table.optimize()
        return stats

    def search(self, text: str, k: int = 10) -> list[RetrievalHit]:
        """Hybrid search (vector + full text, RRF); vector only when the text has no searchable words."""
        table = self._table()
        text = text[:512]  # the embedders read at most 512 tokens; longer only costs time
        vector = self.embedder.query(text)
        words = _FTS_UNSAFE.sub(" ", text).strip()
        if words:
            query = table.search(query_type="hybrid").vector(vector).text(words).rerank(self._reranker)
            score_col = "_relevance_score"
        else:
            query = table.search(vector, query_type="vector")
            score_col = "_distance"
        rows = query.limit(k).to_list()
        hits = []
        for rank, row in enumerate(rows):
            score = float(row.get(score_col, 0.0))
            hits.append(RetrievalHit(kind=row["kind"], name=row["name"], rank=rank, text=row["text"],
                                     score=score if score_col != "_distance" else 1.0 - score))
        return hits

    def count(self) -> int:
        return int(self._table().count_rows())
