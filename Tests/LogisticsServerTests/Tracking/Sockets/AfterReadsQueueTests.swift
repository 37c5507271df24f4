import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LogisticsServer

/// The riders' acks go through a lane so that a commit answering thousands of them at once does not keep the loop
/// from reading its sockets.
@Suite("Loop lane", .timeLimit(.minutes(1)))
struct AfterReadsQueueTests {
    @Test("posted work runs in order, a chunk a turn, and the loop reads its sockets between the chunks")
    func readsBetweenChunks() async throws {
        let read = try await readAmong(count: 16 * AfterReadsQueue.chunk, itemCost: 0, loops: nil)
        // After the first chunk, or a later one when the delivery was late; without the lane, after the last.
        #expect(read % AfterReadsQueue.chunk == 0 && read < 16 * AfterReadsQueue.chunk)
    }

    @Test("on a loop that reports its ticks, slow work still lets the loop read after its first chunks")
    func readsBetweenSlowChunks() async throws {
        // 100 µs an item: each next turn is due before the loop's other tasks are done, which on a lane that only
        // waits 50 µs ran the turns back to back and the read came after all 1,024 items.
        let count = 16 * AfterReadsQueue.chunk
        let read = try await readAmong(
            count: count, itemCost: 100,
            loops: MultiThreadedEventLoopGroup(numberOfThreads: 1, metricsDelegate: AfterReadsQueue.tickReporter))
        #expect(read % AfterReadsQueue.chunk == 0 && read <= 4 * AfterReadsQueue.chunk)
    }

    /// Posts `count` items of `itemCost` µs from one task on the loop while a client's bytes wait to be read, and
    /// says after how many items the loop read them.
    private func readAmong(count: Int, itemCost: UInt32, loops: MultiThreadedEventLoopGroup?) async throws -> Int {
        let (serverGroup, clientGroup) = (
            loops ?? MultiThreadedEventLoopGroup(numberOfThreads: 1), MultiThreadedEventLoopGroup(numberOfThreads: 1)
        )
        let loop = serverGroup.next()
        let (log, written) = (Log(), Log())
        let accepted = loop.makePromise(of: Void.self)
        let server = try await ServerBootstrap(group: serverGroup)
            .childChannelInitializer { $0.pipeline.addHandler(ReadLogger(log: log, accepted: accepted)) }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: clientGroup)
            .connect(host: "127.0.0.1", port: server.localAddress!.port!).get()
        try await accepted.futureResult.get()
        let lane = AfterReadsQueue.of(loop)
        #expect(AfterReadsQueue.of(loop) === lane)
        let done = loop.makePromise(of: Void.self)
        // Without the lane the loop would run every item before reading the client's bytes.
        try await loop.submit {
            for index in 0..<count {
                lane.post {
                    if itemCost > 0 { usleep(itemCost) }
                    log.append("\(index)")
                    if index == count - 1 { done.succeed() }
                }
            }
            // Written on localhost is in the server's socket within moments (the kernel may finish the delivery
            // a little after the write returns).
            client.writeAndFlush(ByteBuffer(string: "fix")).whenSuccess { written.append("fix") }
            for _ in 0..<5_000 where written.entries.isEmpty { usleep(1_000) }
            usleep(20_000)
        }.get()
        try await done.futureResult.get()
        let entries = log.entries
        let read = try #require(entries.firstIndex(of: "read"))
        #expect(entries.filter { $0 != "read" } == (0..<count).map { "\($0)" })
        try await client.close()
        try await server.close()
        try await clientGroup.shutdownGracefully()
        try await serverGroup.shutdownGracefully()
        return read
    }
}

private final class Log: Sendable {
    private let state = Mutex<[String]>([])

    var entries: [String] { state.withLock { $0 } }

    func append(_ entry: String) { state.withLock { $0.append(entry) } }
}

private final class ReadLogger: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let log: Log
    let accepted: EventLoopPromise<Void>

    init(log: Log, accepted: EventLoopPromise<Void>) {
        self.log = log
        self.accepted = accepted
    }

    func channelActive(context: ChannelHandlerContext) {
        accepted.succeed()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        log.append("read")
    }
}
