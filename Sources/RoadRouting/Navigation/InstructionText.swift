/// English instructions for maneuvers, shared by the built-in router and the external provider adapter (OSRM
/// answers carry maneuvers but no text).
public enum InstructionText {
    public static func instruction(
        type: String, modifier: String?, name: String, exit: Int?, bearingAfter: Double
    ) -> String {
        let onto = name.isEmpty ? "" : " onto \(name)"
        switch type {
        case "depart": return "Head \(Bearing.cardinal(bearingAfter))" + (name.isEmpty ? "" : " on \(name)")
        case "arrive": return "You have arrived at your destination"
        case "roundabout", "rotary":
            let exit = exit.map { " and take the \(ordinal($0)) exit" } ?? ""
            return "Enter the roundabout\(exit)\(onto)"
        case "new name": return "Continue\(onto)"
        case "continue":
            if modifier == "uturn" { return "Make a U-turn to stay on \(name.isEmpty ? "the road" : name)" }
            return "Keep \(modifier ?? "straight")" + (name.isEmpty ? "" : " to stay on \(name)")
        default:
            if modifier == "uturn" { return "Make a U-turn\(onto)" }
            return "Turn \(modifier ?? "straight")\(onto)"
        }
    }

    public static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (1, let tens) where tens != 11: suffix = "st"
        case (2, let tens) where tens != 12: suffix = "nd"
        case (3, let tens) where tens != 13: suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}
