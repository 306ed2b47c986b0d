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

    func run(_ context: CommandContext) async -> ExitCode {
        guard let backend = state.backend(context) else { return .failure }
        let argument = argument ?? ""
        switch subcommand {
        case .list, .show, .pull:
            let stored = StateOptions.read(backend, context)
            guard stored.ok else { return .failure }
            return read(stored.state, context)
        case .rm:
            return await ApplyRunner.withLock(backend, operation: "state rm", context) { _, _ in remove(ResourceAddress(argument), backend: backend, context) }
        case .push:
            return await ApplyRunner.withLock(backend, operation: "state push", context) { _, _ in push(argument, backend: backend, context) }
        case .forceUnlock:
            do throws(StateError) {
                try backend.forceUnlock(id: argument)
                context.stdout.write("Released the state lock \(argument).\n")
                return .success
            } catch {
                context.stderr.write("error: \(error)\n")
                return .failure
            }
        }
    }

    private func read(_ stored: State?, _ context: CommandContext) -> ExitCode {
        switch subcommand {
        case .pull:
            context.stdout.write((stored ?? State()).serialized())
        case .show:
            guard let resource = stored?[ResourceAddress(argument ?? "")] else {
                let hint = Suggestion.didYouMean(argument ?? "", in: stored?.resources.map(\.address.rawValue) ?? []).replacingQuotes
                context.stderr.write("error: the state has no resource \(argument ?? "")\(hint)\n")
                return .failure
            }
            context.stdout.write(resource.json.serialized() + "\n")
        default:
            for resource in stored?.resources ?? [] { context.stdout.write(resource.address.rawValue + "\n") }
        }
        return .success
    }

    private func remove(_ address: ResourceAddress, backend: any StateBackend, _ context: CommandContext) -> ExitCode {
        do throws(StateError) {
            guard var next = try backend.read()?.nextSerial(), next[address] != nil else {
                context.stderr.write("error: the state has no resource \(address)\n")
                return .failure
            }
            next.remove(address: address)
            try backend.write(next)
            context.stdout.write("Removed \(address) from the state; the resource itself is untouched.\n")
            return .success
        } catch {
            context.stderr.write("error: \(error)\n")
            return .failure
        }
    }

    private func push(_ file: String, backend: any StateBackend, _ context: CommandContext) -> ExitCode {
        guard let data = FileManager.default.contents(atPath: file) else {
            context.stderr.write("error: cannot read \(file)\n")
            return .failure
        }
        do throws(StateError) {
            let pushed = try State.parse(Array(data), source: file)
            let stored = try backend.read()
            if let stored, pushed.serial < stored.serial {
                context.stderr.write("error: \(file) is older than the state (serial \(pushed.serial) < \(stored.serial)); nothing was changed\n")
                return .failure
            }
            // A pulled and edited state keeps its serial; it becomes the next version of the stored one.
            let serial = max(pushed.serial, (stored?.serial ?? 0) + 1)
            var next = State(lineage: pushed.lineage, serial: serial, resources: pushed.resources)
            next.application = pushed.application
            next.lost = pushed.lost
            next.retained = pushed.retained
            try backend.write(next)
            context.stdout.write("Pushed \(file) as serial \(serial) (\(pushed.resources.count) resources).\n")
            return .success
        } catch {
            context.stderr.write("error: \(error)\n")
            return .failure
        }
    }
}
