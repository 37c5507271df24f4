#!/usr/bin/env python3
"""Independent reference shortest distances on the Monaco extract, for the router cross-check test.

Reads the PBF with pyosmium (libosmium's decoder, not ours), builds a directed car road graph with networkx from
the OSM tags (written from the OSM wiki, not from our Swift profile), and computes plain Dijkstra distances
between random node pairs of the largest strongly connected component. Turn restrictions are not modelled, so
the Swift side compares against its graph imported without them (see docs/routing.md, "Cross-check").

    pip install osmium networkx
    python3 Scripts/routing-reference/monaco_reference.py Maps/monaco.osm.pbf \
        > Tests/RoadRoutingTests/Fixtures/monaco-car-reference.csv
"""
import csv
import math
import random
import sys

import networkx
import osmium

CAR_HIGHWAYS = {
    "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
    "tertiary", "tertiary_link", "unclassified", "residential", "living_street", "service", "road",
}
DENIED = {"no", "private", "agricultural", "forestry", "military", "use_sidepath"}
ALLOWED = {"yes", "designated", "permissive", "destination", "delivery", "customers", "official"}


def car_may_use(tags):
    if tags.get("highway") not in CAR_HIGHWAYS or tags.get("area") == "yes":
        return False
    for key in ("motorcar", "motor_vehicle", "vehicle", "access"):
        value = tags.get(key)
        if value in DENIED:
            return False
        if value in ALLOWED:
            return True
    return True


def directions(tags):
    oneway = tags.get("oneway")
    roundabout = tags.get("junction") in ("roundabout", "circular")
    if oneway in ("yes", "true", "1"):
        return True, False
    if oneway in ("-1", "reverse"):
        return False, True
    if oneway in ("no", "false", "0"):
        return True, True
    if roundabout or tags.get("highway") == "motorway":
        return True, False
    return True, True


def haversine(a, b):
    radius = 6_371_008.8
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * radius * math.atan2(math.sqrt(h), math.sqrt(1 - h))


class Roads(osmium.SimpleHandler):
    def __init__(self):
        super().__init__()
        self.ways = []

    def way(self, way):
        tags = {tag.k: tag.v for tag in way.tags}
        if car_may_use(tags):
            refs = [(node.ref, node.location.lat, node.location.lon) for node in way.nodes if node.location.valid()]
            self.ways.append((refs, directions(tags)))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "Maps/monaco.osm.pbf"
    roads = Roads()
    roads.apply_file(path, locations=True)
    graph = networkx.DiGraph()
    position = {}
    for refs, (forward, backward) in roads.ways:
        for (a, lat_a, lon_a), (b, lat_b, lon_b) in zip(refs, refs[1:]):
            if a == b:
                continue
            position[a] = (lat_a, lon_a)
            position[b] = (lat_b, lon_b)
            length = haversine(position[a], position[b])
            for source, target, allowed in ((a, b, forward), (b, a, backward)):
                if allowed and (not graph.has_edge(source, target) or graph[source][target]["weight"] > length):
                    graph.add_edge(source, target, weight=length)
    component = sorted(max(networkx.strongly_connected_components(graph), key=len))
    generator = random.Random(20261123)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["from_osm_node", "to_osm_node", "from_lat", "from_lon", "to_lat", "to_lon", "distance_m"])
    for _ in range(150):
        source, target = generator.choice(component), generator.choice(component)
        distance = networkx.dijkstra_path_length(graph, source, target, weight="weight")
        writer.writerow([source, target, *position[source], *position[target], f"{distance:.2f}"])
    print(f"{graph.number_of_nodes()} nodes, {graph.number_of_edges()} arcs, main component {len(component)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
