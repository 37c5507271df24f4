/// Decodes one `PrimitiveBlock`: the string table, then groups of dense nodes, plain nodes, ways and relations.
struct PrimitiveBlockDecoder {
    private var reader: ProtobufReader
    private var strings: [String] = []
    private var granularity: Int64 = 100
    private var latOffset: Int64 = 0
    private var lonOffset: Int64 = 0

    init(bytes: [UInt8]) { reader = ProtobufReader(bytes: bytes) }

    mutating func decode<Visitor: OSMElementVisitor>(into visitor: inout Visitor) throws(MapImportError) {
        // The string table and the coordinate scale may come after the groups, so read those first.
        var groups: [Range<Int>] = []
        while let field = try reader.nextField() {
            switch (field.number, field.type) {
            case (1, .lengthDelimited): try readStringTable(reader.readLengthDelimited())
            case (2, .lengthDelimited): groups.append(try reader.readLengthDelimited())
            case (17, .varint): granularity = Int64(try reader.readInt32())
            case (19, .varint): latOffset = try reader.readInt64()
            case (20, .varint): lonOffset = try reader.readInt64()
            default: try reader.skip(field.type)
            }
        }
        guard granularity > 0 else { throw .corrupt("granularity \(granularity)") }
        for group in groups { try decodeGroup(group, into: &visitor) }
    }

    private mutating func readStringTable(_ range: Range<Int>) throws(MapImportError) {
        var table = reader.subreader(range)
        while let field = try table.nextField() {
            if field.number == 1, field.type == .lengthDelimited {
                strings.append(try table.readString())
            } else {
                try table.skip(field.type)
            }
        }
    }

    private func string(_ index: UInt64) throws(MapImportError) -> String {
        guard index < UInt64(strings.count) else { throw .corrupt("string index \(index) outside the table") }
        return strings[Int(index)]
    }

    /// OSM coordinates in 1e-7 degrees from the block's scaled integers (nanodegrees = offset + granularity * value).
    private func e7(_ value: Int64, offset: Int64) throws(MapImportError) -> Int32 {
        let (scaled, overflow) = value.multipliedReportingOverflow(by: granularity)
        let nanodegrees = scaled &+ offset
        guard !overflow, abs(nanodegrees) <= 180_000_000_000 else { throw .corrupt("coordinate out of range") }
        return Int32(nanodegrees / 100)
    }

    private func decodeGroup<Visitor: OSMElementVisitor>(
        _ range: Range<Int>, into visitor: inout Visitor
    ) throws(MapImportError) {
        var group = reader.subreader(range)
        while let field = try group.nextField() {
            guard field.type == .lengthDelimited else {
                try group.skip(field.type)
                continue
            }
            let body = try group.readLengthDelimited()
            switch field.number {
            case 1: try decodeNode(body, into: &visitor)
            case 2: try decodeDenseNodes(body, into: &visitor)
            case 3: visitor.visitWay(try decodeWay(body))
            case 4: visitor.visitRelation(try decodeRelation(body))
            default: break
            }
        }
    }

    private func decodeNode<Visitor: OSMElementVisitor>(
        _ range: Range<Int>, into visitor: inout Visitor
    ) throws(MapImportError) {
        var node = reader.subreader(range)
        var id: Int64?
        var lat: Int64 = 0
        var lon: Int64 = 0
        while let field = try node.nextField() {
            switch (field.number, field.type) {
            case (1, .varint): id = try node.readSignedVarint()
            case (8, .varint): lat = try node.readSignedVarint()
            case (9, .varint): lon = try node.readSignedVarint()
            default: try node.skip(field.type)
            }
        }
        guard let id else { throw .corrupt("node without an id") }
        visitor.visitNode(id: id, latE7: try e7(lat, offset: latOffset), lonE7: try e7(lon, offset: lonOffset))
    }

