import Foundation
import MCloudCore
import MCloudProvider
import MCloudState

/// `mcloud state`: read and repair the state without touching the clouds.
struct StateCommand: Command {
    static let spec = CommandSpec(
        name: "state",
        abstract: "List, show, remove, pull, push or unlock the state.",
        discussion: "list: every address. show ADDRESS: what the state records for one. rm ADDRESS: forget a resource (it stays in the cloud). pull: print the whole state. push FILE: replace the state with FILE (same lineage, not older). force-unlock ID: release a lock left by a process that died. Changes take the state lock.",
        options: [StateOptions.option],
        positionals: [
            CommandSpec.Positional(name: "SUBCOMMAND", help: "list, show, rm, pull, push or force-unlock."),
            CommandSpec.Positional(name: "ARGUMENT", help: "The ADDRESS, FILE or lock ID the subcommand takes.", isOptional: true),
        ]
    )

    enum Subcommand: String, CaseIterable {
        case list, show, rm, pull, push
        case forceUnlock = "force-unlock"

        var takesArgument: Bool { self == .show || self == .rm || self == .push || self == .forceUnlock }
    }

    var subcommand: Subcommand
    var argument: String?
    var state: StateOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = arguments.positionals.first ?? ""
        guard let subcommand = Subcommand(rawValue: name) else {
            let hint = Suggestion.didYouMean(name, in: Subcommand.allCases.map(\.rawValue)).replacingQuotes
            throw UsageError(message: "unknown state subcommand '\(name)'\(hint)")
        }
        self.subcommand = subcommand
        argument = arguments.positionals.dropFirst().first
        if subcommand.takesArgument, argument == nil { throw UsageError(message: "state \(name) needs an argument") }
        if !subcommand.takesArgument, argument != nil { throw UsageError(message: "state \(name) takes no argument") }
        state = try StateOptions(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let backend = try state.backend()
        let argument = argument ?? ""
        switch subcommand {
        case .list, .show, .pull:
            try read(try StateOptions.read(backend), context)
        case .rm:
            return try await ApplyRunner.withLock(backend, operation: "state rm", context) { _, _ throws(CommandFailure) in
                try remove(ResourceAddress(argument), backend: backend, context)
            }
        case .push:
            return try await ApplyRunner.withLock(backend, operation: "state push", context) { _, _ throws(CommandFailure) in
                try push(argument, backend: backend, context)
            }
        case .forceUnlock:
            try Self.changing { () throws(StateError) in try backend.forceUnlock(id: argument) }
            context.stdout.write("Released the state lock \(argument).\n")
        }
        return .success
    }

    private func read(_ stored: State?, _ context: CommandContext) throws(CommandFailure) {
        switch subcommand {
        case .pull:
            context.stdout.write((stored ?? State()).serialized())
        case .show:
            guard let resource = stored?[ResourceAddress(argument ?? "")] else {
                let hint = Suggestion.didYouMean(argument ?? "", in: stored?.resources.map(\.address.rawValue) ?? []).replacingQuotes
                throw CommandFailure("the state has no resource \(argument ?? "")\(hint)")
            }
            context.stdout.write(resource.json.serialized() + "\n")
        default:
            for resource in stored?.resources ?? [] { context.stdout.write(resource.address.rawValue + "\n") }
        }
    }

    private func remove(_ address: ResourceAddress, backend: any StateBackend, _ context: CommandContext) throws(CommandFailure) -> ExitCode {
        guard var next = try Self.changing({ () throws(StateError) in try backend.read()?.nextSerial() }), next[address] != nil else {
            throw CommandFailure("the state has no resource \(address)")
        }
        next.remove(address: address)
        try Self.changing { () throws(StateError) in try backend.write(next) }
        context.stdout.write("Removed \(address) from the state; the resource itself is untouched.\n")
        return .success
    }

    private func push(_ file: String, backend: any StateBackend, _ context: CommandContext) throws(CommandFailure) -> ExitCode {
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
        try Self.changing { () throws(StateError) in try backend.write(next) }
        context.stdout.write("Pushed \(file) as serial \(serial) (\(pushed.resources.count) resources).\n")
        return .success
    }

    /// A state operation whose error is the command's.
    private static func changing<T>(_ operation: () throws(StateError) -> T) throws(CommandFailure) -> T {
        do throws(StateError) {
            return try operation()
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
