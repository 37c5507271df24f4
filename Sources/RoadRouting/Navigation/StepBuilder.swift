import LogisticsCore

/// Groups a route's pieces into steps: a new step where the road name changes, at a real turn where the rider has
/// a choice, and at roundabouts (one step from entry to exit, with the exit number).
struct StepBuilder {
    let map: RoadMap
    let legs: [RouteNarrator.Leg]
    /// The door the route leads to, off the road; nil when only the road's end is known.
    var destination: GeoPoint?

    private struct Draft {
        var type: String
        var modifier: String?
        var location: GeoPoint
        var bearingAfter: Double
        var exit: Int?
        var name: String
        var distanceM = 0.0
        var durationS = 0.0
        var geometryStart: Int
        var geometryEnd: Int
    }

    /// `end` places the arrival when the route has no pieces (start and destination snapped to one point).
    func steps(end: GeoPoint) -> [RouteStep] {
        var drafts: [Draft] = []
        if let first = legs.first {
            drafts.append(
                Draft(
                    type: first.isRoundabout ? "roundabout" : "depart", modifier: nil, location: first.start,
                    bearingAfter: first.bearing, name: first.name, geometryStart: 0, geometryEnd: 0))
        }
        var exitsPassed = 0
        var roundaboutEntryBearing: Double?
        for (index, leg) in legs.enumerated() {
            if index > 0 {
                let previous = legs[index - 1]
                let turn = Bearing.turn(from: previous.bearing, to: leg.bearing)
                if let entryBearing = roundaboutEntryBearing {
                    if leg.isRoundabout {
                        if let node = previous.endNode, hasExit(at: node) { exitsPassed += 1 }
                    } else {
                        // Leaving the roundabout: the step continues onto the exit road.
                        drafts[drafts.count - 1].exit = exitsPassed + 1
                        drafts[drafts.count - 1].modifier = Self.modifier(
                            Bearing.turn(from: entryBearing, to: leg.bearing))
                        drafts[drafts.count - 1].name = leg.name
                        roundaboutEntryBearing = nil
                    }
                } else if leg.isRoundabout {
                    roundaboutEntryBearing = previous.bearing
                    exitsPassed = 0
                    drafts.append(newDraft("roundabout", modifier: nil, leg: leg, index: index))
                } else if leg.name != previous.name {
                    let modifier = Self.modifier(turn)
                    drafts.append(
                        newDraft(
                            modifier == "straight" ? "new name" : "turn", modifier: modifier, leg: leg, index: index))
                } else if abs(turn) >= 45, let node = previous.endNode,
                    hasChoice(at: node, arrivingFrom: previous.startNode)
                {
                    drafts.append(newDraft("continue", modifier: Self.modifier(turn), leg: leg, index: index))
                }
            }
            drafts[drafts.count - 1].distanceM += leg.distanceM
            drafts[drafts.count - 1].durationS += leg.durationS
            drafts[drafts.count - 1].geometryEnd = index + 1
        }
        if roundaboutEntryBearing != nil, !drafts.isEmpty {
            // The destination is on the roundabout itself.
            drafts[drafts.count - 1].exit = exitsPassed + 1
        }
        let last = legs.count
        let roadEnd = legs.last?.end ?? end
        let side = legs.last.map { leg in
            DestinationSide.modifier(arrivingBearing: leg.bearing, roadEnd: roadEnd, door: destination ?? roadEnd)
        }
        drafts.append(
            Draft(
                type: "arrive", modifier: side, location: roadEnd, bearingAfter: 0,
                name: legs.last?.name ?? "",
                geometryStart: last, geometryEnd: last))
        let instructions = drafts.map(Self.instruction)
        return drafts.enumerated().map { index, draft in
            let next = index + 1 < drafts.count ? (draft: drafts[index + 1], instruction: instructions[index + 1]) : nil
            return RouteStep(
                maneuver: Maneuver(
                    type: draft.type, modifier: draft.modifier, location: draft.location.rounded(),
                    bearingAfter: Int(draft.bearingAfter.rounded()) % 360, exit: draft.exit),
                name: draft.name, distanceM: draft.distanceM.roundedTo(1), durationS: draft.durationS.roundedTo(1),
                instruction: instructions[index],
                voiceInstructions: voice(draft, instruction: instructions[index], next: next, isFirst: index == 0),
                geometryStart: draft.geometryStart, geometryEnd: draft.geometryEnd)
        }
    }

