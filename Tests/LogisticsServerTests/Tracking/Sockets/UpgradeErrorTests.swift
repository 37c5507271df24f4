import Foundation
import NIOCore
import Testing

@testable import LogisticsServer

/// A page reloaded or closed while its WebSocket was opening is the client leaving, not a server error: the demo's
/// console showed "Error handling upgrade result" each time (issue #49).
@Suite("Socket upgrades a client abandons")
struct UpgradeErrorTests {
    @Test("a connection closed or reset before its upgrade finished is not an error; anything else still is")
    func peerLeft() {
        for left: any Error in [
            ChannelError.inappropriateOperationForState, ChannelError.eof, ChannelError.inputClosed,
            ChannelError.ioOnClosedChannel, IOError(errnoCode: ECONNRESET, reason: "read"),
            IOError(errnoCode: EPIPE, reason: "write"), CancellationError(),
        ] {
            #expect(SocketUpgradeChannel.peerLeft(left), "\(left)")
        }
        for failure: any Error in [
            ChannelError.operationUnsupported, IOError(errnoCode: EMFILE, reason: "accept"),
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "x")),
        ] {
            #expect(!SocketUpgradeChannel.peerLeft(failure), "\(failure)")
        }
    }
}
