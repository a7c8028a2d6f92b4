"""Fake fleet-ops backend for the fleetops knowledge pack.

Small functions returning plausible dicts; nothing is persisted.
"""
import datetime as _dt
import random


def _n(k=4):
    return "".join(random.choice("0123456789") for _ in range(k))


def _now():
    return _dt.datetime.now().replace(microsecond=0).isoformat()


# ---- vehicles -------------------------------------------------------------
def get_vehicle(vehicle_id=None, plate=None, vin=None):
    return {
        "vehicle_id": vehicle_id or "VH-2231",
        "plate": plate or "粤B3K729",
        "vin": vin or "LGWEF4A58NH123456",
        "vehicle_type": "van",
        "depot": "nanshan",
        "status": "active",
        "current_driver_id": "DRV-10233",
        "device_imei": "860123456789012",
        "fuel_card_id": "FC-200117",
        "odometer_km": 48211,
    }


def create_vehicle(plate, vin, vehicle_type="van", depot="nanshan", model=None):
    return {"vehicle_id": "VH-" + _n(4), "plate": plate, "vin": vin,
            "vehicle_type": vehicle_type, "depot": depot, "model": model,
            "status": "registered"}


def set_vehicle_status(vehicle_id, status, reason=None):
    return {"vehicle_id": vehicle_id, "status": status, "reason": reason, "updated_at": _now()}


# ---- drivers --------------------------------------------------------------
def get_driver(driver_id):
    return {"driver_id": driver_id, "name": "张伟", "phone": "13800138000",
            "license_class": "C1", "license_expiry": "2027-03-31",
            "status": "active", "current_vehicle_id": "VH-2231"}


def find_driver_by_phone(phone):
    return {"driver_id": "DRV-" + _n(5), "name": "李娜", "phone": phone,
            "status": "active", "current_vehicle_id": None}


def create_driver(name, phone, license_class="C1", depot="nanshan"):
    return {"driver_id": "DRV-" + _n(5), "name": name, "phone": phone,
            "license_class": license_class, "depot": depot, "status": "active"}


def assign_driver(vehicle_id, driver_id, start_date=None):
    return {"assignment_id": "ASG-" + _n(6), "vehicle_id": vehicle_id,
            "driver_id": driver_id, "start_date": start_date or _dt.date.today().isoformat()}


def unassign_driver(vehicle_id, reason=None):
    return {"vehicle_id": vehicle_id, "previous_driver_id": "DRV-10233",
            "unassigned_at": _now(), "reason": reason}


# ---- devices --------------------------------------------------------------
def get_device(imei):
    return {"imei": imei, "model": "JT701", "vehicle_id": "VH-2231", "online": True,
            "last_heartbeat": _now(), "firmware": "3.2.7", "sim_iccid": "89860" + _n(15)}


def bind_device(imei, vehicle_id):
    return {"imei": imei, "vehicle_id": vehicle_id, "bound_at": _now(), "status": "bound"}


def unbind_device(imei, reason=None):
    return {"imei": imei, "previous_vehicle_id": "VH-2231", "unbound_at": _now(),
            "status": "unbound", "reason": reason}


# ---- trips ----------------------------------------------------------------
def create_trip(vehicle_id, route_id, driver_id=None, planned_start=None):
    return {"trip_id": "TRP-" + _n(6), "vehicle_id": vehicle_id, "route_id": route_id,
            "driver_id": driver_id or "DRV-10233", "planned_start": planned_start,
            "status": "scheduled"}


def start_trip(trip_id, start_odometer_km=None):
    return {"trip_id": trip_id, "status": "in_progress", "started_at": _now()}


def end_trip(trip_id, distance_km=None):
    return {"trip_id": trip_id, "status": "completed", "ended_at": _now(),
            "distance_km": distance_km if distance_km is not None else 37.4}


def list_trips(vehicle_id=None, driver_id=None, date_from=None, date_to=None, status=None):
    return {"total": 2, "trips": [
        {"trip_id": "TRP-104522", "vehicle_id": vehicle_id or "VH-2231", "route_id": "RT-118",
         "driver_id": driver_id or "DRV-10233", "status": "completed", "distance_km": 42.1},
        {"trip_id": "TRP-104530", "vehicle_id": vehicle_id or "VH-2231", "route_id": "RT-120",
         "driver_id": driver_id or "DRV-10233", "status": "in_progress", "distance_km": 12.8},
    ]}


# ---- geofences ------------------------------------------------------------
def create_geofence(lat, lng, name=None, radius_m=200, fence_type="customer"):
    return {"geofence_id": "GF-" + _n(4), "name": name or f"fence-{lat},{lng}",
            "lat": lat, "lng": lng, "radius_m": radius_m, "fence_type": fence_type}


def attach_geofence(geofence_id, vehicle_id, alert_on="both"):
    return {"geofence_id": geofence_id, "vehicle_id": vehicle_id, "alert_on": alert_on,
            "attached_at": _now()}


# ---- maintenance ----------------------------------------------------------
def create_work_order(vehicle_id, wo_type, due_date=None, description=None, garage=None):
    return {"work_order_id": "WO-" + _n(6), "vehicle_id": vehicle_id, "wo_type": wo_type,
            "due_date": due_date, "description": description, "garage": garage, "status": "open"}


def close_work_order(work_order_id, cost=None, notes=None):
    return {"work_order_id": work_order_id, "vehicle_id": "VH-2231", "status": "closed",
            "cost": cost, "closed_at": _now()}


# ---- fuel cards -----------------------------------------------------------
def issue_fuel_card(vehicle_id, monthly_limit=3000, fuel_type="diesel"):
    return {"card_id": "FC-" + _n(6), "vehicle_id": vehicle_id,
            "monthly_limit": monthly_limit, "fuel_type": fuel_type, "status": "active"}


def freeze_fuel_card(card_id, reason=None):
    return {"card_id": card_id, "status": "frozen", "reason": reason, "frozen_at": _now()}


# ---- alerts ---------------------------------------------------------------
def list_alerts(vehicle_id=None, driver_id=None, alert_type=None, date_from=None,
                date_to=None, limit=50):
    return {"total": 1, "alerts": [
        {"alert_id": "ALT-" + _n(6), "vehicle_id": vehicle_id or "VH-2231",
         "driver_id": driver_id or "DRV-10233", "alert_type": alert_type or "speeding",
         "speed_kmh": 92, "limit_kmh": 60, "at": _now(), "lat": 22.5431, "lng": 113.9347},
    ]}