    private func decodeDenseNodes<Visitor: OSMElementVisitor>(
        _ range: Range<Int>, into visitor: inout Visitor
    ) throws(MapImportError) {
        var dense = reader.subreader(range)
        var ids: [Int64] = []
        var lats: [Int64] = []
        var lons: [Int64] = []
        while let field = try dense.nextField() {
            switch field.number {
            case 1: try dense.readPackedSignedVarints(field.type, into: &ids)
            case 8: try dense.readPackedSignedVarints(field.type, into: &lats)
            case 9: try dense.readPackedSignedVarints(field.type, into: &lons)
            default: try dense.skip(field.type)
            }
        }
        guard ids.count == lats.count, ids.count == lons.count else {
            throw .corrupt("dense nodes with \(ids.count) ids but \(lats.count) latitudes and \(lons.count) longitudes")
        }
        var id: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        for index in ids.indices {
            id &+= ids[index]
            lat &+= lats[index]
            lon &+= lons[index]
            visitor.visitNode(id: id, latE7: try e7(lat, offset: latOffset), lonE7: try e7(lon, offset: lonOffset))
        }
    }

    private func tags(keys: [UInt64], values: [UInt64]) throws(MapImportError) -> [String: String] {
        guard keys.count == values.count else { throw .corrupt("\(keys.count) tag keys but \(values.count) values") }
        var tags: [String: String] = [:]
        tags.reserveCapacity(keys.count)
        for index in keys.indices { tags[try string(keys[index])] = try string(values[index]) }
        return tags
    }

    private func decodeWay(_ range: Range<Int>) throws(MapImportError) -> OSMWay {
        var way = reader.subreader(range)
        var id: Int64?
        var keys: [UInt64] = []
        var values: [UInt64] = []
        var refs: [Int64] = []
        while let field = try way.nextField() {
            switch field.number {
            case 1 where field.type == .varint: id = try way.readInt64()
            case 2: try way.readPackedVarints(field.type, into: &keys)
            case 3: try way.readPackedVarints(field.type, into: &values)
            case 8: try way.readPackedSignedVarints(field.type, into: &refs)
            default: try way.skip(field.type)
            }
        }
        guard let id else { throw .corrupt("way without an id") }
        var nodeId: Int64 = 0
        let nodeIds = refs.map { delta in
            nodeId &+= delta
            return nodeId
        }
        return OSMWay(id: id, nodeIds: nodeIds, tags: try tags(keys: keys, values: values))
    }

    private func decodeRelation(_ range: Range<Int>) throws(MapImportError) -> OSMRelation {
        var relation = reader.subreader(range)
        var id: Int64?
        var keys: [UInt64] = []
        var values: [UInt64] = []
        var roles: [UInt64] = []
        var memberIds: [Int64] = []
        var types: [UInt64] = []
        while let field = try relation.nextField() {
            switch field.number {
            case 1 where field.type == .varint: id = try relation.readInt64()
            case 2: try relation.readPackedVarints(field.type, into: &keys)
            case 3: try relation.readPackedVarints(field.type, into: &values)
            case 8: try relation.readPackedVarints(field.type, into: &roles)
            case 9: try relation.readPackedSignedVarints(field.type, into: &memberIds)
            case 10: try relation.readPackedVarints(field.type, into: &types)
            default: try relation.skip(field.type)
            }
        }
        guard let id else { throw .corrupt("relation without an id") }
        guard roles.count == memberIds.count, types.count == memberIds.count else {
            throw .corrupt("relation \(id) has inconsistent member arrays")
        }
        var members: [OSMRelation.Member] = []
        members.reserveCapacity(memberIds.count)
        var memberId: Int64 = 0
        for index in memberIds.indices {
            memberId &+= memberIds[index]
            guard let type = OSMRelation.MemberType(rawValue: UInt8(truncatingIfNeeded: types[index])) else {
                throw .corrupt("relation \(id) has a member of unknown type \(types[index])")
            }
            // Roles are stored signed in the schema but are string-table indices.
            let role = try string(UInt64(UInt32(truncatingIfNeeded: roles[index])))
            members.append(.init(type: type, id: memberId, role: role))
        }
        return OSMRelation(id: id, members: members, tags: try tags(keys: keys, values: values))
    }
}
