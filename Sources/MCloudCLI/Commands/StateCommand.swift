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
                try StateEditor(backend: backend).remove(ResourceAddress(argument), context)
            }
        case .push:
            return try await ApplyRunner.withLock(backend, operation: "state push", context) { _, _ throws(CommandFailure) in
                try StateEditor(backend: backend).push(argument, context)
            }
        case .forceUnlock:
            try StateEditor.changing { () throws(StateError) in try backend.forceUnlock(id: argument) }
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
}
