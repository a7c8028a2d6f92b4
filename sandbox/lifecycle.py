"""The order state machine of the sandbox shop (pure: no I/O).

    created ──pay──► paid ──ship──► shipped ──confirm──► received ──review──► reviewed
       │               │               │                    │
     cancel        refund-only     return-refund / refund-only (also from received)
       ▼               ▼               ▼
    cancelled   refund_requested   return_requested ─approve_return─► return_approved
                  │        │                                            │ return_goods
          approve_refund  reject_refund (back where it was)             ▼
                  ▼                                               goods_returned ─approve_refund─► refunded
               refunded
    any after-sale state ──dispute──► disputed ──resolve──► refunded (buyer wins) | received (seller wins)
"""

from __future__ import annotations

from dataclasses import dataclass

LABELS_ZH = {
    "created": "待支付",
    "paid": "待发货",
    "shipped": "已发货",
    "received": "待评价",
    "reviewed": "已评价",
    "cancelled": "已取消",
    "refund_requested": "仅退款申请中",
    "return_requested": "退货退款申请中",
    "return_approved": "待买家退货",
    "goods_returned": "待商家退款",
    "refunded": "已退款",
    "disputed": "纠纷中",
}

AFTER_SALE = ("refund_requested", "return_requested", "return_approved", "goods_returned")

# action -> (states it may start from, state it leads to; None = decided by the action)
TRANSITIONS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "pay": (("created",), "paid"),
    "ship": (("paid",), "shipped"),
    "confirm_receipt": (("shipped",), "received"),
    "review": (("received",), "reviewed"),
    "cancel": (("created",), "cancelled"),
    "apply_refund": (("paid", "shipped", "received"), "refund_requested"),
    "reject_refund": (("refund_requested",), None),  # back to the state before the request
    "apply_return_refund": (("shipped", "received"), "return_requested"),
    "approve_return": (("return_requested",), "return_approved"),
    "return_goods": (("return_approved",), "goods_returned"),
    "approve_refund": (("refund_requested", "goods_returned"), "refunded"),
    "open_dispute": (AFTER_SALE, "disputed"),
    "resolve_dispute": (("disputed",), None),  # refunded or received, by the verdict
}


class TransitionError(Exception):
    """An action that the order's current state does not allow (HTTP 409)."""


@dataclass(frozen=True)
class Transition:
    action: str
    from_status: str
    to_status: str


def next_status(action: str, status: str, *, previous: str | None = None, verdict: str | None = None) -> Transition:
    """The transition `action` makes from `status`, or TransitionError explaining why not."""
    if action not in TRANSITIONS:
        raise TransitionError(f"unknown action {action!r}")
    sources, target = TRANSITIONS[action]
    if status not in sources:
        allowed = ", ".join(f"{s} ({LABELS_ZH[s]})" for s in sources)
        raise TransitionError(
            f"cannot {action} an order in state {status} ({LABELS_ZH.get(status, status)}); "
            f"{action} needs one of: {allowed}"
        )
    if action == "reject_refund":
        target = previous or "paid"
    elif action == "resolve_dispute":
        if verdict not in ("buyer", "seller"):
            raise TransitionError("resolve_dispute needs verdict 'buyer' or 'seller'")
        target = "refunded" if verdict == "buyer" else "received"
    assert target is not None
    return Transition(action, status, target)
