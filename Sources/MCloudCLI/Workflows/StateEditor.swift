import Foundation
import MCloudCore
import MCloudProvider

/// The repairs `mcloud state` makes, under the state lock: removing a resource from the state and pushing a state file.
struct StateEditor {
    var backend: any StateBackend

    /// `state rm ADDRESS`: the state forgets a resource, which stays in its cloud.
    func remove(_ address: ResourceAddress, _ context: CommandContext) throws(CommandFailure) -> ExitCode {
        guard var next = try Self.changing({ () throws(StateError) in try backend.read()?.nextSerial() }), next[address] != nil else {
            throw CommandFailure("the state has no resource \(address)")
        }
        next.remove(address: address)
        try Self.changing { () throws(StateError) in try backend.write(next) }
        context.stdout.write("Removed \(address) from the state; the resource itself is untouched.\n")
        return .success
    }

    /// `state push FILE`: FILE becomes the next version of the state, unless it is older.
    func push(_ file: String, _ context: CommandContext) throws(CommandFailure) -> ExitCode {
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        let pushed = try Self.changing { () throws(StateError) in try State.parse(Array(data), source: file) }
        let stored = try Self.changing { () throws(StateError) in try backend.read() }
        if let stored, pushed.serial < stored.serial {
            throw CommandFailure("\(file) is older than the state (serial \(pushed.serial) < \(stored.serial)); nothing was changed")
        }
        // A pulled and edited state keeps its serial; it becomes the next version of the stored one.
        let serial = max(pushed.serial, (stored?.serial ?? 0) + 1)
        var next = State(lineage: pushed.lineage, serial: serial, resources: pushed.resources)
        next.application = pushed.application
        next.lost = pushed.lost
        next.retained = pushed.retained
        next.primaries = pushed.primaries
        try Self.changing { () throws(StateError) in try backend.write(next) }
        context.stdout.write("Pushed \(file) as serial \(serial) (\(pushed.resources.count) resources).\n")
        return .success
    }

    /// A state operation whose error is the command's.
    static func changing<T>(_ operation: () throws(StateError) -> T) throws(CommandFailure) -> T {
        do throws(StateError) {
            return try operation()
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
