"""Python bindings of the rentals pack.

Each function stands in for a call to the rental back office's test-data API and returns a
plausible payload shaped like the tool's `returns` schema. Ids follow the back office's formats:
BR-nnn branches, VH-nnnnn vehicles, CU-nnnnnn customers, RS-nnnnnn reservations.
"""
from __future__ import annotations

import datetime as _dt
import random
import string

_CLASS_MODELS = {
    "economy": "Kia Picanto",
    "compact": "Volkswagen Golf",
    "midsize": "Toyota Corolla",
    "suv": "Nissan Qashqai",
    "van": "Ford Tourneo Custom",
    "luxury": "BMW 5 Series",
}
_DAILY_RATE = {"economy": 39.0, "compact": 45.0, "midsize": 55.0, "suv": 72.0, "van": 89.0, "luxury": 140.0}


def _id(prefix: str, digits: int) -> str:
    return f"{prefix}-{random.randint(10 ** (digits - 1), 10 ** digits - 1)}"


def _plate() -> str:
    letters = string.ascii_uppercase
    return (f"{random.choice(letters)}{random.choice(letters)}{random.randint(10, 99)} "
            f"{''.join(random.choices(letters, k=3))}")


def _date(days_from_today: int) -> str:
    return (_dt.date.today() + _dt.timedelta(days=days_from_today)).isoformat()


# --- fleet -------------------------------------------------------------------------------------

def list_available_vehicles(branch_id: str, vehicle_class: str | None = None) -> dict:
    classes = [vehicle_class] if vehicle_class else list(_CLASS_MODELS)
    vehicles = []
    for cls in classes:
        for _ in range(random.randint(1, 3)):
            vehicles.append({"vehicle_id": _id("VH", 5), "vehicle_class": cls, "plate_number": _plate(),
                             "make_model": _CLASS_MODELS[cls], "status": "available"})
    return {"branch_id": branch_id, "vehicles": vehicles}


def register_vehicle(branch_id: str, vehicle_class: str, make_model: str | None = None,
                     plate_number: str | None = None, mileage: int = 0) -> dict:
    return {"vehicle_id": _id("VH", 5), "status": "available", "branch_id": branch_id,
            "vehicle_class": vehicle_class, "plate_number": plate_number or _plate(),
            "make_model": make_model or _CLASS_MODELS[vehicle_class]}


def send_vehicle_to_maintenance(vehicle_id: str, maintenance_reason: str = "scheduled_service",
                                expected_back_date: str | None = None) -> dict:
    return {"vehicle_id": vehicle_id, "status": "maintenance", "work_order_id": _id("WO", 6),
            "maintenance_reason": maintenance_reason}


# --- customers ---------------------------------------------------------------------------------

def find_customer_by_email(email: str) -> dict:
    local = email.split("@")[0]
    name = " ".join(p.capitalize() for p in local.replace("_", ".").split(".") if p) or "Test Renter"
    return {"customer_id": _id("CU", 6), "full_name": name, "email": email,
            "loyalty_tier": random.choice(["bronze", "silver", "gold"])}


def create_customer(email: str, full_name: str | None = None, phone: str | None = None,
                    date_of_birth: str | None = None, loyalty_tier: str = "bronze") -> dict:
    return {"customer_id": _id("CU", 6), "email": email, "full_name": full_name or "Test Renter",
            "loyalty_tier": loyalty_tier}


def add_driver_license(customer_id: str, license_number: str | None = None, license_country: str = "US",
                       license_expiry: str | None = None) -> dict:
    number = license_number or f"{random.choice(string.ascii_uppercase)}{random.randint(1000000, 9999999)}"
    return {"license_id": _id("DL", 6), "customer_id": customer_id, "license_number": number,
            "license_country": license_country, "license_expiry": license_expiry or _date(5 * 365),
            "verified": True}


def set_loyalty_tier(customer_id: str, loyalty_tier: str) -> dict:
    tiers = ["bronze", "silver", "gold", "platinum"]
    previous = random.choice([t for t in tiers if t != loyalty_tier])
    return {"customer_id": customer_id, "loyalty_tier": loyalty_tier, "previous_tier": previous}