    private func newDraft(_ type: String, modifier: String?, leg: RouteNarrator.Leg, index: Int) -> Draft {
        Draft(
            type: type, modifier: modifier, location: leg.start, bearingAfter: leg.bearing, name: leg.name,
            geometryStart: index, geometryEnd: index)
    }

    /// A node on a roundabout counts as an exit if a non-roundabout road leaves it.
    private func hasExit(at node: Int32) -> Bool {
        let graph = map.graph
        return graph.arcs(from: node).contains { !graph.wayIsRoundabout[Int(graph.arcWay[$0])] }
    }

    /// Whether the rider could have gone another way at this node (not counting going back).
    private func hasChoice(at node: Int32, arrivingFrom previous: Int32) -> Bool {
        let graph = map.graph
        let arcs = graph.arcs(from: node)
        let onward = { (arc: Int) in graph.originalNode[Int(graph.arcTarget[arc])] }
        // A node has a handful of arcs: counting distinct ways on without building a set spares an allocation per
        // turn.
        var distinct = 0
        for arc in arcs where onward(arc) != previous {
            if !arcs[..<arc].contains(where: { onward($0) == onward(arc) }) { distinct += 1 }
            if distinct >= 2 { return true }
        }
        return false
    }

    static func modifier(_ turn: Double) -> String {
        let side = turn > 0 ? "right" : "left"
        switch abs(turn) {
        case ..<20: return "straight"
        case ..<60: return "slight \(side)"
        case ..<140: return side
        case ..<170: return "sharp \(side)"
        default: return "uturn"
        }
    }

    private static func instruction(for draft: Draft) -> String {
        InstructionText.instruction(
            type: draft.type, modifier: draft.modifier, name: draft.name, exit: draft.exit,
            bearingAfter: draft.bearingAfter)
    }

    /// Announcements for the maneuver that ends this step, spoken at distances a rider can act on: early
    /// warnings at 400 m and 150 m when the step is long enough, then the instruction itself ~30 m before.
    private func voice(
        _ draft: Draft, instruction head: String, next: (draft: Draft, instruction: String)?, isFirst: Bool
    ) -> [VoiceInstruction] {
        guard let next else { return [] }
        let arriving = next.draft.type == "arrive"
        // Before the door the words are of what is ahead; "You have arrived" only where the rider has (the last
        // 30 m, the apps' arrival radius along the route).
        let nextText = arriving ? DestinationSide.ahead(modifier: next.draft.modifier) : next.instruction
        let finalText = arriving ? "You have arrived at your destination" : nextText
        let length = draft.distanceM
        var announcements: [VoiceInstruction] = []
        if isFirst {
            if arriving && length <= Self.arrivalRadiusM {
                return [VoiceInstruction(distanceAlongStepM: 0, announcement: finalText)]
            }
            if arriving && length < 200 {
                // Too short for a warning at 150 m: the start says where the door is and how far.
                let ahead =
                    length < 100
                    ? nextText : "in \(Int((length / 10).rounded()) * 10) meters, \(Self.lowercasedFirst(nextText))"
                return [
                    VoiceInstruction(
                        distanceAlongStepM: 0, announcement: "\(head), then \(Self.lowercasedFirst(ahead))"),
                    VoiceInstruction(
                        distanceAlongStepM: (length - Self.arrivalRadiusM).roundedTo(1), announcement: finalText),
                ]
            }
            if length < 100 {
                return [
                    VoiceInstruction(
                        distanceAlongStepM: 0, announcement: "\(head), then \(Self.lowercasedFirst(finalText))")
                ]
            }
            announcements.append(VoiceInstruction(distanceAlongStepM: 0, announcement: head))
        }
        for warning in [400.0, 150.0] where length - warning >= 50 {
            announcements.append(
                VoiceInstruction(
                    distanceAlongStepM: (length - warning).roundedTo(1),
                    announcement: "In \(Int(warning)) meters, \(Self.lowercasedFirst(nextText))"))
        }
        announcements.append(
            VoiceInstruction(
                distanceAlongStepM: max(0, length - Self.arrivalRadiusM).roundedTo(1), announcement: finalText))
        return announcements
    }

    /// Where the last announcement of a step is spoken, before its end; for the arrival, the apps' arrival radius.
    static let arrivalRadiusM = 30.0

    private static func lowercasedFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
