import Foundation
import MCloudCore
@testable import MCloudEngine
import MCloudProvider
import MCloudState
import Synchronization
import Testing

/// A file backend whose writes are slow, counting them: what a large state on a slow disk looks like.
final class SlowBackend: StateBackend {
    let file: FileStateBackend
    let writes = Mutex(0)

    init() throws {
        file = FileStateBackend(path: EngineFixtures.temporaryDirectory() + "/state.json")
        _ = try file.lock(operation: "apply")
    }

    func read() throws(StateError) -> State? { try file.read() }
    func write(_ state: State) throws(StateError) {
        usleep(50_000)
        try file.write(state)
        writes.withLock { $0 += 1 }
    }
    func lock(operation: String) throws(StateError) -> LockInfo { try file.lock(operation: operation) }
    func unlock(id: String) throws(StateError) { try file.unlock(id: id) }
    func forceUnlock(id: String) throws(StateError) { try file.forceUnlock(id: id) }
}

@Suite struct StateRecorderTests {
    @Test func changesThatFinishTogetherShareWritesAndEachIsStoredWhenItReturns() async throws {
        let backend = try SlowBackend()
        let recorder = StateRecorder(state: State(), backend: backend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let address: ResourceAddress = "memory.lab.ConfigMap.shop.c\(index)"
                    try await recorder.record(EngineFixtures.recorded(address, EngineFixtures.body("ConfigMap", "c\(index)")))
                    // Done means on disk.
                    #expect(try backend.read()?[address] != nil)
                }
            }
            try await group.waitForAll()
        }
        let stored = try #require(try backend.read())
        #expect(stored.resources.count == 20)
        let writes = backend.writes.withLock { $0 }
        #expect(writes < 20 && writes >= 2, "\(writes) writes")
        #expect(stored.serial == writes)
        #expect(await recorder.writes == writes)
        try await recorder.forget("memory.lab.ConfigMap.shop.c0")
        #expect(try backend.read()?.resources.count == 19)
    }
}