# --- reservations ------------------------------------------------------------------------------

def create_reservation(customer_id: str, branch_id: str, vehicle_class: str, pickup_date: str | None = None,
                       rental_days: int = 3, return_branch_id: str | None = None) -> dict:
    start = _dt.date.fromisoformat(pickup_date) if pickup_date else _dt.date.today() + _dt.timedelta(days=1)
    return {"reservation_id": _id("RS", 6), "status": "booked", "customer_id": customer_id,
            "branch_id": branch_id, "vehicle_class": vehicle_class, "pickup_date": start.isoformat(),
            "return_date": (start + _dt.timedelta(days=rental_days)).isoformat()}


def get_reservation(reservation_id: str) -> dict:
    return {"reservation_id": reservation_id, "status": "returned", "customer_id": "CU-100001",
            "branch_id": "BR-101", "vehicle_id": _id("VH", 5), "vehicle_class": "economy",
            "pickup_date": _date(-4), "return_date": _date(-1), "deposit_id": _id("DP", 6),
            "charges_total": 0.0}


def confirm_reservation(reservation_id: str) -> dict:
    return {"reservation_id": reservation_id, "status": "confirmed", "vehicle_id": _id("VH", 5)}


def pick_up_vehicle(reservation_id: str, vehicle_id: str | None = None, mileage_out: int | None = None) -> dict:
    return {"reservation_id": reservation_id, "status": "picked_up", "vehicle_id": vehicle_id or _id("VH", 5),
            "rental_agreement_id": _id("RA", 6), "mileage_out": mileage_out or random.randint(5000, 60000)}


def return_vehicle(reservation_id: str, mileage_in: int | None = None, fuel_level: str = "full",
                   return_branch_id: str | None = None) -> dict:
    return {"reservation_id": reservation_id, "status": "returned", "vehicle_id": _id("VH", 5),
            "mileage_in": mileage_in, "fuel_level": fuel_level}


def close_reservation(reservation_id: str) -> dict:
    total = round(random.choice(list(_DAILY_RATE.values())) * 3, 2)
    return {"reservation_id": reservation_id, "status": "closed", "invoice_id": _id("INV", 7),
            "total_charged": total, "deposit_released": 300.0, "currency": "USD"}


def cancel_reservation(reservation_id: str, cancel_reason: str = "customer_request") -> dict:
    return {"reservation_id": reservation_id, "status": "cancelled", "cancel_reason": cancel_reason,
            "cancellation_fee": 0.0}


def mark_no_show(reservation_id: str) -> dict:
    return {"reservation_id": reservation_id, "status": "no_show", "deposit_forfeited": 300.0}


# --- billing and damage ------------------------------------------------------------------------

def collect_deposit(reservation_id: str, deposit_amount: float, currency: str = "USD",
                    payment_method: str = "card") -> dict:
    return {"deposit_id": _id("DP", 6), "reservation_id": reservation_id, "amount": float(deposit_amount),
            "currency": currency, "status": "held"}


def add_charge(reservation_id: str, charge_type: str, charge_amount: float, currency: str = "USD",
               note: str | None = None) -> dict:
    return {"charge_id": _id("CH", 6), "reservation_id": reservation_id, "charge_type": charge_type,
            "amount": float(charge_amount), "currency": currency}


def issue_refund(reservation_id: str, refund_amount: float, currency: str = "USD",
                 refund_reason: str | None = None) -> dict:
    return {"refund_id": _id("RF", 6), "reservation_id": reservation_id, "amount": float(refund_amount),
            "currency": currency, "status": "issued"}


def file_damage_report(vehicle_id: str, reservation_id: str | None = None, severity: str = "minor",
                       damage_description: str | None = None, estimated_cost: float | None = None,
                       currency: str = "USD") -> dict:
    return {"damage_report_id": _id("DMG", 6), "vehicle_id": vehicle_id, "reservation_id": reservation_id,
            "severity": severity,
            "estimated_cost": float(estimated_cost) if estimated_cost is not None else None,
            "currency": currency}
