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

    /// The backend, or nil after printing why it cannot be used.
    func backend(_ context: CommandContext) -> (any StateBackend)? {
        do throws(StateError) {
            return try url.backend()
        } catch {
            context.stderr.write("error: \(error)\n")
            return nil
        }
    }

    /// The stored state (nil when none was written yet); false after printing why it cannot be read.
    static func read(_ backend: any StateBackend, _ context: CommandContext) -> (ok: Bool, state: State?) {
        do throws(StateError) {
            return (true, try backend.read())
        } catch {
            context.stderr.write("error: \(error)\n")
            return (false, nil)
        }
    }
}
