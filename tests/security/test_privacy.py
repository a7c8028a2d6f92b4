"""Personal data: redacted however it was typed, private files, kept for a resume only for a while."""

from __future__ import annotations

import asyncio
import stat
from datetime import timedelta
from pathlib import Path

from core.assistant import Assistant
from core.knowledge import Knowledge
from core.models import Request, utcnow
from core.settings import Settings

NATIONAL_ID = "110101199003071234"
FULL_WIDTH = "".join(chr(ord(c) + 0xFEE0) for c in NATIONAL_ID)  # １１０１…


def raw_store(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.glob("*.sqlite3*"))


def test_pii_typed_in_full_width_digits_is_not_kept_in_clear(settings_for, shop_knowledge: Knowledge) -> None:  # noqa: ANN001
    settings: Settings = settings_for()
    a = Assistant(settings, shop_knowledge)
    try:
        report = asyncio.run(a.handle(Request(text=f"新建一个买家,名叫张三,身份证号{FULL_WIDTH}", user="U1")))
        assert report.run is not None and report.run.status == "succeeded"
        assert report.run.steps[0].arguments["national_id"] == "***"
        a.store.fold()
    finally:
        a.close()
    raw = raw_store(settings.home)
    for form in (NATIONAL_ID, FULL_WIDTH):
        for encoding in ("utf-8", "utf-16-le"):
            assert form.encode(encoding) not in raw, (form, encoding)
    assert b"***" in raw  # the request text was stored, redacted


def test_the_data_dir_and_stores_are_private(settings_for, shop_knowledge: Knowledge) -> None:  # noqa: ANN001
    settings: Settings = settings_for()
    a = Assistant(settings, shop_knowledge)
    try:
        asyncio.run(a.handle(Request(text="给商品123456下一单")))
    finally:
        a.close()
    assert stat.S_IMODE(settings.home.stat().st_mode) == 0o700
    for db in settings.home.glob("*.sqlite3*"):
        assert stat.S_IMODE(db.stat().st_mode) & 0o077 == 0, db


def test_values_kept_for_a_resume_expire(settings_for, shop_knowledge: Knowledge) -> None:  # noqa: ANN001
    from tests.e2e.test_shop_over_http import faults

    settings: Settings = settings_for()
    sandbox_url = f"http://127.0.0.1:{settings.environ['SHOP_SANDBOX_PORT']}"

    class S:
        url = sandbox_url

    a = Assistant(settings, shop_knowledge)
    try:
        with faults(S, method="POST", path="/pay$", status=500, times=5):  # type: ignore[arg-type]
            paused = asyncio.run(a.handle(Request(text="给商品123456生成一笔已支付的订单"))).run
        assert paused is not None and paused.status == "paused" and a.store.load_vars(paused.run_id)
        expired = a.store.expire_vars(utcnow() + timedelta(seconds=1))  # as if the retention had passed
        assert expired == [paused.run_id] and a.store.load_vars(paused.run_id) == {}
        refused = asyncio.run(a.resume(paused.run_id, "retry"))
        assert refused.error is not None and "expired" in refused.error.message
    finally:
        a.close()
