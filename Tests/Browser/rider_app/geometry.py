"""Geometry: routes from the API, points along them, distances."""

import math

from .api import DISPATCHER


def decode_polyline(text, precision=6):
    points, index, lat, lon = [], 0, 0, 0
    factor = 10 ** precision
    while index < len(text):
        for which in range(2):
            shift = result = 0
            while True:
                byte = ord(text[index]) - 63
                index += 1
                result |= (byte & 0x1F) << shift
                shift += 5
                if byte < 0x20:
                    break
            delta = ~(result >> 1) if result & 1 else result >> 1
            if which == 0:
                lat += delta
            else:
                lon += delta
        points.append((lat / factor, lon / factor))
    return points


def metres(a, b):
    """Distance in metres between two (lat, lon) points (equirectangular; fine within a city)."""
    x = math.radians(b[1] - a[1]) * math.cos(math.radians((a[0] + b[0]) / 2))
    y = math.radians(b[0] - a[0])
    return 6_371_000 * math.hypot(x, y)


def resample(points, step):
    """Points every `step` metres along a polyline."""
    out = [points[0]]
    carry = 0.0
    for a, b in zip(points, points[1:]):
        length = metres(a, b)
        position = step - carry
        while position <= length:
            share = position / length
            out.append((a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share))
            position += step
        carry = (carry + length) % step if length else carry
    if out[-1] != points[-1]:
        out.append(points[-1])
    return out


def distance_to_line(point, line):
    best = float("inf")
    for a, b in zip(line, line[1:]):
        scale = math.cos(math.radians(point[0]))
        ax, ay = (a[1] - point[1]) * scale, a[0] - point[0]
        bx, by = (b[1] - point[1]) * scale, b[0] - point[0]
        dx, dy = bx - ax, by - ay
        share = 0 if dx == dy == 0 else max(0, min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(ax + share * dx, ay + share * dy) * 111_320)
    return best


def road_route(server, a, b):
    """The route between two points as the dispatcher's API gives it: points, step instructions, announcements."""
    route = server.call("GET", f"/api/v1/routes?from={a[0]},{a[1]}&to={b[0]},{b[1]}", DISPATCHER)
    steps = [step for leg in route["legs"] for step in leg["steps"]]
    return {"points": decode_polyline(route["geometry"]), "distanceM": route["distanceM"],
            "instructions": {step["instruction"] for step in steps if step.get("instruction")},
            "announcements": {voice["announcement"] for step in steps for voice in step.get("voiceInstructions", [])}}
