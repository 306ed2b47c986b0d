import MCloudProvider
import MCloudState

/// `--state URL`, shared by the commands that read or write the state.
struct StateOptions {
    static let option = CommandSpec.Option(
        names: ["--state"], valueName: "URL",
        help: "Where the state lives: file://PATH or postgres://... (default: file://\(FileStateBackend.defaultPath))."
    )

    var url: StateURL

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let text = arguments.value(Self.option.canonicalName) else {
            url = .default
            return
        }
        do throws(StateError) {
            url = try StateURL(parsing: text)
        } catch {
            throw UsageError(message: "--state: \(error)")
        }
    }

    /// The backend, or why it cannot be used.
    func backend() throws(CommandFailure) -> any StateBackend {
        do throws(StateError) {
            return try url.backend()
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// The stored state; nil when none was written yet.
    static func read(_ backend: any StateBackend) throws(CommandFailure) -> State? {
        do throws(StateError) {
            return try backend.read()
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
